"""Question 3: it fits one node, but one node is too slow: N one-node replicas? (C7)

Serving: one node holds the model but delivers less than the target, so N copies run behind
a load balancer on ordinary Ethernet, no cluster interconnect. Or one node holds the weights
but not the KV cache of every request, and N copies each take a share of the requests; that
is chosen over a cluster when it needs no more nodes. Training: the state fits one node but
the run misses the deadline, so N nodes run the one-node layout in data parallel, the
gradient all-reduce crossing the request's link.
"""

from __future__ import annotations

import math

from engine.decision import terms
from engine.decision.cluster import MULTI_NODE_TAX, precisions, replicated, smallest_cluster
from engine.decision.facts import Facts
from engine.decision.figures import serving, trained
from engine.decision.int4 import INT4_CAVEAT
from engine.decision.outcome import StepOutcome
from engine.physics.inference import InferencePlan
from engine.request import SizingRequest
from engine.result import StepAnswer
from engine.wording import Message, msg

__all__ = ["answer", "split_replicas"]

_QUESTION = msg("question.step3")


def split_replicas(facts: Facts) -> tuple[int, InferencePlan] | None:
    """The fewest one-node copies that, splitting the requests, each fit and meet the target.

    One node may hold the weights but not the KV cache of every request: N copies behind a
    load balancer each hold 1/N of them. Ties go to the first precision (the person's own).
    """
    conc, target = facts.request.concurrency, facts.request.target_tokens_per_s
    best: tuple[int, InferencePlan] | None = None
    for prec in precisions(facts.request):
        _, plans = facts.inference(prec, 1)
        cap = max((p.max_concurrency for p in plans if p.weights_ok), default=0)
        if cap <= 0:
            continue
        n = max(2, math.ceil(conc / cap))
        found: InferencePlan | None = None
        for _ in range(4):  # rounding may need a copy more
            found, _ = facts.inference(prec, 1, concurrency=math.ceil(conc / n))
            if found is not None:
                break
            n += 1
        if found is None:
            continue
        if target:  # more copies, each running the same load, carry the target
            n = max(n, math.ceil(target / found.tokens_per_s))
        if best is None or n < best[0]:
            best = (n, found)
    return best


def _replica_notes(facts: Facts, n: int, per_copy: int) -> tuple[Message, ...]:
    """What a target carried by replicas assumes about the requests in flight."""
    r = facts.request
    if r.target_tokens_per_s and n * per_copy > r.concurrency:
        return (msg("assumption.target_replicas", per_copy=per_copy, context=r.context,
                    copies=n, in_flight=n * per_copy),)
    return ()


def _serving(request: SizingRequest, facts: Facts) -> StepOutcome:
    target = request.target_tokens_per_s
    p1, _ = facts.inference(request.precision, 1)
    p2 = None
    if request.allow_int4 and request.precision != "int4":
        p2, _ = facts.inference("int4", 1)
    fit_plan = p1 or p2
    int4_used: tuple[Message, ...] = ()
    if fit_plan is not None and target:
        if fit_plan.precision == "int4" and request.precision != "int4":
            int4_used = (INT4_CAVEAT,)
        n = max(2, math.ceil(target / fit_plan.tokens_per_s))
        because = msg("evidence.replicas_target", precision=terms.precision(fit_plan.precision),
                      tokens_per_s=fit_plan.tokens_per_s, target=target, copies=n,
                      total=n * fit_plan.tokens_per_s)
        return StepOutcome(
            StepAnswer(step=3, question=_QUESTION, answer="yes", because=because),
            serving(facts, "replicas", fit_plan, replicas=n, copies=n),
            caveats=(msg("caveat.replicas"), *int4_used),
            assumptions=_replica_notes(facts, n, fit_plan.concurrency),
        )
    split = split_replicas(facts) if fit_plan is None else None
    cluster = smallest_cluster(facts)
    cluster_nodes = cluster[0] * cluster[2] if cluster else None
    if split is not None and (cluster_nodes is None or split[0] <= cluster_nodes):
        n, plan = split
        deployment = serving(facts, "replicas", plan, replicas=n, copies=n)
        pic = deployment.numbers.memory
        assert pic is not None  # a serving deployment always has its picture
        because = msg("evidence.replicas_split", precision=terms.precision(plan.precision),
                      weights=pic.per_copy.weights_gb / plan.dp, load=terms.load(facts),
                      copies=n, per_copy=plan.concurrency, used=pic.per_copy.used_gb,
                      vram=pic.per_copy.vram_gb, tokens_per_s=plan.tokens_per_s)
        if cluster_nodes is not None:
            because = msg("evidence.replicas_split_cluster", split=because,
                          cluster_nodes=cluster_nodes)
        if plan.precision == "int4" and request.precision != "int4":
            int4_used = (INT4_CAVEAT,)
        caveats = (msg("caveat.replicas"),
                   msg("caveat.replica_routing", per_copy=plan.concurrency,
                       concurrency=request.concurrency), *int4_used)
        return StepOutcome(StepAnswer(step=3, question=_QUESTION, answer="yes", because=because),
                           deployment, caveats=caveats,
                           assumptions=_replica_notes(facts, n, plan.concurrency))
    if split is not None and cluster is not None:
        why = msg("evidence.cluster_shares", copies=split[0], nodes=cluster[0])
    elif request.allow_int4 or request.precision == "int4":
        why = msg("evidence.size_limit_int4")
    else:
        why = msg("evidence.size_limit", precision=terms.precision(request.precision))
    return StepOutcome(StepAnswer(step=3, question=_QUESTION, answer="no", because=why))


def _training(request: SizingRequest, facts: Facts) -> StepOutcome:
    one, _ = facts.training(1)
    if one is None:
        return StepOutcome(StepAnswer(step=3, question=_QUESTION, answer="no",
                                      because=msg("evidence.train_size_limit")))
    tokens, deadline, top = facts.train_tokens, facts.deadline_days, facts.policy.max_cluster_nodes
    for nodes in range(2, top + 1):
        plan = replicated(facts, one, nodes)
        if plan.days(tokens) <= deadline:
            because = msg("evidence.train_dp", one_node_days=one.days(tokens), nodes=nodes,
                          layout=terms.training_layout(plan), link=facts.link.name,
                          days=plan.days(tokens), efficiency=plan.efficiency)
            return StepOutcome(
                StepAnswer(step=3, question=_QUESTION, answer="yes", because=because),
                trained(facts, "replicas", plan, replicas=nodes), caveats=MULTI_NODE_TAX)
    last = replicated(facts, one, top)
    because = msg("evidence.train_dp_late", nodes=top, days=last.days(tokens),
                  deadline=deadline)
    return StepOutcome(StepAnswer(step=3, question=_QUESTION, answer="no", because=because))


def answer(request: SizingRequest, facts: Facts) -> StepOutcome:
    """Step 3 of the tree; yes -> ``replicas``."""
    return _training(request, facts) if request.is_training else _serving(request, facts)
