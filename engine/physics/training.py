"""Training: step time and scaling efficiency of TP / PP / DP layouts, and which layouts fit.

Amdahl with communication as the serial part (docs/engine-notes.md#scaling-efficiency-recipe).
Per optimizer step (``global_batch_tokens``, grown with the cluster, :func:`step_tokens`):

* compute per micro-batch per GPU: ``k * P_active * tokens / (tp * pp * peak * MFU)`` with
  k = 6 for full training (forward 2 + backward 4) and 4 for LoRA/QLoRA (the frozen base
  computes no weight gradients); MFU is the GPU's measured GEMM efficiency at the training
  shape times a share fitted to published runs (:func:`mfu`, docs/calibration.md);
* tensor parallelism: 4 all-reduces of ``tokens * h * 2`` bytes per layer per micro-batch
  (2 forward, 2 backward; Shoeybi et al. 2019) on the link's measured NCCL curve
  (engine/physics/comm.py), partly hidden (``tp_comm_overlap``, fitted to C14);
* pipeline parallelism: the interleaved 1F1B bubble and one activation send each way per
  stage boundary (Narayanan et al. 2021);
* data parallelism: ``zero2`` all-reduces the gradients once per step, ``zero3`` (FSDP full
  shard) gathers the weights twice and reduce-scatters the gradients every micro-batch;
  part of it hides behind the backward pass (``dp_comm_overlap``).

Efficiency is per-GPU throughput against the ideal ``k * P * tokens / (N * peak * MFU)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.catalog.schema import GPUSpec, ModelSpec, Policy
from engine.physics.comm import Fabric, allreduce_s, gather_s, p2p_s
from engine.physics.kernels import Kernels
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

__all__ = ["SECONDS_PER_DAY", "MemoryFit", "Run", "TrainingPlan", "best_training",
           "flops_factor", "flops_per_token", "goodput", "memory_fit", "mfu", "project",
           "step_tokens"]

SECONDS_PER_DAY = 86400.0


def flops_factor(workload: TrainingWorkload) -> float:
    """FLOPs per active parameter per token: 6 for full training (forward 2 + backward 4),
    4 when the base is frozen (LoRA/QLoRA compute no weight gradients for it)."""
    return 6.0 if workload in ("full-finetune", "pretrain") else 4.0


def flops_per_token(pc: ParamCount, workload: TrainingWorkload) -> float:
    """Training FLOPs per token: ``flops_factor * P_active``."""
    return flops_factor(workload) * pc.active


@dataclass(slots=True, eq=False)
class TrainingPlan:
    """One training layout's memory and speed. Never changed once built."""

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
    mfu: float

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


def mfu(k: Kernels, m: ModelSpec, policy: Policy) -> float:
    """Model FLOPs utilisation of a training step outside communication, on ``k``'s GPU.

    The measured BF16 GEMM efficiency at the training shape (tokens of one micro-batch, the
    model's layer width; engine/data/calibration.toml) times the share of it a tuned
    training stack sustains (``train_gemm_share``, fitted to published runs)."""
    g = k.gemm("bf16")
    tokens = policy.train_seq_len * policy.train_micro_batch
    size = math.sqrt(m.hidden * max(m.hidden, m.moe_ffn or m.ffn))
    return g.mfu(float(tokens), size) * policy.train_gemm_share


def goodput(gpus: int, policy: Policy) -> float:
    """Share of wall-clock time a run of ``gpus`` GPUs spends training: interruptions grow
    with the GPU count, each costing a restart and the work since the last checkpoint."""
    return 1.0 / (1.0 + policy.failures_per_gpu_hour * gpus * policy.hours_lost_per_failure)


def step_tokens(policy: Policy, dp: int, pp: int) -> float:
    """Tokens per optimizer step: the policy's global batch, grown so each pipeline keeps at
    least as many micro-batches as it has stages (frontier runs grow the batch with the
    cluster: Llama 3 went from 4M to 16M tokens per step)."""
    mbt = policy.train_seq_len * policy.train_micro_batch
    return max(policy.global_batch_tokens, float(dp * mbt * pp))


@dataclass(frozen=True, slots=True)
class MemoryFit:
    """What one layout holds per GPU, and whether it fits (the memory half of a plan)."""

    weights: float  # resident weights
    states: float  # weights, gradients and optimizer, sharded
    activations: float
    reserve: float
    share: float  # resident weights / GPU memory
    fits: bool


def _memory(state: TrainingState, mem: float, reserve: float, max_share: float, room: float,
            acts: float, mp: int, dp: int, strategy: Strategy
            ) -> tuple[float, float, float, bool]:
    """(resident weights, sharded states, weights share, fits) per GPU of one layout."""
    states = sharded_state_per_gpu(state, model_parallel=mp, dp=dp, strategy=strategy)
    weights = resident_weights_per_gpu(state, model_parallel=mp, dp=dp, strategy=strategy)
    share = weights / mem
    return weights, states, share, share <= max_share and states + acts + reserve <= room


def memory_fit(m: ModelSpec, state: TrainingState, gpu: GPUSpec, policy: Policy, *, tp: int,
               pp: int, dp: int, strategy: Strategy, activations: float | None = None
               ) -> MemoryFit:
    """Per-GPU memory of one layout: the weights inside ``max_weights_share`` and the state,
    activations and reserve inside ``training_state_max_share`` of the GPU. ``activations``
    may be given when already computed for the same TP degree."""
    mem = gpu.memory_bytes
    acts = activations_per_gpu(m, policy, tp) if activations is None else activations
    reserve = policy.runtime_reserve_gb_per_gpu * GB
    weights, states, share, fits = _memory(
        state, mem, reserve, policy.max_weights_share + 1e-12,
        policy.training_state_max_share * mem, acts, tp * pp, dp, strategy)
    return MemoryFit(weights, states, acts, reserve, share, fits)


class Run:
    """What every layout of one training run shares (the model, its state, the GPU, the
    fabric, the policy, the MFU and the node size): the constants of :func:`project` and of
    :func:`memory_fit`, worked out once per run instead of once per layout, and the
    tensor-parallel and pipeline traffic, which depends on the layout's TP degree only.
    :meth:`project` and :meth:`fit` are those functions on this run's layouts (a search or a
    frontier projection weighs dozens; engine/decision/searches.py keeps one per run)."""

    __slots__ = ("_acts", "_p2p", "_tp", "act_bytes", "fabric", "flops", "gpn", "gpu", "hide",
                 "k", "m", "max_share", "mbt", "mem", "policy", "reserve", "room", "state",
                 "step_mfu", "trainable")

    def __init__(self, m: ModelSpec, pc: ParamCount, state: TrainingState, gpu: GPUSpec,
                 fabric: Fabric, policy: Policy, step_mfu: float, gpus_per_node: int) -> None:
        self.m, self.state, self.gpu, self.fabric, self.policy = m, state, gpu, fabric, policy
        self.step_mfu, self.gpn = step_mfu, gpus_per_node
        self.mem = gpu.memory_bytes
        self.flops = gpu.bf16_tflops * 1e12 * step_mfu
        self.mbt = policy.train_seq_len * policy.train_micro_batch
        self.k = flops_per_token(pc, state.workload)
        self.act_bytes = self.mbt * m.hidden * 2.0
        self.hide = 1.0 - policy.dp_comm_overlap
        self.reserve = policy.runtime_reserve_gb_per_gpu * GB
        self.max_share = policy.max_weights_share + 1e-12
        self.room = policy.training_state_max_share * self.mem
        self.trainable = state.trainable_params
        self._acts: dict[int, float] = {}
        self._tp: dict[int, float] = {}
        self._p2p: dict[tuple[int, bool], float] = {}

    def activations(self, tp: int) -> float:
        hit = self._acts.get(tp)
        if hit is None:
            hit = self._acts[tp] = activations_per_gpu(self.m, self.policy, tp)
        return hit

    def fit(self, tp: int, pp: int, dp: int, strategy: Strategy) -> MemoryFit:
        """:func:`memory_fit` of one layout."""
        acts = self.activations(tp)
        weights, states, share, fits = _memory(self.state, self.mem, self.reserve,
                                               self.max_share, self.room, acts, tp * pp, dp,
                                               strategy)
        return MemoryFit(weights, states, acts, self.reserve, share, fits)

    def fits(self, tp: int, pp: int, dp: int, strategy: Strategy) -> bool:
        """Whether one layout fits (:meth:`fit` without the record: a search tries many)."""
        return _memory(self.state, self.mem, self.reserve, self.max_share, self.room,
                       self.activations(tp), tp * pp, dp, strategy)[3]

    def fit_if(self, tp: int, pp: int, dp: int, strategy: Strategy) -> MemoryFit | None:
        """:meth:`fit` of one layout if it fits, else None."""
        acts = self.activations(tp)
        weights, states, share, fits = _memory(self.state, self.mem, self.reserve,
                                               self.max_share, self.room, acts, tp * pp, dp,
                                               strategy)
        return MemoryFit(weights, states, acts, self.reserve, share, fits) if fits else None

    def project(self, nodes: int, tp: int, pp: int, dp: int, strategy: Strategy,
                fit: MemoryFit | None) -> TrainingPlan:
        """:func:`project` of one layout over ``nodes`` nodes of this run's GPUs."""
        m, policy, fabric, state, gpn = self.m, self.policy, self.fabric, self.state, self.gpn
        n = tp * pp * dp
        if n != nodes * gpn:
            raise ValueError(f"tp*pp*dp = {n} but the cluster has {nodes * gpn} GPUs")
        f = fit or self.fit(tp, pp, dp, strategy)
        flops, mbt, k = self.flops, self.mbt, self.k
        batch = step_tokens(policy, dp, pp)
        m_micro = max(1.0, batch / (dp * mbt))

        t_comp = k * mbt / (tp * pp * flops)
        t_tp = 0.0
        if tp > 1:  # one all-reduce of a micro-batch's activations, by TP degree
            per = self._tp.get(tp)
            if per is None:
                per = self._tp[tp] = allreduce_s(self.act_bytes, tp, fabric,
                                                 per_node=min(tp, gpn))
            t_tp = 4.0 * (m.layers / pp) * per * (1.0 - policy.tp_comm_overlap)
        t_p2p = 0.0
        if pp > 1:
            pp_spans = _spans(tp, pp, gpn)
            hit = self._p2p.get((tp, pp_spans))
            if hit is None:
                hit = self._p2p[(tp, pp_spans)] = p2p_s(self.act_bytes / tp, fabric, pp_spans)
            t_p2p = 2.0 * hit

        # Data parallel traffic, per GPU shard of tp*pp; DP ranks of one node sit tp*pp apart.
        per_node = max(1, gpn // (tp * pp))
        # Data-parallel groups of one node that cross its NICs at the same time.
        sharing = min(gpn, tp * pp)
        shard = 1.0 / (tp * pp)
        t_z3 = 0.0
        t_dp = 0.0
        if dp > 1:
            grad_bytes = 2.0 * self.trainable * shard
            if strategy == "zero3":
                base_bytes = state.weights * shard
                gathers = 2.0 * gather_s(base_bytes, dp, fabric, per_node, sharing)
                scatter = gather_s(grad_bytes, dp, fabric, per_node, sharing)
                t_z3 = (gathers + scatter) * self.hide
            else:
                t_dp = allreduce_s(grad_bytes, dp, fabric, per_node, sharing) * self.hide

        per_micro = t_comp + t_tp + t_p2p + t_z3
        virtual = max(1.0, math.ceil(m.layers / pp))
        bubble = (pp - 1) / (virtual * m_micro)
        step = m_micro * per_micro * (1.0 + bubble) + t_dp
        ideal = k * batch / (n * flops)
        compute = m_micro * t_comp
        return TrainingPlan(nodes, gpn, tp, pp, dp, strategy, f.weights, f.states,
                            f.activations, f.reserve, self.mem, f.share, f.fits, step, ideal,
                            compute, min(1.0, ideal / step), max(0.0, 1.0 - compute / step),
                            batch / step, self.step_mfu)


def project(
    m: ModelSpec,
    pc: ParamCount,
    state: TrainingState,
    gpu: GPUSpec,
    fabric: Fabric,
    policy: Policy,
    step_mfu: float,
    *,
    nodes: int,
    gpus_per_node: int,
    tp: int,
    pp: int,
    dp: int,
    strategy: Strategy = "zero2",
    fit: MemoryFit | None = None,
) -> TrainingPlan:
    """Step time, efficiency and memory of one layout (TP innermost, then PP, then DP).

    Pipeline bubbles follow the interleaved 1F1B schedule, one virtual stage per layer a
    GPU holds: ``(p - 1) / (v m)`` of the step (docs/engine-notes.md#pipeline-parallelism).
    ``fit`` is the layout's :func:`memory_fit` when a search already has it.
    """
    run = Run(m, pc, state, gpu, fabric, policy, step_mfu, gpus_per_node)
    return run.project(nodes, tp, pp, dp, strategy, fit)


def best_training(
    m: ModelSpec,
    pc: ParamCount,
    state: TrainingState,
    gpu: GPUSpec,
    fabric: Fabric,
    policy: Policy,
    step_mfu: float,
    *,
    nodes: int,
    gpus_per_node: int,
    tp_options: tuple[int, ...] | None = None,
    run: Run | None = None,
) -> tuple[TrainingPlan | None, list[TrainingPlan]]:
    """The fitting layout with the best efficiency among those leaving the article's least
    free share (else among all), or None; and every fitting layout (a layout is timed only
    once its memory fits). ``run`` is the same run's :class:`Run` when
    the caller keeps one."""
    if run is None:
        run = Run(m, pc, state, gpu, fabric, policy, step_mfu, gpus_per_node)
    plans = []
    for tp, pp, dp, s in training_layouts(m, nodes, gpus_per_node, tp_options):
        fit = run.fit_if(tp, pp, dp, s)
        if fit is not None:  # a layout is timed only once its memory fits
            plans.append(run.project(nodes, tp, pp, dp, s, fit))
    if not plans:
        return None, plans
    return max(plans, key=lambda p: (_roomy(p, policy), p.efficiency, -p.tp, -p.pp)), plans


def _roomy(p: TrainingPlan, policy: Policy) -> bool:
    """Whether a layout leaves the article's least free share of each GPU (a run at 98 % of
    its VRAM fails on fragmentation and activation spikes): such a layout wins over a more
    efficient one that does not."""
    used = p.state_per_gpu + p.activations_per_gpu + p.reserve_per_gpu
    return 1.0 - used / p.memory_per_gpu >= policy.min_free_share
