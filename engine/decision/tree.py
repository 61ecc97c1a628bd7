"""The tree: the article's five questions in order; the first yes closes (C20, by construction).

:func:`walk` asks each question (one module each: single_node, int4, replicas, cluster,
frontier) until one answers yes; the fifth always does. :func:`write_up` turns that walk into
the :class:`engine.result.Recommendation` (:func:`decide` does both): the questions asked,
the deployment of the yes, its headline, its math, its caveats and assumptions (the
request's premises first), and the runner-up layout. The research-lab trap and the other
GPUs are compared by engine/decision/trap.py and engine/decision/alternatives.py, which walk
the tree on other facts: nothing here calls itself.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.decision import cluster, frontier, int4, replicas, single_node
from engine.decision.explain import math_lines
from engine.decision.facts import Facts, estimated_link
from engine.decision.headline import headline
from engine.decision.outcome import Deployment, StepOutcome
from engine.decision.premises import premises
from engine.decision.runner_up import runner_up
from engine.decision.shortfall import shortfalls
from engine.physics.inference import InferencePlan
from engine.request import SizingRequest
from engine.result import ModelRef, Recommendation
from engine.wording import Message, msg

__all__ = ["STEPS", "decide", "walk", "write_up"]

Step = Callable[[SizingRequest, Facts], StepOutcome]

#: The article's questions, in its order.
STEPS: tuple[Step, ...] = (single_node.answer, int4.answer, replicas.answer, cluster.answer,
                           frontier.answer)


def walk(facts: Facts) -> list[StepOutcome]:
    """Every question up to and including the first yes."""
    out: list[StepOutcome] = []
    for step in STEPS:
        outcome = step(facts.request, facts)
        out.append(outcome)
        if outcome.closes:
            return out
    raise AssertionError("question 5 always answers yes")


def _general_caveats(facts: Facts, d: Deployment) -> list[Message]:
    """Caveats of any answer: a tight fit (serving), hardware the vendor does not build."""
    out: list[Message] = []
    pol = facts.policy
    plan = d.plan
    if (isinstance(plan, InferencePlan) and plan.dp == 1
            and plan.weights_share > pol.comfortable_weights_share):
        out.append(msg("caveat.comfortable", weights_share=plan.weights_share,
                       comfortable=pol.comfortable_weights_share))
    free = d.numbers.free_share
    if free is not None and free < pol.min_free_share and plan is not None:
        kind = "training" if facts.request.is_training else "serving"
        out.append(msg(f"caveat.tight_{kind}", free=free, floor=pol.min_free_share))
    if not facts.gpu.vendor_builds:
        built = [g.name for g in facts.catalog.gpus.values() if g.vendor_builds]
        out.append(msg("caveat.compare_only", gpu=facts.gpu.name, vendor_gpus=built))
    return out


def _model_ref(facts: Facts) -> ModelRef:
    pc = facts.params
    return ModelRef.of(
        id=facts.model.id,
        name=facts.model.name,
        params_b=round(pc.total / 1e9, 3),
        active_params_b=round(pc.active / 1e9, 3),
        in_catalog=facts.in_catalog,
        moe=facts.model.is_moe,
        native_precision=facts.model.native_precision,
    )


def decide(facts: Facts) -> Recommendation:
    """The recommendation for ``facts``: the tree walked, the first yes written up."""
    return write_up(facts, walk(facts))


def write_up(facts: Facts, outcomes: list[StepOutcome]) -> Recommendation:
    """The recommendation of a walk whose last outcome is the first yes.

    Caveats and assumptions hold no duplicate by construction: the request's premises, then
    what each question said, then the general caveats and the derived link, each once."""
    d = outcomes[-1].deployment
    assert d is not None  # a closing outcome carries its deployment
    caveats = [c for o in outcomes for c in o.caveats] + _general_caveats(facts, d)
    assumptions = premises(facts) + [a for o in outcomes for a in o.assumptions]
    title = headline(facts, d)
    missed = shortfalls(facts, d)
    if missed:
        title = msg("headline.short", headline=title, shortfalls=missed)
        caveats.append(msg("caveat.shortfall_fixes"))
    if d.crosses_nodes:
        fabric = frontier.frontier_fabric(facts) if d.verdict == "frontier" else facts.fabric
        nics = fabric.nics_per_node
        assumptions.append(msg("assumption.fabric_documented", link=facts.link.name, nics=nics))
        link_note = estimated_link(facts)
        if link_note is not None:
            assumptions.append(link_note)
    return Recommendation.of(
        step=outcomes[-1].answer.step,
        verdict=d.verdict,
        headline=title,
        nodes=d.total_nodes,
        gpus_per_node=facts.gpn,
        gpu=facts.gpu.id,
        gpu_name=facts.gpu.name,
        precision=d.precision,
        kv_precision=facts.request.kv_precision,
        layout=d.layout,
        replicas=d.replicas,
        interconnect=facts.link.id if d.crosses_nodes else None,
        model=_model_ref(facts),
        workload=facts.request.workload,
        numbers=d.numbers,
        questions=[o.answer for o in outcomes],
        caveats=caveats,
        assumptions=assumptions,
        alternatives=runner_up(facts, d),
        math=math_lines(facts, d),
        work=None if facts.request.is_training else facts.work.id,
    )
