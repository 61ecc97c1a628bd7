"""Inference on a node or a cluster: which layouts fit, and the tokens/s each delivers.

Decode is memory-bound: every step streams the weights (for an MoE, the experts the batch
touches) and the live KV cache from memory (``t >= bytes / (BW * eta)``), plus, under
tensor parallelism, two latency-bound all-reduces per layer (Megatron f/g; ~24 us each on
PCIe, so 3.8 ms per token for an 80-layer model).
Prefill is compute-bound (``2 * P_active`` FLOPs per token plus attention) plus the TP
all-reduce of each prompt token's activations. A request's output tokens share the node's
time with its prompt tokens in the ratio of the policy's request shape.
(docs/engine-notes.md#how-llm-analysis-computes, docs/engine-notes.md#megatron-tensor-parallelism,
docs/engine-notes.md#inference-throughput.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.catalog.schema import GPUSpec, ModelSpec, Policy
from engine.physics.comm import Fabric, allreduce_s, p2p_s
from engine.physics.memory import (
    cached_layer_tokens,
    kv_cache_bytes,
    weights_bytes,
    weights_read_bytes,
)
from engine.physics.parallel import inference_layouts, notation
from engine.physics.params import ParamCount
from engine.result import KVPrecision, Precision
from engine.units import GB

__all__ = ["InferencePlan", "best_inference", "compute_tflops", "plan_inference"]


@dataclass(frozen=True)
class InferencePlan:
    """One deployment layout: ``dp`` instances of ``tp`` x ``pp`` GPUs over ``nodes`` nodes."""

    precision: Precision
    kv_precision: KVPrecision
    nodes: int
    gpus_per_node: int
    tp: int
    pp: int
    dp: int
    concurrency: int
    context: int
    weights_bytes: float
    kv_bytes: float
    reserve_bytes: float
    vram_bytes: float
    weights_share: float
    weights_ok: bool
    memory_ok: bool
    max_concurrency: int
    tokens_per_s: float
    decode_step_ms: float
    prefill_tokens_per_s: float

    @property
    def fits(self) -> bool:
        return self.weights_ok and self.memory_ok

    @property
    def instance_gpus(self) -> int:
        """GPUs that hold one copy of the weights (tp x pp)."""
        return self.tp * self.pp

    @property
    def label(self) -> str:
        return notation(self.tp, self.pp, self.dp)


def compute_tflops(gpu: GPUSpec, precision: Precision) -> float:
    """Dense TFLOPS for the weights' format; INT4, and FP8 without FP8 cores (W8A16), use BF16."""
    if precision == "fp8" and gpu.fp8_tflops is not None:
        return gpu.fp8_tflops
    return gpu.bf16_tflops


def plan_inference(
    m: ModelSpec,
    pc: ParamCount,
    gpu: GPUSpec,
    fabric: Fabric,
    policy: Policy,
    *,
    precision: Precision,
    kv_precision: KVPrecision,
    concurrency: int,
    context: int,
    nodes: int,
    gpus_per_node: int,
    tp: int,
    pp: int,
    dp: int,
) -> InferencePlan:
    """Memory fit and throughput of one layout at the requested load."""
    inst_gpus = tp * pp
    spans = inst_gpus > gpus_per_node
    mem = gpu.memory_gb * GB
    w = weights_bytes(pc, precision, policy)
    per_inst = math.ceil(concurrency / dp)
    kv_inst = kv_cache_bytes(m, kv_precision, context, per_inst, tp)
    reserve = policy.runtime_reserve_gb_per_gpu * GB
    weights_share = w / (inst_gpus * mem)
    weights_ok = weights_share <= policy.max_weights_share + 1e-12
    memory_ok = (w + kv_inst) / inst_gpus + reserve <= mem
    room = inst_gpus * (mem - reserve) - w
    per_seq = kv_cache_bytes(m, kv_precision, context, 1, tp)
    max_conc = dp * max(0, math.floor(room / per_seq)) if per_seq > 0 else 0

    # Decode: one round advances every sequence of the instance by one token.
    bw = gpu.mem_bw_gbs * GB * policy.hbm_efficiency
    flops = compute_tflops(gpu, precision) * 1e12
    avg_ctx = context * (1.0 - policy.output_share / 2.0)
    kv_read = kv_cache_bytes(m, kv_precision, avg_ctx, per_inst, tp)
    mb = max(1, min(pp, per_inst))  # micro-batches in flight through the pipeline
    tokens_mb = per_inst / mb
    w_read = weights_read_bytes(m, pc, precision, policy, tokens_mb)
    t_mem = (w_read / inst_gpus + kv_read / inst_gpus / mb) / bw
    t_comp = 2.0 * pc.active * tokens_mb / inst_gpus / (flops * policy.mfu_decode)
    act = tokens_mb * m.hidden * 2.0
    t_tp = 2.0 * (m.layers / pp) * allreduce_s(act, tp, fabric, False) if tp > 1 else 0.0
    t_p2p = p2p_s(act, fabric, spans) if pp > 1 else 0.0
    stage = max(t_mem, t_comp) + t_tp + t_p2p
    round_s = max(mb, pp) * stage

    # Prefill: per prompt token, compute over the instance plus TP traffic per stage.
    prompt = context * (1.0 - policy.output_share)
    attn = 4.0 * m.heads * m.head_dim * cached_layer_tokens(m, prompt / 2.0)
    t_pf_comp = (2.0 * pc.active + attn) / inst_gpus / (flops * policy.mfu_prefill)
    if tp > 1:
        ring = 2.0 * (tp - 1) / tp * m.hidden * 2.0 / (fabric.busbw_gbs(False) * GB)
        t_pf_comm = 2.0 * (m.layers / pp) * ring
    else:
        t_pf_comm = 0.0
    t_pf = t_pf_comp + t_pf_comm
    ratio = (1.0 - policy.output_share) / policy.output_share
    per_output = round_s / per_inst + ratio * t_pf
    busy = math.ceil(concurrency / per_inst)  # copies with work: fewer than dp at low load
    tps = busy * (1.0 / per_output)
    return InferencePlan(
        precision=precision,
        kv_precision=kv_precision,
        nodes=nodes,
        gpus_per_node=gpus_per_node,
        tp=tp,
        pp=pp,
        dp=dp,
        concurrency=concurrency,
        context=context,
        weights_bytes=w,
        kv_bytes=kv_inst * dp,
        reserve_bytes=reserve * nodes * gpus_per_node,
        vram_bytes=mem * nodes * gpus_per_node,
        weights_share=weights_share,
        weights_ok=weights_ok,
        memory_ok=memory_ok,
        max_concurrency=max_conc,
        tokens_per_s=tps,
        decode_step_ms=round_s * 1e3,
        prefill_tokens_per_s=dp / t_pf,
    )


def best_inference(
    m: ModelSpec,
    pc: ParamCount,
    gpu: GPUSpec,
    fabric: Fabric,
    policy: Policy,
    *,
    precision: Precision,
    kv_precision: KVPrecision,
    concurrency: int,
    context: int,
    nodes: int,
    gpus_per_node: int,
) -> tuple[InferencePlan | None, list[InferencePlan]]:
    """The fitting layout with the most tokens/s (or None), and every layout tried."""
    plans = [
        plan_inference(
            m, pc, gpu, fabric, policy,
            precision=precision, kv_precision=kv_precision, concurrency=concurrency,
            context=context, nodes=nodes, gpus_per_node=gpus_per_node, tp=tp, pp=pp, dp=dp,
        )
        for tp, pp, dp in inference_layouts(m, nodes, gpus_per_node)
    ]
    fitting = [p for p in plans if p.fits]
    if not fitting:
        return None, plans
    best = max(fitting, key=lambda p: (p.tokens_per_s, -p.pp))
    return best, plans
