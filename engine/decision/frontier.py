"""Question 5: frontier-scale work, beyond a small cluster. The tree's last answer, always yes.

Serving: the GPUs the weights and the KV cache need, against the 70 % rule, and the advice
of an SXM/NVLink system or a hosted API. Training (typically pretraining a 70B+ from scratch,
C12): the GPU-months of the run and the GPUs that finish it before the deadline, or hold its
state, whichever is more. The run is projected at that scale, not at a small cluster's: the
best layout over those GPUs with one NIC per GPU (a frontier fabric), its data-parallel
all-reduce across every node and its pipeline bubbles computed (engine/physics/training.py),
and the time lost to interruptions at that GPU count (goodput); the GPU count and the
efficiency are solved together, since each depends on the other. On PCIe GPUs the
tensor-parallel traffic makes it slower than on SXM (C17).
"""

from __future__ import annotations

import math

from engine.decision import terms
from engine.decision.cluster import MULTI_NODE_TAX, SERVING_TAX, rethink, tp_across
from engine.decision.facts import Facts
from engine.decision.figures import gpu_months, gpus_for_deadline, nominal_gb, round_gb, run_days
from engine.decision.outcome import Deployment, StepOutcome
from engine.decision.picture import picture
from engine.physics.comm import Fabric
from engine.physics.memory import (
    activations_per_gpu,
    kv_bytes_per_token,
    kv_cache_bytes,
    weights_bytes,
)
from engine.physics.parallel import valid_tp
from engine.physics.training import TrainingPlan, goodput
from engine.request import SizingRequest
from engine.result import Layout, Numbers, StepAnswer
from engine.wording import Message, msg

__all__ = ["answer", "at_scale", "frontier_fabric"]

_QUESTION = msg("question.step5")
#: Rounds of the GPU count <-> efficiency fixed point, and the change under which it has
#: settled (the efficiency moves by well under 1 % for a 2 % change of the GPU count).
_ROUNDS = 3
_SETTLED = 0.02


def _serving(request: SizingRequest, facts: Facts) -> StepOutcome:
    pol, gpn = facts.policy, facts.gpn
    prec = facts.precision
    w = weights_bytes(facts.params, prec, pol, facts.model)
    kv = kv_cache_bytes(facts.model, request.kv_precision, request.context,
                        request.concurrency, gpn)
    per_gpu = facts.gpu_bytes - facts.reserve_bytes
    wanted = math.ceil(max((w + kv) / per_gpu, w / (facts.gpu_bytes * pol.max_weights_share)))
    nodes = math.ceil(wanted / gpn)
    gpus = nodes * gpn  # a pipeline of whole nodes (TP inside each): the GPUs quoted
    vram = nodes * facts.node_bytes
    pic = picture(vram=vram, weights=w, work=kv, work_kind="kv_cache",
                  reserve=facts.reserve_bytes * nodes * gpn, scope_nodes=nodes)
    numbers = Numbers.of(
        memory=pic,
        vram_total_gb=round_gb(vram),
        vram_nominal_gb=nominal_gb(facts, nodes * gpn),
        weights_gb=round_gb(w),
        weights_share=round(w / vram, 4),
        kv_bytes_per_token=kv_bytes_per_token(facts.model, request.kv_precision),
        kv_cache_gb=round_gb(kv),
        free_share=round(pic.per_copy.free_share, 4),
        gpus_needed=gpus,
    )
    because = msg("evidence.frontier_serving" if gpus == wanted else
                  "evidence.frontier_serving_laid", precision=terms.precision(prec), weights=w,
                  kv=kv, wanted=wanted, gpus=gpus, nodes=nodes, max_nodes=pol.max_cluster_nodes)
    deployment = Deployment(verdict="frontier", precision=prec,
                            layout=Layout.of(tp=gpn, pp=nodes, dp=1), nodes=nodes, replicas=None,
                            crosses_nodes=True, numbers=numbers)
    return StepOutcome(StepAnswer.of(step=5, question=_QUESTION, answer="yes", because=because),
                       deployment, caveats=(msg("caveat.frontier_serving"), *SERVING_TAX))


def frontier_fabric(facts: Facts) -> Fabric:
    """The request's links with ``frontier_nics_per_gpu`` NICs per GPU (a frontier cluster),
    the same object for the same facts (its run is kept: :meth:`Facts.run`)."""
    return facts.search.with_nics(max(1, round(facts.policy.frontier_nics_per_gpu * facts.gpn)))


#: Pipeline depths a frontier run is laid out with (TP fills each node; data parallelism takes
#: the rest, the node count rounded up to a whole number of pipelines: a real cluster takes
#: a few more nodes rather than a prime number of them with data parallelism alone).
_PIPELINES = (1, 2, 4, 8, 16, 32)


def at_scale(facts: Facts, gpus: int) -> TrainingPlan | None:
    """The most efficient training layout over about ``gpus`` GPUs on a frontier fabric: TP
    over the whole node, or none (pure data parallelism when the state fits a GPU's share:
    no tensor-parallel traffic at all), a pipeline of 1 to 32 stages, data
    parallelism over the rest (ZeRO-2, or FSDP when ZeRO-2 does not fit)."""
    gpn = facts.gpn
    nodes = max(1, math.ceil(gpus / gpn))
    run = facts.search.run(fabric=frontier_fabric(facts))
    best: TrainingPlan | None = None
    for tp in sorted({t for t in (1, gpn) if valid_tp(facts.model, t)}):
        for pp in _PIPELINES:
            if pp > facts.model.layers or (pp > nodes and pp > 1):
                break
            dp = math.ceil(nodes * gpn / (tp * pp))
            used = math.ceil(tp * pp * dp / gpn)
            for strategy in ("zero2", "zero3") if dp > 1 else ("zero2",):
                if run.fits(tp, pp, dp, strategy):
                    plan = run.project(used, tp, pp, dp, strategy, None)
                    if best is None or plan.efficiency > best.efficiency:
                        best = plan
                    break  # FSDP only when ZeRO-2 does not fit
    return best


def _memory_floor(facts: Facts) -> int:
    """GPUs the training state needs, sharded, with TP inside each node."""
    pol = facts.policy
    acts = activations_per_gpu(facts.model, pol, facts.gpn)
    room = facts.gpu_bytes * pol.training_state_max_share - facts.reserve_bytes - acts
    return math.ceil(facts.state.total / room) if room > 0 else facts.gpn


def _training(request: SizingRequest, facts: Facts) -> StepOutcome:
    pol, gpn, state = facts.policy, facts.gpn, facts.state
    deadline = facts.deadline_days
    for_memory = _memory_floor(facts)
    plan: TrainingPlan | None = None
    months = gpu_months(facts, 1.0)
    # start at the count perfect scaling would need, then let the efficiency move it
    gpus = max(for_memory, gpn, gpus_for_deadline(facts, months))
    for _ in range(_ROUNDS):
        plan = at_scale(facts, gpus)
        eff = plan.efficiency if plan is not None else 1.0
        months = gpu_months(facts, eff, gpus)
        wanted = max(gpus_for_deadline(facts, months), for_memory)
        if abs(wanted - gpus) <= _SETTLED * gpus:
            break
        gpus = wanted
    wanted = max(gpus_for_deadline(facts, months), for_memory)
    for _ in range(_ROUNDS):  # the layout quoted holds the state and meets the deadline
        if plan is None:
            break
        months = gpu_months(facts, plan.efficiency, plan.gpus)
        wanted = max(gpus_for_deadline(facts, months), for_memory)
        if plan.gpus >= wanted:
            break
        plan = at_scale(facts, wanted)
    if plan is not None:
        # whole copies of the layout fill the nodes quoted: TP=8 x PP=8 copies are 8 nodes
        # each, so 2,289 GPUs are 36 copies on 288 nodes (not 287, which holds 35.9); the
        # GPUs quoted are the layout's, and the run is projected on them
        gpus, nodes = plan.gpus, plan.nodes
        layout = Layout.of(tp=plan.tp, pp=plan.pp, dp=plan.dp)
        months = gpu_months(facts, plan.efficiency, gpus)
    else:
        gpus = wanted
        nodes = math.ceil(gpus / gpn)
        layout = Layout.of(tp=gpn, pp=1, dp=max(1, nodes))
    why = (msg("reason.deadline", deadline=deadline) if wanted > for_memory
           else msg("reason.state", state=state.total))
    if gpus > wanted:  # the most efficient layout holds more (a deeper pipeline, whole copies)
        because = msg("evidence.frontier_training_laid", tokens=facts.train_tokens,
                      gpu_months=months, gpu=facts.gpu.name, why=why, wanted=wanted,
                      layout=terms.training_layout(plan) if plan is not None else "",
                      gpus=gpus, nodes=nodes)
    else:
        because = msg("evidence.frontier_training", tokens=facts.train_tokens,
                      gpu_months=months, gpu=facts.gpu.name, why=why, gpus=gpus, nodes=nodes)
    advice = msg("caveat.advice_pretrain" if request.workload == "pretrain"
                 else "caveat.advice_finetune")
    eff = plan.efficiency if plan is not None else 1.0
    acts = activations_per_gpu(facts.model, pol, gpn)
    vram = nodes * facts.node_bytes
    pic = picture(vram=vram, weights=state.weights,
                  work=state.total - state.weights + acts * gpus, work_kind="training_state",
                  reserve=facts.reserve_bytes * nodes * gpn, scope_nodes=nodes)
    acts_plan = plan.activations_per_gpu * plan.gpus if plan is not None else 0.0
    kept = goodput(gpus, pol)
    bf16 = weights_bytes(facts.params, "bf16", pol, facts.model)  # the run's weights
    caveats: list[Message] = [rethink(facts, "caveat.frontier_training", gpus=gpus,
                                      advice=advice)]
    across_eff = None
    if plan is not None and plan.nodes > 1 and plan.tp * plan.pp < plan.gpus:
        across_eff, said = tp_across(facts, plan, frontier_fabric(facts), kept=kept)
        caveats.extend(said)
    numbers = Numbers.of(
        memory=pic,
        vram_total_gb=round_gb(vram),
        vram_nominal_gb=nominal_gb(facts, nodes * gpn),
        weights_gb=round_gb(bf16),
        weights_share=round(bf16 / vram, 4),
        training_state_gb=round_gb(state.total),
        activations_gb=round_gb(acts_plan),
        free_share=round(pic.per_copy.free_share, 4),
        scaling_efficiency=round(eff * kept, 3),
        tp_across_nodes_efficiency=round(across_eff, 3) if across_eff is not None else None,
        mfu=round(facts.mfu * eff * kept, 3),
        gpu_months=round(months, 1),
        # the run on the GPUs quoted: the deadline when it sets the count, sooner when
        # memory does
        days=round(run_days(facts, months, gpus), 1),
        gpus_needed=gpus,
    )
    deployment = Deployment(verdict="frontier", precision="bf16", layout=layout, nodes=nodes,
                            replicas=None, crosses_nodes=True, numbers=numbers, plan=plan)
    assumptions = (msg("assumption.frontier_scale", nics=pol.frontier_nics_per_gpu,
                       link=facts.link.name, goodput=kept, gpus=gpus),)
    return StepOutcome(StepAnswer.of(step=5, question=_QUESTION, answer="yes", because=because),
                       deployment, caveats=(*caveats, *MULTI_NODE_TAX),
                       assumptions=assumptions)


def answer(request: SizingRequest, facts: Facts) -> StepOutcome:
    """Step 5 of the tree; always yes -> ``frontier``."""
    return _training(request, facts) if request.is_training else _serving(request, facts)
