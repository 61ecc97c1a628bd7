"""Training: step time and scaling efficiency of TP / PP / DP layouts, and which layouts fit.

Amdahl with communication as the serial part (docs/engine-notes.md#scaling-efficiency-recipe).
Per optimizer step of ``global_batch_tokens``:

* compute per micro-batch per GPU: ``k * P_active * tokens / (tp * pp * peak * MFU)`` with
  k = 6 for full training (forward 2 + backward 4) and 4 for LoRA/QLoRA (the frozen base
  computes no weight gradients);
* tensor parallelism: 4 all-reduces of ``tokens * h * 2`` bytes per layer per micro-batch
  (2 forward, 2 backward; Shoeybi et al. 2019), partly hidden (``tp_comm_overlap``);
* pipeline parallelism: the 1F1B bubble ``(m + p - 1) / m`` and one activation send each way
  per stage boundary (Narayanan et al. 2021);
* data parallelism: ``zero2`` all-reduces the gradients once per step, ``zero3`` (FSDP full
  shard) gathers the weights twice and reduce-scatters the gradients every micro-batch;
  part of it hides behind the backward pass (``dp_comm_overlap``).

Efficiency is per-GPU throughput against the ideal ``k * P * tokens / (N * peak * MFU)``.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.catalog.schema import GPUSpec, ModelSpec, Policy
from engine.physics.comm import Fabric, allreduce_s, gather_s, p2p_s
from engine.physics.memory import (
    Strategy,
    TrainingState,
    TrainingWorkload,
    activations_per_gpu,
    resident_weights_per_gpu,
    sharded_state_per_gpu,
)
from engine.physics.parallel import notation, training_layouts
from engine.physics.params import ParamCount
from engine.units import GB

__all__ = ["SECONDS_PER_DAY", "TrainingPlan", "best_training", "flops_factor",
           "flops_per_token", "min_gpus", "project"]

SECONDS_PER_DAY = 86400.0


def flops_factor(workload: TrainingWorkload) -> float:
    """FLOPs per active parameter per token: 6 for full training (forward 2 + backward 4),
    4 when the base is frozen (LoRA/QLoRA compute no weight gradients for it)."""
    return 6.0 if workload in ("full-finetune", "pretrain") else 4.0


def flops_per_token(pc: ParamCount, workload: TrainingWorkload) -> float:
    """Training FLOPs per token: ``flops_factor * P_active``."""
    return flops_factor(workload) * pc.active


@dataclass(frozen=True)
class TrainingPlan:
    nodes: int
    gpus_per_node: int
    tp: int
    pp: int
    dp: int
    strategy: Strategy
    weights_per_gpu: float
    state_per_gpu: float
    activations_per_gpu: float
    reserve_per_gpu: float
    memory_per_gpu: float
    weights_share: float
    fits: bool
    step_time_s: float
    ideal_step_s: float
    compute_s: float
    efficiency: float
    comm_share: float
    tokens_per_s: float

    @property
    def gpus(self) -> int:
        return self.nodes * self.gpus_per_node

    @property
    def label(self) -> str:
        """The layout's notation ('TP=8 x DP=2'); the strategy is worded by the decision."""
        return notation(self.tp, self.pp, self.dp, show_tp1=False)

    def days(self, tokens: float) -> float:
        return tokens / self.tokens_per_s / SECONDS_PER_DAY


def _spans(group_stride: int, group_size: int, gpus_per_node: int) -> bool:
    """Does a group of ``group_size`` ranks, ``group_stride`` apart, leave one node?"""
    return group_stride * group_size > gpus_per_node


def project(
    m: ModelSpec,
    pc: ParamCount,
    state: TrainingState,
    gpu: GPUSpec,
    fabric: Fabric,
    policy: Policy,
    *,
    nodes: int,
    gpus_per_node: int,
    tp: int,
    pp: int,
    dp: int,
    strategy: Strategy = "zero2",
) -> TrainingPlan:
    """Step time, efficiency and memory of one layout (TP innermost, then PP, then DP)."""
    n = tp * pp * dp
    if n != nodes * gpus_per_node:
        raise ValueError(f"tp*pp*dp = {n} but the cluster has {nodes * gpus_per_node} GPUs")
    flops = gpu.bf16_tflops * 1e12 * policy.mfu_train
    mbt = policy.train_seq_len * policy.train_micro_batch
    m_micro = max(1.0, policy.global_batch_tokens / (dp * mbt))
    k = flops_per_token(pc, state.workload)

    t_comp = k * mbt / (tp * pp * flops)
    act_bytes = mbt * m.hidden * 2.0
    tp_spans = _spans(1, tp, gpus_per_node)
    t_tp = 0.0
    if tp > 1:
        per = allreduce_s(act_bytes, tp, fabric, tp_spans)
        t_tp = 4.0 * (m.layers / pp) * per * (1.0 - policy.tp_comm_overlap)
    pp_spans = _spans(tp, pp, gpus_per_node)
    t_p2p = 2.0 * p2p_s(act_bytes / tp, fabric, pp_spans) if pp > 1 else 0.0

    # Data parallel traffic, per GPU shard of tp*pp.
    dp_spans = _spans(tp * pp, dp, gpus_per_node)
    # Data-parallel groups of one node that cross its NICs at the same time.
    sharing = min(gpus_per_node, tp * pp)
    shard = 1.0 / (tp * pp)
    grad_bytes = 2.0 * state.trainable_params * shard
    base_bytes = state.weights * shard
    t_z3 = 0.0
    t_dp = 0.0
    if dp > 1:
        hide = 1.0 - policy.dp_comm_overlap
        if strategy == "zero3":
            gathers = 2.0 * gather_s(base_bytes, dp, fabric, dp_spans, sharing)
            scatter = gather_s(grad_bytes, dp, fabric, dp_spans, sharing)
            t_z3 = (gathers + scatter) * hide
        else:
            t_dp = allreduce_s(grad_bytes, dp, fabric, dp_spans, sharing) * hide

    per_micro = t_comp + t_tp + t_p2p + t_z3
    step = (m_micro + pp - 1) * per_micro + t_dp
    ideal = k * policy.global_batch_tokens / (n * flops)
    compute = m_micro * t_comp
    efficiency = min(1.0, ideal / step)

    mem = gpu.memory_gb * GB
    acts = activations_per_gpu(m, policy, tp)
    states = sharded_state_per_gpu(state, model_parallel=tp * pp, dp=dp, strategy=strategy)
    reserve = policy.runtime_reserve_gb_per_gpu * GB
    weights_resident = resident_weights_per_gpu(state, model_parallel=tp * pp, dp=dp,
                                                strategy=strategy)
    share = weights_resident / mem
    fits = (
        share <= policy.max_weights_share + 1e-12
        and states + acts + reserve <= policy.training_state_max_share * mem
    )
    return TrainingPlan(
        nodes=nodes,
        gpus_per_node=gpus_per_node,
        tp=tp,
        pp=pp,
        dp=dp,
        strategy=strategy,
        weights_per_gpu=weights_resident,
        state_per_gpu=states,
        activations_per_gpu=acts,
        reserve_per_gpu=reserve,
        memory_per_gpu=mem,
        weights_share=share,
        fits=fits,
        step_time_s=step,
        ideal_step_s=ideal,
        compute_s=compute,
        efficiency=efficiency,
        comm_share=max(0.0, 1.0 - compute / step),
        tokens_per_s=policy.global_batch_tokens / step,
    )


def best_training(
    m: ModelSpec,
    pc: ParamCount,
    state: TrainingState,
    gpu: GPUSpec,
    fabric: Fabric,
    policy: Policy,
    *,
    nodes: int,
    gpus_per_node: int,
) -> tuple[TrainingPlan | None, list[TrainingPlan]]:
    """The fitting layout with the best efficiency (or None), and every layout tried."""
    plans = [
        project(
            m, pc, state, gpu, fabric, policy,
            nodes=nodes, gpus_per_node=gpus_per_node, tp=tp, pp=pp, dp=dp, strategy=s,
        )
        for tp, pp, dp, s in training_layouts(m, nodes, gpus_per_node)
    ]
    fitting = [p for p in plans if p.fits]
    if not fitting:
        return None, plans
    return max(fitting, key=lambda p: (p.efficiency, -p.tp, -p.pp)), plans


def min_gpus(
    m: ModelSpec,
    pc: ParamCount,
    state: TrainingState,
    gpu: GPUSpec,
    fabric: Fabric,
    policy: Policy,
    gpus_per_node: int,
) -> int | None:
    """The fewest GPUs of one node (a power of two or the node) on which the job fits."""
    counts = sorted({c for c in (1, 2, 4, 8, 16) if c <= gpus_per_node} | {gpus_per_node})
    for c in counts:
        best, _ = best_training(m, pc, state, gpu, fabric, policy, nodes=1, gpus_per_node=c)
        if best is not None:
            return c
    return None
