"""Question 3: it fits one node, but one node is too slow: N one-node replicas? (C7)

Serving: one node holds the model but delivers less than the target, so N copies run behind
a load balancer on ordinary Ethernet, no cluster interconnect. Or one node holds the weights
but not the KV cache of every request, or cannot serve all of them within the per-user
speed or first-token bound: N copies each take a share of the requests (the largest share
that meets the bounds), chosen over a cluster when it needs no more nodes. Training: the
state fits one node but the run misses the deadline, so N nodes run the one-node layout in
data parallel, the gradient all-reduce crossing the request's link.
"""

from __future__ import annotations

import math

from engine.decision import terms
from engine.decision.cluster import (
    MULTI_NODE_TAX,
    fewest_copies,
    precisions,
    replicated,
    smallest_cluster,
    tp_across,
    within,
)
from engine.decision.facts import Facts
from engine.decision.figures import serving, trained
from engine.decision.int4 import quality_caveat
from engine.decision.outcome import StepOutcome
from engine.physics.inference import InferencePlan
from engine.request import SizingRequest
from engine.result import StepAnswer
from engine.wording import Message, msg

__all__ = ["answer", "split_replicas"]

_QUESTION = msg("question.step3")


def split_replicas(facts: Facts) -> tuple[int, InferencePlan] | None:
    """The fewest one-node copies that, splitting the requests, each fit, meet the bounds and
    together carry the target. Ties go to the first precision (the sized one)."""
    best: tuple[int, InferencePlan] | None = None
    for prec in precisions(facts):
        if best is not None:
            break  # the sized precision found copies: 4-bit weights are not needed
        _, plans = facts.search.inference(prec, 1)
        cap = max((p.max_concurrency for p in plans if p.weights_ok), default=0)
        if cap <= 0:
            continue
        found = fewest_copies(facts, prec, 1, math.ceil(facts.concurrency / cap))
        if found is None:
            continue
        n, plan = found
        if facts.target:  # more copies, each running the same load, carry the target
            n = max(n, math.ceil(facts.target / plan.tokens_per_s))
        if best is None or n < best[0]:
            best = (n, plan)
    return best


def _prefer_split(facts: Facts, split: tuple[int, InferencePlan] | None,
                  cluster: tuple[int, InferencePlan, int] | None) -> bool:
    """Replicas win over the smallest cluster when they need no more nodes and no lower
    precision: 4-bit replicas do not displace a cluster that serves the sized precision."""
    if split is None:
        return False
    if cluster is None or not within(facts, cluster[1]):
        return True  # the copies meet the bounds (by construction); the cluster does not
    order = precisions(facts)
    mine = (split[0], order.index(split[1].precision))
    theirs = (cluster[0] * cluster[2], order.index(cluster[1].precision))
    return mine <= theirs


def _replica_notes(facts: Facts, n: int, per_copy: int) -> tuple[Message, ...]:
    """What a target carried by replicas assumes about the requests in flight."""
    r = facts.request
    if facts.target and n * per_copy > r.concurrency:
        return (msg("assumption.target_replicas", per_copy=per_copy, context=r.context,
                    copies=n, in_flight=n * per_copy),)
    return ()


def _serving(request: SizingRequest, facts: Facts) -> StepOutcome:
    precs = precisions(facts)
    fit_plan = next((p for p in (facts.search.inference(prec, 1)[0] for prec in precs)
                     if p is not None), None)
    if fit_plan is not None and facts.target and within(facts, fit_plan):
        n = max(2, math.ceil(facts.target / fit_plan.tokens_per_s))
        because = msg("evidence.replicas_target", precision=terms.precision(fit_plan.precision),
                      tokens_per_s=fit_plan.tokens_per_s, target=facts.target, copies=n,
                      total=n * fit_plan.tokens_per_s)
        return StepOutcome(
            StepAnswer.of(step=3, question=_QUESTION, answer="yes", because=because),
            serving(facts, "replicas", fit_plan, replicas=n, copies=n),
            caveats=(msg("caveat.replicas"), *quality_caveat(facts, fit_plan.precision)),
            assumptions=_replica_notes(facts, n, fit_plan.concurrency),
        )
    split = split_replicas(facts) if fit_plan is None or facts.bounds.any else None
    cluster = smallest_cluster(facts) if fit_plan is None else None
    cluster_nodes = cluster[0] * cluster[2] if cluster else None
    if split is not None and _prefer_split(facts, split, cluster):
        n, plan = split
        deployment = serving(facts, "replicas", plan, replicas=n, copies=n)
        pic = deployment.numbers.memory
        assert pic is not None  # a serving deployment always has its picture
        key = "evidence.replicas_split" if fit_plan is None else "evidence.replicas_bounds"
        because = msg(key, precision=terms.precision(plan.precision),
                      weights=pic.per_copy.weights_gb / plan.dp, load=terms.load(facts),
                      copies=n, per_copy=plan.concurrency, used=pic.per_copy.used_gb,
                      vram=pic.per_copy.vram_gb, tokens_per_s=plan.tokens_per_s,
                      per_user=plan.per_user_tokens_per_s, ttft=plan.ttft_s)
        if cluster is not None and not within(facts, cluster[1]):
            because = msg("evidence.replicas_split_slow_cluster", split=because,
                          nodes=cluster[0], per_user=cluster[1].per_user_tokens_per_s,
                          ttft=cluster[1].ttft_s)
        elif cluster_nodes is not None:
            because = msg("evidence.replicas_split_cluster", split=because,
                          cluster_nodes=cluster_nodes)
        routing = () if facts.work.unattended else (msg(  # a batch has no conversation
            "caveat.replica_routing",
            per_copy=min(plan.concurrency, math.ceil(request.concurrency / n)),
            concurrency=request.concurrency),)
        caveats = (msg("caveat.replicas"), *routing, *quality_caveat(facts, plan.precision))
        return StepOutcome(StepAnswer.of(step=3, question=_QUESTION, answer="yes", because=because),
                           deployment, caveats=caveats,
                           assumptions=_replica_notes(facts, n, plan.concurrency))
    if split is not None and cluster is not None:
        why = msg("evidence.cluster_shares", copies=split[0], nodes=cluster[0],
                  clusters=cluster[2], total=cluster[0] * cluster[2])
    elif fit_plan is not None:
        why = msg("evidence.bounds_unreachable")
    elif len(precs) > 1:
        why = msg("evidence.size_limit_int4", format=terms.precision(precs[-1]))
    else:
        why = msg("evidence.size_limit", precision=terms.precision(facts.precision))
    return StepOutcome(StepAnswer.of(step=3, question=_QUESTION, answer="no", because=why))


def _training(request: SizingRequest, facts: Facts) -> StepOutcome:
    one, _ = facts.search.training(1)
    if one is None:
        return StepOutcome(StepAnswer.of(step=3, question=_QUESTION, answer="no",
                                      because=msg("evidence.train_size_limit")))
    tokens, deadline, top = facts.train_tokens, facts.deadline_days, facts.policy.max_cluster_nodes
    first = 2
    if facts.params.total < facts.policy.frontier_params_b * 1e9:
        # below the article's frontier line, data parallelism over one-node copies is
        # replicas however many it takes (the article's step 5 is a 70B+ from scratch):
        # from the copies perfect scaling needs, up to twice that
        first = max(2, math.ceil(one.days(tokens) / deadline))
        top = max(top, 2 * first)
    for nodes in range(first, top + 1):
        plan = replicated(facts, one, nodes)
        if plan.days(tokens) <= deadline:
            because = msg("evidence.train_dp", one_node_days=one.days(tokens), nodes=nodes,
                          layout=terms.training_layout(plan), link=facts.link.name,
                          days=plan.days(tokens), efficiency=plan.efficiency)
            across, said = tp_across(facts, plan)
            deployment = trained(facts, "replicas", plan, replicas=nodes).with_numbers(
                tp_across_nodes_efficiency=round(across, 3))
            return StepOutcome(
                StepAnswer.of(step=3, question=_QUESTION, answer="yes", because=because),
                deployment, caveats=(*said, *MULTI_NODE_TAX))
    last = replicated(facts, one, top)
    because = msg("evidence.train_dp_late", nodes=top, days=last.days(tokens),
                  deadline=deadline)
    return StepOutcome(StepAnswer.of(step=3, question=_QUESTION, answer="no", because=because))


def answer(request: SizingRequest, facts: Facts) -> StepOutcome:
    """Step 3 of the tree; yes -> ``replicas``."""
    return _training(request, facts) if request.is_training else _serving(request, facts)
