"""What a serving search works on: a request's shape, its per-user bounds, and one layout's
plan (its memory fit and, once timed, its serving figures).

Why their own module: the plans are made and timed by engine/physics/inference.py and
weighed by engine/physics/search.py, and the decision reads them everywhere; plain data
with no physics in it keeps those modules from importing each other.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.physics.parallel import notation
from engine.physics.serving import Ceiling, Serving
from engine.result import KVPrecision, Precision

__all__ = ["Bounds", "InferencePlan", "Shape"]


@dataclass(frozen=True)
class Shape:
    """What each request brings: ``isl`` prompt tokens to prefill, ``osl`` answer tokens, and
    ``cached`` prompt tokens already in the prefix cache (a conversation's earlier turns:
    read at every decode step, never prefilled again); the KV cache is sized for the whole
    ``context``."""

    context: int
    isl: float
    osl: float
    cached: float = 0.0


@dataclass(frozen=True)
class Bounds:
    """What a user must see: at least ``tokens_per_s`` per user, a first token within
    ``ttft_s`` (either may be None)."""

    tokens_per_s: float | None = None
    ttft_s: float | None = None

    def met(self, s: Serving) -> bool:
        if self.tokens_per_s is not None and s.per_user_tokens_per_s < self.tokens_per_s:
            return False
        return self.ttft_s is None or s.ttft_s <= self.ttft_s

    @property
    def any(self) -> bool:
        return self.tokens_per_s is not None or self.ttft_s is not None


@dataclass(slots=True, eq=False)
class InferencePlan:
    """One deployment layout: ``dp`` instances of ``tp`` x ``pp`` GPUs over ``nodes`` nodes.

    Its memory fit never changes once built; a search fills in its serving figures when it
    times it, and its ``ceiling`` when it bounds it (a search builds hundreds: a plain
    slotted class, compared and hashed by identity, is several times cheaper to make than a
    frozen one)."""

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
    serving: Serving | None
    busy: int
    prompt_tokens: float
    bound: float = math.inf  # a ceiling on tokens_per_s from memory traffic alone
    #: an upper bound on tokens_per_s without timing the mixed steps in full, once a search
    #: has worked it out (engine/physics/serving.py ``ceiling``); inf until then
    ceiling: float = math.inf
    #: one copy's ceilings behind it (None until worked out)
    caps: Ceiling | None = None
    #: the group's GPUs each run the attention (and every other layer but the routed
    #: experts) whole on their own requests, the experts spread over them
    #: (engine/physics/step.py, "attention data parallelism")
    attention_dp: bool = False

    @property
    def fits(self) -> bool:
        return self.weights_ok and self.memory_ok

    @property
    def instance_gpus(self) -> int:
        """GPUs that hold one copy of the weights (tp x pp)."""
        return self.tp * self.pp

    @property
    def per_copy(self) -> int:
        """Requests each copy serves."""
        return math.ceil(self.concurrency / self.dp)

    @property
    def label(self) -> str:
        return notation(self.tp, self.pp, self.dp, attention_dp=self.attention_dp)

    @property
    def tokens_per_s(self) -> float:
        """Output tokens/s of the layout (its copies that have requests)."""
        return self.serving.tokens_per_s * self.busy if self.serving else 0.0

    @property
    def requests_per_s(self) -> float:
        return self.serving.requests_per_s * self.busy if self.serving else 0.0

    @property
    def decode_step_ms(self) -> float:
        return self.serving.decode_step_s * 1e3 if self.serving else math.inf

    @property
    def tpot_ms(self) -> float:
        return self.serving.tpot_s * 1e3 if self.serving else math.inf

    @property
    def ttft_s(self) -> float:
        return self.serving.ttft_s if self.serving else math.inf

    @property
    def per_user_tokens_per_s(self) -> float:
        return self.serving.per_user_tokens_per_s if self.serving else 0.0

    @property
    def prefill_tokens_per_s(self) -> float:
        """Prompt tokens/s one copy prefills alone, times the copies."""
        if not self.serving:
            return 0.0
        return self.dp * self.prompt_tokens / self.serving.prefill_s
