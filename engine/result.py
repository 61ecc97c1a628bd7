"""What the engine answers: a recommendation with its evidence, as plain validated data.

Field names are a contract (``python -m engine recommend --json``, the dialogue, the faces):
rename nothing without updating those. Prose never crosses this boundary: every sentence is
a :class:`engine.wording.Message` (an id and the numbers it mentions) that a face renders in
the conversation's language. The figures a face draws (the VRAM picture) are computed here,
once, so the bar and step 1 can never disagree.

Units: figures ending in ``_gb`` are decimal GB (10^9 bytes); shares are 0..1; rates are
tokens per second unless named otherwise.
"""

from __future__ import annotations

from typing import Any, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    computed_field,
    model_serializer,
)

from engine.wording import Message, msg, text

Verdict = Literal["single_node", "single_node_int4", "replicas", "multi_node", "frontier"]
Answer = Literal["yes", "no", "not applicable"]
#: Weight formats. ``int4`` (AWQ/GPTQ W4A16), ``nvfp4`` (4-bit weights and activations on FP4
#: tensor cores), ``mxfp4`` (a checkpoint shipped in MXFP4, e.g. gpt-oss): all three are the
#: article's "4-bit" step 2.
Precision = Literal["bf16", "fp16", "fp8", "int4", "nvfp4", "mxfp4", "nf4"]
KVPrecision = Literal["bf16", "fp8"]
Workload = Literal["inference", "lora", "qlora", "full-finetune", "pretrain"]
#: The kinds of serving work (engine/data/work.toml): their request shape and the least a
#: user of them accepts. None in a request means chat. A translation or a classification is a
#: batch whose answers have their own length (as long as the text; a label).
Work = Literal["chat", "rag", "batch", "translation", "classification"]
WorkKind = Literal["kv_cache", "training_state"]

#: Verdict -> the message id of its short name ("One 8-GPU node", ...), in the engine catalog.
VERDICT_IDS: dict[str, str] = {
    "single_node": "verdict.single_node",
    "single_node_int4": "verdict.single_node_int4",
    "replicas": "verdict.replicas",
    "multi_node": "verdict.multi_node",
    "frontier": "verdict.frontier",
}


def verdict_name(verdict: str, gpus_per_node: int) -> Message:
    """A verdict's short name, the node's own GPU count in it ("One 8-GPU node", "One 4-GPU
    node": the article's 8 is the usual node, not every node); an id the catalog does not
    know (an old audit record) as it is."""
    ident = VERDICT_IDS.get(verdict)
    return msg(ident, gpus=gpus_per_node) if ident else text(verdict)


_T = TypeVar("_T", bound="_Out")
#: Each output model's field defaults (none of them uses a default factory).
_DEFAULTS: dict[type[BaseModel], dict[str, Any]] = {}


class _Out(BaseModel):
    model_config = ConfigDict(frozen=True)

    @classmethod
    def of(cls: type[_T], **data: Any) -> _T:
        """Build from values the engine computed itself, without validating them again: the
        types are checked statically (mypy --strict) and an answer builds dozens of these.
        The instance state is what ``model_construct`` sets (fields, defaults, the fields
        given), without its per-field walk. Anything read from outside goes through
        ``model_validate`` as usual."""
        defaults = _DEFAULTS.get(cls)
        if defaults is None:
            defaults = _DEFAULTS[cls] = {name: f.default for name, f in cls.model_fields.items()
                                         if not f.is_required()}
        out = object.__new__(cls)
        object.__setattr__(out, "__dict__", {**defaults, **data})
        object.__setattr__(out, "__pydantic_fields_set__", set(data))
        object.__setattr__(out, "__pydantic_extra__", None)
        object.__setattr__(out, "__pydantic_private__", None)
        return out


class Layout(_Out):
    """``dp`` copies of ``tp`` x ``pp`` GPUs; with ``attention_dp`` each group of ``tp`` GPUs
    runs the attention on its own requests with the experts spread over it ('DEP=8',
    engine/physics/step.py), a flag the JSON carries only when set (a TP layout's contract
    stays tp, pp, dp)."""

    tp: int = Field(ge=1)
    pp: int = Field(ge=1)
    dp: int = Field(ge=1)
    attention_dp: bool = False

    @property
    def written(self) -> str:
        """The layout as engineers write it ('TP=4 x PP=2', 'DEP=8'), the same in every
        language."""
        from engine.physics.parallel import notation

        return notation(self.tp, self.pp, self.dp, attention_dp=self.attention_dp)

    @model_serializer(mode="wrap")
    def _flag_when_set(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        out: dict[str, Any] = handler(self)
        if not self.attention_dp:
            out.pop("attention_dp", None)
        return out


class Segments(_Out):
    """Where one scope's VRAM goes: the bar a face draws, and the free share step 1 quotes.

    ``weights_gb`` counts every copy of the weights in the scope (a TP=4 x DP=2 node holds
    two). ``work_gb`` is the KV cache (inference) or gradients + optimizer + activations
    (training). When the demand exceeds the VRAM, ``free_gb`` is negative: the bar shows it.
    """

    vram_gb: float = Field(gt=0)
    weights_gb: float = Field(ge=0)
    work_gb: float = Field(ge=0)
    work: WorkKind
    reserve_gb: float = Field(ge=0)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def used_gb(self) -> float:
        return self.weights_gb + self.work_gb + self.reserve_gb

    @computed_field  # type: ignore[prop-decorator]
    @property
    def free_gb(self) -> float:
        return self.vram_gb - self.used_gb

    @computed_field  # type: ignore[prop-decorator]
    @property
    def free_share(self) -> float:
        return max(0.0, self.free_gb / self.vram_gb)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def weights_share(self) -> float:
        return self.weights_gb / self.vram_gb


class MemoryPicture(_Out):
    """The VRAM of one copy of the deployment (a node, or one cluster) and of all copies."""

    scope_nodes: int = Field(ge=1, description="nodes in one copy")
    copies: int = Field(ge=1, description="identical copies (replicas); 1 when none")
    scope_gpus: int | None = Field(default=None, ge=1, description=(
        "GPUs of the node the work is sized on, when fewer than the node holds (small work "
        "on the fewest GPUs); None when it takes whole nodes"))
    per_copy: Segments
    total: Segments


class Numbers(_Out):
    """The figures behind a verdict. ``None`` where not relevant.

    With replicas (of a node or of a cluster) the per-deployment figures describe one copy;
    ``nodes`` on the recommendation and ``gpus_needed`` count them all.
    """

    memory: MemoryPicture | None = Field(None, description="the VRAM picture (bar + free share)")
    vram_total_gb: float | None = Field(
        None, description="VRAM of one copy of the deployment, real bytes in decimal GB")
    vram_nominal_gb: float | None = Field(
        None, description="the same GPUs' capacity as the vendor sells it (8 x 96 GB = 768 GB)")
    weights_gb: float | None = Field(None, description="one copy of the weights")
    weights_share: float | None = Field(None, description="weights / VRAM of the GPUs holding them")
    kv_bytes_per_token: int | None = Field(None, description="one token, every layer keeping it")
    kv_cache_gb: float | None = Field(None, description="KV cache at the sized load, one copy")
    training_state_gb: float | None = Field(
        None, description=("weights + gradients + optimizer, counted once (the figure step 1 "
                           "and the math quote); activations apart")
    )
    activations_gb: float | None = Field(None, description="activations, one copy (training)")
    reserve_gb: float | None = Field(None, description="runtime reserve, one copy")
    free_share: float | None = Field(None, description="VRAM left after weights, work, reserve")
    max_concurrency: int | None = Field(
        None, description="the most sequences at the sized context one copy holds"
    )
    node_tokens_per_s: float | None = Field(
        None, description="output tokens/s of one copy (a node, or one cluster)"
    )
    total_tokens_per_s: float | None = Field(None, description="output tokens/s of all copies")
    # Serving, as a user sees it (in-flight batching at the sized load).
    ttft_s: float | None = Field(None, description="time to first token at the sized load")
    tpot_ms: float | None = Field(None, description="time per output token a user sees")
    per_user_tokens_per_s: float | None = Field(None, description="1000 / tpot_ms")
    requests_per_s: float | None = Field(None, description="requests/s all copies sustain")
    decode_step_ms: float | None = Field(
        None, description="one decode-only step of a copy at its load (no prompt in it)")
    # Training.
    scaling_efficiency: float | None = Field(
        None, description="per-GPU throughput against the ideal (training)"
    )
    tp_across_nodes_efficiency: float | None = Field(
        None, description="the same job with tensor parallelism across the nodes (C16)")
    mfu: float | None = Field(None, description="model FLOPs utilisation of the run (training)")
    gpu_months: float | None = Field(None, description="GPU time of the training run")
    days: float | None = Field(None, description=(
        "projected wall-clock days: a training run, or a batch of documents at this rate"))
    gpus_needed: int | None = Field(None, description="GPUs the verdict uses, all copies")
    min_gpus: int | None = Field(
        None, description="fewest GPUs of one node that do the job (fit, and meet the target, "
        "bounds or deadline); equals gpus_needed when the answer is sized on them")


class StepAnswer(_Out):
    """One of the article's five questions, its answer, and the evidence (a message whose
    params are the numbers behind it)."""

    step: int = Field(ge=1, le=5)
    question: Message
    answer: Answer
    because: Message


class Alternative(_Out):
    """Another configuration worth showing beside the verdict, with its own numbers."""

    kind: Literal["gpu", "layout", "precision", "as_asked", "kv_precision", "speed"]
    label: Message
    verdict: Verdict | None
    gpu: str
    nodes: int
    precision: Precision
    layout: Layout | None
    summary: Message
    numbers: Numbers


class Knee(_Out):
    """What an assumed per-user speed would cost beyond the answer: the answer serves each
    user at ``tokens_per_s`` on ``nodes`` nodes (``gpus`` GPUs); the ``assumed_tokens_per_s``
    the bot assumed would take ``preferred_nodes`` (``preferred_gpus``). A face asks which
    the person wants (the assumption decides the hardware)."""

    assumed_tokens_per_s: float = Field(gt=0)
    tokens_per_s: float = Field(ge=0)
    nodes: int = Field(ge=1)
    gpus: int = Field(ge=1)
    preferred_nodes: int = Field(ge=1)
    preferred_gpus: int = Field(ge=1)


class Owned(_Out):
    """What the nodes the customer already has do with the request: the requests they serve
    at once within the targets (0: none), the speed each user sees there, the weight format
    (None when the model does not fit), and the sentence that says it."""

    nodes: int = Field(ge=1)
    gpus_per_node: int = Field(ge=1)
    gpu: str
    precision: Precision | None
    served: int = Field(ge=0)
    concurrency: int = Field(ge=1)
    per_user_tokens_per_s: float | None
    ttft_s: float | None
    said: Message


class ModelRef(_Out):
    id: str
    name: str
    params_b: float
    active_params_b: float
    in_catalog: bool
    moe: bool = False
    native_precision: Precision | None = None


class Recommendation(_Out):
    step: int = Field(ge=1, le=5)
    verdict: Verdict
    headline: Message
    nodes: int = Field(ge=1, description="all nodes, every copy included")
    gpus_per_node: int
    gpu: str
    gpu_name: str
    precision: Precision
    kv_precision: KVPrecision
    layout: Layout
    replicas: int | None
    interconnect: str | None
    model: ModelRef
    workload: Workload
    numbers: Numbers
    questions: list[StepAnswer]
    caveats: list[Message]
    assumptions: list[Message]
    alternatives: list[Alternative]
    math: list[Message] = Field(description="formulas with the constants used ('Show the math')")
    knee: Knee | None = Field(None, description=(
        "what the per-user speed the bot assumed would take beyond this answer (None when "
        "the answer meets it, or nothing was assumed)"))
    owned: Owned | None = Field(None, description=(
        "what the nodes the customer already has do (None when they named none)"))
    work: Work | None = Field(None, description=(
        "the kind of serving work the answer was sized for (None for training)"))
