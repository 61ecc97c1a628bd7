"""The series the charts draw, built from the engine's own serving and training
functions, never recomputed beside them.

Why a module of the decision: a chart must show the numbers the answer was decided on. So the
request's facts are built and its tree walked again (:func:`engine.decision.trap.final`: the
same memoized searches as ``recommend``), and every point comes from the functions the
decision itself calls:

* **the load curve**: the recommended layout, the runner-up layout and the best other GPU's
  answer, each re-planned at 1 to the layout's maximum concurrent requests with
  :func:`engine.physics.inference.plan_inference` (memory fit, then the in-flight serving
  model of engine/physics/serving.py); per-user tokens/s and time to first token per point;
  the operating point is the plan the answer was sized on; the targets are the customer's;
* **the memory picture**: the :class:`engine.result.MemoryPicture` of the answer and of the
  runner-up (its plan's picture for a training layout, engine/decision/picture.py), divided by
  the GPUs of one copy: per GPU, weights, KV cache or training state, reserve and free, with
  the policy's weights ceiling (the article's 70 %);
* **the training curve**: days to finish against the number of nodes, the way the answer
  scales: the best layout over each node count (:meth:`Facts.training`, questions 1 and 4),
  the one-node layout copied (:func:`engine.decision.cluster.replicated`, question 3) or a
  frontier cluster (:func:`engine.decision.frontier.at_scale` with the GPU-months of
  engine/decision/figures.py and the goodput of engine/physics/training.py, question 5),
  each point with its projected scaling efficiency.

The result is plain frozen data in figures people read (GB, seconds, days, shares): the chart
code (engine/charts/) draws it as it is, and tests compare what is drawn with it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from engine.catalog import Catalog, catalog
from engine.decision import recommend, terms
from engine.decision.cluster import replicated
from engine.decision.facts import Facts, build_facts
from engine.decision.figures import gpu_months, run_days
from engine.decision.frontier import at_scale
from engine.decision.outcome import Deployment
from engine.decision.picture import training_picture
from engine.decision.standing import decided
from engine.decision.trap import final
from engine.physics.inference import InferencePlan, plan_inference
from engine.physics.parallel import notation
from engine.physics.training import TrainingPlan, goodput
from engine.request import SizingRequest
from engine.result import Alternative, MemoryPicture, Recommendation, WorkKind
from engine.units import GB
from engine.wording import Message, msg, text

__all__ = ["Curves", "LoadCurves", "LoadSeries", "MemoryBar", "MemoryBars", "NotReproduced",
           "OperatingPoint", "Role", "TrainingCurve", "TrainingPoint", "curves"]

Role = Literal["chosen", "layout", "gpu"]
Scaling = Literal["best", "copies", "frontier"]
#: Points per load curve (geometric in the concurrency, the sized load always among them).
LOAD_POINTS = 40
#: Points of a frontier training curve, from an eighth of the answer's nodes to twice them.
FRONTIER_POINTS = 16


class NotReproduced(ValueError):
    """The request does not lead to the recommendation given (it was decided on other
    answers, or on another version of the engine): nothing would be drawn from its numbers."""


@dataclass(frozen=True)
class LoadSeries:
    """One layout under growing load: per point, the requests in flight on one copy, the
    speed each user sees and the time to the first token."""

    role: Role
    label: Message
    concurrency: tuple[int, ...]
    per_user_tokens_per_s: tuple[float, ...]
    ttft_s: tuple[float, ...]
    max_concurrency: int


@dataclass(frozen=True)
class OperatingPoint:
    concurrency: int
    per_user_tokens_per_s: float
    ttft_s: float


@dataclass(frozen=True)
class LoadCurves:
    """The load curves (the recommended layout first), its operating point, the customer's
    bounds (None when not given) and the copies the answer runs."""

    series: tuple[LoadSeries, ...]
    point: OperatingPoint
    per_user_target: float | None
    ttft_target: float | None
    copies: int
    subtitle: Message


@dataclass(frozen=True)
class MemoryBar:
    """One layout's memory per GPU of one copy, in GB; ``free_gb`` is negative when the
    demand exceeds the memory."""

    role: Role
    label: Message
    detail: Message
    gpus: int
    work: WorkKind
    vram_gb: float
    weights_gb: float
    work_gb: float
    reserve_gb: float

    @property
    def free_gb(self) -> float:
        return self.vram_gb - self.weights_gb - self.work_gb - self.reserve_gb


@dataclass(frozen=True)
class MemoryBars:
    bars: tuple[MemoryBar, ...]
    weights_ceiling: float  # the policy's share of a GPU the weights may take (0.70)
    subtitle: Message


@dataclass(frozen=True)
class TrainingPoint:
    nodes: int
    days: float
    efficiency: float


@dataclass(frozen=True)
class TrainingCurve:
    """Days to finish per node count, the way the answer scales, and the answer's own point."""

    scaling: Scaling
    points: tuple[TrainingPoint, ...]
    chosen: TrainingPoint
    deadline_days: float
    gpus_per_node: int
    chosen_gpus: int  # GPUs the answer uses (fewer than a node's for small work)
    subtitle: Message


@dataclass(frozen=True)
class Curves:
    """Everything the three charts draw; None where a chart does not apply."""

    load: LoadCurves | None
    memory: MemoryBars | None
    training: TrainingCurve | None


# -- serving --------------------------------------------------------------------------------


def _grid(top: int, include: int, n: int = LOAD_POINTS) -> list[int]:
    """About ``n`` whole concurrencies from 1 to ``top``, geometric, with ``include``."""
    top = max(1, top)
    out = {1, top, min(max(1, include), top)}
    out.update(round(top ** (i / (n - 1))) for i in range(n))
    return sorted(out)


def _replan(facts: Facts, plan: InferencePlan, concurrency: int) -> InferencePlan:
    """``plan``'s layout at another load: the engine's own planning (memory, then serving)."""
    return plan_inference(
        facts.model, facts.params, facts.kernels, facts.fabric, facts.policy,
        precision=plan.precision, kv_precision=plan.kv_precision, concurrency=concurrency,
        shape=facts.shape, nodes=plan.nodes, gpus_per_node=plan.gpus_per_node, tp=plan.tp,
        pp=plan.pp, dp=plan.dp, attention_dp=plan.attention_dp)


def _series(facts: Facts, plan: InferencePlan, role: Role, label: Message) -> LoadSeries:
    xs, speeds, ttfts = [], [], []
    for c in _grid(plan.max_concurrency, plan.concurrency):
        p = _replan(facts, plan, c)
        if p.serving is None:  # beyond what the layout holds: the curve ends
            break
        xs.append(c)
        speeds.append(p.per_user_tokens_per_s)
        ttfts.append(p.ttft_s)
    return LoadSeries(role=role, label=label, concurrency=tuple(xs),
                      per_user_tokens_per_s=tuple(speeds), ttft_s=tuple(ttfts),
                      max_concurrency=plan.max_concurrency)


def _gpus_of(plan: InferencePlan) -> int:
    return plan.nodes * plan.gpus_per_node


def _layout_plan(facts: Facts, chosen: InferencePlan, alt: Alternative) -> InferencePlan | None:
    """The runner-up layout's plan, at the load the chosen one was sized on."""
    lay = alt.layout
    if lay is None:
        return None
    gpus = lay.tp * lay.pp * lay.dp
    if gpus % alt.nodes:
        return None
    p = plan_inference(
        facts.model, facts.params, facts.kernels, facts.fabric, facts.policy,
        precision=alt.precision, kv_precision=chosen.kv_precision,
        concurrency=chosen.concurrency, shape=facts.shape, nodes=alt.nodes,
        gpus_per_node=gpus // alt.nodes, tp=lay.tp, pp=lay.pp, dp=lay.dp,
        attention_dp=lay.attention_dp)
    return p if p.serving is not None else None


def _hardware(facts: Facts, nodes: int) -> Message:
    if nodes == 1:
        return msg("hardware.node", gpus=facts.gpn, gpu=facts.gpu.name)
    return msg("hardware.nodes", nodes=nodes, gpus=facts.gpn, gpu=facts.gpu.name)


def _load(facts: Facts, d: Deployment, rec: Recommendation,
          other: tuple[Facts, Deployment] | None) -> LoadCurves | None:
    plan = d.plan
    if not isinstance(plan, InferencePlan) or plan.serving is None:
        return None
    series = [_series(facts, plan, "chosen", msg(
        "chart.series.chosen", layout=text(plan.label), gpus=_gpus_of(plan)))]
    runner = next((a for a in rec.alternatives if a.kind == "layout"), None)
    if runner is not None:
        rp = _layout_plan(facts, plan, runner)
        if rp is not None:
            series.append(_series(facts, rp, "layout", msg(
                "chart.series.layout", layout=text(rp.label), gpus=_gpus_of(rp))))
    if other is not None and isinstance(other[1].plan, InferencePlan):
        of, op = other[0], other[1].plan
        if op.serving is not None:
            series.append(_series(of, op, "gpu", msg(
                "chart.series.gpu", hardware=_hardware(of, op.nodes), layout=text(op.label))))
    r = facts.request
    return LoadCurves(
        series=tuple(series),
        point=OperatingPoint(plan.concurrency, plan.per_user_tokens_per_s, plan.ttft_s),
        per_user_target=r.per_user_tokens_per_s, ttft_target=r.ttft_s,
        copies=max(1, d.replicas or 1),
        subtitle=msg("chart.load.subtitle", model=facts.model.name,
                     hardware=_hardware(facts, plan.nodes), isl=facts.shape.isl,
                     osl=facts.shape.osl))


# -- memory ---------------------------------------------------------------------------------


def _bar(pic: MemoryPicture, gpu_bytes: float, role: Role, label: Message,
         detail: Message) -> MemoryBar:
    seg = pic.per_copy
    gpus = max(1, round(seg.vram_gb * GB / gpu_bytes))
    return MemoryBar(role=role, label=label, detail=detail, gpus=gpus, work=seg.work,
                     vram_gb=seg.vram_gb / gpus, weights_gb=seg.weights_gb / gpus,
                     work_gb=seg.work_gb / gpus, reserve_gb=seg.reserve_gb / gpus)


def _training_runner(facts: Facts, alt: Alternative) -> MemoryPicture | None:
    """A training runner-up's picture per GPU: its plan, found in the same search by its
    layout and efficiency (the alternative carries only the efficiency)."""
    lay = alt.layout
    if lay is None or (lay.tp * lay.pp * lay.dp) % alt.nodes:
        return None
    gpn = lay.tp * lay.pp * lay.dp // alt.nodes
    _, plans = facts.search.training(alt.nodes, gpus_per_node=gpn)
    eff = alt.numbers.scaling_efficiency
    for p in plans:
        if (p.tp, p.pp, p.dp) == (lay.tp, lay.pp, lay.dp) and p.fits \
                and (eff is None or round(p.efficiency, 3) == eff):
            return training_picture(p, p.gpus)
    return None


def _memory(facts: Facts, cat: Catalog, rec: Recommendation) -> MemoryBars | None:
    pic = rec.numbers.memory
    if pic is None:
        return None
    serving = rec.workload == "inference"
    lay = rec.layout
    bars = [_bar(pic, cat.gpus[rec.gpu].memory_bytes, "chosen", msg("chart.bar.chosen"),
                 text(notation(lay.tp, lay.pp, lay.dp, show_tp1=serving,
                               attention_dp=lay.attention_dp)))]
    second: tuple[Alternative, MemoryPicture, Role] | None = None
    for alt in rec.alternatives:
        if alt.kind == "layout":
            other = alt.numbers.memory or (
                None if serving else _training_runner(facts, alt))
            if other is not None:
                second = (alt, other, "layout")
                break
    if second is None:
        second = next(((a, a.numbers.memory, "gpu") for a in rec.alternatives
                       if a.kind == "gpu" and a.numbers.memory is not None), None)
    if second is not None:
        alt, other, role = second
        gpu = cat.gpus[alt.gpu]
        alay = alt.layout
        layout = text(notation(alay.tp, alay.pp, alay.dp, show_tp1=serving,
                               attention_dp=alay.attention_dp) if alay else "-")
        detail = layout if role == "layout" else msg("chart.bar.detail", gpu=gpu.name,
                                                      layout=layout)
        bars.append(_bar(other, gpu.memory_bytes, role,
                         msg("chart.bar.layout" if role == "layout" else "chart.bar.gpu"),
                         detail))
    return MemoryBars(bars=tuple(bars), weights_ceiling=facts.policy.max_weights_share,
                      subtitle=msg("chart.memory.subtitle", model=rec.model.name,
                                   workload=terms.workload(rec.workload), gpu=rec.gpu_name))


# -- training -------------------------------------------------------------------------------


def _frontier_point(facts: Facts, nodes: int) -> TrainingPoint | None:
    """A frontier run over ``nodes`` nodes, as question 5 projects it."""
    gpus = nodes * facts.gpn
    plan = at_scale(facts, gpus)
    if plan is None:
        return None
    months = gpu_months(facts, plan.efficiency, gpus)
    days = run_days(facts, months, gpus)
    return TrainingPoint(nodes, days, plan.efficiency * goodput(gpus, facts.policy))


def _training(facts: Facts, d: Deployment, rec: Recommendation) -> TrainingCurve | None:
    if not facts.request.is_training or rec.numbers.days is None:
        return None
    tokens = facts.train_tokens
    points: list[TrainingPoint] = []
    scaling: Scaling
    if d.verdict == "frontier":
        scaling = "frontier"
        low = max(1, rec.nodes // 8)
        ratio = (2 * rec.nodes / low) ** (1 / (FRONTIER_POINTS - 1))
        counts = sorted({rec.nodes, *(round(low * ratio**i) for i in range(FRONTIER_POINTS))})
        points = [p for p in (_frontier_point(facts, n) for n in counts) if p is not None]
    else:
        top = max(facts.policy.max_cluster_nodes, rec.nodes)
        one, _ = facts.search.training(1)
        scaling = "copies" if d.verdict == "replicas" and one is not None else "best"
        for n in range(1, top + 1):
            plan: TrainingPlan | None
            if scaling == "copies":
                assert one is not None
                plan = one if n == 1 else replicated(facts, one, n)
            else:
                plan = facts.search.training(n)[0]
            if plan is not None and plan.fits:
                points.append(TrainingPoint(n, plan.days(tokens), plan.efficiency))
    eff = rec.numbers.scaling_efficiency
    chosen = TrainingPoint(rec.nodes, rec.numbers.days, eff if eff is not None else math.nan)
    return TrainingCurve(
        scaling=scaling, points=tuple(points), chosen=chosen,
        deadline_days=facts.deadline_days, gpus_per_node=facts.gpn,
        chosen_gpus=rec.numbers.gpus_needed or rec.nodes * facts.gpn,
        subtitle=msg("chart.training.subtitle", model=rec.model.name,
                     workload=terms.workload(rec.workload), tokens=tokens,
                     hardware=_hardware(facts, 1)))


# -- all of them ----------------------------------------------------------------------------


def _reproduces(facts: Facts, d: Deployment, rec: Recommendation) -> bool:
    return (facts.gpu.id, d.verdict, d.precision, d.layout, d.total_nodes) == (
        rec.gpu, rec.verdict, rec.precision, rec.layout, rec.nodes)


def curves(req: SizingRequest, rec: Recommendation | None = None,
           cat: Catalog | None = None) -> Curves:
    """The series of the three charts for ``req`` (and its recommendation ``rec``, computed
    when not given). Raises :class:`NotReproduced` when ``rec`` is not what ``req`` answers,
    and the engine's own errors for a request it cannot size."""
    rec = rec if rec is not None else recommend(req, cat)
    cat = cat or catalog()
    facts, _, d = final(decided(build_facts(req, cat))[0])  # the facts the answer was sized on
    if not _reproduces(facts, d, rec):
        raise NotReproduced(f"{req!r} does not lead to the recommendation given")
    other: tuple[Facts, Deployment] | None = None
    gpu = next((a.gpu for a in rec.alternatives if a.kind == "gpu"), None)
    if gpu is not None and not facts.request.is_training:  # the best other GPU's answer
        of, _, od = final(facts.other(gpu=gpu))
        other = (of, od)
    return Curves(load=_load(facts, d, rec, other), memory=_memory(facts, cat, rec),
                  training=_training(facts, d, rec))
