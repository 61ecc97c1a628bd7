"""The facts of one request: model figures, GPU and its calibrated kernels, links, policy and
the load, bundled once and frozen.

Why a bundle: every question of the tree, the explanation and the alternatives need the same
inputs (the model and its parameter count, the GPU and its kernels, the in-node and
inter-node links, the policy, the load and its bounds). Built once per request (and once per
other GPU an alternative tries), they replace the long argument lists the formulas would
otherwise repeat, and the plan searches they run are memoized on the bundle, so the five
questions, the explanation and the alternatives share the work instead of redoing it.

Building the facts is also where a request is checked against the catalog: unknown names
raise :class:`engine.errors.UnknownModel` / ``UnknownEntry``; a context beyond the model's
limit, an in-node link between nodes or NVFP4 on a GPU without FP4 tensor cores raises
:class:`engine.errors.UnsizableRequest`. The load (request shape, bounds, the throughput a
request rate needs and the requests it keeps in flight) is settled by engine/decision/load.py
before the bundle is made.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property

from engine.catalog.calibration import calibration
from engine.catalog.schema import Catalog, GPUSpec, LinkSpec, ModelSpec, Policy
from engine.decision.load import settle
from engine.decision.memo import kept
from engine.decision.models import ResolvedModel, resolve_model, sized_precision
from engine.errors import UnsizableRequest
from engine.physics.comm import Fabric, InNode
from engine.physics.inference import (
    Bounds,
    InferencePlan,
    Shape,
    best_inference,
    plan_inference,
    time_plan,
)
from engine.physics.kernels import Kernels, kernels
from engine.physics.memory import Strategy, TrainingState, TrainingWorkload, training_state
from engine.physics.parallel import training_layouts
from engine.physics.params import ParamCount
from engine.physics.training import (
    SECONDS_PER_DAY,
    TrainingPlan,
    best_training,
    flops_per_token,
    memory_fit,
    mfu,
    project,
)
from engine.request import SizingRequest
from engine.result import KVPrecision, Precision
from engine.units import GB
from engine.wording import Message, msg

__all__ = ["Facts", "InferenceSearch", "TrainingSearch", "build_facts"]

#: The fitting layout with the most tokens/s (or None) and every layout tried.
InferenceSearch = tuple[InferencePlan | None, list[InferencePlan]]
#: The fitting training layout with the best efficiency (or None) and every layout tried.
TrainingSearch = tuple[TrainingPlan | None, list[TrainingPlan]]


@dataclass(frozen=True, eq=False)
class Facts:
    """Everything the decision reads about one request. Frozen; searches are memoized.

    The search dicts are caches of pure functions of the frozen fields, never state the
    questions pass to each other: any question may ask any search, in any order.
    ``request`` is the person's request with a defaulted context capped at the model's limit
    and, for a request rate, the requests in flight it implies. ``assumptions`` are what
    building the facts had to assume.
    """

    request: SizingRequest
    catalog: Catalog
    model: ModelSpec
    params: ParamCount
    in_catalog: bool
    gpu: GPUSpec
    link: LinkSpec
    fabric: Fabric
    kernels: Kernels
    precision: Precision
    shape: Shape
    bounds: Bounds
    target: float | None
    given: frozenset[str]
    assumptions: tuple[Message, ...]
    _model: ResolvedModel | None = field(default=None, repr=False)
    _served: dict[tuple[object, ...], InferenceSearch] = field(default_factory=dict, repr=False)
    _trained: dict[tuple[int, int], TrainingSearch] = field(default_factory=dict, repr=False)

    @property
    def policy(self) -> Policy:
        return self.catalog.policy

    @property
    def gpn(self) -> int:
        """GPUs per node."""
        return self.request.gpus_per_node

    @property
    def gpu_bytes(self) -> float:
        return self.gpu.memory_bytes

    @property
    def node_bytes(self) -> float:
        return self.gpu_bytes * self.gpn

    @property
    def reserve_bytes(self) -> float:
        """The runtime reserve of one GPU."""
        return self.policy.runtime_reserve_gb_per_gpu * GB

    @property
    def concurrency(self) -> int:
        return self.request.concurrency

    @property
    def training_workload(self) -> TrainingWorkload:
        w = self.request.workload
        if w == "inference":
            raise TypeError("an inference request has no training workload")
        return w

    @cached_property
    def state(self) -> TrainingState:
        """Weights, gradients and optimizer of the training workload, before sharding."""
        return training_state(self.model, self.params, self.training_workload, self.policy)

    @cached_property
    def train_tokens(self) -> float:
        """The token budget: the person's, or the policy's default for the workload."""
        if self.request.train_tokens:
            return self.request.train_tokens
        if self.request.workload == "pretrain":
            return self.policy.pretrain_tokens_per_param * self.params.total
        return self.policy.default_finetune_tokens

    @property
    def deadline_days(self) -> float:
        return self.request.deadline_days or self.policy.default_deadline_days

    @cached_property
    def mfu(self) -> float:
        """Model FLOPs utilisation of a training step on this GPU, outside communication."""
        return mfu(self.kernels, self.model, self.policy)

    # -- memoized searches (pure: the same arguments give the same plans) -------------------

    def inference(
        self, precision: Precision, nodes: int, concurrency: int | None = None, *,
        gpus_per_node: int | None = None, kv_precision: KVPrecision | None = None,
    ) -> InferenceSearch:
        """The best serving layout of ``nodes`` nodes at ``concurrency`` (default: the
        request's), among those meeting the bounds when any does, and every layout tried."""
        conc = concurrency or self.request.concurrency
        gpn = gpus_per_node or self.gpn
        kv = kv_precision or self.request.kv_precision
        key = (precision, nodes, conc, gpn, kv)
        if key not in self._served:
            self._served[key] = kept(
                (self.model, self.kernels, self.fabric.intra, self.fabric.inter, self.policy),
                (*key, self.shape, self.bounds),
                lambda: best_inference(
                    self.model, self.params, self.kernels, self.fabric, self.policy,
                    precision=precision, kv_precision=kv, concurrency=conc,
                    shape=self.shape, nodes=nodes, gpus_per_node=gpn, bounds=self.bounds))
        return self._served[key]

    @property
    def needs_speed(self) -> bool:
        """Whether the answer turns on speed (a throughput target or per-user bounds), not
        on memory alone."""
        return bool(self.target) or self.bounds.any

    def layouts(self, precision: Precision, nodes: int) -> list[InferencePlan]:
        """Every layout of ``nodes`` nodes at the request's load, memory only (untimed)."""
        key = ("fit", precision, nodes)
        if key not in self._served:
            self._served[key] = kept(
                (self.model, self.kernels, self.fabric.intra, self.fabric.inter, self.policy),
                (*key, self.concurrency, self.gpn, self.request.kv_precision, self.shape),
                lambda: best_inference(
                    self.model, self.params, self.kernels, self.fabric, self.policy,
                    precision=precision, kv_precision=self.request.kv_precision,
                    concurrency=self.concurrency, shape=self.shape, nodes=nodes,
                    gpus_per_node=self.gpn, timed=False))
        return self._served[key][1]

    def on_fewer(self, precision: Precision, gpus: int) -> list[InferencePlan]:
        """The two ways ``gpus`` GPUs of one node serve the load: one tensor-parallel copy,
        or ``gpus`` single-GPU copies (what sizing small work on fewer GPUs weighs)."""
        key = ("fewer", precision, gpus)
        if key not in self._served:
            shapes = {(gpus, 1, 1), (1, 1, gpus)}
            self._served[key] = (None, kept(
                (self.model, self.kernels, self.fabric.intra, self.policy),
                (*key, self.request.kv_precision, self.concurrency, self.shape),
                lambda: [plan_inference(
                    self.model, self.params, self.kernels, self.fabric, self.policy,
                    precision=precision, kv_precision=self.request.kv_precision,
                    concurrency=self.concurrency, shape=self.shape, nodes=1,
                    gpus_per_node=gpus, tp=tp, pp=pp, dp=dp)
                    for tp, pp, dp in sorted(shapes)]))
        return self._served[key][1]

    def timed(self, plan: InferencePlan) -> InferencePlan:
        """A searched plan with its serving figures filled in (a search leaves some out)."""
        return time_plan(self.model, self.params, self.kernels, self.fabric, self.policy,
                         plan, self.shape)

    def meets(self, plan: InferencePlan | None) -> bool:
        """Whether a serving plan fits, carries the throughput target and meets the bounds."""
        if plan is None or plan.serving is None:
            return False
        if self.target and plan.tokens_per_s < self.target:
            return False
        return self.bounds.met(plan.serving)

    def training(self, nodes: int, gpus_per_node: int | None = None) -> TrainingSearch:
        """The most efficient training layout over ``nodes`` nodes, and every layout tried."""
        gpn = gpus_per_node or self.gpn
        key = (nodes, gpn)
        if key not in self._trained:
            self._trained[key] = kept(
                (self.model, self.gpu, self.fabric.intra, self.fabric.inter, self.policy),
                (self.request.workload, *key),
                lambda: best_training(
                    self.model, self.params, self.state, self.gpu, self.fabric, self.policy,
                    self.mfu, nodes=nodes, gpus_per_node=gpn))
        return self._trained[key]

    def ideal_days(self, gpus: int) -> float:
        """Days the run takes on ``gpus`` GPUs at perfect scaling: a floor on any layout's."""
        flops = flops_per_token(self.params, self.training_workload) * self.train_tokens
        return flops / (gpus * self.gpu.bf16_tflops * 1e12 * self.mfu) / SECONDS_PER_DAY

    def training_fits(self, nodes: int) -> bool:
        """Whether some layout over ``nodes`` nodes holds the training state (memory only,
        stopping at the first that does)."""
        key = (nodes, -1)
        if key not in self._trained:
            def any_fits() -> TrainingSearch:
                room = nodes * self.gpn * self.gpu_bytes * self.policy.training_state_max_share
                if self.state.total > room:  # even fully sharded it is too big
                    return None, []
                for tp, pp, dp, s in training_layouts(self.model, nodes, self.gpn):
                    if memory_fit(self.model, self.state, self.gpu, self.policy, tp=tp,
                                  pp=pp, dp=dp, strategy=s).fits:
                        return None, [self.project(nodes=nodes, tp=tp, pp=pp, dp=dp,
                                                   strategy=s)]
                return None, []
            self._trained[key] = kept((self.model, self.gpu, self.policy),
                                      (self.request.workload, nodes, self.gpn), any_fits)
        return bool(self._trained[key][1])

    def project(
        self, *, nodes: int, tp: int, pp: int, dp: int, strategy: Strategy = "zero2",
        gpus_per_node: int | None = None, state: TrainingState | None = None,
        fabric: Fabric | None = None,
    ) -> TrainingPlan:
        """One training layout's step time, efficiency and memory on these facts (the
        request's training state unless ``state`` is given, e.g. the trap's full fine-tune;
        the request's fabric unless ``fabric`` is given, e.g. a frontier cluster's)."""
        return project(self.model, self.params, state or self.state, self.gpu,
                       fabric or self.fabric,
                       self.policy, self.mfu, nodes=nodes,
                       gpus_per_node=gpus_per_node or self.gpn, tp=tp, pp=pp, dp=dp,
                       strategy=strategy)

    def other(self, **update: object) -> Facts:
        """The facts of the same request with some fields changed (another GPU, precision,
        node size): what the alternatives and the research-lab trap compare against. The
        model and its parameter count are reused, not resolved and counted again."""
        request = self.request.model_copy(update=update)
        return build_facts(request, self.catalog, given=self.given | frozenset(update),
                           model=self._model)


def _estimated(entry: GPUSpec | LinkSpec) -> Message:
    return msg("assumption.estimated", name=entry.name, what=msg(f"estimated.{entry.id}"))


def build_facts(
    request: SizingRequest, cat: Catalog, *, given: frozenset[str] | None = None,
    model: ResolvedModel | None = None,
) -> Facts:
    """The facts of ``request`` over ``cat``; raises for names and requests it cannot size.

    ``given`` is the set of fields the person set (default: the request's own): a context
    the person gave beyond the model's limit is refused, a defaulted one is capped and said.
    ``model`` reuses a model already resolved for the same request.
    """
    asked = frozenset(request.model_fields_set) if given is None else given
    resolved = model or resolve_model(request, cat)
    model_spec, params, in_catalog, notes = resolved
    assumptions: list[Message] = list(notes)
    gpu = cat.gpus.get(request.gpu) or cat.gpu(request.gpu)
    link = cat.links.get(request.interconnect) or cat.link(request.interconnect)
    if link.scope != "inter":
        raise UnsizableRequest(msg(
            "error.in_node_link", link=request.interconnect,
            choices=sorted(lk.id for lk in cat.inter_links()),
        ))
    if request.precision == "nvfp4" and not gpu.fp4_tflops and not request.is_training:
        raise UnsizableRequest(msg("error.no_fp4", gpu=gpu.name))
    intra = cat.links[gpu.in_node_link]
    assumptions.extend(_estimated(e) for e in (gpu, intra) if e.estimated)
    precision = sized_precision(request, model_spec, asked)
    if gpu.fp8_tflops is None and precision == "fp8" and not request.is_training:
        assumptions.append(msg("assumption.w8a16", gpu=gpu.name, tflops=gpu.bf16_tflops))
    if request.context > model_spec.max_context:
        if "context" in asked:
            raise UnsizableRequest(msg("error.context_too_long", model=model_spec.name,
                                       limit=model_spec.max_context, asked=request.context))
        request = request.model_copy(update={"context": model_spec.max_context})
        assumptions.append(msg("assumption.context_capped", model=model_spec.name,
                               limit=model_spec.max_context))
    request, shape, bounds, target, said = settle(request, asked, cat.policy,
                                                  model_spec.max_context)
    assumptions.extend(said)
    part = cat.gpus[gpu.calibration]
    cal = calibration()
    k = kernels(gpu, part, cal, cat.policy)
    fabric = Fabric(intra=intra, inter=link, nics_per_node=cat.policy.nics_per_node,
                    in_node=_in_node(intra, part.id))
    facts = Facts(
        request=request, catalog=cat, model=model_spec, params=params, in_catalog=in_catalog,
        gpu=gpu, link=link, fabric=fabric, kernels=k, precision=precision, shape=shape,
        bounds=bounds, target=target, given=asked, assumptions=tuple(assumptions),
        _model=resolved,
    )
    return _reachable(facts) if bounds.any and not request.is_training else facts


def _reachable(facts: Facts) -> Facts:
    """The facts as they are when one request alone, on one node of this GPU, can be served
    within the bounds; otherwise without the bounds (no number of copies would meet them:
    the answer is sized as if none were given, and says what the GPU does at best)."""
    formats: list[Precision] = [facts.precision]
    if facts.request.allow_int4 and facts.precision not in ("int4", "nvfp4", "mxfp4"):
        formats.append("nvfp4" if facts.gpu.fp4_tflops else "int4")
    best: InferencePlan | None = None
    for prec in formats:
        plan, _ = facts.inference(prec, 1, concurrency=1)
        if plan is not None and plan.serving is not None:
            if facts.bounds.met(plan.serving):
                return facts
            if best is None or plan.ttft_s < best.ttft_s:
                best = plan
    said = msg("assumption.bounds_unreachable", gpu=facts.gpu.name,
               per_user=best.per_user_tokens_per_s if best else 0.0,
               ttft=best.ttft_s if best else 0.0)
    return replace(facts, bounds=Bounds(), assumptions=(*facts.assumptions, said),
                   _served={})


_IN_NODE: dict[tuple[str, str, int], InNode] = {}


def _in_node(link: LinkSpec, part: str) -> InNode:
    """The measured collectives of a link, built once per link and calibration part."""
    key = (link.id, part, id(link))
    hit = _IN_NODE.get(key)
    if hit is None or hit.link is not link:
        hit = _IN_NODE[key] = InNode(link, part, calibration())
    return hit


def estimated_link(facts: Facts) -> Message | None:
    """What an answer crossing nodes assumes about the inter-node link, if it is derived."""
    return _estimated(facts.link) if facts.link.estimated else None
