"""The plan searches of a request's facts, memoized on the facts and across requests
(engine/memo.py).

Why a module of its own: engine/decision/facts.py bundles the inputs of one request, checks
them against the catalog and derives the figures every question reads (the policy, the node,
the training state, the MFU); the searches are the work done on those inputs, each a pure
function of them: any question may ask any search, in any order, and gets the same plans.
A :class:`Searches` is composed from its facts (``facts.search``), never a half of them.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from engine.catalog.schema import ModelSpec, Policy
from engine.memo import kept
from engine.physics.comm import Fabric
from engine.physics.inference import (
    InferencePlan,
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
)
from engine.result import KVPrecision, Precision

if TYPE_CHECKING:  # the facts a search is composed from import it: a type only
    from engine.decision.facts import Facts

__all__ = ["InferenceSearch", "Searches", "TrainingSearch"]

#: The fitting layout with the most tokens/s (or None) and every layout tried.
InferenceSearch = tuple[InferencePlan | None, list[InferencePlan]]
#: The fitting training layout with the best efficiency (or None) and every layout tried.
TrainingSearch = tuple[TrainingPlan | None, list[TrainingPlan]]


class Searches:
    """The memoized plan searches of one request's facts, composed from them (``facts``).

    Each search is a pure function of the facts and its arguments: any question may ask any
    search, in any order, and gets the same plans; the tables here keep them for the facts'
    life (and :mod:`engine.memo` across requests)."""

    def __init__(self, facts: Facts) -> None:
        self.facts = facts
        self._served: dict[tuple[object, ...], InferenceSearch] = {}
        self._trained: dict[tuple[int, int], TrainingSearch] = {}
        self._runs: dict[tuple[object, ...], Run] = {}
        self._fabrics: dict[int, Fabric] = {}

    # -- memoized searches (pure: the same arguments give the same plans) -------------------

    @cached_property
    def _physics(self) -> tuple[ModelSpec, ParamCount, Kernels, Fabric, Policy]:
        """What every serving formula takes first: the model, its count, the GPU's kernels,
        the fabric and the policy."""
        f = self.facts
        return f.model, f.params, f.kernels, f.fabric, f.policy

    @cached_property
    def _refs(self) -> tuple[object, ...]:
        """The catalog entries a serving search is kept by (engine/memo.py)."""
        f = self.facts
        return f.model, f.kernels, f.fabric.intra, f.fabric.inter, f.policy

    @cached_property
    def _shape_key(self) -> tuple[float, ...]:
        """The shape as plain numbers (a search's key in engine/memo.py: hashing
        floats is cheaper than hashing the dataclass, and a key is hashed on every search)."""
        sh = self.facts.shape
        return (sh.context, sh.isl, sh.osl, sh.cached)

    @cached_property
    def _load_key(self) -> tuple[float | None, ...]:
        """The shape and the bounds as plain numbers (see :attr:`_shape_key`)."""
        return (*self._shape_key, self.facts.bounds.tokens_per_s, self.facts.bounds.ttft_s)

    def inference(
        self, precision: Precision, nodes: int, concurrency: int | None = None, *,
        gpus_per_node: int | None = None, kv_precision: KVPrecision | None = None,
    ) -> InferenceSearch:
        """The best serving layout of ``nodes`` nodes at ``concurrency`` (default: the
        request's), among those meeting the bounds when any does, and every layout tried.
        At the request's own load the layouts are those of :meth:`layouts`, timed in place."""
        f = self.facts
        conc = concurrency or f.request.concurrency
        gpn = gpus_per_node or f.gpn
        kv = kv_precision or f.request.kv_precision
        key = (precision, nodes, conc, gpn, kv)
        if key not in self._served:
            own = (conc, gpn, kv) == (f.concurrency, f.gpn, f.request.kv_precision)
            plans = self.layouts(precision, nodes) if own else None
            if plans == []:  # brief facts, no layout holds the weights (:meth:`layouts`):
                self._served[key] = (None, [])  # not kept, explained facts list them
                return self._served[key]
            self._served[key] = kept(self._refs, (*key, *self._load_key), lambda: best_inference(
                *self._physics, precision=precision, kv_precision=kv, concurrency=conc,
                shape=f.shape, nodes=nodes, gpus_per_node=gpn, bounds=f.bounds, plans=plans))
        return self._served[key]

    def layouts(self, precision: Precision, nodes: int) -> list[InferencePlan]:
        """Every layout of ``nodes`` nodes at the request's load, as memory fits (a timed
        search at the same load, :meth:`inference`, fills in their serving figures). Brief
        facts (an alternative: no evidence is worded) get none when the weights break the
        article's share even on every GPU of the nodes: then no layout holds them, and the
        layouts would only have explained why."""
        f = self.facts
        key = ("fit", precision, nodes)
        if key not in self._served:
            if f.brief:
                w = weights_bytes(f.params, precision, f.policy, f.model)
                share = w / (nodes * f.gpn * f.gpu_bytes)
                if not share <= f.policy.max_weights_share + 1e-12:
                    self._served[key] = (None, [])
                    return []
            kv = f.request.kv_precision
            self._served[key] = (None, kept(
                self._refs, (*key, f.concurrency, f.gpn, kv, *self._shape_key),
                lambda: fit_layouts(*self._physics, precision=precision, kv_precision=kv,
                                    concurrency=f.concurrency, shape=f.shape, nodes=nodes,
                                    gpus_per_node=f.gpn)))
        return self._served[key][1]

    def on_fewer(self, precision: Precision, gpus: int) -> list[InferencePlan]:
        """The two ways ``gpus`` GPUs of one node serve the load: one tensor-parallel copy,
        or ``gpus`` single-GPU copies (what sizing small work on fewer GPUs weighs), as
        memory fits: :meth:`timed` fills in the serving figures of those worth timing."""
        f = self.facts
        key = ("fewer", precision, gpus)
        if key not in self._served:
            shapes = {(gpus, 1, 1), (1, 1, gpus)} if valid_tp(f.model, gpus) \
                else {(1, gpus, 1), (1, 1, gpus)}  # heads that do not split: a pipeline
            kv = f.request.kv_precision
            self._served[key] = (None, kept(
                (f.model, f.kernels, f.fabric.intra, f.policy),
                (*key, kv, f.concurrency, *self._shape_key),
                lambda: [plan_inference(
                    *self._physics, precision=precision, kv_precision=kv,
                    concurrency=f.concurrency, shape=f.shape, nodes=1, gpus_per_node=gpus,
                    tp=tp, pp=pp, dp=dp, timed=False) for tp, pp, dp in sorted(shapes)]))
        return self._served[key][1]

    def timed(self, plan: InferencePlan) -> InferencePlan:
        """A searched plan with its serving figures filled in (a search leaves some out)."""
        return time_plan(*self._physics, plan, self.facts.shape)

    def next_best(self, chosen: InferencePlan, plans: list[InferencePlan]
                  ) -> InferencePlan | None:
        """The runner-up of the search that gave ``plans`` and chose ``chosen`` (one made
        with these facts' bounds), timing what it needs to."""
        return next_best(chosen, [p for p in plans if p.fits], self.facts.bounds, self.timed,
                         self.ceiling)

    def ceiling(self, plan: InferencePlan) -> Ceiling:
        """What a fitting plan can at most serve without timing it in full (one copy's
        tokens/s and per-user tokens/s, and, with a first-token bound, the least TTFT; its
        ``ceiling`` set: engine/physics/search.py)."""
        f = self.facts
        return ceiling_of(*self._physics, plan, f.shape, ttft=f.bounds.ttft_s is not None)

    def meets(self, plan: InferencePlan | None) -> bool:
        """Whether a serving plan fits, carries the throughput target and meets the bounds."""
        if plan is None or plan.serving is None:
            return False
        if self.facts.target and plan.tokens_per_s < self.facts.target:
            return False
        return self.facts.bounds.met(plan.serving)

    def training(self, nodes: int, gpus_per_node: int | None = None) -> TrainingSearch:
        """The most efficient training layout over ``nodes`` nodes, and every layout tried."""
        f = self.facts
        gpn = gpus_per_node or f.gpn
        key = (nodes, gpn)
        if key not in self._trained:
            self._trained[key] = kept(
                (f.model, f.gpu, f.fabric.intra, f.fabric.inter, f.policy),
                (f.request.workload, *key),
                lambda: best_training(
                    f.model, f.params, f.state, f.gpu, f.fabric, f.policy, f.mfu, nodes=nodes,
                    gpus_per_node=gpn, run=self.run(gpus_per_node=gpn)))
        return self._trained[key]

    def ideal_days(self, gpus: int) -> float:
        """Days the run takes on ``gpus`` GPUs at perfect scaling: a floor on any layout's."""
        f = self.facts
        flops = flops_per_token(f.params, f.training_workload) * f.train_tokens
        return flops / (gpus * f.gpu.bf16_tflops * 1e12 * f.mfu) / SECONDS_PER_DAY

    def training_fits(self, nodes: int) -> bool:
        """Whether some layout over ``nodes`` nodes holds the training state (memory only,
        stopping at the first that does)."""
        f = self.facts
        key = (nodes, -1)
        if key not in self._trained:
            def any_fits() -> TrainingSearch:
                room = nodes * f.gpn * f.gpu_bytes * f.policy.training_state_max_share
                if f.state.total > room:  # even fully sharded it is too big
                    return None, []
                run = self.run()
                for tp, pp, dp, s in training_layouts(f.model, nodes, f.gpn):
                    if run.fits(tp, pp, dp, s):
                        return None, [run.project(nodes, tp, pp, dp, s, None)]
                return None, []
            self._trained[key] = kept((f.model, f.gpu, f.policy),
                                      (f.request.workload, nodes, f.gpn), any_fits)
        return bool(self._trained[key][1])

    def with_nics(self, nics_per_node: int) -> Fabric:
        """The request's fabric with ``nics_per_node`` NICs per node (one object per count,
        so the runs over it are kept: :meth:`run`)."""
        hit = self._fabrics.get(nics_per_node)
        if hit is None:
            f = self.facts.fabric
            hit = self._fabrics[nics_per_node] = Fabric(
                intra=f.intra, inter=f.inter, nics_per_node=nics_per_node, in_node=f.in_node)
        return hit

    def run(self, *, gpus_per_node: int | None = None, state: TrainingState | None = None,
            fabric: Fabric | None = None) -> Run:
        """The training run of these facts (engine/physics/training.py :class:`Run`: the
        request's state, fabric and node size unless given), kept on the facts."""
        f = self.facts
        st, fab, gpn = state or f.state, fabric or f.fabric, gpus_per_node or f.gpn
        key = (id(st), id(fab.intra), id(fab.inter), fab.nics_per_node, id(fab.in_node), gpn)
        hit = self._runs.get(key)
        if hit is None or hit.state is not st or hit.fabric.intra is not fab.intra:
            hit = self._runs[key] = Run(f.model, f.params, st, f.gpu, fab, f.policy, f.mfu, gpn)
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
