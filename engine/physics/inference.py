"""Inference on a node or a cluster: which layouts fit, and what each serves.

Memory decides the fit (weights within the article's share of VRAM, weights + KV cache +
reserve within it; docs/engine-notes.md#inference-memory). Speed comes from the step model
(engine/physics/step.py: measured kernels and collectives per GPU) composed by the serving
model (engine/physics/serving.py: in-flight batching), per copy of the model: a layout of
``dp`` copies of ``tp`` x ``pp`` GPUs serves the request's concurrency split between its
copies. A layout that does not fit is not timed, and one that cannot win is not timed in
full (engine/physics/search.py decides which). The plans' data are engine/physics/plans.py's.

What one request's searches share: the weights and KV bytes of a model at a format and
context (:class:`_Load`, counted once and reused by every GPU an answer weighs), the step
models of each layout (kept across requests, with their per-layer geometry), and the
memory fits of the request's own load, which a timed search fills in rather than rebuilds
(engine/decision/searches.py).
"""

from __future__ import annotations

import math

from engine.catalog.schema import ModelSpec, Policy
from engine.memo import Memo
from engine.physics.comm import Fabric
from engine.physics.kernels import Kernels
from engine.physics.memory import (
    body_bytes_per_param,
    kv_cache_bytes,
    kv_tp_factor,
    routed_expert_params,
    split_precision,
    weights_bytes,
    weights_read_bytes,
)
from engine.physics.parallel import inference_layouts
from engine.physics.params import ParamCount
from engine.physics.plans import Bounds, InferencePlan, Shape
from engine.physics.search import best_of
from engine.physics.serving import Ceiling, ceiling, serve
from engine.physics.step import StepModel, clear_geometry, expert_parallel
from engine.result import KVPrecision, Precision
from engine.units import GB

__all__ = ["Bounds", "InferencePlan", "Shape", "best_inference", "ceiling_of", "clear_steps",
           "fit_layouts", "plan_inference", "serving_layouts", "step_model", "time_plan"]


#: A search without per-user bounds.
NO_BOUNDS = Bounds()

#: Step models and request bytes kept across requests (engine/memo.py): built once per
#: layout, their parts pure.
_STEPS: Memo[StepModel] = Memo(8192)


def clear_steps() -> None:
    """Forget the step models kept across requests (benchmarks measure the cold path)."""
    _STEPS.clear()
    _BYTES.clear()
    _LOADS.clear()
    clear_geometry()


def step_model(m: ModelSpec, pc: ParamCount, k: Kernels, fabric: Fabric, policy: Policy, *,
               precision: Precision, kv_precision: KVPrecision, tp: int, pp: int,
               spans_nodes: bool, gpus_per_node: int, attention_dp: bool = False) -> StepModel:
    """The step model of one layout, built once per process (its parts are pure)."""
    def build() -> StepModel:
        dense, experts = split_precision(m, precision)
        return StepModel(m, pc, k, fabric, policy, precision=dense, expert_precision=experts,
                         kv_precision=kv_precision, tp=tp, pp=pp, spans_nodes=spans_nodes,
                         gpus_per_node=gpus_per_node, attention_dp=attention_dp)
    # pc is a pure function of m (engine/physics/params.py): the model's identity is enough
    return _STEPS.kept((m, k, fabric.intra, fabric.inter, policy),
                       (precision, kv_precision, tp, pp, spans_nodes, min(tp, gpus_per_node),
                        attention_dp),
                       build)


class _Load:
    """What every layout of one search shares: the weights and the KV cache per sequence by
    TP degree (the cache replicates when TP exceeds the KV heads), on one GPU.

    The bytes depend on the model, the formats and the context, not on the GPU: they are
    counted once per request (:data:`_BYTES`) and every GPU an answer weighs reuses them."""

    __slots__ = ("bandwidth", "kv_one", "kv_per_seq", "m", "mem", "reserve", "routed",
                 "weights", "weights_floor")

    def __init__(self, demand: _Load | None, m: ModelSpec, pc: ParamCount, k: Kernels,
                 policy: Policy, precision: Precision, kv_precision: KVPrecision,
                 context: int) -> None:
        self.m = m
        if demand is None:
            self.kv_one = kv_cache_bytes(m, kv_precision, context, 1, 1)
            self.weights = weights_bytes(pc, precision, policy, m)
            self.reserve = policy.runtime_reserve_gb_per_gpu * GB
            #: the fewest weight bytes a decode step reads (one token's experts)
            self.weights_floor = weights_read_bytes(m, pc, precision, policy, 1.0)
            #: the routed experts' bytes (the only weights attention DP does not replicate)
            self.routed = routed_expert_params(m, pc) * body_bytes_per_param(
                split_precision(m, precision)[1], policy) if m.is_moe else 0.0
            self.kv_per_seq: dict[int, float] = {}
        else:
            self.kv_one, self.weights = demand.kv_one, demand.weights
            self.reserve, self.weights_floor = demand.reserve, demand.weights_floor
            self.routed = demand.routed
            self.kv_per_seq = demand.kv_per_seq
        self.mem = k.gpu.memory_bytes
        self.bandwidth = k.gpu.mem_bw_gbs * 1e9  # the datasheet: no kernel streams faster

    def kv(self, tp: int) -> float:
        """KV cache bytes of one sequence at TP degree ``tp``, over the whole copy."""
        hit = self.kv_per_seq.get(tp)
        if hit is None:
            hit = self.kv_per_seq[tp] = self.kv_one * kv_tp_factor(self.m, tp)
        return hit


#: The bytes of a model at a format and context (shared by every GPU), and the loads of the
#: searches by GPU, kept across requests (engine/memo.py).
_BYTES: Memo[_Load] = Memo(8192)
_LOADS: Memo[_Load] = Memo(8192)


def _load(m: ModelSpec, pc: ParamCount, k: Kernels, policy: Policy, precision: Precision,
          kv_precision: KVPrecision, shape: Shape) -> _Load:
    numbers = (precision, kv_precision, shape.context)

    def on_gpu() -> _Load:
        demand = _BYTES.kept((m, policy), numbers, lambda: _Load(
            None, m, pc, k, policy, precision, kv_precision, shape.context))
        return demand if demand.mem == k.gpu.memory_bytes and demand.bandwidth == \
            k.gpu.mem_bw_gbs * 1e9 else _Load(demand, m, pc, k, policy, precision,
                                              kv_precision, shape.context)
    return _LOADS.kept((m, policy, k.gpu), numbers, on_gpu)


#: (tp, pp, dp, attention DP) of one serving layout.
Layout = tuple[int, int, int, bool]


def serving_layouts(m: ModelSpec, policy: Policy, nodes: int,
                    gpus_per_node: int) -> list[Layout]:
    """Every serving layout of ``nodes`` nodes: the TP x PP x DP layouts
    (engine/physics/parallel.py), and for an MoE model, when the policy weighs it, each of
    them whose TP group can hold the experts whole (expert parallelism over the group) once
    more with attention data parallelism over the group: the way TensorRT-LLM runs MoE models
    at maximum throughput (engine/data/policy.toml ``moe_attention_dp``)."""
    base = inference_layouts(m, nodes, gpus_per_node)
    out: list[Layout] = [(tp, pp, dp, False) for tp, pp, dp in base]
    if m.is_moe and policy.moe_attention_dp:
        out += [(tp, pp, dp, True) for tp, pp, dp in base
                if tp > 1 and expert_parallel(m, policy, tp) == tp]
    return out


def _plans(load: _Load, policy: Policy, precision: Precision, kv_precision: KVPrecision,
           concurrency: int, shape: Shape, nodes: int, gpus_per_node: int,
           layouts: list[Layout]) -> list[InferencePlan]:
    """The memory fit of each (tp, pp, dp, attention DP) layout at the load (untimed plans).

    Under attention DP each GPU of a TP group holds every weight but the routed experts
    whole, and the group's copy of the weights counts those once per GPU; each GPU keeps the
    KV cache of its own requests, all heads (no TP split, so no head replicated either)."""
    mem, w, reserve = load.mem, load.weights, load.reserve
    max_share = policy.max_weights_share + 1e-12
    usable = mem - reserve
    read_len = shape.cached + shape.isl + shape.osl / 2.0  # the mean length over an answer
    answer = shape.osl - 1.0
    gpus = nodes * gpus_per_node
    out = []
    for tp, pp, dp, adp in layouts:
        inst_gpus = tp * pp
        per_inst = math.ceil(concurrency / dp)
        per_seq = load.kv(1 if adp else tp)
        kv_inst = per_seq * per_inst
        held = tp * (w - load.routed) + load.routed if adp else w
        weights_share = held / (inst_gpus * mem)
        room = inst_gpus * usable - held
        # Every decode step reads at least the weights and the cache at no more than the
        # datasheet bandwidth, and an answer takes osl steps: a ceiling on what timing finds
        # (a heuristic one: engine/physics/search.py says where it is not, and how it is used).
        floor_s = (load.weights_floor + kv_inst * read_len / shape.context) / (
            tp * load.bandwidth)
        busy = math.ceil(concurrency / per_inst)
        out.append(InferencePlan(
            precision, kv_precision, nodes, gpus_per_node, tp, pp, dp, concurrency,
            shape.context, held, kv_inst * dp, reserve * gpus, mem * gpus, weights_share,
            weights_share <= max_share, (held + kv_inst) / inst_gpus + reserve <= mem,
            dp * max(0, math.floor(room / per_seq)) if per_seq > 0 else 0, None, busy,
            shape.isl,
            busy * per_inst * answer / (shape.osl * floor_s) if floor_s > 0 else math.inf,
            attention_dp=adp))
    return out


def _step_of(m: ModelSpec, pc: ParamCount, k: Kernels, fabric: Fabric, policy: Policy,
             p: InferencePlan) -> StepModel:
    return step_model(m, pc, k, fabric, policy, precision=p.precision,
                      kv_precision=p.kv_precision, tp=p.tp, pp=p.pp,
                      spans_nodes=p.tp * p.pp > p.gpus_per_node,
                      gpus_per_node=p.gpus_per_node, attention_dp=p.attention_dp)


def plan_inference(
    m: ModelSpec, pc: ParamCount, k: Kernels, fabric: Fabric, policy: Policy, *,
    precision: Precision, kv_precision: KVPrecision, concurrency: int, shape: Shape,
    nodes: int, gpus_per_node: int, tp: int, pp: int, dp: int, timed: bool = True,
    attention_dp: bool = False,
) -> InferencePlan:
    """Memory fit of one layout at the requested load, and its serving figures if it fits
    (with ``timed=False``, the memory fit only: :func:`time_plan` fills them in later)."""
    load = _load(m, pc, k, policy, precision, kv_precision, shape)
    p = _plans(load, policy, precision, kv_precision, concurrency, shape, nodes,
               gpus_per_node, [(tp, pp, dp, attention_dp)])[0]
    return time_plan(m, pc, k, fabric, policy, p, shape) if timed else p


def time_plan(m: ModelSpec, pc: ParamCount, k: Kernels, fabric: Fabric, policy: Policy,
              p: InferencePlan, shape: Shape) -> InferencePlan:
    """Fill in a fitting plan's serving figures (a search leaves some untimed); returns it."""
    if p.serving is None and p.fits:
        p.serving = serve(_step_of(m, pc, k, fabric, policy, p),
                          policy, p.per_copy, shape.isl, shape.osl, shape.cached)
    return p


def ceiling_of(m: ModelSpec, pc: ParamCount, k: Kernels, fabric: Fabric, policy: Policy,
               p: InferencePlan, shape: Shape, *, ttft: bool = False) -> Ceiling:
    """A fitting plan's ceilings (one copy's; engine/physics/serving.py ``ceiling``, with
    the first-token floor when ``ttft``), kept on it (``caps``), its ``ceiling`` set to the
    tokens/s of the copies that have requests."""
    c = p.caps
    if c is not None and (c.ttft_s is not None or not ttft):
        return c
    step = _step_of(m, pc, k, fabric, policy, p)
    c = p.caps = ceiling(step, policy, p.per_copy, shape.isl, shape.osl, ttft=ttft,
                         cached=shape.cached)
    p.ceiling = c.tokens_per_s * p.busy
    return c


def fit_layouts(
    m: ModelSpec, pc: ParamCount, k: Kernels, fabric: Fabric, policy: Policy, *,
    precision: Precision, kv_precision: KVPrecision, concurrency: int, shape: Shape,
    nodes: int, gpus_per_node: int,
) -> list[InferencePlan]:
    """Every layout of ``nodes`` nodes at the load, memory only (no kernel timed)."""
    load = _load(m, pc, k, policy, precision, kv_precision, shape)
    return _plans(load, policy, precision, kv_precision, concurrency, shape, nodes,
                  gpus_per_node, serving_layouts(m, policy, nodes, gpus_per_node))


def best_inference(
    m: ModelSpec, pc: ParamCount, k: Kernels, fabric: Fabric, policy: Policy, *,
    precision: Precision, kv_precision: KVPrecision, concurrency: int, shape: Shape,
    nodes: int, gpus_per_node: int, bounds: Bounds = NO_BOUNDS, timed: bool = True,
    plans: list[InferencePlan] | None = None,
) -> tuple[InferencePlan | None, list[InferencePlan]]:
    """The fitting layout with the most tokens/s among those meeting ``bounds`` (else among
    all that fit), or None; and every layout tried (engine/physics/search.py: a layout the
    search shows cannot win is not timed, its ``serving`` stays None). With ``timed=False``
    nothing is timed and no best is named: the memory fit of every layout. ``plans`` are
    those layouts' memory fits when a caller already has them (:func:`fit_layouts` at the
    same load); they are timed in place."""
    if plans is None:
        plans = fit_layouts(m, pc, k, fabric, policy, precision=precision,
                            kv_precision=kv_precision, concurrency=concurrency, shape=shape,
                            nodes=nodes, gpus_per_node=gpus_per_node)
    fitting = [p for p in plans if p.fits]
    if not fitting or not timed:  # memory only: whether (and how) it fits, no kernel timed
        return None, plans

    def time(p: InferencePlan) -> InferencePlan:
        return time_plan(m, pc, k, fabric, policy, p, shape)

    def cap(p: InferencePlan) -> Ceiling:
        return ceiling_of(m, pc, k, fabric, policy, p, shape, ttft=bounds.ttft_s is not None)

    return best_of(fitting, bounds, time, cap), plans
