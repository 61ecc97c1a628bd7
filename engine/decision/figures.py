"""The deployments a "yes" recommends, with their numbers, from the plan and its picture.

The free share, the VRAM and the reserve are read from the VRAM picture
(engine/decision/picture.py), never recomputed, so the numbers, the bar and the evidence
agree. Figures are rounded as people read them (GB to 0.1, shares to 0.01 %, milliseconds to
0.1). Serving numbers (TTFT, time per output token, per-user tokens/s, requests/s) come from
the plan's in-flight batching model (engine/physics/serving.py).
"""

from __future__ import annotations

import math

from engine.decision.facts import Facts
from engine.decision.outcome import Deployment
from engine.decision.picture import inference_picture, on_node, training_picture
from engine.physics.inference import InferencePlan
from engine.physics.memory import kv_bytes_per_token, kv_cache_bytes
from engine.physics.training import TrainingPlan, flops_per_token, goodput
from engine.result import Layout, MemoryPicture, Numbers, Precision, Verdict
from engine.units import GB

__all__ = ["comfortable_training", "fewest_serving_gpus", "gpu_months", "gpus_for_deadline",
           "inference_numbers", "min_gpus", "nominal_gb", "round_gb", "run_days", "serving",
           "trained", "training_numbers"]


def rounded(x: float, places: int = 2) -> float:
    """``x`` to ``places`` decimals, or to three significant digits where that would be 0: a
    small run's 0.00055 days (a LoRA on 2k emails) is no zero-day run."""
    return round(x, places) or float(f"{x:.3g}")


def round_gb(nbytes: float) -> float:
    """Bytes as GB to one decimal, the precision of every ``*_gb`` figure."""
    return round(nbytes / GB, 1)


def nominal_gb(facts: Facts, gpus: int) -> float:
    """The vendor's figure for ``gpus`` cards ('8 x 96 GB = 768 GB'), as the article quotes it."""
    return round(facts.gpu.memory_gb * gpus, 1)


def _significant(x: float) -> float | None:
    """Three significant digits: a per-user speed of 2.25 tok/s is no 2.2, nor 13.6 a 14."""
    return float(f"{x:.3g}") if math.isfinite(x) else None


def _round(x: float, digits: int) -> float | None:
    return round(x, digits) if math.isfinite(x) else None


def inference_numbers(facts: Facts, plan: InferencePlan, copies: int = 1,
                      min_gpus: int | None = None) -> Numbers:
    """One serving plan run as ``copies`` identical copies."""
    pic = on_node(inference_picture(plan, copies), plan, facts.gpn)
    gpus = plan.nodes * plan.gpus_per_node
    docs, rate = facts.request.documents, plan.requests_per_s * copies
    days = rounded(docs / rate / 86_400.0) if docs is not None and rate > 0 else None
    return Numbers.of(
        memory=pic,
        vram_total_gb=round_gb(plan.vram_bytes),
        vram_nominal_gb=nominal_gb(facts, gpus),
        weights_gb=round_gb(plan.weights_bytes),
        weights_share=round(plan.weights_share, 4),
        kv_bytes_per_token=kv_bytes_per_token(facts.model, plan.kv_precision),
        kv_cache_gb=round_gb(plan.kv_bytes),
        reserve_gb=round_gb(plan.reserve_bytes),
        free_share=round(pic.per_copy.free_share, 4),
        max_concurrency=plan.max_concurrency,
        node_tokens_per_s=round(plan.tokens_per_s),
        total_tokens_per_s=round(plan.tokens_per_s * copies),
        ttft_s=_round(plan.ttft_s, 3),
        tpot_ms=_round(plan.tpot_ms, 2),
        per_user_tokens_per_s=_significant(plan.per_user_tokens_per_s),
        requests_per_s=_round(plan.requests_per_s * copies, 3),
        decode_step_ms=_round(plan.decode_step_ms, 2),
        days=days,
        gpus_needed=gpus * copies,
        min_gpus=min_gpus,
    )


def gpu_months(facts: Facts, efficiency: float, gpus: int | None = None) -> float:
    """GPU time of the run: ``k x P_active x D / (peak x MFU x efficiency x goodput)`` in
    GPU-months, goodput lost to interruptions at ``gpus`` GPUs (none when not given)."""
    flops = flops_per_token(facts.params, facts.training_workload) * facts.train_tokens
    per_gpu = facts.gpu.bf16_tflops * 1e12 * facts.mfu * efficiency
    if gpus:
        per_gpu *= goodput(gpus, facts.policy)
    return flops / per_gpu / 3600.0 / facts.policy.hours_per_month


def gpus_for_deadline(facts: Facts, months: float) -> int:
    """The GPUs that run ``months`` GPU-months within the deadline (at least one)."""
    return max(1, math.ceil(months * facts.policy.hours_per_month
                            / (facts.deadline_days * 24.0)))


def run_days(facts: Facts, months: float, gpus: int) -> float:
    """Wall-clock days of ``months`` GPU-months on ``gpus`` GPUs."""
    return months * facts.policy.hours_per_month / 24.0 / gpus


def _counts(facts: Facts) -> list[int]:
    return sorted({c for c in (1, 2, 4, 8, 16) if c <= facts.gpn} | {facts.gpn})


def min_gpus(facts: Facts) -> int | None:
    """The fewest GPUs of one node (a power of two, or the node) that hold the training with
    the weights inside the comfortable share (the article's 60 %: sized, not squeezed) and
    finish before the deadline; the node when nothing smaller does (None if it does not
    fit even there)."""
    for c in _counts(facts):
        if c == facts.gpn:
            return c if facts.search.training(1)[0] is not None else None
        if comfortable_training(facts, c) is not None:
            return c
    return None


def comfortable_training(facts: Facts, gpus: int) -> TrainingPlan | None:
    """The most efficient layout on ``gpus`` GPUs of one node that fits with the weights
    inside the comfortable share and finishes before the deadline, or None."""
    _, plans = facts.search.training(1, gpus_per_node=gpus)
    ok = [p for p in plans if p.fits
          and p.weights_share <= facts.policy.comfortable_weights_share + 1e-12
          and p.days(facts.train_tokens) <= facts.deadline_days]
    return max(ok, key=lambda p: (p.efficiency, -p.tp, -p.pp)) if ok else None


def fewest_serving_gpus(facts: Facts, precision: Precision) -> InferencePlan | None:
    """The plan on the fewest GPUs of one node (as one tensor-parallel copy, or one copy
    per GPU) that holds the weights inside the comfortable share (the article's 60 %), meets
    the target and bounds and, where the person gave no per-user speed, still serves each
    user at the policy's comfortable speed; the whole node's best plan when nothing smaller
    does."""
    pol = facts.policy
    fitting = [p for p in facts.search.layouts(precision, 1) if p.fits]
    per_user = facts.bounds.tokens_per_s
    floor = per_user if per_user is not None else pol.comfortable_tokens_per_s

    def good(p: InferencePlan) -> bool:
        if not p.fits or p.weights_share > pol.comfortable_weights_share + 1e-12:
            return False
        if p.serving is None:  # the ceiling first: most small layouts are too slow
            cap = facts.search.ceiling(p)
            if cap.per_user_tokens_per_s < floor or (
                    facts.target and cap.tokens_per_s * p.busy < facts.target):
                return False
            facts.search.timed(p)
        return (facts.search.meets(p)
                and (per_user is not None
                     or p.per_user_tokens_per_s >= pol.comfortable_tokens_per_s))

    weights = fitting[0].weights_bytes if fitting else 0.0
    kv = kv_cache_bytes(facts.model, facts.request.kv_precision, facts.shape.context,
                        facts.concurrency)  # at TP=1: no KV head replicated
    for c in _counts(facts):
        if c == facts.gpn:
            break
        room = c * facts.gpu_bytes
        if weights > pol.comfortable_weights_share * room or weights + kv > room:
            continue  # cannot hold the weights comfortably, or the load at all: no search
        ok = [p for p in facts.search.on_fewer(precision, c) if good(p)]
        if ok:
            return max(ok, key=lambda p: (p.tokens_per_s, -p.pp))
    return facts.search.inference(precision, 1)[0]


def training_numbers(
    facts: Facts, plan: TrainingPlan, *, gpus_per_copy: int, copies: int = 1,
    with_min_gpus: bool = False,
) -> Numbers:
    """One training plan; with replicas, the picture is drawn per copy of ``gpus_per_copy``."""
    pic: MemoryPicture = training_picture(plan, gpus_per_copy, copies, facts.gpn)
    state = facts.state
    vram = plan.gpus * plan.memory_per_gpu
    fewest = min_gpus(facts) if with_min_gpus else None
    return Numbers.of(
        memory=pic,
        vram_total_gb=round_gb(vram),
        vram_nominal_gb=nominal_gb(facts, plan.gpus),
        weights_gb=round_gb(state.weights),
        weights_share=round(state.weights / vram, 4),
        training_state_gb=round_gb(state.total),
        activations_gb=round_gb(plan.activations_per_gpu * plan.gpus),
        reserve_gb=round_gb(plan.reserve_per_gpu * plan.gpus),
        free_share=round(pic.per_copy.free_share, 4),
        scaling_efficiency=round(plan.efficiency, 3),
        mfu=round(plan.mfu * plan.efficiency, 3),
        gpu_months=rounded(gpu_months(facts, plan.efficiency)),
        days=rounded(plan.days(facts.train_tokens)),
        gpus_needed=plan.gpus,
        min_gpus=fewest,
    )


def serving(
    facts: Facts, verdict: Verdict, plan: InferencePlan, *, nodes: int = 1,
    replicas: int | None = None, copies: int = 1, min_gpus: int | None = None,
) -> Deployment:
    """A serving deployment: ``copies`` copies of ``plan``, each over ``nodes`` nodes."""
    return Deployment(
        verdict=verdict, precision=plan.precision,
        layout=Layout.of(tp=plan.tp, pp=plan.pp, dp=plan.dp, attention_dp=plan.attention_dp),
        nodes=nodes, replicas=replicas,
        crosses_nodes=nodes > 1,
        numbers=inference_numbers(facts, plan, copies, min_gpus=min_gpus), plan=plan,
    )


def trained(
    facts: Facts, verdict: Verdict, plan: TrainingPlan, *, replicas: int | None = None,
) -> Deployment:
    """A training deployment on ``plan``; with replicas, one copy is one node."""
    per_copy = facts.gpn if replicas else plan.gpus
    numbers = training_numbers(
        facts, plan, gpus_per_copy=per_copy, copies=replicas or 1,
        with_min_gpus=verdict == "single_node" and facts.request.workload != "pretrain",
    )
    return Deployment(
        verdict=verdict, precision="bf16", layout=Layout.of(tp=plan.tp, pp=plan.pp, dp=plan.dp),
        nodes=plan.nodes, replicas=replicas, crosses_nodes=plan.nodes > 1, numbers=numbers,
        plan=plan,
    )
