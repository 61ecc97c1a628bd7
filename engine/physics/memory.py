"""Memory: weights per precision, KV cache per token, training state and activations.

Formulas only; constants come from the catalog's policy. Sources for each formula are in
docs/engine-notes.md#inference-memory and docs/engine-notes.md#training-memory, and cited
inline. Bytes
throughout (decimal GB only where a person reads them, through engine/units.py).

One definition each: the bytes of a weight format (:func:`body_bytes_per_param`) and of a
cached KV element (:func:`kv_element_bytes`); the explanation ("Show the math") quotes these.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engine.catalog.schema import ModelSpec, Policy
from engine.physics.params import ParamCount, layer_split
from engine.result import KVPrecision, Precision

#: What a training run trains: full weights, or adapters on a frozen base.
TrainingWorkload = Literal["lora", "qlora", "full-finetune", "pretrain"]
#: How data parallelism shards the model states: ZeRO-2 (weights replicated) or FSDP full
#: shard (``zero3``, everything sharded).
Strategy = Literal["zero2", "zero3"]

#: Bytes of one cached K/V element.
_KV_BYTES: dict[KVPrecision, int] = {"bf16": 2, "fp8": 1}


def kv_element_bytes(kv_precision: KVPrecision) -> int:
    """Bytes of one cached K or V element: 2 in BF16, 1 in FP8."""
    return _KV_BYTES[kv_precision]


def int4_bits(policy: Policy) -> float:
    """AWQ/GPTQ INT4: 4 bits plus a 16-bit scale and a 4-bit zero per group (4.156 at g128)."""
    return 4.0 + (policy.int4_scale_bits + policy.int4_zero_bits) / policy.int4_group_size


def fp4_bits(precision: Precision, policy: Policy) -> float:
    """Block-scaled FP4: 4 bits plus one scale per block. NVFP4: an FP8 (E4M3) scale per 16
    elements, 4.5 bits; MXFP4 (OCP MX): an E8M0 scale per 32, 4.25 bits."""
    if precision == "nvfp4":
        return 4.0 + policy.nvfp4_scale_bits / policy.nvfp4_block
    return 4.0 + policy.mxfp4_scale_bits / policy.mxfp4_block


def weight_bits(precision: Precision, policy: Policy) -> float:
    """Bits per quantized weight, scales included (the figure the math quotes)."""
    return 8.0 * body_bytes_per_param(precision, policy)


def split_precision(m: ModelSpec, precision: Precision) -> tuple[Precision, Precision]:
    """(dense weights, routed experts) formats: a checkpoint that ships only its experts in a
    low-bit format (gpt-oss: MXFP4 experts, BF16 elsewhere) keeps the rest in BF16."""
    if precision == m.native_precision and m.native_quantized == "experts" and m.is_moe:
        return "bf16", precision
    return precision, precision


def weights_bytes(pc: ParamCount, precision: Precision, policy: Policy, m: ModelSpec) -> float:
    """Weight bytes. Quantized formats keep the embedding and output head in 16 bits.

    FP8 and INT4 checkpoints (e.g. Llama-3.1-405B-FP8, AWQ releases) leave the embedding
    tables in BF16, which is why a 70B in INT4 is ~40 GB and not 35 GB. A model whose native
    format covers only its experts (``m.native_quantized``) keeps everything else in BF16.
    """
    if precision in ("bf16", "fp16"):
        return 2.0 * pc.total
    dense, experts = split_precision(m, precision)
    body = pc.total - pc.embedding
    if dense != experts:
        routed = routed_expert_params(m, pc)
        return (routed * body_bytes_per_param(experts, policy)
                + (body - routed) * body_bytes_per_param(dense, policy) + 2.0 * pc.embedding)
    return body * body_bytes_per_param(precision, policy) + 2.0 * pc.embedding


def body_bytes_per_param(precision: Precision, policy: Policy) -> float:
    """Bytes per parameter of the quantized body (everything but the embeddings)."""
    if precision in ("bf16", "fp16"):
        return 2.0
    if precision == "fp8":
        return 1.0
    if precision == "int4":
        return int4_bits(policy) / 8.0
    if precision == "nf4":
        return policy.nf4_bits_per_param / 8.0
    return fp4_bits(precision, policy) / 8.0


def routed_expert_params(m: ModelSpec, pc: ParamCount) -> float:
    """Parameters in routed experts (shared experts run for every token)."""
    if not m.is_moe:
        return 0.0
    return pc.experts * m.experts / (m.experts + m.shared_experts)


def expert_touch_share(m: ModelSpec, tokens: float) -> float:
    """Expected share of routed experts a batch of ``tokens`` touches in one layer.

    With top-k of E experts per token and routing spread evenly, an expert is missed by one
    token with probability 1 - k/E, so a batch touches ``1 - (1 - k/E)^tokens`` of them: a
    single decode stream reads k/E of the expert weights, a batch of 64 nearly all.
    """
    if not m.is_moe:
        return 1.0
    miss: float = (1.0 - m.experts_active / m.experts) ** max(1.0, tokens)
    return 1.0 - miss


def weights_read_bytes(
    m: ModelSpec, pc: ParamCount, precision: Precision, policy: Policy, tokens: float
) -> float:
    """Weight bytes one decode step streams from memory for a batch of ``tokens``."""
    w = weights_bytes(pc, precision, policy, m)
    routed = routed_expert_params(m, pc) * body_bytes_per_param(split_precision(m, precision)[1],
                                                                  policy)
    return w - routed * (1.0 - expert_touch_share(m, tokens))


def kv_bytes_per_token_layer(m: ModelSpec, kv_precision: KVPrecision) -> float:
    """One token's cache in one layer.

    GQA keeps K and V for each KV head; MLA (DeepSeek-V2/V3) keeps one compressed latent
    plus the decoupled RoPE key, and no separate V (vLLM MLAAttentionSpec).
    """
    b = kv_element_bytes(kv_precision)
    if m.mla is not None:
        return (m.mla.kv_lora_rank + m.mla.qk_rope_head_dim) * b
    return 2.0 * m.kv_heads * m.head_dim * b


def kv_bytes_per_token(m: ModelSpec, kv_precision: KVPrecision) -> int:
    """What one token costs when every layer keeps it (the figure calculators quote)."""
    return round(m.layers * kv_bytes_per_token_layer(m, kv_precision))


def kv_tp_factor(m: ModelSpec, tp: int) -> float:
    """How much the aggregate cache grows when tensor parallelism exceeds the KV heads.

    Each TP rank needs at least one KV head: with tp > kv_heads the heads are replicated
    (vLLM: ``max(1, kv_heads // tp)`` per rank). MLA's latent is replicated on every rank.
    """
    if m.mla is not None:
        return float(tp)
    return max(m.kv_heads, tp) / m.kv_heads


def cached_layer_tokens(m: ModelSpec, context: float) -> float:
    """Layer-tokens one sequence keeps: full layers hold the context, window layers the window."""
    full = m.layers - m.swa_layers
    window = min(m.sliding_window or context, context)
    return full * context + m.swa_layers * window


def kv_cache_bytes(
    m: ModelSpec, kv_precision: KVPrecision, context: float, concurrency: float, tp: int = 1
) -> float:
    """KV cache for ``concurrency`` sequences of ``context`` tokens, sliding windows counted."""
    per = kv_bytes_per_token_layer(m, kv_precision)
    return concurrency * per * cached_layer_tokens(m, context) * kv_tp_factor(m, tp)


# -- training --------------------------------------------------------------------------------


def lora_params(m: ModelSpec, rank: int) -> float:
    """LoRA adapter parameters: rank r on q, k, v, o and on the dense/shared MLP projections.

    Routed experts are left frozen (the usual MoE LoRA recipe); a projection d_in x d_out
    gains r * (d_in + d_out) parameters.
    """
    h = m.hidden
    if m.mla is not None:
        q_out = m.heads * (m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim)
        kv_out = m.mla.kv_lora_rank + m.mla.qk_rope_head_dim
        o_in = m.heads * m.mla.v_head_dim
        attn = rank * ((h + q_out) + (h + kv_out) + (o_in + h))
    else:
        q = m.heads * m.head_dim
        kv = m.kv_heads * m.head_dim
        attn = rank * ((h + q) + 2 * (h + kv) + (q + h))
    mats = 3 if m.gated_mlp else 2
    dense_mlp = rank * mats * (h + m.ffn)
    dense_layers, moe_layers = layer_split(m)
    shared = rank * mats * (h + (m.moe_ffn or m.ffn)) * m.shared_experts
    return m.layers * attn + dense_layers * dense_mlp + moe_layers * shared


@dataclass(frozen=True)
class TrainingState:
    """Model states of one training workload, before sharding (bytes)."""

    workload: TrainingWorkload
    weights: float
    grads: float
    optimizer: float
    trainable_params: float
    base_precision: Precision

    @property
    def total(self) -> float:
        return self.weights + self.grads + self.optimizer


def training_state(
    m: ModelSpec, pc: ParamCount, workload: TrainingWorkload, policy: Policy
) -> TrainingState:
    """Weights, gradients and Adam state for full training, LoRA (BF16 base) or QLoRA (NF4).

    Full training: 2 B bf16 weights + fp32 gradients + 12 B Adam (fp32 master, m, v) =
    18 B/param (Megatron, llm-analysis). LoRA/QLoRA: the frozen base plus the same 18 B for
    each adapter parameter.
    """
    if workload in ("full-finetune", "pretrain"):
        return TrainingState(
            workload=workload,
            weights=2.0 * pc.total,
            grads=policy.master_grad_bytes_per_param * pc.total,
            optimizer=policy.adam_bytes_per_param * pc.total,
            trainable_params=pc.total,
            base_precision="bf16",
        )
    adapters = lora_params(m, policy.lora_rank)
    base_precision: Precision = "bf16" if workload == "lora" else "nf4"
    base = weights_bytes(pc, base_precision, policy, m)
    return TrainingState(
        workload=workload,
        weights=base + 2.0 * adapters,
        grads=policy.master_grad_bytes_per_param * adapters,
        optimizer=policy.adam_bytes_per_param * adapters,
        trainable_params=adapters,
        base_precision=base_precision,
    )


def activations_per_gpu(m: ModelSpec, policy: Policy, tp: int = 1) -> float:
    """Activation memory of one micro-batch on one GPU, with full recomputation.

    Each layer keeps its input (2*s*b*h bytes), the layer being recomputed holds 34*s*b*h,
    and the loss keeps fp32 logits (s*b*V*4); tensor + sequence parallelism divide all of it
    by tp (Korthikanti et al. 2022, Table 2). Frozen LoRA bases pay the same activations.
    Under pipeline parallelism the first stage holds as many in-flight micro-batches as
    there are stages, i.e. all L layers' worth: no division by pp.
    """
    sb = policy.train_seq_len * policy.train_micro_batch
    per_hidden = policy.activation_ckpt_bytes * m.layers + policy.activation_layer_bytes
    return sb * (m.hidden * per_hidden + m.vocab * policy.logits_bytes) / tp


def sharded_state_per_gpu(
    state: TrainingState, *, model_parallel: int, dp: int, strategy: Strategy
) -> float:
    """Per-GPU model states under a sharding strategy.

    ``zero2``: weights replicated across data-parallel ranks, gradients and optimizer
    sharded. ``zero3`` (FSDP full shard): everything sharded. Tensor/pipeline parallelism
    (``model_parallel`` = tp*pp) splits everything first.
    """
    per_mp = 1.0 / model_parallel
    if strategy == "zero3":
        return state.total * per_mp / dp
    return state.weights * per_mp + (state.grads + state.optimizer) * per_mp / dp


def resident_weights_per_gpu(
    state: TrainingState, *, model_parallel: int, dp: int, strategy: Strategy
) -> float:
    """The weights one GPU holds: split by tp*pp, and by dp too under FSDP full shard."""
    return state.weights / model_parallel / (dp if strategy == "zero3" else 1)
