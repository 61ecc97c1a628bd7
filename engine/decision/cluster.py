"""Question 4: it does not fit one node; does a 2-4 node InfiniBand cluster hold it in time?

Serving: the fewest nodes (2 up to the policy's ``max_cluster_nodes``) whose one multi-node
instance (TP inside each node, PP across) holds the weights and the KV cache (C13), with
copies of that cluster when a throughput target needs more. Training: the fewest nodes whose
best layout holds the sharded state and finishes before the deadline (C10), with the
projected scaling efficiency and, under 60 %, the advice to rethink (C16). Every multi-node
answer states the operational tax (C18) and what tensor parallelism across the nodes, the
layout a customer may expect, would give beside the one chosen (C16, :func:`tp_across`).
"""

from __future__ import annotations

import math

from engine.decision import evidence, terms
from engine.decision.facts import Facts
from engine.decision.figures import serving, trained
from engine.decision.int4 import FOUR_BIT, four_bit, quality_caveat
from engine.decision.outcome import StepOutcome
from engine.decision.picture import held_per_gpu
from engine.physics.comm import Fabric
from engine.physics.inference import InferencePlan, step_model
from engine.physics.serving import serve
from engine.physics.training import TrainingPlan
from engine.request import SizingRequest
from engine.result import Precision, StepAnswer
from engine.wording import Message, Param, msg

__all__ = [
    "MULTI_NODE_TAX",
    "SERVING_TAX",
    "answer",
    "fewest_copies",
    "precisions",
    "question",
    "replicated",
    "rethink",
    "smallest_cluster",
    "tp_across",
    "tp_across_serving",
    "within",
]

#: The operational tax of crossing the node boundary (C18), said by every multi-node answer.
MULTI_NODE_TAX: tuple[Message, ...] = (
    msg("tax.storage"),
    msg("tax.checkpoints"),
    msg("tax.network"),
    msg("tax.monitoring"),
    msg("tax.failures"),
    msg("tax.engineering"),
)
#: The same tax for a serving cluster: no training checkpoints to shard (C18's other items).
SERVING_TAX: tuple[Message, ...] = tuple(t for t in MULTI_NODE_TAX if t.id != "tax.checkpoints")


def rethink(facts: Facts, key: str, **params: Param) -> Message:
    """The article's advice under the efficiency floor (C16): its "or go SXM" only to a
    PCIe part; on SXM hardware the advice is the layout and the node count."""
    return msg(f"{key}_sxm" if facts.gpu.form == "sxm" else key, **params)


def question(facts: Facts) -> Message:
    return msg("question.step4", max_nodes=facts.policy.max_cluster_nodes)


def precisions(facts: Facts) -> list[Precision]:
    """The weight formats serving may use: the sized one, then 4-bit if allowed."""
    out: list[Precision] = [facts.precision]
    if facts.request.allow_int4 and facts.precision not in FOUR_BIT:
        out.append(four_bit(facts))
    return out


def fewest_copies(facts: Facts, prec: Precision, nodes: int, start: int
                  ) -> tuple[int, InferencePlan] | None:
    """The fewest copies (>= ``start``, at least 2) of a ``nodes``-node instance that each
    serve their share of the requests within the per-user bounds, or None when even one
    request per copy misses them: a bisection on the copies, the per-copy load falling as
    they grow."""
    conc = facts.concurrency

    def ok(n: int) -> InferencePlan | None:
        plan, _ = facts.search.inference(prec, nodes, concurrency=math.ceil(conc / n))
        return plan if within(facts, plan) else None

    lo = hi = max(2, start)
    found = ok(hi)
    while found is None:
        if hi >= conc:
            return None
        lo, hi = hi + 1, min(conc, hi * 2)
        found = ok(hi)
    best = (hi, found)
    while lo < hi:
        mid = (lo + hi) // 2
        plan = ok(mid)
        if plan is not None:
            hi, best = mid, (mid, plan)
        else:
            lo = mid + 1
    return best


def within(facts: Facts, plan: InferencePlan | None) -> bool:
    """Fits and meets the per-user bounds (a throughput target is carried by copies)."""
    return plan is not None and plan.serving is not None and facts.bounds.met(plan.serving)


def smallest_cluster(facts: Facts) -> tuple[int, InferencePlan, int] | None:
    """(nodes, plan, copies): the fewest nodes whose one multi-node instance holds the model,
    and the copies of it a throughput target needs. With per-user bounds, the copies that
    keep every user within them, each serving a share of the requests, over the cluster
    size that needs the fewest nodes in all (then the smaller cluster); when no number of
    copies meets them, the fewest nodes that hold the model, as without bounds (the answer
    then says the bounds are missed)."""
    target = facts.target
    held: tuple[int, InferencePlan, int] | None = None
    best: tuple[int, InferencePlan, int] | None = None
    for nodes in range(2, facts.policy.max_cluster_nodes + 1):
        if best is not None and best[0] * best[2] <= nodes:
            break  # a bigger cluster needs at least ``nodes`` nodes: it cannot need fewer
        for prec in precisions(facts):
            plan, _ = facts.search.inference(prec, nodes)
            if plan is None:
                continue
            copies = 1
            if target and plan.tokens_per_s < target:
                copies = math.ceil(target / plan.tokens_per_s)
            if not facts.bounds.any:
                return nodes, plan, copies
            held = held or (nodes, plan, copies)
            if within(facts, plan):
                found: tuple[int, InferencePlan, int] | None = (nodes, plan, copies)
            else:
                split = fewest_copies(facts, prec, nodes, 2)
                found = None
                if split is not None:
                    n, each = split
                    if target:  # more copies, each serving its share, carry the target
                        n = max(n, math.ceil(target / each.tokens_per_s))
                    found = (nodes, each, n)
            if found is not None and (best is None
                                      or found[0] * found[2] < best[0] * best[2]):
                best = found
            break  # the first format that holds the model is the one this size serves
    return best or held


def replicated(facts: Facts, node_plan: TrainingPlan, nodes: int) -> TrainingPlan:
    """``nodes`` copies of a one-node training layout, data parallel across the link."""
    return facts.search.project(nodes=nodes, tp=node_plan.tp, pp=node_plan.pp,
                         dp=node_plan.dp * nodes, strategy=node_plan.strategy)


def tp_across(facts: Facts, plan: TrainingPlan, fabric: Fabric | None = None, *,
              kept: float = 1.0) -> tuple[float, tuple[Message, ...]]:
    """C16: the same job with tensor parallelism spanning two nodes (TP = two nodes' GPUs,
    data parallel over the rest), its projected efficiency, and what the answer says of
    it: the comparison, and the article's advice when it falls under the efficiency floor.
    ``kept`` is the share of time a run at that scale trains (goodput): both efficiencies
    are quoted with it, as the answer's own is."""
    n = min(plan.gpus, 2 * plan.gpus_per_node)
    dp = max(1, plan.gpus // n)
    across = facts.search.project(nodes=n * dp // plan.gpus_per_node, tp=n, pp=1, dp=dp,
                           gpus_per_node=plan.gpus_per_node, fabric=fabric)
    pol = facts.policy
    efficiency = across.efficiency * kept
    said = [msg("caveat.tp_across", tp=n, link=facts.link.name, efficiency=efficiency,
                chosen=plan.efficiency * kept, layout=terms.training_layout(plan))]
    if efficiency < pol.efficiency_floor:
        said.append(rethink(facts, "caveat.tp_across_rethink", efficiency=efficiency,
                        floor=pol.efficiency_floor))
    return efficiency, tuple(said)


def tp_across_serving(facts: Facts, plan: InferencePlan) -> tuple[float, tuple[Message, ...]]:
    """C16 for serving: one instance with TP spanning two nodes (and PP over the rest, if
    more), its tokens/s against the chosen layout's."""
    n = min(plan.nodes, 2) * plan.gpus_per_node
    pp = max(1, plan.nodes * plan.gpus_per_node // n)
    sm = step_model(facts.model, facts.params, facts.kernels, facts.fabric, facts.policy,
                    precision=plan.precision, kv_precision=plan.kv_precision, tp=n, pp=pp,
                    spans_nodes=True, gpus_per_node=plan.gpus_per_node)
    across = serve(sm, facts.policy, plan.concurrency, facts.shape.isl, facts.shape.osl,
                   facts.shape.cached)
    share = across.tokens_per_s / plan.tokens_per_s if plan.tokens_per_s else 0.0
    said = [msg("caveat.tp_across_serving", tp=n, link=facts.link.name, share=share,
                layout=terms.inference_layout(plan))]
    if share < facts.policy.efficiency_floor:
        said.append(rethink(facts, "caveat.tp_across_rethink", efficiency=share,
                        floor=facts.policy.efficiency_floor))
    return share, tuple(said)


def _serving(request: SizingRequest, facts: Facts) -> StepOutcome:
    q = question(facts)
    found = smallest_cluster(facts)
    if found is None:
        because = msg("evidence.no_cluster", load=terms.load(facts),
                      hardware=terms.hardware(facts, facts.policy.max_cluster_nodes))
        return StepOutcome(StepAnswer.of(step=4, question=q, answer="no", because=because))
    nodes, plan, copies = found
    deployment = serving(facts, "multi_node", plan, nodes=nodes,
                         replicas=copies if copies > 1 else None, copies=copies)
    fit = evidence.fit(facts, plan)
    pic = deployment.numbers.memory
    assert pic is not None  # a serving deployment always has its picture
    because = msg("evidence.cluster", hardware=terms.hardware(facts, nodes),
                  vram=pic.per_copy.vram_gb, fit=fit, link=facts.link.name,
                  tokens_per_s=plan.tokens_per_s)
    assumptions: tuple[Message, ...] = ()
    if plan.concurrency < facts.concurrency:  # copies split the requests to meet the bounds
        because = msg("evidence.cluster_split", cluster=because, copies=copies,
                      per_copy=plan.concurrency, concurrency=facts.concurrency,
                      per_user=plan.per_user_tokens_per_s, ttft=plan.ttft_s)
    elif copies > 1:
        because = msg("evidence.cluster_copies", cluster=because, copies=copies,
                      target=facts.target)
        assumptions = (msg("assumption.target_clusters", copies=copies,
                           load=terms.load(facts)),)
    caveats: list[Message] = []
    if plan.precision != facts.precision:
        caveats.append(msg("caveat.cluster_int4", precision=terms.precision(facts.precision),
                           format=terms.precision(plan.precision)))
        caveats.extend(quality_caveat(facts, plan.precision))
    caveats.append(msg("caveat.serving_across_nodes"))
    share, said = tp_across_serving(facts, plan)
    caveats.extend(said)
    caveats.extend(SERVING_TAX)
    deployment = deployment.with_numbers(tp_across_nodes_efficiency=round(share, 3))
    return StepOutcome(StepAnswer.of(step=4, question=q, answer="yes", because=because),
                       deployment, caveats=tuple(caveats), assumptions=assumptions)


def _training(request: SizingRequest, facts: Facts) -> StepOutcome:
    pol, q = facts.policy, question(facts)
    if facts.search.training(1)[0] is not None:  # the state fits one node: time, not size, is short
        because = msg("evidence.train_compute_bound", nodes=pol.max_cluster_nodes)
        return StepOutcome(StepAnswer.of(step=4, question=q, answer="no", because=because))
    first_fit: int | None = None
    tokens, deadline = facts.train_tokens, facts.deadline_days
    for nodes in range(2, pol.max_cluster_nodes + 1):
        if facts.search.ideal_days(nodes * facts.gpn) > deadline:
            # even at perfect efficiency it is late: only whether it fits matters
            if first_fit is None and facts.search.training_fits(nodes):
                first_fit = nodes
            continue
        plan, _ = facts.search.training(nodes)
        if plan is None:
            continue
        first_fit = first_fit or nodes
        if plan.days(tokens) > deadline:
            continue
        because = msg("evidence.train_cluster", hardware=terms.hardware(facts, nodes),
                      link=facts.link.name, state=facts.state.total,
                      layout=terms.training_layout(plan), per_gpu=held_per_gpu(plan),
                      tokens=tokens, days=plan.days(tokens), efficiency=plan.efficiency)
        caveats: list[Message] = []
        if plan.efficiency < pol.efficiency_floor:
            caveats.append(rethink(facts, "caveat.rethink", efficiency=plan.efficiency,
                               floor=pol.efficiency_floor))
        across, said = tp_across(facts, plan)
        caveats.extend(said)
        if facts.link.needs_dedicated_fabric is False:
            caveats.append(msg("caveat.not_infiniband", link=facts.link.name))
        caveats.extend(MULTI_NODE_TAX)
        deployment = trained(facts, "multi_node", plan).with_numbers(
            tp_across_nodes_efficiency=round(across, 3))
        return StepOutcome(StepAnswer.of(step=4, question=q, answer="yes", because=because),
                           deployment, caveats=tuple(caveats))
    if first_fit is None:
        because = msg("evidence.train_no_cluster", state=facts.state.total,
                      hardware=terms.hardware(facts, pol.max_cluster_nodes))
    else:
        because = msg("evidence.train_cluster_late", deadline=deadline,
                      hardware=terms.hardware(facts, first_fit),
                      max_nodes=pol.max_cluster_nodes)
    return StepOutcome(StepAnswer.of(step=4, question=q, answer="no", because=because))


def answer(request: SizingRequest, facts: Facts) -> StepOutcome:
    """Step 4 of the tree; yes -> ``multi_node``."""
    return _training(request, facts) if request.is_training else _serving(request, facts)
