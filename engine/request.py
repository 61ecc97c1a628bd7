"""What a person asks the engine: the sizing request, validated once at the edge.

The request is frozen and hashable, so an answer can be memoized on it (a conversation asks
the same question again on every turn). The types of its fields (workloads, weight and KV
precisions) are the ones the answer uses, defined once in engine/result.py.

A model is named (``model``: anything the catalog resolves), or described: by its size
(``params_b``, with ``active_params_b`` for a mixture of experts), by its architecture
(``arch``, a :class:`engine.catalog.ModelSpec`), or by its Hugging Face ``config.json``
(``hf_config``: the text, or the parsed dict, kept as canonical JSON so the request stays
hashable). All are sized by the same code (engine/decision/models.py).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from engine.catalog.schema import ModelSpec
from engine.result import KVPrecision, Work, Workload

__all__ = ["DEFAULT_GPU", "DEFAULT_INTERCONNECT", "TARGETS", "TRAINING", "AskedPrecision",
           "KVPrecision", "SizingRequest", "Target", "Work", "Workload"]

#: The weight formats a person may ask for (the answer may also use NF4 for QLoRA, and a
#: model's native format such as MXFP4). NVFP4 needs FP4 tensor cores (Blackwell).
AskedPrecision = Literal["bf16", "fp16", "fp8", "int4", "nvfp4"]
TRAINING: tuple[Workload, ...] = ("lora", "qlora", "full-finetune", "pretrain")

#: The serving targets a person may state, or the bot may assume for them.
Target = Literal["per_user_tokens_per_s", "ttft_s", "target_tokens_per_s"]
TARGETS: tuple[Target, ...] = ("per_user_tokens_per_s", "ttft_s", "target_tokens_per_s")

DEFAULT_GPU = "rtx-pro-6000-server"
DEFAULT_INTERCONNECT = "ib-200"


class SizingRequest(BaseModel):
    """One sizing question. Defaults follow docs/decision-tree.md ("How the engine reads the
    tree").

    Serving targets, all optional: ``target_tokens_per_s`` (output tokens/s of the whole
    load), ``per_user_tokens_per_s`` and ``ttft_s`` (what each user must see: bounds the
    largest batch a copy may take), ``requests_per_s`` (arrivals; with ``prompt_tokens`` and
    ``output_tokens`` it sets the throughput, and the requests in flight when
    ``concurrency`` is not given). ``allow_int4`` means "4-bit weights are acceptable"
    (INT4, NVFP4 or MXFP4, whichever the GPU runs best). ``avoid_gpus``: GPUs the customer
    refused ('not on L40S'), catalog ids or names: never offered as an alternative.

    A target is a requirement when the person stated it; ``assumed`` names the targets the
    bot assumed for them (a face's default, 'a comfortable 20 tok/s per user'): those are
    preferences, and never multiply the hardware on their own (engine/decision/standing.py).
    ``work`` is the kind of serving work (chat, RAG, a batch, a batch of translations or
    classifications): its request shape when no length is given, and the least its users
    accept. A batch is ``documents`` requests to
    finish within ``deadline_days``. ``nodes_owned``: nodes of ``gpu`` x ``gpus_per_node``
    the customer already has; the answer says first what they do.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str | None = None
    params_b: float | None = Field(default=None, gt=0, le=100_000)
    active_params_b: float | None = Field(default=None, gt=0, le=100_000)
    arch: ModelSpec | None = None
    hf_config: str | None = Field(default=None, max_length=200_000)
    workload: Workload = "inference"
    precision: AskedPrecision = "fp8"
    allow_int4: bool = True
    concurrency: int = Field(default=32, ge=1, le=100_000)
    context: int = Field(default=8192, ge=1, le=10_000_000)
    kv_precision: KVPrecision = "bf16"
    target_tokens_per_s: float | None = Field(default=None, gt=0, le=1e9)
    per_user_tokens_per_s: float | None = Field(default=None, gt=0, le=100_000)
    ttft_s: float | None = Field(default=None, gt=0, le=3600)
    requests_per_s: float | None = Field(default=None, gt=0, le=1e6)
    prompt_tokens: int | None = Field(default=None, ge=1, le=10_000_000)
    output_tokens: int | None = Field(default=None, ge=1, le=10_000_000)
    gpu: str = DEFAULT_GPU
    avoid_gpus: tuple[str, ...] = Field(default=(), max_length=32)
    gpus_per_node: int = Field(default=8, ge=1, le=16)
    interconnect: str = DEFAULT_INTERCONNECT
    train_tokens: float | None = Field(default=None, gt=0, le=1e15)
    deadline_days: float | None = Field(default=None, gt=0, le=3650)
    work: Work | None = None
    assumed: tuple[Target, ...] = Field(default=(), max_length=len(TARGETS))
    documents: float | None = Field(default=None, gt=0, le=1e13)
    nodes_owned: int | None = Field(default=None, ge=1, le=10_000)

    @field_validator("hf_config", mode="before")
    @classmethod
    def _canonical_json(cls, value: Any) -> Any:
        """A dict or a JSON text, kept as sorted JSON (the request is a hashable key)."""
        if value is None:
            return None
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except json.JSONDecodeError as exc:
                raise ValueError(f"hf_config is not JSON: {exc.msg}") from None
        if not isinstance(value, dict):
            raise ValueError("hf_config must be a config.json object")
        return json.dumps(value, sort_keys=True, separators=(",", ":"))

    @model_validator(mode="after")
    def _has_model(self) -> SizingRequest:
        given = [self.model is not None, self.params_b is not None, self.arch is not None,
                 self.hf_config is not None]
        if not any(given):
            raise ValueError("give a model name, a parameter count (params_b), an "
                             "architecture (arch) or a config.json (hf_config)")
        if sum(given) > 1:
            raise ValueError("give one of model, params_b, arch or hf_config")
        if self.documents is not None and self.is_training:
            raise ValueError("documents are a batch of inference requests, not training data "
                             "(give train_tokens)")
        if self.deadline_days is not None and not self.is_training and self.documents is None:
            raise ValueError("a deadline applies to training or to a batch of documents "
                             "(give documents)")
        if self.active_params_b is not None and (
                self.params_b is None or self.active_params_b > self.params_b):
            raise ValueError("active_params_b needs params_b, and cannot exceed it")
        return self

    @property
    def work_kind(self) -> Work:
        """The kind of serving work: as said; a batch when documents are counted; else chat."""
        if self.work is not None:
            return self.work
        return "batch" if self.documents is not None else "chat"

    def stated(self, target: Target) -> bool:
        """Whether the person gave this target (it is set and not one the bot assumed)."""
        return getattr(self, target) is not None and target not in self.assumed

    @property
    def is_training(self) -> bool:
        return self.workload in TRAINING

    @property
    def hf_config_dict(self) -> dict[str, Any] | None:
        return json.loads(self.hf_config) if self.hf_config is not None else None
