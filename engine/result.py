"""What the engine answers: a recommendation with its evidence, as plain validated data.

Field names are a contract (``python -m engine recommend --json``, the dialogue, the
cards): rename nothing without updating those.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Verdict = Literal["single_node", "single_node_int4", "replicas", "multi_node", "frontier"]
Answer = Literal["yes", "no", "not applicable"]

VERDICT_TEXT: dict[str, str] = {
    "single_node": "One 8-GPU node",
    "single_node_int4": "One 8-GPU node, with INT4 weights",
    "replicas": "Data-parallel replicas of one node",
    "multi_node": "A multi-node cluster on InfiniBand",
    "frontier": "Frontier-scale: SXM / IB NDR, or don't do it in-house",
}


class _Out(BaseModel):
    model_config = ConfigDict(frozen=True)


class Layout(_Out):
    tp: int = Field(ge=1)
    pp: int = Field(ge=1)
    dp: int = Field(ge=1)


class Numbers(_Out):
    """The figures behind a verdict (GB = 1e9 bytes). ``None`` where not relevant.

    With replicas (of a node or of a cluster) the figures describe one replica; ``nodes``
    and ``gpus_needed`` count them all.
    """

    vram_total_gb: float | None = Field(None, description="VRAM of all GPUs the verdict uses")
    weights_gb: float | None = Field(None, description="one copy of the weights")
    weights_share: float | None = Field(None, description="weights_gb / vram_total_gb")
    kv_bytes_per_token: int | None = Field(None, description="one token, every layer keeping it")
    kv_cache_gb: float | None = Field(
        None, description="KV cache at the requested concurrency x context, all copies"
    )
    training_state_gb: float | None = Field(
        None, description="weights + gradients + optimizer + activations on the verdict's GPUs"
    )
    activations_gb: float | None = Field(None, description="activations, all GPUs (training)")
    reserve_gb: float | None = Field(None, description="runtime reserve, all GPUs")
    free_share: float | None = Field(None, description="VRAM left after weights, KV, reserve")
    max_concurrency: int | None = Field(
        None, description="the most sequences at the requested context that fit"
    )
    node_tokens_per_s: float | None = Field(
        None, description="output tokens/s of one deployment (a node, or the cluster)"
    )
    scaling_efficiency: float | None = Field(
        None, description="per-GPU throughput against the ideal (training)"
    )
    gpu_months: float | None = Field(None, description="GPU time of the training run")
    days: float | None = Field(None, description="projected wall-clock days (training)")
    gpus_needed: int | None = Field(None, description="GPUs the verdict uses")
    min_gpus: int | None = Field(None, description="fewest GPUs of one node the job fits")


class StepAnswer(_Out):
    step: int = Field(ge=1, le=5)
    question: str
    answer: Answer
    because: str


class Alternative(_Out):
    """Another configuration worth showing beside the verdict, with its own numbers."""

    label: str
    verdict: Verdict | None
    gpu: str
    nodes: int
    precision: str
    layout: Layout | None
    summary: str
    numbers: Numbers


class ModelRef(_Out):
    id: str
    name: str
    params_b: float
    active_params_b: float
    in_catalog: bool


class Recommendation(_Out):
    step: int = Field(ge=1, le=5)
    verdict: Verdict
    headline: str
    nodes: int
    gpus_per_node: int
    gpu: str
    gpu_name: str
    precision: str
    layout: Layout
    replicas: int | None
    interconnect: str | None
    model: ModelRef
    workload: str
    numbers: Numbers
    questions: list[StepAnswer]
    caveats: list[str]
    assumptions: list[str]
    alternatives: list[Alternative]
    math: list[str] = Field(description="formulas with the constants used, for 'Show the math'")
