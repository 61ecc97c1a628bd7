"""The deployments a "yes" recommends, with their numbers, from the plan and its picture.

The free share, the VRAM and the reserve are read from the VRAM picture
(engine/decision/picture.py), never recomputed, so the numbers, the bar and the evidence
agree. Figures are rounded as people read them (GB to 0.1, shares to 0.01 %).
"""

from __future__ import annotations

from engine.decision.facts import Facts
from engine.decision.outcome import Deployment
from engine.decision.picture import inference_picture, training_picture
from engine.physics.inference import InferencePlan
from engine.physics.memory import kv_bytes_per_token
from engine.physics.training import TrainingPlan, flops_per_token
from engine.result import Layout, MemoryPicture, Numbers, Verdict
from engine.units import GB

__all__ = ["gpu_months", "inference_numbers", "min_gpus", "round_gb", "serving", "trained",
           "training_numbers"]


def round_gb(nbytes: float) -> float:
    """Bytes as GB to one decimal, the precision of every ``*_gb`` figure."""
    return round(nbytes / GB, 1)


def inference_numbers(facts: Facts, plan: InferencePlan, copies: int = 1) -> Numbers:
    """One serving plan run as ``copies`` identical copies."""
    pic = inference_picture(plan, copies)
    return Numbers(
        memory=pic,
        vram_total_gb=round_gb(plan.vram_bytes),
        weights_gb=round_gb(plan.weights_bytes),
        weights_share=round(plan.weights_share, 4),
        kv_bytes_per_token=kv_bytes_per_token(facts.model, facts.request.kv_precision),
        kv_cache_gb=round_gb(plan.kv_bytes),
        reserve_gb=round_gb(plan.reserve_bytes),
        free_share=round(pic.per_copy.free_share, 4),
        max_concurrency=plan.max_concurrency,
        node_tokens_per_s=round(plan.tokens_per_s),
        total_tokens_per_s=round(plan.tokens_per_s * copies),
        gpus_needed=plan.nodes * plan.gpus_per_node * copies,
    )


def gpu_months(facts: Facts, efficiency: float) -> float:
    """GPU time of the run: ``k x P_active x D / (peak x MFU x efficiency)`` in GPU-months."""
    flops = flops_per_token(facts.params, facts.training_workload) * facts.train_tokens
    per_gpu = facts.gpu.bf16_tflops * 1e12 * facts.policy.mfu_train * efficiency
    return flops / per_gpu / 3600.0 / facts.policy.hours_per_month


def min_gpus(facts: Facts) -> int | None:
    """The fewest GPUs of one node (a power of two, or the node) on which the job fits."""
    counts = sorted({c for c in (1, 2, 4, 8, 16) if c <= facts.gpn} | {facts.gpn})
    for c in counts:
        best, _ = facts.training(1, gpus_per_node=c)
        if best is not None:
            return c
    return None


def training_numbers(
    facts: Facts, plan: TrainingPlan, *, gpus_per_copy: int, copies: int = 1,
    with_min_gpus: bool = False,
) -> Numbers:
    """One training plan; with replicas, the picture is drawn per copy of ``gpus_per_copy``."""
    pic: MemoryPicture = training_picture(plan, gpus_per_copy, copies)
    state = facts.state
    vram = plan.gpus * plan.memory_per_gpu
    return Numbers(
        memory=pic,
        vram_total_gb=round_gb(vram),
        weights_gb=round_gb(state.weights),
        weights_share=round(state.weights / vram, 4),
        training_state_gb=round_gb(state.total + plan.activations_per_gpu * plan.gpus),
        activations_gb=round_gb(plan.activations_per_gpu * plan.gpus),
        reserve_gb=round_gb(plan.reserve_per_gpu * plan.gpus),
        free_share=round(pic.per_copy.free_share, 4),
        scaling_efficiency=round(plan.efficiency, 3),
        gpu_months=round(gpu_months(facts, plan.efficiency), 2),
        days=round(plan.days(facts.train_tokens), 2),
        gpus_needed=plan.gpus,
        min_gpus=min_gpus(facts) if with_min_gpus else None,
    )


def serving(
    facts: Facts, verdict: Verdict, plan: InferencePlan, *, nodes: int = 1,
    replicas: int | None = None, copies: int = 1,
) -> Deployment:
    """A serving deployment: ``copies`` copies of ``plan``, each over ``nodes`` nodes."""
    return Deployment(
        verdict=verdict, precision=plan.precision,
        layout=Layout(tp=plan.tp, pp=plan.pp, dp=plan.dp), nodes=nodes, replicas=replicas,
        crosses_nodes=nodes > 1, numbers=inference_numbers(facts, plan, copies), plan=plan,
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
        verdict=verdict, precision="bf16", layout=Layout(tp=plan.tp, pp=plan.pp, dp=plan.dp),
        nodes=plan.nodes, replicas=replicas, crosses_nodes=plan.nodes > 1, numbers=numbers,
        plan=plan,
    )
