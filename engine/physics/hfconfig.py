"""A model outside the catalog, from its Hugging Face ``config.json``: the fields to a ModelSpec.

The catalog's own entries are transcriptions of these files (engine/data/models.toml says
which field is which); this module does the same transcription by code, so a model a person
pastes or names by Hub id is sized by exactly the formulas a catalog model is. Families
covered, by ``model_type``: llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe,
gemma2, gemma3 (and gemma3's ``text_config``), deepseek_v2, deepseek_v3 (and kimi_k2, which
declares DeepseekV3ForCausalLM) with MLA, gpt_oss, phi3, llama4 (``text_config``).
Anything else with the standard fields (``num_hidden_layers``, ``hidden_size``,
``num_attention_heads``, ``intermediate_size``, ``vocab_size``) is read as a Llama-style
decoder, and the answer says so.

Parameter totals are counted from the architecture (engine/physics/params.py), not read from
a model card; a ``quantization_config`` naming FP8, MXFP4 or a 4-bit AWQ/GPTQ checkpoint sets
the native precision.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ValidationError

from engine.catalog.schema import MLA, ModelSpec
from engine.errors import UnsizableRequest
from engine.physics.params import count_params
from engine.result import Precision
from engine.wording import Message, msg

__all__ = ["FAMILIES", "spec_from_hf_config"]

#: model_type values read by their own rules (others: generic Llama-style decoder).
FAMILIES = ("llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe",
            "gemma2", "gemma3", "gemma3_text", "deepseek_v2", "deepseek_v3", "kimi_k2",
            "gpt_oss", "phi3", "llama4", "llama4_text")
_REQUIRED = ("num_hidden_layers", "hidden_size", "num_attention_heads", "vocab_size")
#: Gemma 2 alternates local and global layers; Gemma 3 runs five local layers per global one.
_GEMMA_LOCAL_EVERY = {"gemma2": 2, "gemma3": 6, "gemma3_text": 6}


def _text_config(cfg: dict[str, Any]) -> dict[str, Any]:
    """Multimodal configs (Gemma 3, Llama 4) nest the language model in ``text_config``."""
    inner = cfg.get("text_config")
    if isinstance(inner, dict) and "num_hidden_layers" in inner:
        merged = {**inner}
        merged.setdefault("model_type", cfg.get("model_type", ""))
        return merged
    return cfg


def _native(cfg: dict[str, Any]) -> tuple[Precision | None, Literal["all", "experts"]]:
    """The checkpoint's format from ``quantization_config`` (or a flattened ``quant_method``):
    MXFP4 (gpt-oss: the experts only), FP8, 4-bit AWQ/GPTQ; None for 16-bit checkpoints."""
    q = cfg.get("quantization_config") or {}
    method = str(q.get("quant_method") or cfg.get("quant_method") or "").lower()
    experts = bool(cfg.get("num_local_experts") or cfg.get("num_experts")
                   or cfg.get("n_routed_experts"))
    if method == "mxfp4":
        return "mxfp4", "experts" if experts else "all"
    if method == "fp8" or (method == "compressed-tensors" and "fp8" in str(q).lower()):
        return "fp8", "all"
    if method in ("awq", "gptq") and int(q.get("bits", 4)) == 4:
        return "int4", "all"
    return None, "all"


def _windows(cfg: dict[str, Any], kind: str, layers: int) -> tuple[int | None, int]:
    """(window, layers that use it) from ``layer_types`` or the family's pattern."""
    window = cfg.get("sliding_window")
    types = cfg.get("layer_types")
    if isinstance(types, list) and types:
        swa = sum(1 for t in types if "sliding" in str(t))
        return (int(window), swa) if window and swa else (None, 0)
    if kind in _GEMMA_LOCAL_EVERY and window:
        every = int(cfg.get("sliding_window_pattern", _GEMMA_LOCAL_EVERY[kind]))
        return int(window), layers - layers // every
    if kind.startswith("qwen2") or kind.startswith("qwen3"):
        if window and cfg.get("use_sliding_window"):
            first = int(cfg.get("max_window_layers", layers))
            return int(window), max(0, layers - first)
        return None, 0
    if kind in ("mistral", "mixtral", "phi3") and window:
        return int(window), layers
    if kind.startswith("llama4") and cfg.get("attention_chunk_size"):
        step = int(cfg.get("nope_layer_interval", 4))
        return int(cfg["attention_chunk_size"]), layers - layers // step
    return None, 0


def spec_from_hf_config(cfg: dict[str, Any], name: str | None = None
                        ) -> tuple[ModelSpec, list[Message]]:
    """The ModelSpec of a ``config.json`` and the assumptions its reading made.

    Raises :class:`engine.errors.UnsizableRequest` (``error.hf_config``) when a required
    field is missing or a value makes no sense.
    """
    c = _text_config(cfg)
    kind = str(c.get("model_type", "")).lower()
    missing = [f for f in _REQUIRED if f not in c]
    if missing:
        raise UnsizableRequest(msg("error.hf_config", fields=missing))
    notes: list[Message] = []
    if kind not in FAMILIES:
        notes.append(msg("assumption.hf_generic", model_type=kind or "?"))
    layers, h = int(c["num_hidden_layers"]), int(c["hidden_size"])
    heads = int(c["num_attention_heads"])
    kv_heads = int(c.get("num_key_value_heads") or heads)
    head_dim = int(c.get("head_dim") or h // heads)
    experts = int(c.get("num_local_experts") or c.get("num_experts") or
                  c.get("n_routed_experts") or 0)
    active = int(c.get("num_experts_per_tok") or c.get("experts_per_token") or 0)
    moe_ffn = c.get("moe_intermediate_size")
    ffn = int(c.get("intermediate_size") or 4 * h)
    if kind.startswith("llama4"):
        ffn = int(c.get("intermediate_size_mlp") or ffn)
        moe_ffn = c.get("intermediate_size")
    if experts and not moe_ffn:  # Mixtral, gpt-oss: the expert is the intermediate size
        moe_ffn = c.get("intermediate_size")
    shared = int(c.get("n_shared_experts") or c.get("num_shared_experts") or 0)
    if kind == "qwen2_moe" and c.get("shared_expert_intermediate_size") and moe_ffn:
        # one shared expert of its own width, counted as that many experts' worth
        shared = max(1, round(int(c["shared_expert_intermediate_size"]) / int(moe_ffn)))
    if kind.startswith("llama4") and experts:
        shared = 1
    dense_layers = int(c.get("first_k_dense_replace") or 0)
    moe_every = int(c.get("moe_layer_freq") or c.get("decoder_sparse_step")
                    or c.get("interleave_moe_layer_step") or 1)
    mla = None
    if c.get("kv_lora_rank"):
        mla = MLA(q_lora_rank=c.get("q_lora_rank"), kv_lora_rank=int(c["kv_lora_rank"]),
                  qk_nope_head_dim=int(c["qk_nope_head_dim"]),
                  qk_rope_head_dim=int(c["qk_rope_head_dim"]),
                  v_head_dim=int(c["v_head_dim"]))
    window, swa = _windows(c, kind, layers)
    gemma = kind.startswith("gemma")
    gpt_oss = kind == "gpt_oss"
    bias = "qkvo" if gpt_oss else "qkv" if kind in ("qwen2", "qwen2_moe") or \
        c.get("attention_bias") else "none"
    native, scope = _native(cfg)
    hf_id = str(cfg.get("_name_or_path") or name or f"custom/{kind or 'model'}")
    label = name or hf_id
    try:
        spec = ModelSpec(
            id=f"hf-{label.replace('/', '-').lower()}"[:80], name=label, hf_id=hf_id,
            params_b=1.0,  # replaced by the count below
            layers=layers, hidden=h, heads=heads, kv_heads=kv_heads, head_dim=head_dim,
            ffn=ffn, vocab=int(c["vocab_size"]),
            tied_embeddings=bool(c.get("tie_word_embeddings", gemma)),
            gated_mlp=True, experts=experts, experts_active=active if experts else 0,
            shared_experts=shared if experts else 0,
            moe_ffn=int(moe_ffn) if experts and moe_ffn else None,
            dense_layers=dense_layers if experts else 0,
            moe_every=moe_every if experts else 1, mla=mla, attn_bias=bias,
            attention_sinks=gpt_oss, mlp_bias=gpt_oss or bool(c.get("mlp_bias")),
            qk_norm=kind.startswith("qwen3") or kind.startswith("gemma3"),
            norms_per_layer=4 if gemma else 2,
            sliding_window=window, swa_layers=swa,
            max_context=int(c.get("max_position_embeddings") or 4096),
            native_precision=native, native_quantized=scope,
            source="Hugging Face config.json given with the request",
            notes=f"model_type {kind or '?'}; read by engine/physics/hfconfig.py",
        )
    except (ValidationError, TypeError, ValueError) as exc:
        raise UnsizableRequest(msg("error.hf_config_invalid", detail=str(exc)[:300])) from None
    pc = count_params(spec)
    total = round(pc.total / 1e9, 3)
    act = round(pc.active / 1e9, 3) if spec.is_moe else None
    spec = spec.model_copy(update={"params_b": total, "active_params_b": act})
    notes.append(msg("assumption.hf_config", name=label, params=pc.total, active=pc.active,
                     moe=spec.is_moe))
    return spec, notes
