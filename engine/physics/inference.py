"""Inference on a node or a cluster: which layouts fit, and what each serves.

Memory decides the fit (weights within the article's share of VRAM, weights + KV cache +
reserve within it; docs/engine-notes.md#inference-memory). Speed comes from the step model
(engine/physics/step.py: measured kernels and collectives per GPU) composed by the serving
model (engine/physics/serving.py: in-flight batching), per copy of the model: a layout of
``dp`` copies of ``tp`` x ``pp`` GPUs serves the request's concurrency split between its
copies. A layout that does not fit is not timed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.catalog.schema import ModelSpec, Policy
from engine.physics.comm import Fabric
from engine.physics.kernels import Kernels
from engine.physics.memory import (
    kv_cache_bytes,
    kv_tp_factor,
    split_precision,
    weights_bytes,
    weights_read_bytes,
)
from engine.physics.parallel import inference_layouts, notation
from engine.physics.params import ParamCount
from engine.physics.serving import Serving, serve
from engine.physics.step import StepModel, clear_geometry
from engine.result import KVPrecision, Precision
from engine.units import GB

__all__ = ["Bounds", "InferencePlan", "Shape", "best_inference", "clear_steps",
           "plan_inference", "step_model", "time_plan"]


@dataclass(frozen=True)
class Shape:
    """What each request brings: ``isl`` prompt tokens, ``osl`` answer tokens; the KV cache is
    sized for the whole ``context``."""

    context: int
    isl: float
    osl: float


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

    Never changed once built (a search builds hundreds: a plain slotted class, compared and
    hashed by identity, is several times cheaper to make than a frozen one)."""

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
    bound: float = math.inf  # an upper bound on tokens_per_s, from memory traffic alone

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
        return notation(self.tp, self.pp, self.dp)

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


_STEPS: dict[tuple[object, ...], tuple[object, ...]] = {}


def clear_steps() -> None:
    """Forget the step models kept across requests (benchmarks measure the cold path)."""
    _STEPS.clear()
    clear_geometry()


def step_model(m: ModelSpec, pc: ParamCount, k: Kernels, fabric: Fabric, policy: Policy, *,
               precision: Precision, kv_precision: KVPrecision, tp: int, pp: int,
               spans_nodes: bool, gpus_per_node: int) -> StepModel:
    """The step model of one layout, built once per process (its parts are pure)."""
    # pc is a pure function of m (engine/physics/params.py): the model's identity is enough
    key = (id(m), id(k), id(fabric.intra), id(fabric.inter), id(policy), precision,
           kv_precision, tp, pp, spans_nodes, min(tp, gpus_per_node))
    hit = _STEPS.get(key)
    if hit is not None:
        return hit[-1]  # type: ignore[return-value]
    dense, experts = split_precision(m, precision)
    sm = StepModel(m, pc, k, fabric, policy, precision=dense, expert_precision=experts,
                   kv_precision=kv_precision, tp=tp, pp=pp, spans_nodes=spans_nodes,
                   gpus_per_node=gpus_per_node)
    if len(_STEPS) > 8192:
        _STEPS.clear()
    _STEPS[key] = (m, k, fabric.intra, fabric.inter, policy, sm)  # refs keep ids valid
    return sm


@dataclass(frozen=True)
class _Load:
    """What every layout of one search shares: the weights and the KV cache per sequence by
    TP degree (the cache replicates when TP exceeds the KV heads)."""

    weights: float
    mem: float
    reserve: float
    kv_per_seq: dict[int, float]
    weights_floor: float  # the fewest weight bytes a decode step reads (one token's experts)
    bandwidth: float  # the datasheet: no kernel streams faster


def _load(m: ModelSpec, pc: ParamCount, k: Kernels, policy: Policy, precision: Precision,
          kv_precision: KVPrecision, shape: Shape, tps: set[int]) -> _Load:
    one = kv_cache_bytes(m, kv_precision, shape.context, 1, 1)
    return _Load(weights=weights_bytes(pc, precision, policy, m), mem=k.gpu.memory_bytes,
                 reserve=policy.runtime_reserve_gb_per_gpu * GB,
                 kv_per_seq={tp: one * kv_tp_factor(m, tp) for tp in tps},
                 weights_floor=weights_read_bytes(m, pc, precision, policy, 1.0),
                 bandwidth=k.gpu.mem_bw_gbs * 1e9)


def _plan(m: ModelSpec, pc: ParamCount, k: Kernels, fabric: Fabric, policy: Policy,
          load: _Load, *, precision: Precision, kv_precision: KVPrecision, concurrency: int,
          shape: Shape, nodes: int, gpus_per_node: int, tp: int, pp: int, dp: int,
          timed: bool = True) -> InferencePlan:
    inst_gpus = tp * pp
    mem, w, reserve = load.mem, load.weights, load.reserve
    per_inst = math.ceil(concurrency / dp)
    per_seq = load.kv_per_seq[tp]
    kv_inst = per_seq * per_inst
    weights_share = w / (inst_gpus * mem)
    weights_ok = weights_share <= policy.max_weights_share + 1e-12
    memory_ok = (w + kv_inst) / inst_gpus + reserve <= mem
    room = inst_gpus * (mem - reserve) - w
    max_conc = dp * max(0, math.floor(room / per_seq)) if per_seq > 0 else 0
    # Every decode step reads at least the weights and the cache, at no more than the
    # datasheet bandwidth, and an answer takes osl steps: a ceiling on what timing can find.
    kv_read = kv_inst * (shape.isl + shape.osl / 2.0) / shape.context
    floor_s = (load.weights_floor + kv_read) / (tp * load.bandwidth)
    busy = math.ceil(concurrency / per_inst)
    bound = busy * per_inst * (shape.osl - 1.0) / (shape.osl * floor_s) if floor_s > 0 \
        else math.inf
    serving = None
    if timed and weights_ok and memory_ok:
        sm = step_model(m, pc, k, fabric, policy, precision=precision,
                        kv_precision=kv_precision, tp=tp, pp=pp,
                        spans_nodes=inst_gpus > gpus_per_node, gpus_per_node=gpus_per_node)
        serving = serve(sm, policy, per_inst, shape.isl, shape.osl)
    gpus = nodes * gpus_per_node
    return InferencePlan(
        precision=precision, kv_precision=kv_precision, nodes=nodes,
        gpus_per_node=gpus_per_node, tp=tp, pp=pp, dp=dp, concurrency=concurrency,
        context=shape.context, weights_bytes=w, kv_bytes=kv_inst * dp,
        reserve_bytes=reserve * gpus, vram_bytes=mem * gpus,
        weights_share=weights_share, weights_ok=weights_ok, memory_ok=memory_ok,
        max_concurrency=max_conc, serving=serving, busy=busy, prompt_tokens=shape.isl,
        bound=bound,
    )


def plan_inference(
    m: ModelSpec, pc: ParamCount, k: Kernels, fabric: Fabric, policy: Policy, *,
    precision: Precision, kv_precision: KVPrecision, concurrency: int, shape: Shape,
    nodes: int, gpus_per_node: int, tp: int, pp: int, dp: int,
) -> InferencePlan:
    """Memory fit of one layout at the requested load, and its serving figures if it fits."""
    load = _load(m, pc, k, policy, precision, kv_precision, shape, {tp})
    return _plan(m, pc, k, fabric, policy, load, precision=precision,
                 kv_precision=kv_precision, concurrency=concurrency, shape=shape, nodes=nodes,
                 gpus_per_node=gpus_per_node, tp=tp, pp=pp, dp=dp)


def time_plan(m: ModelSpec, pc: ParamCount, k: Kernels, fabric: Fabric, policy: Policy,
              p: InferencePlan, shape: Shape) -> InferencePlan:
    """Fill in a fitting plan's serving figures (a search leaves some untimed); returns it."""
    if p.serving is None and p.fits:
        sm = step_model(m, pc, k, fabric, policy, precision=p.precision,
                        kv_precision=p.kv_precision, tp=p.tp, pp=p.pp,
                        spans_nodes=p.tp * p.pp > p.gpus_per_node,
                        gpus_per_node=p.gpus_per_node)
        p.serving = serve(sm, policy, p.per_copy, shape.isl, shape.osl)
    return p


def best_inference(
    m: ModelSpec, pc: ParamCount, k: Kernels, fabric: Fabric, policy: Policy, *,
    precision: Precision, kv_precision: KVPrecision, concurrency: int, shape: Shape,
    nodes: int, gpus_per_node: int, bounds: Bounds = Bounds(), timed: bool = True,
) -> tuple[InferencePlan | None, list[InferencePlan]]:
    """The fitting layout with the most tokens/s among those meeting ``bounds`` (else among
    all that fit), or None; and every layout tried (without bounds, a fitting layout whose
    ceiling is below the best found is not timed: its ``serving`` stays None). With
    ``timed=False`` nothing is timed and no best is named: the memory fit of every layout."""
    layouts = inference_layouts(m, nodes, gpus_per_node)
    load = _load(m, pc, k, policy, precision, kv_precision, shape, {t for t, _, _ in layouts})
    plans = [
        _plan(m, pc, k, fabric, policy, load, precision=precision, kv_precision=kv_precision,
              concurrency=concurrency, shape=shape, nodes=nodes, gpus_per_node=gpus_per_node,
              tp=tp, pp=pp, dp=dp, timed=False)
        for tp, pp, dp in layouts
    ]
    fitting = [p for p in plans if p.fits]
    if not fitting:
        return None, plans
    if not timed:  # memory only: whether (and how) it fits, no kernel timed
        return None, plans

    def time(p: InferencePlan) -> InferencePlan:
        return time_plan(m, pc, k, fabric, policy, p, shape)

    if bounds.any:  # the best among those meeting the bounds: every layout is timed
        for p in fitting:
            time(p)
        meeting = [p for p in fitting if p.serving is not None and bounds.met(p.serving)]
        pool = meeting or fitting
        return max(pool, key=lambda p: (p.tokens_per_s, -p.pp)), plans
    # Branch and bound: time layouts from the highest memory ceiling down, and stop once
    # the best timed beats every ceiling left (the same best as timing them all).
    best: InferencePlan | None = None
    for p in sorted(fitting, key=lambda p: -p.bound):
        if best is not None and best.tokens_per_s >= p.bound:
            break
        time(p)
        if best is None or (p.tokens_per_s, -p.pp) > (best.tokens_per_s, -best.pp):
            best = p
    return best, plans
