"""The VRAM picture: where one copy's memory goes, and all copies', computed in one place.

Why one place: the bar a face draws and the free share a step quotes must be the same
numbers. A layout of TP=4 x DP=2 holds two copies of the weights in one node; a bar that
counted one copy said "577 GB free of 768 GB" while the step said 66 % free. Every figure of
:class:`engine.result.MemoryPicture` comes from :func:`picture`; the plans feed it through the
adapters below, and the evidence (engine/decision/evidence.py) quotes its segments.
"""

from __future__ import annotations

from functools import lru_cache

from engine.physics.inference import InferencePlan
from engine.physics.training import TrainingPlan
from engine.result import MemoryPicture, Segments, WorkKind
from engine.units import GB

__all__ = ["held_per_gpu", "inference_bytes", "inference_picture", "on_node", "picture",
           "training_picture"]


def _gb(nbytes: float) -> float:
    return round(nbytes / GB, 3)


def picture(
    *,
    vram: float,
    weights: float,
    work: float,
    work_kind: WorkKind,
    reserve: float,
    scope_nodes: int,
    copies: int = 1,
    scope_gpus: int | None = None,
) -> MemoryPicture:
    """The picture of ``copies`` identical copies, each of ``scope_nodes`` nodes.

    Figures are bytes for one copy: ``vram`` of its GPUs, ``weights`` of every copy of the
    weights it holds, ``work`` (KV cache, or gradients + optimizer + activations) and the
    runtime ``reserve``. The segments are in GB, rounded to the MB. ``scope_gpus``: the GPUs
    of one node the work takes, when fewer than the node holds.
    """
    def seg(n: int) -> Segments:
        return Segments.of(vram_gb=_gb(vram * n), weights_gb=_gb(weights * n),
                        work_gb=_gb(work * n), work=work_kind, reserve_gb=_gb(reserve * n))

    return MemoryPicture.of(scope_nodes=scope_nodes, copies=copies, per_copy=seg(1),
                         total=seg(copies), scope_gpus=scope_gpus)


def inference_bytes(plan: InferencePlan) -> tuple[float, float, float, float]:
    """(VRAM, weights, KV cache, reserve) of a serving plan's scope, in bytes: its ``dp``
    copies of the weights count each. What the picture draws and a "no" is ranked by."""
    return (plan.vram_bytes, plan.weights_bytes * plan.dp, plan.kv_bytes,
            plan.reserve_bytes)


@lru_cache(maxsize=4096)
def inference_picture(plan: InferencePlan, copies: int = 1) -> MemoryPicture:
    """A serving plan: its ``dp`` copies of the weights, its KV cache, its reserve.

    Memoized by the plan's identity (a plan never changes once built): the evidence, the
    numbers and the runner-up of one answer draw the same plan's picture."""
    vram, weights, kv, reserve = inference_bytes(plan)
    return picture(vram=vram, weights=weights, work=kv, work_kind="kv_cache", reserve=reserve,
                   scope_nodes=plan.nodes, copies=copies)


def on_node(pic: MemoryPicture, plan: InferencePlan, node_gpus: int) -> MemoryPicture:
    """``pic`` of ``plan``, saying on how many GPUs when the plan takes fewer than the
    ``node_gpus`` of its node (small work sized on the fewest GPUs)."""
    used = plan.nodes * plan.gpus_per_node
    if plan.nodes != 1 or used >= node_gpus:
        return pic
    return pic.model_copy(update={"scope_gpus": used})


def training_picture(plan: TrainingPlan, gpus_per_copy: int, copies: int = 1,
                     node_gpus: int | None = None) -> MemoryPicture:
    """A training plan, per GPU times the GPUs of one copy: the weights each GPU holds
    (replicated under ZeRO-2, sharded under FSDP), the rest of its state, its activations;
    on fewer GPUs than ``node_gpus`` (a node's), it says on how many."""
    work = plan.state_per_gpu - plan.weights_per_gpu + plan.activations_per_gpu
    fewer = gpus_per_copy if node_gpus is not None and gpus_per_copy < node_gpus else None
    return picture(vram=plan.memory_per_gpu * gpus_per_copy,
                   weights=plan.weights_per_gpu * gpus_per_copy,
                   work=work * gpus_per_copy, work_kind="training_state",
                   reserve=plan.reserve_per_gpu * gpus_per_copy,
                   scope_nodes=max(1, gpus_per_copy // plan.gpus_per_node), copies=copies,
                   scope_gpus=fewer)


def held_per_gpu(plan: TrainingPlan) -> float:
    """GB one GPU holds for a training job (weights, the rest of the state, activations),
    as the picture draws it: what the evidence quotes per GPU."""
    seg = training_picture(plan, 1).per_copy
    return seg.weights_gb + seg.work_gb
