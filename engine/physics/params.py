"""Parameter counts from a model's architecture, and synthetic models sized from a count.

Memory, FLOPs and quantization all start from how many parameters a model has and where they
sit. The published total is a single number; the engine needs the split: embeddings stay
16-bit when the rest is quantized, expert weights are the bulk of an MoE and only a few of
them are read per token. So the count is rebuilt layer by layer from the ``config.json``
fields in the catalog (docs/engine-notes.md#parameter-count, after llm-analysis and
Megatron's ``theoretical_memory_usage.py``) and checked against the published totals in the
tests.

Every branch below tests an architecture field (``mla``, ``experts``, ``attn_bias``, ...),
never a model name, so a new model with a known architecture is counted right without code.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.catalog.schema import ModelSpec
from engine.errors import UnsizableRequest
from engine.wording import Message, msg

__all__ = ["ParamCount", "count_params", "dense_spec_from_params", "layer_split",
           "moe_spec_from_params"]


@dataclass(frozen=True)
class ParamCount:
    """A model's parameters, by where they sit. All figures are parameter counts (not bytes)."""

    total: float
    """All parameters (excluding anything the catalog entry says it leaves out, e.g. MTP)."""
    active: float
    """Parameters used per token: == total for dense models. Counts both embeddings, as most
    publishers do (see ``ModelSpec.active_excludes_input_embedding`` for the exception)."""
    embedding: float
    """Input embedding + untied output head; these stay 16-bit when weights are quantized."""
    attention: float
    """All attention projections (and their biases, sinks, q/k norms, MLA norms), all layers."""
    mlp_dense: float
    """Dense MLPs, including DeepSeek's leading dense layers and Llama 4's interleaved ones."""
    experts: float
    """Routed + shared expert weights, all MoE layers: the bulk that quantization hits in MoE."""
    router: float
    """The per-layer routers (gate projections), with biases if the model has them."""
    norms: float
    """Every RMSNorm/LayerNorm weight vector, including the final norm."""


def _attention_per_layer(m: ModelSpec) -> int:
    """Weights of one attention block.

    GQA: ``h*a*d`` (Q) + ``2*h*k*d`` (K, V) + ``a*d*h`` (O), plus biases where the config has
    them (Qwen2.5 on q/k/v, gpt-oss on all four), learned per-head sink logits (gpt-oss) and
    q/k RMSNorm weights of ``head_dim`` (Qwen3, Gemma 3).

    MLA (DeepSeek-V2/V3) uses Megatron's formula, whose ``+ 1`` terms are the RMSNorms on the
    low-rank query and KV latents: ``q_lora*(h + a*(d_nope + d_rope) + 1) +
    kv_lora*(h + a*(d_nope + d_v) + 1) + h*d_rope + a*d_v*h``. Without a query LoRA the query
    is a plain ``h * a*(d_nope + d_rope)`` projection.
    """
    h, a = m.hidden, m.heads
    if m.mla is not None:
        x = m.mla
        qk = x.qk_nope_head_dim + x.qk_rope_head_dim
        # Without a query LoRA (DeepSeek-V2-Lite) the query is one plain projection.
        q = x.q_lora_rank * (h + a * qk + 1) if x.q_lora_rank is not None else h * a * qk
        kv = x.kv_lora_rank * (h + a * (x.qk_nope_head_dim + x.v_head_dim) + 1)
        return q + kv + h * x.qk_rope_head_dim + a * x.v_head_dim * h
    k, d = m.kv_heads, m.head_dim
    weights = h * a * d + 2 * h * k * d + a * d * h
    bias = 0
    if m.attn_bias in ("qkv", "qkvo"):
        bias += a * d + 2 * k * d
    if m.attn_bias == "qkvo":
        bias += h
    sinks = a if m.attention_sinks else 0
    qk_norm = 2 * d if m.qk_norm else 0
    return weights + bias + sinks + qk_norm


def _mlp(h: int, ffn: int, gated: bool, bias: bool) -> int:
    """One MLP: gated (SwiGLU/GeGLU) has gate, up and down (``3*h*ffn``), plain has two."""
    mats = 3 if gated else 2
    b = ((2 if gated else 1) * ffn + h) if bias else 0
    return mats * h * ffn + b


def layer_split(m: ModelSpec) -> tuple[int, int]:
    """(dense-MLP layers, MoE layers).

    DeepSeek puts ``dense_layers`` dense layers first; after them every ``moe_every``-th layer
    is MoE (Llama 4 Maverick alternates, step 2) and the rest are dense.
    """
    if not m.is_moe:
        return m.layers, 0
    rest = m.layers - m.dense_layers
    moe = rest // m.moe_every
    return m.layers - moe, moe


def count_params(m: ModelSpec) -> ParamCount:
    """Count ``m``'s parameters from its architecture, split the way the engine needs them.

    Per layer: attention (``_attention_per_layer``), then either a dense MLP of ``ffn`` or an
    MoE block of ``experts`` routed experts plus ``shared_experts`` always-on experts, each of
    ``moe_ffn``, and a router of ``h*E`` (+ ``E`` bias). Plus ``norms_per_layer`` norms of
    ``h`` per layer (Gemma has four), the final norm, and embeddings ``V*h`` counted twice
    unless tied (Gemma, Llama 3.2 3B).

    Active per token = attention + dense MLPs + ``experts_active/experts`` of the routed
    experts + shared experts + routers + norms + embeddings.
    """
    h = m.hidden
    dense_n, moe_n = layer_split(m)

    attention = float(m.layers * _attention_per_layer(m))
    mlp_dense = float(dense_n * _mlp(h, m.ffn, m.gated_mlp, m.mlp_bias))

    routed = shared = router = 0.0
    if moe_n:
        assert m.moe_ffn is not None  # guaranteed by ModelSpec's validator
        expert = _mlp(h, m.moe_ffn, m.gated_mlp, m.mlp_bias)
        routed = float(moe_n * m.experts * expert)
        shared = float(moe_n * m.shared_experts * expert)
        router = float(moe_n * (h * m.experts + (m.experts if m.mlp_bias else 0)))
    experts = routed + shared

    norms = float(m.layers * m.norms_per_layer * h + h)
    embedding = float(m.vocab * h * (1 if m.tied_embeddings else 2))

    total = attention + mlp_dense + experts + router + norms + embedding
    if moe_n:
        active_routed = routed * m.experts_active / m.experts
        active = attention + mlp_dense + active_routed + shared + router + norms + embedding
    else:
        active = total
    return ParamCount(
        total=total,
        active=active,
        embedding=embedding,
        attention=attention,
        mlp_dense=mlp_dense,
        experts=experts,
        router=router,
        norms=norms,
    )


# -- models outside the catalog ------------------------------------------------------------

#: Width rule, fitted (least squares in log-log) to the catalog's dense, untied, full-attention
#: models: Llama 3.1 8B/70B/405B, Llama 3.3 70B, Qwen2.5 7B/14B/32B/72B, Qwen3 8B/32B,
#: Mistral 7B, Mistral Large 2, Phi-4: hidden ≈ 1844 · P^0.355 (P in billions). The fit gives
#: 3.9k at 8B, 8.4k at 70B, 15.6k at 405B against 4096, 8192 and 16384 in the catalog; the
#: worst outlier is Mistral Large 2 (12288 real vs 10.2k). Real families grow wider more
#: slowly than they grow in parameters (P ~ L·h², with L growing too), hence the exponent
#: near 1/3; the layer count then follows from the parameter budget.
_WIDTH_COEF = 1844.0
_WIDTH_EXP = 0.355
_KV_HEADS = 8
_HEAD_DIM = 128
_VOCAB = 128256
_FFN_RATIO = 3.5
#: Below this size the catalog's small dense models (Llama 3.2 3B, Qwen2.5 ≤ 3B) tie the
#: input and output embeddings; a 128k-token table would otherwise be most of the model.
_TIE_BELOW_B = 4.0
#: The embeddings may take at most this share of a synthetic model, so tiny targets still get
#: transformer layers rather than being all vocabulary.
_MAX_EMBED_SHARE = 0.6


def _round_to(x: float, step: int) -> int:
    return max(step, round(x / step) * step)


def dense_spec_from_params(
    params_b: float, max_context: int
) -> tuple[ModelSpec, list[Message]]:
    """A synthetic dense Llama-style model of about ``params_b`` billion parameters.

    For a model the catalog does not hold, the engine still needs layers, width and KV heads
    to size KV cache and compute. This builds the most typical dense decoder of that size:
    GQA with 8 KV heads of 128 dims, SwiGLU, Llama 3's 128,256-token vocabulary.

    * hidden = ``1844 · P^0.355`` (fitted to the catalog, see ``_WIDTH_COEF``) rounded to a
      multiple of 1024 (so heads = hidden/128 is a multiple of the 8 KV heads), capped so
      the embeddings stay under 60 % of the model;
    * embeddings tied below 4B (as the catalog's small models are), untied above;
    * layers = the count that best fills the budget with ``ffn ≈ 3.5·hidden`` (Llama 3's
      ratio: 14336/4096, 28672/8192);
    * ffn is then re-solved for the chosen layer count and rounded to 64, so the total lands
      within a fraction of a percent of the request (well inside 2 %) from 0.5B to 2000B.

    ``max_context`` is the longest context such a model is assumed to take (the policy's
    ``synthetic_max_context``). Returns the spec (id ``custom-<N>b``) and the assumptions, as
    messages, for the reply.
    """
    if not math.isfinite(params_b) or params_b <= 0:
        raise UnsizableRequest(msg("error.params_b", params_b=params_b))
    target = params_b * 1e9
    tied = params_b < _TIE_BELOW_B
    emb_copies = 1 if tied else 2

    hidden = _round_to(_WIDTH_COEF * params_b**_WIDTH_EXP, 1024)
    max_hidden = _MAX_EMBED_SHARE * target / (emb_copies * _VOCAB)
    while hidden > 1024 and hidden > max_hidden:
        hidden -= 1024
    heads = hidden // _HEAD_DIM

    embedding = emb_copies * _VOCAB * hidden + hidden  # + final norm
    attn = 2 * hidden * hidden + 2 * hidden * _KV_HEADS * _HEAD_DIM
    norms = 2 * hidden
    ffn_guess = _FFN_RATIO * hidden
    per_layer = attn + norms + 3 * hidden * ffn_guess
    layers = max(1, round((target - embedding) / per_layer))
    ffn = (target - embedding - layers * (attn + norms)) / (3 * hidden * layers)
    ffn_int = _round_to(ffn, 64)

    n = f"{params_b:g}"
    spec = ModelSpec(
        id=f"custom-{n}b",
        name=f"Custom {n}B (dense, synthetic)",
        hf_id=f"custom/{n}b",
        params_b=params_b,
        layers=layers,
        hidden=hidden,
        heads=heads,
        kv_heads=_KV_HEADS,
        head_dim=_HEAD_DIM,
        ffn=ffn_int,
        vocab=_VOCAB,
        tied_embeddings=tied,
        gated_mlp=True,
        max_context=max_context,
        source="synthetic: sized from parameter count",
        notes="Not a real architecture; built by engine.physics.params.dense_spec_from_params.",
    )
    assumptions = [
        msg("assumption.synthetic_shape", kv_heads=_KV_HEADS, head_dim=_HEAD_DIM,
            layers=layers, hidden=hidden),
        msg("assumption.synthetic_mlp", ffn=ffn_int, ratio=ffn_int / hidden, vocab=_VOCAB,
            embeddings=msg("assumption.embeddings_tied" if tied else
                           "assumption.embeddings_untied")),
        msg("assumption.synthetic_attention", max_context=max_context),
    ]
    return spec, assumptions


#: A synthetic MoE follows the fine-grained recipe of the catalog's recent MoE models (Qwen3
#: MoE, DeepSeek-V3, Kimi K2, gpt-oss: 128-384 routed experts, 4-8 active): 8 active experts,
#: each 0.375 x hidden wide (Qwen3-30B-A3B's 768 of 2048 and Qwen3-235B-A22B's 1536 of 4096),
#: the width rule above applied to the *active* parameters (what sets a layer's width: 3.3B
#: active -> 2.8k, 22B -> 5.1k, 37B -> 6.1k against 2048, 4096 and 7168 in the catalog).
_MOE_ACTIVE = 8
_MOE_WIDTH = 0.375


def moe_spec_from_params(
    params_b: float, active_b: float, max_context: int
) -> tuple[ModelSpec, list[Message]]:
    """A synthetic MoE of ``params_b`` total and ``active_b`` active billion parameters.

    Hidden from the width rule on the active count; layers so that attention plus the 8
    active experts hold the active budget; then as many routed experts (a multiple of 8) as
    the total needs, and the expert width re-solved so the total lands on the request. The
    active count follows within a few percent. GQA with 8 KV heads of 128 dims, Llama 3's
    vocabulary, embeddings untied. Returns the spec and the assumptions, as messages.
    """
    if not (math.isfinite(params_b) and math.isfinite(active_b)) or not 0 < active_b < params_b:
        raise UnsizableRequest(msg("error.moe_params", params_b=params_b, active_b=active_b))
    total, active = params_b * 1e9, active_b * 1e9
    hidden = _round_to(_WIDTH_COEF * active_b**_WIDTH_EXP, 1024)
    max_hidden = _MAX_EMBED_SHARE * active / (2 * _VOCAB)
    while hidden > 1024 and hidden > max_hidden:
        hidden -= 1024
    embedding = 2 * _VOCAB * hidden + hidden
    attn = 2 * hidden * hidden + 2 * hidden * _KV_HEADS * _HEAD_DIM + 2 * hidden
    width = _round_to(_MOE_WIDTH * hidden, 64)
    expert = 3 * hidden * width
    layers = max(1, round((active - embedding) / (attn + _MOE_ACTIVE * expert)))
    extra = max(0.0, total - active) / (layers * expert)
    experts = max(2 * _MOE_ACTIVE, _round_to(_MOE_ACTIVE + extra, 8))
    width = _round_to((total - embedding - layers * attn) / (layers * experts * 3 * hidden), 64)
    n, a = f"{params_b:g}", f"{active_b:g}"
    spec = ModelSpec(
        id=f"custom-{n}b-a{a}b", name=f"Custom {n}B-A{a}B (MoE, synthetic)",
        hf_id=f"custom/{n}b-a{a}b", params_b=params_b, active_params_b=active_b,
        layers=layers, hidden=hidden, heads=hidden // _HEAD_DIM, kv_heads=_KV_HEADS,
        head_dim=_HEAD_DIM, ffn=width, vocab=_VOCAB, tied_embeddings=False, gated_mlp=True,
        experts=experts, experts_active=_MOE_ACTIVE, moe_ffn=width, max_context=max_context,
        source="synthetic: sized from total and active parameter counts",
        notes="Not a real architecture; built by engine.physics.params.moe_spec_from_params.",
    )
    assumptions = [
        msg("assumption.synthetic_moe", experts=experts, active=_MOE_ACTIVE, width=width,
            layers=layers, hidden=hidden, kv_heads=_KV_HEADS, head_dim=_HEAD_DIM),
        msg("assumption.synthetic_attention", max_context=max_context),
    ]
    return spec, assumptions
