"""The facts of one request: model figures, GPU, links and policy, bundled once and frozen.

Why a bundle: every question of the tree, the explanation and the alternatives need the same
dozen inputs (the model and its parameter count, the GPU, the in-node and inter-node links,
the policy, the load). Built once per request (and once per other GPU an alternative tries),
they replace the long argument lists the formulas would otherwise repeat, and the plan
searches they run are memoized on the bundle, so the five questions, the explanation and the
alternatives share the work instead of redoing it.

Building the facts is also where a request is checked against the catalog: unknown names
raise :class:`engine.errors.UnknownModel` / ``UnknownEntry``; a context beyond the model's
limit or an in-node link between nodes raises :class:`engine.errors.UnsizableRequest`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from engine.catalog.load import catalog as packaged_catalog
from engine.catalog.schema import Catalog, GPUSpec, LinkSpec, ModelSpec, Policy
from engine.errors import UnsizableRequest
from engine.physics.comm import Fabric
from engine.physics.inference import InferencePlan, best_inference
from engine.physics.memory import Strategy, TrainingState, TrainingWorkload, training_state
from engine.physics.params import ParamCount, count_params, dense_spec_from_params
from engine.physics.training import TrainingPlan, best_training, project
from engine.request import SizingRequest
from engine.result import Precision
from engine.units import GB
from engine.wording import Message, msg

__all__ = ["Facts", "InferenceSearch", "TrainingSearch", "build_facts", "max_context"]

#: The fitting layout with the most tokens/s (or None) and every layout tried.
InferenceSearch = tuple[InferencePlan | None, list[InferencePlan]]
#: The fitting training layout with the best efficiency (or None) and every layout tried.
TrainingSearch = tuple[TrainingPlan | None, list[TrainingPlan]]


def max_context(model: str | None, params_b: float | None, cat: Catalog | None = None) -> int:
    """The longest context the engine sizes for this model: the one limit every layer uses.

    A catalog model takes its published window; a model known only by its parameter count
    takes the policy's ``synthetic_max_context`` (the synthetic dense model's window). Raises
    ``UnknownModel`` for a name the catalog does not hold.
    """
    cat = cat or packaged_catalog()
    if model is not None:
        return cat.model(model).max_context
    if params_b is None:
        raise UnsizableRequest(msg("error.no_model"))
    return cat.policy.synthetic_max_context


@dataclass(frozen=True, eq=False)
class Facts:
    """Everything the decision reads about one request. Frozen; searches are memoized.

    The two search dicts are caches of pure functions of the frozen fields, never state the
    questions pass to each other: any question may ask any search, in any order.
    ``request`` is the person's request with a defaulted context capped at the model's limit.
    ``assumptions`` are what building the facts had to assume (a synthetic architecture,
    derived hardware figures, FP8 run as W8A16, the capped context).
    """

    request: SizingRequest
    catalog: Catalog
    model: ModelSpec
    params: ParamCount
    in_catalog: bool
    gpu: GPUSpec
    link: LinkSpec
    fabric: Fabric
    assumptions: tuple[Message, ...]
    _model_notes: tuple[Message, ...] = ()
    _served: dict[tuple[Precision, int, int], InferenceSearch] = field(default_factory=dict,
                                                                       repr=False)
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
        return self.gpu.memory_gb * GB

    @property
    def node_bytes(self) -> float:
        return self.gpu_bytes * self.gpn

    @property
    def reserve_bytes(self) -> float:
        """The runtime reserve of one GPU."""
        return self.policy.runtime_reserve_gb_per_gpu * GB

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

    # -- memoized searches (pure: the same arguments give the same plans) -------------------

    def inference(
        self, precision: Precision, nodes: int, concurrency: int | None = None
    ) -> InferenceSearch:
        """The best serving layout of ``nodes`` nodes at ``concurrency`` (default: the
        request's), and every layout tried."""
        conc = concurrency or self.request.concurrency
        key = (precision, nodes, conc)
        if key not in self._served:
            self._served[key] = best_inference(
                self.model, self.params, self.gpu, self.fabric, self.policy,
                precision=precision, kv_precision=self.request.kv_precision,
                concurrency=conc, context=self.request.context,
                nodes=nodes, gpus_per_node=self.gpn,
            )
        return self._served[key]

    def training(self, nodes: int, gpus_per_node: int | None = None) -> TrainingSearch:
        """The most efficient training layout over ``nodes`` nodes, and every layout tried."""
        gpn = gpus_per_node or self.gpn
        key = (nodes, gpn)
        if key not in self._trained:
            self._trained[key] = best_training(
                self.model, self.params, self.state, self.gpu, self.fabric, self.policy,
                nodes=nodes, gpus_per_node=gpn,
            )
        return self._trained[key]

    def project(
        self, *, nodes: int, tp: int, pp: int, dp: int, strategy: Strategy = "zero2",
        gpus_per_node: int | None = None, state: TrainingState | None = None,
    ) -> TrainingPlan:
        """One training layout's step time, efficiency and memory on these facts (the
        request's training state unless ``state`` is given, e.g. the trap's full fine-tune)."""
        return project(self.model, self.params, state or self.state, self.gpu, self.fabric,
                       self.policy, nodes=nodes, gpus_per_node=gpus_per_node or self.gpn,
                       tp=tp, pp=pp, dp=dp, strategy=strategy)

    def other(self, **update: object) -> Facts:
        """The facts of the same request with some fields changed (another GPU, precision,
        node size): what the alternatives and the research-lab trap compare against. The
        model and its parameter count are reused, not resolved and counted again."""
        request = self.request.model_copy(update=update)
        same_model = (self.model, self.params, self.in_catalog, self._model_notes)
        return build_facts(request, self.catalog, given=frozenset(request.model_fields_set),
                           model=same_model)


def _estimated(entry: GPUSpec | LinkSpec) -> Message:
    return msg("assumption.estimated", name=entry.name, what=msg(f"estimated.{entry.id}"))


#: A resolved model: its spec, its parameter count, whether the catalog holds it, and what
#: sizing it assumed (a synthetic architecture).
_Model = tuple[ModelSpec, ParamCount, bool, tuple[Message, ...]]


def _model(request: SizingRequest, cat: Catalog) -> _Model:
    if request.model is not None:
        spec = cat.model(request.model)
        return spec, count_params(spec), True, ()
    assert request.params_b is not None  # SizingRequest guarantees one of the two
    spec, notes = dense_spec_from_params(request.params_b, cat.policy.synthetic_max_context)
    return spec, count_params(spec), False, tuple(notes)


def build_facts(
    request: SizingRequest, cat: Catalog, *, given: frozenset[str] | None = None,
    model: _Model | None = None,
) -> Facts:
    """The facts of ``request`` over ``cat``; raises for names and requests it cannot size.

    ``given`` is the set of fields the person set (default: the request's own): a context
    the person gave beyond the model's limit is refused, a defaulted one is capped and said.
    ``model`` reuses a model already resolved for the same request.
    """
    asked = frozenset(request.model_fields_set) if given is None else given
    model_spec, params, in_catalog, notes = model or _model(request, cat)
    assumptions: list[Message] = list(notes)
    gpu = cat.gpu(request.gpu)
    link = cat.link(request.interconnect)
    if link.scope != "inter":
        raise UnsizableRequest(msg(
            "error.in_node_link", link=request.interconnect,
            choices=sorted(lk.id for lk in cat.inter_links()),
        ))
    intra = cat.links[gpu.in_node_link]
    assumptions.extend(_estimated(e) for e in (gpu, intra) if e.estimated)
    if gpu.fp8_tflops is None and request.precision == "fp8" and not request.is_training:
        assumptions.append(msg("assumption.w8a16", gpu=gpu.name, tflops=gpu.bf16_tflops))
    if request.context > model_spec.max_context:
        if "context" in asked:
            raise UnsizableRequest(msg("error.context_too_long", model=model_spec.name,
                                       limit=model_spec.max_context, asked=request.context))
        request = request.model_copy(update={"context": model_spec.max_context})
        assumptions.append(msg("assumption.context_capped", model=model_spec.name,
                               limit=model_spec.max_context))
    return Facts(
        request=request,
        catalog=cat,
        model=model_spec,
        params=params,
        in_catalog=in_catalog,
        gpu=gpu,
        link=link,
        fabric=Fabric(intra=intra, inter=link, nics_per_node=cat.policy.nics_per_node),
        assumptions=tuple(assumptions),
        _model_notes=notes,
    )


def estimated_link(facts: Facts) -> Message | None:
    """What an answer crossing nodes assumes about the inter-node link, if it is derived."""
    return _estimated(facts.link) if facts.link.estimated else None
