"""What a person asks the engine: the sizing request, validated once at the edge.

The request is frozen and hashable, so an answer can be memoized on it (a conversation asks
the same question again on every turn). The types of its fields (workloads, weight and KV
precisions) are the ones the answer uses, defined once in engine/result.py.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine.result import KVPrecision, Workload

__all__ = ["DEFAULT_GPU", "DEFAULT_INTERCONNECT", "TRAINING", "AskedPrecision", "KVPrecision",
           "SizingRequest", "Workload"]

#: The weight formats a person may ask for (the answer may also use NF4 for QLoRA).
AskedPrecision = Literal["bf16", "fp16", "fp8", "int4"]
TRAINING: tuple[Workload, ...] = ("lora", "qlora", "full-finetune", "pretrain")

DEFAULT_GPU = "rtx-pro-6000-server"
DEFAULT_INTERCONNECT = "ib-200"


class SizingRequest(BaseModel):
    """One sizing question. Defaults follow docs/decision-tree.md ("How the engine reads the
    tree").

    ``model`` is anything the catalog resolves (HF id, short id, loose form); without it,
    ``params_b`` sizes a dense model from its parameter count with stated assumptions.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str | None = None
    params_b: float | None = Field(default=None, gt=0, le=100_000)
    workload: Workload = "inference"
    precision: AskedPrecision = "fp8"
    allow_int4: bool = True
    concurrency: int = Field(default=32, ge=1, le=100_000)
    context: int = Field(default=8192, ge=1, le=10_000_000)
    kv_precision: KVPrecision = "bf16"
    target_tokens_per_s: float | None = Field(default=None, gt=0, le=1e9)
    gpu: str = DEFAULT_GPU
    gpus_per_node: int = Field(default=8, ge=1, le=16)
    interconnect: str = DEFAULT_INTERCONNECT
    train_tokens: float | None = Field(default=None, gt=0, le=1e15)
    deadline_days: float | None = Field(default=None, gt=0, le=3650)

    @model_validator(mode="after")
    def _has_model(self) -> SizingRequest:
        if self.model is None and self.params_b is None:
            raise ValueError("give a model name or a parameter count (params_b)")
        return self

    @property
    def is_training(self) -> bool:
        return self.workload in TRAINING
