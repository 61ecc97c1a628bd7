"""Question 5: frontier-scale work, beyond a small cluster. The tree's last answer, always yes.

Serving: the GPUs the weights and the KV cache need, against the 70 % rule, and the advice
of an SXM/NVLink system or a hosted API. Training (typically pretraining a 70B+ from scratch,
C12): the GPU-months of the run and the GPUs that finish it before the deadline, or hold its
state, whichever is more; on PCIe GPUs, 2-3x slower than on SXM (C17).
"""

from __future__ import annotations

import math

from engine.decision import terms
from engine.decision.cluster import MULTI_NODE_TAX, replicated
from engine.decision.facts import Facts
from engine.decision.figures import gpu_months, round_gb
from engine.decision.outcome import Deployment, StepOutcome
from engine.decision.picture import picture
from engine.physics.memory import (
    activations_per_gpu,
    kv_bytes_per_token,
    kv_cache_bytes,
    weights_bytes,
)
from engine.physics.training import TrainingPlan
from engine.request import SizingRequest
from engine.result import Layout, Numbers, StepAnswer
from engine.wording import msg

__all__ = ["answer"]

_QUESTION = msg("question.step5")


def _serving(request: SizingRequest, facts: Facts) -> StepOutcome:
    pol, gpn = facts.policy, facts.gpn
    w = weights_bytes(facts.params, request.precision, pol)
    kv = kv_cache_bytes(facts.model, request.kv_precision, request.context,
                        request.concurrency, gpn)
    per_gpu = facts.gpu_bytes - facts.reserve_bytes
    gpus = math.ceil(max((w + kv) / per_gpu, w / (facts.gpu_bytes * pol.max_weights_share)))
    nodes = math.ceil(gpus / gpn)
    vram = nodes * facts.node_bytes
    pic = picture(vram=vram, weights=w, work=kv, work_kind="kv_cache",
                  reserve=facts.reserve_bytes * nodes * gpn, scope_nodes=nodes)
    numbers = Numbers(
        memory=pic,
        vram_total_gb=round_gb(vram),
        weights_gb=round_gb(w),
        weights_share=round(w / vram, 4),
        kv_bytes_per_token=kv_bytes_per_token(facts.model, request.kv_precision),
        kv_cache_gb=round_gb(kv),
        free_share=round(pic.per_copy.free_share, 4),
        gpus_needed=gpus,
    )
    because = msg("evidence.frontier_serving", precision=terms.precision(request.precision),
                  weights=w, kv=kv, gpus=gpus, nodes=nodes, max_nodes=pol.max_cluster_nodes)
    deployment = Deployment(verdict="frontier", precision=request.precision,
                            layout=Layout(tp=gpn, pp=nodes, dp=1), nodes=nodes, replicas=None,
                            crosses_nodes=True, numbers=numbers)
    return StepOutcome(StepAnswer(step=5, question=_QUESTION, answer="yes", because=because),
                       deployment, caveats=(msg("caveat.frontier_serving"), *MULTI_NODE_TAX))


def _reference_plan(facts: Facts) -> TrainingPlan | None:
    """The largest small cluster's plan, whose efficiency prices the run."""
    top = facts.policy.max_cluster_nodes
    one, _ = facts.training(1)
    if one is not None:
        return replicated(facts, one, top)
    plan, _ = facts.training(top)
    return plan


def _training(request: SizingRequest, facts: Facts) -> StepOutcome:
    pol, gpn, state = facts.policy, facts.gpn, facts.state
    plan = _reference_plan(facts)
    deadline = facts.deadline_days
    eff = plan.efficiency if plan is not None else 1.0
    months = gpu_months(facts, eff)
    for_time = math.ceil(months * pol.hours_per_month / (deadline * 24.0))
    # Memory sets a floor too: the state must fit, sharded, with TP inside each node.
    acts = activations_per_gpu(facts.model, pol, gpn)
    room = facts.gpu_bytes * pol.training_state_max_share - facts.reserve_bytes - acts
    for_memory = math.ceil(state.total / room) if room > 0 else for_time
    gpus = max(for_time, for_memory, 1)
    nodes = math.ceil(gpus / gpn)
    why = (msg("reason.deadline", deadline=deadline) if for_time >= for_memory
           else msg("reason.state", state=state.total))
    because = msg("evidence.frontier_training", tokens=facts.train_tokens, gpu_months=months,
                  gpu=facts.gpu.name, why=why, gpus=gpus, nodes=nodes)
    advice = msg("caveat.advice_pretrain" if request.workload == "pretrain"
                 else "caveat.advice_finetune")
    if plan is not None:
        layout = Layout(tp=plan.tp, pp=plan.pp, dp=max(1, gpus // (plan.tp * plan.pp)))
    else:
        layout = Layout(tp=gpn, pp=1, dp=max(1, nodes))
    vram = nodes * facts.node_bytes
    pic = picture(vram=vram, weights=state.weights,
                  work=state.total - state.weights + acts * gpus, work_kind="training_state",
                  reserve=facts.reserve_bytes * nodes * gpn, scope_nodes=nodes)
    acts_plan = plan.activations_per_gpu * plan.gpus if plan is not None else 0.0
    numbers = Numbers(
        memory=pic,
        vram_total_gb=round_gb(vram),
        weights_gb=round_gb(2.0 * facts.params.total),
        training_state_gb=round_gb(state.total + acts_plan),
        free_share=round(pic.per_copy.free_share, 4),
        scaling_efficiency=round(eff, 3),
        gpu_months=round(months, 1),
        days=round(deadline, 1),
        gpus_needed=gpus,
    )
    deployment = Deployment(verdict="frontier", precision="bf16", layout=layout, nodes=nodes,
                            replicas=None, crosses_nodes=True, numbers=numbers, plan=plan)
    caveats = (msg("caveat.frontier_training", gpus=gpus, advice=advice), *MULTI_NODE_TAX)
    return StepOutcome(StepAnswer(step=5, question=_QUESTION, answer="yes", because=because),
                       deployment, caveats=caveats)


def answer(request: SizingRequest, facts: Facts) -> StepOutcome:
    """Step 5 of the tree; always yes -> ``frontier``."""
    return _training(request, facts) if request.is_training else _serving(request, facts)
