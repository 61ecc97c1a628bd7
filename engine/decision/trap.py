"""The research-lab trap (C19): two small nodes where one 8-GPU node would do.

A request on 4-GPU nodes whose answer is two of them (a cluster, or replicas) is compared
with one node of the article's size (the policy's ``full_node_gpus``). If that single node
answers at step 1 or 2, it is the recommendation: tensor parallelism across two nodes
projects worse per-GPU efficiency (0.65x against 0.73x on the article's 70B step), double the
operations, for about the same hardware cost. The answer as asked stays among the
alternatives, with the two efficiencies.
"""

from __future__ import annotations

import math

from engine.decision.facts import Facts
from engine.decision.outcome import Deployment, StepOutcome
from engine.decision.tree import walk, write_up
from engine.physics.memory import training_state
from engine.result import Alternative, Recommendation
from engine.wording import msg

__all__ = ["decided", "final"]


def _efficiencies(facts: Facts, big: int) -> tuple[float, float]:
    """The article's comparison on this model: a full fine-tune step at TP over ``big`` GPUs,
    inside one node and split across nodes of the request's size."""
    state = training_state(facts.model, facts.params, "full-finetune", facts.policy)
    nodes = math.ceil(big / facts.gpn)
    inside = facts.search.project(nodes=1, gpus_per_node=big, tp=big, pp=1, dp=1, state=state)
    split = facts.search.project(nodes=nodes, tp=nodes * facts.gpn, pp=1, dp=1, state=state)
    return inside.efficiency, split.efficiency


def _single_node_instead(
    facts: Facts, outcomes: list[StepOutcome]
) -> tuple[Facts, list[StepOutcome]] | None:
    """The big node's facts and walk, when ``outcomes`` end in the trap and it answers alone.
    Never when the nodes the customer already has are enough: the trap is a purchase, and
    theirs are bought (what they do is the answer; engine/decision/owned.py). When more must
    be bought, one big node is still the better buy."""
    d = outcomes[-1].deployment
    big = facts.policy.full_node_gpus
    owned = facts.request.nodes_owned
    if (d is None or (owned is not None and d.total_nodes <= owned) or facts.gpn >= big
            or d.verdict not in ("multi_node", "replicas") or d.total_nodes * facts.gpn > big):
        return None
    big_facts = facts.other(gpus_per_node=big)
    big_walk = walk(big_facts)
    single = big_walk[-1].deployment
    if single is None or single.verdict not in ("single_node", "single_node_int4"):
        return None
    return big_facts, big_walk


def final(facts: Facts) -> tuple[Facts, int, Deployment]:
    """The facts, step and deployment the tree ends on, the trap avoided (what an alternative
    needs, without writing the whole answer up)."""
    outcomes = walk(facts)
    instead = _single_node_instead(facts, outcomes)
    if instead is not None:
        facts, outcomes = instead
    d = outcomes[-1].deployment
    assert d is not None  # a closing outcome carries its deployment
    return facts, outcomes[-1].answer.step, d


def decided(facts: Facts) -> tuple[Facts, Recommendation]:
    """The recommendation for ``facts``, or the single big node instead when ``facts`` lead
    into the trap; with the facts it was decided on (the alternatives compare other GPUs on
    the same node size)."""
    outcomes = walk(facts)
    instead = _single_node_instead(facts, outcomes)
    asked = write_up(facts, outcomes)
    if instead is None:
        return facts, asked
    big_facts, big_walk = instead
    single = write_up(big_facts, big_walk)
    big = big_facts.gpn
    inside, split = _efficiencies(facts, big)
    # the article's two 4-GPU nodes, in its words; more small nodes (1-GPU ones) counted
    trap = msg("caveat.research_lab_trap", small=facts.gpn, big=big, split=split,
               single=inside) if asked.nodes <= 2 else msg(
        "caveat.research_lab_trap_many", nodes=asked.nodes, small=facts.gpn, big=big,
        split=split, single=inside)
    as_asked = Alternative.of(
        kind="as_asked",
        label=msg("alternative.as_asked", nodes=asked.nodes, gpus=facts.gpn),
        verdict=asked.verdict, gpu=asked.gpu, nodes=asked.nodes, precision=asked.precision,
        layout=asked.layout,
        summary=msg("alternative.as_asked_summary", headline=asked.headline, split=split,
                    single=inside),
        numbers=asked.numbers,
    )
    return big_facts, single.model_copy(update={
        "caveats": [trap, *single.caveats],
        "alternatives": [as_asked],
    })
