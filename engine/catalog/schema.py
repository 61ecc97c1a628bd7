"""The catalog's schema: pydantic models of the data files (models, GPUs, links, policy).

Every figure the engine quotes comes from ``engine/data/*.toml`` and every entry carries a
``source``: the engine holds formulas, the data holds constants. The schema is strict
(unknown fields are refused, every policy knob must say where its value comes from) so an
operator editing the catalog learns at load time, from a message naming the file, the entry
and the field (engine/catalog/load.py), what to fix.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine.catalog.names import resolve
from engine.result import Precision

__all__ = ["MLA", "Catalog", "GPUSpec", "LinkSpec", "ModelSpec", "Policy", "WorkProfile"]


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class MLA(_Entry):
    """Multi-head latent attention (DeepSeek-V2/V3): the KV cache holds one latent per layer."""

    q_lora_rank: int | None = Field(default=None, ge=1)
    kv_lora_rank: int = Field(ge=1)
    qk_nope_head_dim: int = Field(ge=1)
    qk_rope_head_dim: int = Field(ge=1)
    v_head_dim: int = Field(ge=1)


class ModelSpec(_Entry):
    """One open-weight model's architecture, as its Hugging Face ``config.json`` states it."""

    id: str = Field(description="short id, e.g. llama-3.1-70b")
    name: str = Field(description="display name, e.g. Llama 3.1 70B")
    hf_id: str = Field(description="Hugging Face repo id of the base model")
    aliases: tuple[str, ...] = ()
    params_b: float = Field(gt=0, description="published total parameters, billions")
    active_params_b: float | None = Field(default=None, gt=0, description="published active (MoE)")
    layers: int = Field(ge=1)
    hidden: int = Field(ge=1)
    heads: int = Field(ge=1)
    kv_heads: int = Field(ge=1)
    head_dim: int = Field(ge=1)
    ffn: int = Field(ge=1, description="dense MLP intermediate size")
    vocab: int = Field(ge=1)
    tied_embeddings: bool = False
    gated_mlp: bool = True
    # Mixture of experts
    experts: int = Field(default=0, ge=0, description="routed experts per MoE layer")
    experts_active: int = Field(default=0, ge=0, description="routed experts per token")
    shared_experts: int = Field(default=0, ge=0)
    moe_ffn: int | None = Field(default=None, ge=1, description="expert intermediate size")
    dense_layers: int = Field(default=0, ge=0, description="leading layers with a dense MLP")
    moe_every: int = Field(default=1, ge=1, description="every n-th layer is MoE (Llama 4)")
    # Attention variants
    mla: MLA | None = None
    attn_bias: Literal["none", "qkv", "qkvo"] = Field(
        default="none",
        description="linear biases on attention projections: Qwen2.5 'qkv', gpt-oss 'qkvo'",
    )
    attention_sinks: bool = Field(
        default=False, description="one learned sink logit per head per layer (gpt-oss)"
    )
    qk_norm: bool = Field(
        default=False,
        description="learned RMSNorm (head_dim weights) on queries and keys (Qwen3, Gemma 3)",
    )
    mlp_bias: bool = Field(
        default=False, description="biases on expert/MLP projections and the router (gpt-oss)"
    )
    norms_per_layer: int = Field(
        default=2, ge=0, description="RMSNorm vectors of size hidden per layer (Gemma 2/3: 4)"
    )
    sliding_window: int | None = Field(default=None, ge=1)
    swa_layers: int = Field(default=0, ge=0, description="layers limited to the sliding window")
    max_context: int = Field(ge=1)
    native_precision: Precision | None = Field(
        default=None,
        description="the weight format the publisher ships the checkpoint in, when it is not "
        "16-bit (gpt-oss: MXFP4); sized in it unless another precision is asked",
    )
    native_quantized: Literal["all", "experts"] = Field(
        default="all",
        description="which weights the native format covers: all, or the routed experts only "
        "(gpt-oss keeps attention, embeddings and router in BF16)",
    )
    released: str | None = None
    active_excludes_input_embedding: bool = Field(
        default=False,
        description="the publisher's active count leaves out the input embedding lookup "
        "(OpenAI's gpt-oss model card); says how active_params_b was counted, nothing more",
    )
    source: str = Field(min_length=1)
    notes: str | None = None

    @model_validator(mode="after")
    def _consistent(self) -> ModelSpec:
        if self.experts and not (self.experts_active and self.moe_ffn):
            raise ValueError("an MoE model needs experts_active and moe_ffn")
        if self.experts_active > self.experts:
            raise ValueError("experts_active exceeds experts")
        if self.swa_layers > self.layers:
            raise ValueError("swa_layers exceeds layers")
        if self.swa_layers and not self.sliding_window:
            raise ValueError("swa_layers needs sliding_window")
        if self.heads % self.kv_heads and self.mla is None:
            raise ValueError("heads must be a multiple of kv_heads")
        return self

    @property
    def is_moe(self) -> bool:
        return self.experts > 0


class _Hardware(_Entry):
    """What every GPU and link entry carries: names people type, and where figures come from."""

    id: str
    name: str
    aliases: list[str] = Field(default_factory=list)
    source: str = Field(min_length=1)
    estimated: bool = Field(
        default=False,
        description="some figures are derived rather than published or measured; every "
        "answer that relies on the entry says which, with the message 'estimated.<id>' of "
        "engine/data/messages (a test checks each flagged entry has one, in every language)",
    )
    notes: str | None = None


class GPUSpec(_Hardware):
    """One accelerator: memory, bandwidth, dense tensor throughput, and how it is built."""

    memory_gb: float = Field(gt=0, description="capacity as the vendor sells it ('96 GB')")
    memory_unit: Literal["GiB", "GB"] = Field(
        description="what the vendor's figure means: GiB (2^30 B, what the card holds) or GB")
    memory_source: str = Field(min_length=1, description="why memory_unit is what it is")
    calibration: str = Field(
        description="the GPU whose measured curves (engine/data/calibration.toml) this one "
        "uses: its own id when measured, else the closest measured part")
    calibration_note: str | None = Field(
        default=None, description="why that part is the closest (required when not itself)")
    mem_bw_gbs: float = Field(gt=0, description="memory bandwidth, GB/s")
    bf16_tflops: float = Field(gt=0, description="dense BF16 tensor TFLOPS (FP32 accumulate)")
    fp8_tflops: float | None = Field(
        default=None, gt=0, description="dense FP8 tensor TFLOPS; None = no FP8 tensor cores (A100)"
    )
    fp4_tflops: float | None = Field(default=None, gt=0)
    host_link: str
    form: Literal["pcie", "sxm"]
    nvlink: bool
    in_node_link: str = Field(description="link id used between GPUs of one node")
    board_power_w: float = Field(gt=0, description="rated board power (TDP), watts")
    board_power_source: str = Field(min_length=1, description="where board_power_w is stated")
    vendor_builds: bool = Field(description="the vendor sells servers with it (else compare only)")

    @model_validator(mode="after")
    def _calibration_explained(self) -> GPUSpec:
        if self.calibration != self.id and not self.calibration_note:
            raise ValueError("a GPU calibrated on another part needs a calibration_note")
        return self

    @property
    def memory_bytes(self) -> float:
        """What one card holds, in bytes."""
        return self.memory_gb * (2.0**30 if self.memory_unit == "GiB" else 1e9)


class LinkSpec(_Hardware):
    """A GPU-to-GPU path: effective bandwidth and per-collective latency, as measured."""

    scope: Literal["intra", "inter"]
    bandwidth_gbs: float = Field(gt=0, description="effective unidirectional GB/s per GPU/NIC")
    allreduce_busbw_gbs: float = Field(gt=0, description="NCCL all-reduce bus bandwidth, GB/s")
    latency_us: float = Field(ge=0, description="fixed cost of one collective, microseconds")
    needs_dedicated_fabric: bool = False


class Policy(_Entry):
    """The article's rules and the engine's calibration knobs, each with its reason."""

    max_weights_share: float = Field(gt=0, le=1)
    comfortable_weights_share: float = Field(gt=0, le=1)
    efficiency_floor: float = Field(gt=0, le=1)
    min_free_share: float = Field(ge=0, lt=1)
    runtime_reserve_gb_per_gpu: float = Field(ge=0)
    training_state_max_share: float = Field(gt=0, le=1)
    int4_group_size: int = Field(ge=1)
    int4_scale_bits: int = Field(ge=0)
    int4_zero_bits: int = Field(ge=0)
    nf4_bits_per_param: float = Field(gt=0)
    adam_bytes_per_param: float = Field(gt=0)
    master_grad_bytes_per_param: float = Field(gt=0)
    lora_rank: int = Field(ge=1)
    train_seq_len: int = Field(ge=1)
    train_micro_batch: int = Field(ge=1)
    global_batch_tokens: float = Field(gt=0)
    activation_ckpt_bytes: float = Field(gt=0)
    activation_layer_bytes: float = Field(gt=0)
    logits_bytes: float = Field(gt=0)
    nvfp4_block: int = Field(ge=1)
    nvfp4_scale_bits: int = Field(ge=0)
    mxfp4_block: int = Field(ge=1)
    mxfp4_scale_bits: int = Field(ge=0)
    # Training: the measured GEMM rate a step sustains, and what scale costs.
    train_gemm_share: float = Field(gt=0, le=1)
    failures_per_gpu_hour: float = Field(ge=0)
    hours_lost_per_failure: float = Field(ge=0)
    frontier_nics_per_gpu: float = Field(gt=0)
    tp_comm_overlap: float = Field(ge=0, lt=1)
    dp_comm_overlap: float = Field(ge=0, lt=1)
    # Serving: aiconfigurator's in-flight batching model and its memory-op rule.
    elementwise_latency_us: float = Field(ge=0)
    elementwise_bw_share: float = Field(gt=0, le=1)
    elementwise_ops_per_layer: int = Field(ge=0)
    tpot_drain_steps: float = Field(ge=0)
    ttft_queue_base: float = Field(ge=1)
    ttft_queue_slope: float = Field(ge=0)
    ttft_queue_max: float = Field(ge=1)
    prefill_token_budget: int = Field(ge=0, description="prompt tokens a serving step holds")
    step_us_per_sequence: float = Field(ge=0, description="a serving runtime's host time")
    pipeline_us_per_sequence: float = Field(ge=0, description="a pipeline's extra host time")
    max_requests_per_copy: int = Field(ge=0, description="requests one copy runs at once")
    moe_expert_parallel: bool = Field(description="routed experts whole per GPU of a TP group")
    moe_attention_dp: bool = Field(description="MoE layouts with attention data parallelism")
    moe_ep_hot_rank: float = Field(ge=1, description="busiest EP GPU's routed tokens / mean")
    moe_ep_hot_rank_gpus: int = Field(ge=2, description="the EP group it was measured on")
    comfortable_tokens_per_s: float = Field(gt=0)
    output_share: float = Field(gt=0, lt=1)
    nics_per_node: int = Field(ge=1)
    max_cluster_nodes: int = Field(ge=2)
    default_finetune_tokens: float = Field(gt=0)
    default_deadline_days: float = Field(gt=0)
    hours_per_month: float = Field(gt=0)
    pretrain_tokens_per_param: float = Field(gt=0)
    frontier_params_b: float = Field(gt=0)
    synthetic_max_context: int = Field(ge=1, description="context of a model known by size")
    full_node_gpus: int = Field(ge=2, description="the article's one big node (C19)")
    kv_matters_share: float = Field(gt=0, le=1, description="when an FP8 KV cache is weighed")
    sources: dict[str, str] = Field(description="why each knob has its value")

    @model_validator(mode="after")
    def _every_knob_sourced(self) -> Policy:
        missing = [k for k in type(self).model_fields if k != "sources" and k not in self.sources]
        if missing:
            raise ValueError(f"no entry in [sources] for: {', '.join(missing)}")
        return self


class WorkProfile(_Entry):
    """One kind of serving work (engine/data/work.toml): the shape of its requests when the
    person gave no length, and the least a user of it accepts (None: no floor, a batch)."""

    id: str
    #: an answer's length in tokens, or as a share of its prompt (a translation is about as
    #: long as its text): one of the two
    answer_tokens: int | None = Field(default=None, ge=1)
    answer_share: float | None = Field(default=None, gt=0, le=4)
    prompt_share: float = Field(gt=0, le=1)
    min_tokens_per_s: float | None = Field(default=None, gt=0)
    max_ttft_s: float | None = Field(default=None, gt=0)
    turn_tokens: int | None = Field(default=None, ge=1, description=(
        "new prompt tokens per request when the rest of the prompt is a conversation's "
        "history, already in the prefix cache (None: every prompt token is prefilled)"))
    sources: dict[str, str]

    @property
    def unattended(self) -> bool:
        """Nobody waits on each answer (a batch): no floor, no conversation to route."""
        return self.min_tokens_per_s is None and self.max_ttft_s is None

    def answer(self, prompt: int | None, context: int) -> int:
        """One answer's length: the kind's own, or its share of the prompt (the prompt said,
        else the part of the window that is not the answer); at most half the window when
        the prompt is not known."""
        if self.answer_share is None:
            assert self.answer_tokens is not None
            return self.answer_tokens if prompt else max(2, min(self.answer_tokens,
                                                                context // 2))
        if prompt:
            return max(2, round(prompt * self.answer_share))
        return max(2, round(context * self.answer_share / (1 + self.answer_share)))

    @model_validator(mode="after")
    def _every_figure_sourced(self) -> WorkProfile:
        if (self.answer_tokens is None) == (self.answer_share is None):
            raise ValueError(f"work kind {self.id}: give answer_tokens or answer_share")
        given = [k for k in ("answer_tokens", "answer_share", "prompt_share",
                             "min_tokens_per_s", "max_ttft_s", "turn_tokens")
                 if getattr(self, k) is not None]
        missing = [k for k in given if k not in self.sources]
        if missing:
            raise ValueError(f"no entry in [kinds.sources] for: {', '.join(missing)}")
        return self


class Catalog(BaseModel):
    model_config = ConfigDict(frozen=True)

    models: dict[str, ModelSpec]
    gpus: dict[str, GPUSpec]
    links: dict[str, LinkSpec]
    policy: Policy
    work: dict[str, WorkProfile]

    # -- lookups (engine/catalog/names.py) -------------------------------------------------
    def model(self, text: str) -> ModelSpec:
        """Resolve what a person typed (HF id, short id, loose form) to one model."""
        return resolve(text, self.models, "model")

    def gpu(self, text: str) -> GPUSpec:
        return resolve(text, self.gpus, "gpu")

    def link(self, text: str) -> LinkSpec:
        return resolve(text, self.links, "link")

    def inter_links(self) -> list[LinkSpec]:
        """The links that run between nodes (the interconnect menu)."""
        return [lk for lk in self.links.values() if lk.scope == "inter"]
