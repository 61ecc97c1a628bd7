"""The catalog: models, GPUs, links and policy, loaded from ``engine/data/*.toml``.

Every figure the engine quotes comes from these files, and every entry carries a
``source``: the engine holds formulas, the data holds constants. Files are validated
with pydantic when loaded; a broken file fails with a message naming the file, the
entry and the field, so an operator editing the catalog sees exactly what to fix.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any, Literal, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

DATA_DIR = Path(__file__).parent / "data"


class CatalogError(ValueError):
    """A data file is missing, unreadable or does not validate."""


class UnknownModel(LookupError):
    """The text names no catalog model; ``suggestions`` holds the nearest ids."""

    def __init__(self, text: str, suggestions: list[str], ambiguous: bool = False) -> None:
        self.text = text
        self.suggestions = suggestions
        self.ambiguous = ambiguous
        if ambiguous:
            msg = f"'{text}' could be several models: {', '.join(suggestions)}"
        elif suggestions:
            msg = f"unknown model '{text}'; did you mean {', '.join(suggestions)}?"
        else:
            msg = f"unknown model '{text}'"
        super().__init__(msg)


class UnknownEntry(LookupError):
    """A GPU or link id that the catalog does not hold."""

    def __init__(self, kind: str, text: str, suggestions: list[str]) -> None:
        self.kind = kind
        self.text = text
        self.suggestions = suggestions
        hint = f"; did you mean {', '.join(suggestions)}?" if suggestions else ""
        super().__init__(f"unknown {kind} '{text}'{hint}")


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
    aliases: list[str] = Field(default_factory=list)
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
    estimated: str | None = Field(
        default=None,
        description="what in this entry is derived rather than published or measured; "
        "every answer that relies on the entry says so",
    )
    notes: str | None = None


class GPUSpec(_Hardware):
    """One accelerator: memory, bandwidth, dense tensor throughput, and how it is built."""

    memory_gb: float = Field(gt=0)
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
    power_w: float = Field(gt=0)
    vendor_builds: bool = Field(description="the vendor sells servers with it (else compare only)")


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
    mfu_train: float = Field(gt=0, le=1)
    mfu_decode: float = Field(gt=0, le=1)
    mfu_prefill: float = Field(gt=0, le=1)
    hbm_efficiency: float = Field(gt=0, le=1)
    tp_comm_overlap: float = Field(ge=0, lt=1)
    dp_comm_overlap: float = Field(ge=0, lt=1)
    output_share: float = Field(gt=0, lt=1)
    nics_per_node: int = Field(ge=1)
    max_cluster_nodes: int = Field(ge=2)
    default_finetune_tokens: float = Field(gt=0)
    default_deadline_days: float = Field(gt=0)
    hours_per_month: float = Field(gt=0)
    pretrain_tokens_per_param: float = Field(gt=0)
    frontier_params_b: float = Field(gt=0)
    multi_node_tax: list[str] = Field(min_length=1)
    research_lab_trap: str = Field(min_length=1)
    sources: dict[str, str] = Field(description="why each knob has its value")

    @model_validator(mode="after")
    def _every_knob_sourced(self) -> Policy:
        missing = [k for k in type(self).model_fields if k != "sources" and k not in self.sources]
        if missing:
            raise ValueError(f"no entry in [sources] for: {', '.join(missing)}")
        return self


class Catalog(BaseModel):
    model_config = ConfigDict(frozen=True)

    models: dict[str, ModelSpec]
    gpus: dict[str, GPUSpec]
    links: dict[str, LinkSpec]
    policy: Policy

    # -- lookups ---------------------------------------------------------------------------
    def model(self, text: str) -> ModelSpec:
        """Resolve what a person typed (HF id, short id, loose form) to one model."""
        return _resolve(text, self.models, _model_keys, kind="model")

    def gpu(self, text: str) -> GPUSpec:
        try:
            return _resolve(text, self.gpus, _entry_keys, kind="gpu")
        except UnknownModel as exc:
            raise UnknownEntry("GPU", text, exc.suggestions) from None

    def link(self, text: str) -> LinkSpec:
        try:
            return _resolve(text, self.links, _entry_keys, kind="link")
        except UnknownModel as exc:
            raise UnknownEntry("interconnect", text, exc.suggestions) from None


# -- loading -------------------------------------------------------------------------------


def _read(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise CatalogError(f"{path.name}: file not found at {path}") from None
    except tomllib.TOMLDecodeError as exc:
        raise CatalogError(f"{path.name}: not valid TOML: {exc}") from None


def _problems(exc: ValidationError) -> str:
    """Each validation error as "field 'x': why", so an operator knows what to fix."""
    return "; ".join(
        f"field '{'.'.join(str(p) for p in err['loc']) or '(entry)'}': {err['msg']}"
        for err in exc.errors()
    )


def _entries(path: Path, table: str, cls: type[_Entry]) -> dict[str, Any]:
    raw = _read(path).get(table)
    if not isinstance(raw, list) or not raw:
        raise CatalogError(f"{path.name}: expected a non-empty [[{table}]] array")
    out: dict[str, Any] = {}
    for i, item in enumerate(raw):
        label = item.get("id", f"#{i + 1}") if isinstance(item, dict) else f"#{i + 1}"
        try:
            entry = cls.model_validate(item)
        except ValidationError as exc:
            raise CatalogError(f"{path.name}: entry '{label}': {_problems(exc)}") from None
        if entry.id in out:  # type: ignore[attr-defined]
            raise CatalogError(f"{path.name}: entry '{label}': duplicate id")
        out[entry.id] = entry  # type: ignore[attr-defined]
    return out


def load_catalog(data_dir: Path = DATA_DIR) -> Catalog:
    """Load and validate every data file in ``data_dir``."""
    models = _entries(data_dir / "models.toml", "models", ModelSpec)
    gpus = _entries(data_dir / "gpus.toml", "gpus", GPUSpec)
    links = _entries(data_dir / "links.toml", "links", LinkSpec)
    policy_path = data_dir / "policy.toml"
    try:
        policy = Policy.model_validate(_read(policy_path))
    except ValidationError as exc:
        raise CatalogError(f"{policy_path.name}: entry 'policy': {_problems(exc)}") from None
    for gpu in gpus.values():
        if gpu.in_node_link not in links:
            raise CatalogError(
                f"gpus.toml: entry '{gpu.id}': field 'in_node_link': no link '{gpu.in_node_link}'"
            )
    return Catalog(models=models, gpus=gpus, links=links, policy=policy)


@cache
def catalog() -> Catalog:
    """The packaged catalog, loaded once per process."""
    return load_catalog()


# -- name resolution -----------------------------------------------------------------------

_SEP = re.compile(r"[\s_./:-]+")


class _HasId(Protocol):
    @property
    def id(self) -> str: ...


_E = TypeVar("_E", bound=_HasId)


def normalize(text: str) -> str:
    """Fold case and separators: 'Llama3.1-70B', 'llama 3.1 70b' -> 'llama3170b'."""
    return _SEP.sub("", text.strip().lower())


_SUFFIXES = ("instruct", "chat", "it", "base", "hf")


def _strip(key: str) -> str:
    for suffix in _SUFFIXES:
        if key.endswith(suffix) and len(key) > len(suffix) + 2:
            return key[: -len(suffix)]
    return key


def _model_keys(m: Any) -> list[str]:
    keys = [m.id, m.name, m.hf_id, m.hf_id.split("/")[-1], *m.aliases]
    return [normalize(k) for k in keys]


def _entry_keys(e: Any) -> list[str]:
    return [normalize(k) for k in (e.id, e.name, *e.aliases)]


def _resolve(text: str, entries: dict[str, _E], keys: Callable[[Any], list[str]], kind: str) -> _E:
    raw = text.strip()
    if not raw:
        raise UnknownModel(text, [])
    if raw in entries:
        return entries[raw]
    want = normalize(raw)
    variants = {want, _strip(want)}
    if "/" in raw:  # an HF id with an org we do not list: match on the repo name
        tail = normalize(raw.split("/")[-1])
        variants |= {tail, _strip(tail)}
    exact = [e for e in entries.values() if variants & set(keys(e))]
    if len(exact) == 1:
        return exact[0]
    if len(exact) > 1:
        raise UnknownModel(text, sorted(e.id for e in exact), ambiguous=True)
    # A fragment such as '405b', 'maverick' or 'qwen3 235': a unique key that starts or ends
    # with it wins. Only the ends count, so a typo inside a name ('lama 3.1 70') is not
    # silently taken for a model; it gets 'did you mean' suggestions instead.
    if kind == "model" and len(want) >= 3:
        # A tail match must start at a size ('405b', '8x22b') or carry no digits
        # ('maverick'): 'llama 70b' must not pick the one repo whose name ends that way.
        tail_ok = want[0].isdigit() or not any(ch.isdigit() for ch in want)
        contained = [
            e
            for e in entries.values()
            if any(k.startswith(want) or (tail_ok and k.endswith(want)) for k in keys(e))
        ]
        ids = sorted({e.id for e in contained})
        if len(ids) == 1:
            return contained[0]
        if len(ids) > 1:
            raise UnknownModel(text, ids[:6], ambiguous=True)
    raise UnknownModel(text, suggest(text, entries, keys))


def suggest(
    text: str, entries: dict[str, Any], keys: Callable[[Any], list[str]], n: int = 3
) -> list[str]:
    """The catalog ids nearest to ``text``, for 'did you mean ...?'."""
    want = normalize(text)
    scored: list[tuple[float, str]] = []
    for e in entries.values():
        best = max(difflib.SequenceMatcher(None, want, k).ratio() for k in keys(e))
        scored.append((best, str(e.id)))
    scored.sort(reverse=True)
    return [eid for score, eid in scored[:n] if score >= 0.4]
