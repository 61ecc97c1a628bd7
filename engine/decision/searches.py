"""What a request's facts derive and search: the figures every question reads (the policy,
the node, the training state, the MFU) and the plan searches, memoized on the facts and
across requests (engine/memo.py).

Why a module of its own: engine/decision/facts.py bundles the inputs of one request and
checks them against the catalog; the searches are the work done on those inputs, and each is
a pure function of them: any question may ask any search, in any order, and gets the same
plans. :class:`Searches` is the half of :class:`engine.decision.facts.Facts` that holds them.
"""

from __future__ import annotations

from functools import cached_property

from engine.catalog.schema import Catalog, GPUSpec, ModelSpec, Policy
from engine.memo import kept
from engine.physics.comm import Fabric
from engine.physics.inference import (
    Bounds,
    InferencePlan,
    Shape,
    best_inference,
    ceiling_of,
    fit_layouts,
    plan_inference,
    time_plan,
)
from engine.physics.kernels import Kernels
from engine.physics.memory import (
    Strategy,
    TrainingState,
    TrainingWorkload,
    training_state,
    weights_bytes,
)
from engine.physics.parallel import training_layouts, valid_tp
from engine.physics.params import ParamCount
from engine.physics.search import next_best
from engine.physics.serving import Ceiling
from engine.physics.training import (
    SECONDS_PER_DAY,
    Run,
    TrainingPlan,
    best_training,
    flops_per_token,
    mfu,
)
from engine.request import SizingRequest
from engine.result import KVPrecision, Precision
from engine.units import GB

__all__ = ["InferenceSearch", "Searches", "TrainingSearch"]

#: The fitting layout with the most tokens/s (or None) and every layout tried.
InferenceSearch = tuple[InferencePlan | None, list[InferencePlan]]
#: The fitting training layout with the best efficiency (or None) and every layout tried.
TrainingSearch = tuple[TrainingPlan | None, list[TrainingPlan]]


class Searches:
    """The derived figures and memoized searches of one request's facts (the fields are
    :class:`engine.decision.facts.Facts`'s). The figures every question reads many times
    (the policy, the node size, the load) are worked out once per facts."""

    request: SizingRequest
    catalog: Catalog
    model: ModelSpec
    params: ParamCount
    gpu: GPUSpec
    fabric: Fabric
    kernels: Kernels
    shape: Shape
    bounds: Bounds
    target: float | None
    brief: bool
    _served: dict[tuple[object, ...], InferenceSearch]
    _trained: dict[tuple[int, int], TrainingSearch]
    _runs: dict[tuple[object, ...], Run]
    _fabrics: dict[int, Fabric]

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
        return mfu(self.kernels, self.model, self.policy)

    # -- memoized searches (pure: the same arguments give the same plans) -------------------

    @cached_property
    def _shape_key(self) -> tuple[float, ...]:
        """The shape as plain numbers (a search's key in engine/memo.py: hashing
        floats is cheaper than hashing the dataclass, and a key is hashed on every search)."""
        return (self.shape.context, self.shape.isl, self.shape.osl, self.shape.cached)

    @cached_property
    def _load_key(self) -> tuple[float | None, ...]:
        """The shape and the bounds as plain numbers (see :attr:`_shape_key`)."""
        return (*self._shape_key, self.bounds.tokens_per_s, self.bounds.ttft_s)

    def inference(
        self, precision: Precision, nodes: int, concurrency: int | None = None, *,
        gpus_per_node: int | None = None, kv_precision: KVPrecision | None = None,
    ) -> InferenceSearch:
        """The best serving layout of ``nodes`` nodes at ``concurrency`` (default: the
        request's), among those meeting the bounds when any does, and every layout tried.
        At the request's own load the layouts are those of :meth:`layouts`, timed in place."""
        conc = concurrency or self.request.concurrency
        gpn = gpus_per_node or self.gpn
        kv = kv_precision or self.request.kv_precision
        key = (precision, nodes, conc, gpn, kv)
        if key not in self._served:
            own = (conc, gpn, kv) == (self.concurrency, self.gpn, self.request.kv_precision)
            plans = self.layouts(precision, nodes) if own else None
            if plans == []:  # brief facts, no layout holds the weights (:meth:`layouts`):
                self._served[key] = (None, [])  # not kept, explained facts list them
                return self._served[key]
            self._served[key] = kept(
                (self.model, self.kernels, self.fabric.intra, self.fabric.inter, self.policy),
                (*key, *self._load_key),
                lambda: best_inference(
                    self.model, self.params, self.kernels, self.fabric, self.policy,
                    precision=precision, kv_precision=kv, concurrency=conc,
                    shape=self.shape, nodes=nodes, gpus_per_node=gpn, bounds=self.bounds,
                    plans=plans))
        return self._served[key]

    @property
    def needs_speed(self) -> bool:
        """Whether the answer turns on speed (a throughput target or per-user bounds), not
        on memory alone."""
        return bool(self.target) or self.bounds.any

    def layouts(self, precision: Precision, nodes: int) -> list[InferencePlan]:
        """Every layout of ``nodes`` nodes at the request's load, as memory fits (a timed
        search at the same load, :meth:`inference`, fills in their serving figures). Brief
        facts (an alternative: no evidence is worded) get none when the weights break the
        article's share even on every GPU of the nodes: then no layout holds them, and the
        layouts would only have explained why."""
        key = ("fit", precision, nodes)
        if key not in self._served:
            if self.brief:
                w = weights_bytes(self.params, precision, self.policy, self.model)
                share = w / (nodes * self.gpn * self.gpu_bytes)
                if not share <= self.policy.max_weights_share + 1e-12:
                    self._served[key] = (None, [])
                    return []
            self._served[key] = (None, kept(
                (self.model, self.kernels, self.fabric.intra, self.fabric.inter, self.policy),
                (*key, self.concurrency, self.gpn, self.request.kv_precision,
                 *self._shape_key),
                lambda: fit_layouts(
                    self.model, self.params, self.kernels, self.fabric, self.policy,
                    precision=precision, kv_precision=self.request.kv_precision,
                    concurrency=self.concurrency, shape=self.shape, nodes=nodes,
                    gpus_per_node=self.gpn)))
        return self._served[key][1]

    def on_fewer(self, precision: Precision, gpus: int) -> list[InferencePlan]:
        """The two ways ``gpus`` GPUs of one node serve the load: one tensor-parallel copy,
        or ``gpus`` single-GPU copies (what sizing small work on fewer GPUs weighs), as
        memory fits: :meth:`timed` fills in the serving figures of those worth timing."""
        key = ("fewer", precision, gpus)
        if key not in self._served:
            shapes = {(gpus, 1, 1), (1, 1, gpus)} if valid_tp(self.model, gpus) \
                else {(1, gpus, 1), (1, 1, gpus)}  # heads that do not split: a pipeline
            self._served[key] = (None, kept(
                (self.model, self.kernels, self.fabric.intra, self.policy),
                (*key, self.request.kv_precision, self.concurrency, *self._shape_key),
                lambda: [plan_inference(
                    self.model, self.params, self.kernels, self.fabric, self.policy,
                    precision=precision, kv_precision=self.request.kv_precision,
                    concurrency=self.concurrency, shape=self.shape, nodes=1,
                    gpus_per_node=gpus, tp=tp, pp=pp, dp=dp, timed=False)
                    for tp, pp, dp in sorted(shapes)]))
        return self._served[key][1]

    def timed(self, plan: InferencePlan) -> InferencePlan:
        """A searched plan with its serving figures filled in (a search leaves some out)."""
        return time_plan(self.model, self.params, self.kernels, self.fabric, self.policy,
                         plan, self.shape)

    def next_best(self, chosen: InferencePlan, plans: list[InferencePlan]
                  ) -> InferencePlan | None:
        """The runner-up of the search that gave ``plans`` and chose ``chosen`` (one made
        with these facts' bounds), timing what it needs to."""
        return next_best(chosen, [p for p in plans if p.fits], self.bounds, self.timed,
                         self.ceiling)

    def ceiling(self, plan: InferencePlan) -> Ceiling:
        """What a fitting plan can at most serve without timing it in full (one copy's
        tokens/s and per-user tokens/s, and, with a first-token bound, the least TTFT; its
        ``ceiling`` set: engine/physics/search.py)."""
        return ceiling_of(self.model, self.params, self.kernels, self.fabric, self.policy,
                          plan, self.shape, ttft=self.bounds.ttft_s is not None)

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
                    self.mfu, nodes=nodes, gpus_per_node=gpn,
                    run=self.run(gpus_per_node=gpn)))
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
                run = self.run()
                for tp, pp, dp, s in training_layouts(self.model, nodes, self.gpn):
                    if run.fits(tp, pp, dp, s):
                        return None, [run.project(nodes, tp, pp, dp, s, None)]
                return None, []
            self._trained[key] = kept((self.model, self.gpu, self.policy),
                                      (self.request.workload, nodes, self.gpn), any_fits)
        return bool(self._trained[key][1])

    def with_nics(self, nics_per_node: int) -> Fabric:
        """The request's fabric with ``nics_per_node`` NICs per node (one object per count,
        so the runs over it are kept: :meth:`run`)."""
        hit = self._fabrics.get(nics_per_node)
        if hit is None:
            f = self.fabric
            hit = self._fabrics[nics_per_node] = Fabric(
                intra=f.intra, inter=f.inter, nics_per_node=nics_per_node, in_node=f.in_node)
        return hit

    def run(self, *, gpus_per_node: int | None = None, state: TrainingState | None = None,
            fabric: Fabric | None = None) -> Run:
        """The training run of these facts (engine/physics/training.py :class:`Run`: the
        request's state, fabric and node size unless given), kept on the facts."""
        st, fab, gpn = state or self.state, fabric or self.fabric, gpus_per_node or self.gpn
        key = (id(st), id(fab.intra), id(fab.inter), fab.nics_per_node, id(fab.in_node), gpn)
        hit = self._runs.get(key)
        if hit is None or hit.state is not st or hit.fabric.intra is not fab.intra:
            hit = self._runs[key] = Run(self.model, self.params, st, self.gpu, fab,
                                        self.policy, self.mfu, gpn)
        return hit

    def project(
        self, *, nodes: int, tp: int, pp: int, dp: int, strategy: Strategy = "zero2",
        gpus_per_node: int | None = None, state: TrainingState | None = None,
        fabric: Fabric | None = None,
    ) -> TrainingPlan:
        """One training layout's step time, efficiency and memory on these facts (the
        request's training state unless ``state`` is given, e.g. the trap's full fine-tune;
        the request's fabric unless ``fabric`` is given, e.g. a frontier cluster's)."""
        run = self.run(gpus_per_node=gpus_per_node, state=state, fabric=fabric)
        return run.project(nodes, tp, pp, dp, strategy, None)
