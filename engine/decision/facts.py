"""The facts of one request: model figures, GPU and its calibrated kernels, links, policy and
the load, bundled once and frozen.

Why a bundle: every question of the tree, the explanation and the alternatives need the same
inputs (the model and its parameter count, the GPU and its kernels, the in-node and
inter-node links, the policy, the load and its bounds). Built once per request (and once per
other GPU an alternative tries), they replace the long argument lists the formulas would
otherwise repeat, and the plan searches they run are memoized on the bundle
(engine/decision/searches.py), so the five questions, the explanation and the alternatives
share the work instead of redoing it. The facts of the same request on another GPU reuse
its settled load (:meth:`Facts.other`); *brief* facts are those an alternative walks: its
questions skip their evidence.

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
from engine.catalog.schema import Catalog, GPUSpec, LinkSpec, ModelSpec, Policy, WorkProfile
from engine.decision.load import Settled, settle
from engine.decision.models import ResolvedModel, resolve_model, sized_precision
from engine.decision.searches import InferenceSearch, Searches, TrainingSearch
from engine.errors import UnsizableRequest
from engine.memo import Memo
from engine.physics.comm import Fabric, InNode
from engine.physics.inference import Bounds, InferencePlan, Shape
from engine.physics.kernels import Kernels, kernels
from engine.physics.memory import TrainingState, TrainingWorkload, training_state
from engine.physics.params import ParamCount
from engine.physics.training import mfu as step_mfu
from engine.request import SizingRequest
from engine.result import Precision
from engine.units import GB
from engine.wording import Message, msg

__all__ = ["Facts", "InferenceSearch", "TrainingSearch", "build_facts"]

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
    work: WorkProfile
    #: the load as settled (engine/decision/load.py): what was stated, the work's floors,
    #: the preference beyond the bounds (None when none)
    load: Settled
    given: frozenset[str]
    assumptions: tuple[Message, ...]
    #: compared only, never written up: the questions skip their evidence
    #: (engine/decision/evidence.py); the alternatives walk such facts
    brief: bool = False
    _model: ResolvedModel | None = field(default=None, repr=False)
    #: the bounds the load asks (before :func:`_reachable`) and what settling it assumed
    _settled: tuple[Bounds, tuple[Message, ...]] | None = field(default=None, repr=False)

    @cached_property
    def search(self) -> Searches:
        """The plan searches of these facts (engine/decision/searches.py), kept with them."""
        return Searches(self)

    # -- what the facts derive: read many times by every question, worked out once --------

    @cached_property
    def policy(self) -> Policy:
        return self.catalog.policy

    @cached_property
    def gpn(self) -> int:
        """GPUs per node."""
        return self.request.gpus_per_node

    @cached_property
    def gpu_bytes(self) -> float:
        return self.gpu.memory_bytes

    @cached_property
    def node_bytes(self) -> float:
        return self.gpu_bytes * self.gpn

    @cached_property
    def reserve_bytes(self) -> float:
        """The runtime reserve of one GPU."""
        return self.policy.runtime_reserve_gb_per_gpu * GB

    @cached_property
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
        return step_mfu(self.kernels, self.model, self.policy)


    @property
    def needs_speed(self) -> bool:
        """Whether the answer turns on speed (a throughput target or per-user bounds), not
        on memory alone."""
        return bool(self.target) or self.bounds.any


    @property
    def floors(self) -> Bounds:
        """The least the kind of work accepts (engine/data/work.toml; none for training)."""
        return self.load.floors

    def sized_for(self, bounds: Bounds | None, *, checked: bool = True) -> Facts | None:
        """These facts sized for other bounds as if they were asked (the work's floors, or
        the bot's preference: engine/decision/standing.py), less any part that even one
        request alone cannot meet on this GPU; None when that leaves nothing beyond the
        bounds these facts already hold. Unless ``checked``, the bounds are taken whole
        (the caller sees from the answer whether they were met: cheaper when they are)."""
        if bounds is None or bounds == self.bounds:
            return None
        out = replace(self, bounds=bounds, _settled=(bounds, self._settled[1] if self._settled
                                                     else ()))
        if not checked:
            return out
        found = _alone(out)
        if found is None or found[1].serving is None:
            return None
        best = found[1]
        kept = Bounds(
            tokens_per_s=bounds.tokens_per_s if bounds.tokens_per_s is not None
            and best.per_user_tokens_per_s >= bounds.tokens_per_s else self.bounds.tokens_per_s,
            ttft_s=bounds.ttft_s if bounds.ttft_s is not None and best.ttft_s <= bounds.ttft_s
            else self.bounds.ttft_s)
        if kept == self.bounds:
            return None
        if kept != bounds:  # other GPUs weigh the whole of ``bounds`` again (``other``)
            out = replace(out, bounds=kept)
        return out

    def as_asked(self, asked: Facts) -> Facts:
        """These facts (another node size, or sized for a preference) with the bounds the
        person asked (``asked``'s): what the alternatives answer on other GPUs, the same
        question the person put, not the preference this answer could afford."""
        if self.bounds == asked.bounds and self._settled == asked._settled:
            return self
        return replace(self, bounds=asked.bounds, _settled=asked._settled)

    def other(self, *, brief: bool | None = None, **update: object) -> Facts:
        """The facts of the same request with some fields changed (another GPU, precision,
        node size): what the alternatives and the research-lab trap compare against. The
        model and its parameter count are reused, not resolved and counted again; for
        another GPU alone, the settled load is reused too (it does not depend on the GPU).
        ``brief`` (default: as these facts) marks facts that are compared, not explained."""
        brief = self.brief if brief is None else brief
        if update.keys() == {"gpu"} and self._settled is not None:
            return _on_gpu(self, str(update["gpu"]), brief)
        request = self.request.model_copy(update=update)
        return build_facts(request, self.catalog, given=self.given | frozenset(update),
                           model=self._model, brief=brief)


def _estimated(entry: GPUSpec | LinkSpec) -> Message:
    return msg("assumption.estimated", name=entry.name, what=msg(f"estimated.{entry.id}"))


def _hardware(request: SizingRequest, cat: Catalog, gpu: GPUSpec, link: LinkSpec,
              precision: Precision) -> tuple[Kernels, Fabric, list[Message]]:
    """The GPU's calibrated kernels, the deployment's fabric, and what they assume; raises
    for NVFP4 serving on a GPU without FP4 tensor cores."""
    if request.precision == "nvfp4" and not gpu.fp4_tflops and not request.is_training:
        raise UnsizableRequest(msg("error.no_fp4", gpu=gpu.name))
    intra = cat.links[gpu.in_node_link]
    said = [_estimated(e) for e in (gpu, intra) if e.estimated]
    if gpu.fp8_tflops is None and precision == "fp8" and not request.is_training:
        said.append(msg("assumption.w8a16", gpu=gpu.name, tflops=gpu.bf16_tflops))
    part = cat.gpus[gpu.calibration]
    k = kernels(gpu, part, calibration(), cat.policy)
    fabric = Fabric(intra=intra, inter=link, nics_per_node=cat.policy.nics_per_node,
                    in_node=_in_node(intra, part.id))
    return k, fabric, said


def build_facts(
    request: SizingRequest, cat: Catalog, *, given: frozenset[str] | None = None,
    model: ResolvedModel | None = None, brief: bool = False,
) -> Facts:
    """The facts of ``request`` over ``cat``; raises for names and requests it cannot size.

    ``given`` is the set of fields the person set (default: the request's own): a context
    the person gave beyond the model's limit is refused, a defaulted one is capped and said.
    ``model`` reuses a model already resolved for the same request; ``brief`` marks facts
    that are only compared (:attr:`Facts.brief`).
    """
    asked = frozenset(request.model_fields_set) if given is None else given
    resolved = model or resolve_model(request, cat)
    model_spec, params, in_catalog, notes = resolved
    gpu = cat.gpus.get(request.gpu) or cat.gpu(request.gpu)
    link = cat.links.get(request.interconnect) or cat.link(request.interconnect)
    if link.scope != "inter":
        raise UnsizableRequest(msg(
            "error.in_node_link", link=request.interconnect,
            choices=sorted(lk.id for lk in cat.inter_links()),
        ))
    precision = sized_precision(request, model_spec, asked)
    k, fabric, assumptions = _hardware(request, cat, gpu, link, precision)
    assumptions[:0] = notes
    if request.context > model_spec.max_context:
        if "context" in asked:
            raise UnsizableRequest(msg("error.context_too_long", model=model_spec.name,
                                       limit=model_spec.max_context, asked=request.context))
        request = request.model_copy(update={"context": model_spec.max_context})
        assumptions.append(msg("assumption.context_capped", model=model_spec.name,
                               limit=model_spec.max_context))
    work = cat.work[request.work_kind]
    load = settle(request, asked, cat.policy, model_spec.max_context, work)
    request, bounds, said = load.request, load.bounds, load.said
    if request.is_training:
        bounds = Bounds()
    assumptions.extend(said)
    facts = Facts(
        request=request, catalog=cat, model=model_spec, params=params, in_catalog=in_catalog,
        gpu=gpu, link=link, fabric=fabric, kernels=k, precision=precision, shape=load.shape,
        bounds=bounds, target=load.target, work=work, load=load, given=asked,
        assumptions=tuple(assumptions), brief=brief, _model=resolved,
        _settled=(bounds, tuple(said)),
    )
    return _reachable(facts) if bounds.any and not request.is_training else facts


def _on_gpu(facts: Facts, gpu_id: str, brief: bool) -> Facts:
    """:func:`build_facts` of ``facts``'s request on another GPU, the load it settled reused:
    what building them again from the request would give (its context already capped, its
    load already settled; settling it again changes nothing)."""
    assert facts._settled is not None and facts._model is not None
    cat = facts.catalog
    request = facts.request.model_copy(update={"gpu": gpu_id})
    gpu = cat.gpus.get(gpu_id) or cat.gpu(gpu_id)
    k, fabric, assumptions = _hardware(request, cat, gpu, facts.link, facts.precision)
    bounds, said = facts._settled
    out = Facts(
        request=request, catalog=cat, model=facts.model, params=facts.params,
        in_catalog=facts.in_catalog, gpu=gpu, link=facts.link, fabric=fabric, kernels=k,
        precision=facts.precision, shape=facts.shape, bounds=bounds, target=facts.target,
        work=facts.work, load=facts.load,
        given=facts.given | {"gpu"}, assumptions=(*facts._model[3], *assumptions, *said),
        brief=brief, _model=facts._model, _settled=facts._settled,
    )
    return _reachable(out) if bounds.any and not request.is_training else out


def _alone(facts: Facts) -> tuple[int, InferencePlan] | None:
    """(nodes, plan): one request alone on the fewest nodes of this GPU that hold the model
    (one, or a cluster up to the policy's size), in the layout with the shortest first token
    among those meeting the bounds, else among all; None when no such cluster holds it."""
    formats: list[Precision] = [facts.precision]
    if facts.request.allow_int4 and facts.precision not in ("int4", "nvfp4", "mxfp4"):
        formats.append("nvfp4" if facts.gpu.fp4_tflops else "int4")
    for nodes in range(1, facts.policy.max_cluster_nodes + 1):
        best: InferencePlan | None = None
        for prec in formats:
            plan, _ = facts.search.inference(prec, nodes, concurrency=1)
            if plan is not None and plan.serving is not None:
                if facts.bounds.met(plan.serving):
                    return nodes, plan
                if best is None or plan.ttft_s < best.ttft_s:
                    best = plan
        if best is not None:
            return nodes, best
    return None


def _reachable(facts: Facts) -> Facts:
    """The facts as they are when one request alone, on the fewest nodes of this GPU that
    hold the model, can be served within the bounds; otherwise with the part of the bounds
    that request meets (no number of copies would meet the rest: the answer is sized
    without it, and says what the GPU does at best). A model no cluster of that size holds
    keeps its bounds: the tree says where it goes."""
    from engine.decision.terms import hardware  # terms reads Facts: imported when used

    found = _alone(facts)
    if found is None or facts.bounds.met(found[1].serving):  # type: ignore[arg-type]
        return facts
    nodes, best = found
    assert best.serving is not None
    b = facts.bounds
    kept = Bounds(
        tokens_per_s=b.tokens_per_s if b.tokens_per_s is not None
        and best.per_user_tokens_per_s >= b.tokens_per_s else None,
        ttft_s=b.ttft_s if b.ttft_s is not None and best.ttft_s <= b.ttft_s else None)
    said = msg("assumption.bounds_unreachable", hardware=hardware(facts, nodes),
               per_user=best.per_user_tokens_per_s, ttft=best.ttft_s)
    return replace(facts, bounds=kept, assumptions=(*facts.assumptions, said))


#: The measured collectives of each link and calibration part (engine/memo.py).
_IN_NODE: Memo[InNode] = Memo(256)


def _in_node(link: LinkSpec, part: str) -> InNode:
    """The measured collectives of a link, built once per link and calibration part."""
    return _IN_NODE.kept((link,), (part,), lambda: InNode(link, part, calibration()))


def estimated_link(facts: Facts) -> Message | None:
    """What an answer crossing nodes assumes about the inter-node link, if it is derived."""
    return _estimated(facts.link) if facts.link.estimated else None
