"""Parallel layouts: how a node's or a cluster's GPUs split into TP x PP x DP, and their notation.

Inference and training search the same space (tensor parallelism inside a node, pipeline and
data parallelism over the rest) with different rules for what counts; the divisors, the
rules and the way a layout is written ("TP=4 x PP=2 x DP=2") are defined here once.
"""

from __future__ import annotations

import math
from functools import lru_cache

from engine.catalog.schema import ModelSpec
from engine.physics.memory import Strategy

__all__ = ["divisors", "inference_layouts", "notation", "training_layouts", "valid_tp"]


def divisors(n: int) -> list[int]:
    """Every divisor of ``n``, ascending (pairs up to the square root: clusters of thousands
    of GPUs stay cheap)."""
    return list(_divisors(n))


@lru_cache(maxsize=4096)
def _divisors(n: int) -> tuple[int, ...]:
    small = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    return tuple(sorted({*small, *(n // d for d in small)}))


def notation(tp: int, pp: int, dp: int, *, show_tp1: bool = True,
             attention_dp: bool = False) -> str:
    """A layout as engineers write it: 'TP=4 x PP=2 x DP=2' (the same in every language).

    Inference always names its TP ('TP=1'); training leaves a TP of 1 out ('DP=8') and writes
    a single GPU as '1 GPU' (see engine/decision/terms.py for the words around it). A group
    whose GPUs each run the attention on their own requests with the experts spread over
    them (attention data parallelism with expert parallelism) is written as TensorRT-LLM's
    documentation writes it: 'DEP=8'.
    """
    head = f"DEP={tp}" if attention_dp else f"TP={tp}"
    parts = [head] if tp > 1 or show_tp1 or attention_dp else []
    if pp > 1:
        parts.append(f"PP={pp}")
    if dp > 1:
        parts.append(f"DP={dp}")
    return " x ".join(parts) or "1 GPU"


def valid_tp(m: ModelSpec, tp: int) -> bool:
    """Whether serving stacks split this model ``tp`` ways: the attention heads divide evenly
    between the GPUs, and the KV heads do too or are replicated whole (vLLM's and
    TensorRT-LLM's rule: ``heads % tp == 0`` and ``kv_heads % tp == 0`` or ``tp % kv_heads
    == 0``; docs/engine-notes.md#megatron-tensor-parallelism). A 64-head model on a 10-GPU
    node runs TP=2, never TP=10."""
    return _valid_tp(m.heads, m.kv_heads, tp)


@lru_cache(maxsize=4096)
def _valid_tp(heads: int, kv_heads: int, tp: int) -> bool:
    return heads % tp == 0 and (kv_heads % tp == 0 or tp % kv_heads == 0)


def _tps(m: ModelSpec, gpus_per_node: int) -> tuple[int, ...]:
    """The tensor-parallel degrees of a node: divisors of its GPU count the model splits by."""
    return tuple(tp for tp in _divisors(gpus_per_node) if valid_tp(m, tp))


def inference_layouts(m: ModelSpec, nodes: int, gpus_per_node: int) -> list[tuple[int, int, int]]:
    """(tp, pp, dp) layouts: TP stays inside a node and splits the heads evenly
    (:func:`valid_tp`); instances are whole nodes or fit in one.

    Over several nodes only instances that span nodes count: copies that each fit in one
    node are replicas behind a load balancer, which the decision sizes on its own.
    """
    return _inference_layouts(m.layers, nodes, gpus_per_node, _tps(m, gpus_per_node))


@lru_cache(maxsize=1024)
def _inference_layouts(layers: int, nodes: int, gpus_per_node: int,
                       tps: tuple[int, ...]) -> list[tuple[int, int, int]]:
    total = nodes * gpus_per_node
    out = []
    for tp in tps:
        for inst in _divisors(total):
            if inst % tp:
                continue
            pp = inst // tp
            if pp > layers:
                continue
            if inst > gpus_per_node and inst % gpus_per_node:
                continue
            if inst <= gpus_per_node and (gpus_per_node % inst or nodes > 1):
                continue
            out.append((tp, pp, total // inst))
    return out


def training_layouts(
    m: ModelSpec, nodes: int, gpus_per_node: int, tp_options: tuple[int, ...] | None = None,
) -> list[TrainingLayout]:
    """Candidate layouts: TP within a node (``tp_options``, default every divisor of the
    node the model splits by, :func:`valid_tp`), PP and DP over the rest, ZeRO-2 or FSDP."""
    tps = tuple(tp for tp in tp_options if valid_tp(m, tp)) if tp_options is not None \
        else _tps(m, gpus_per_node)
    return list(_training_layouts(m.layers, nodes, gpus_per_node, tps))


#: (tp, pp, dp, strategy) of one training layout.
TrainingLayout = tuple[int, int, int, Strategy]


@lru_cache(maxsize=1024)
def _training_layouts(layers: int, nodes: int, gpus_per_node: int,
                      tps: tuple[int, ...]) -> tuple[TrainingLayout, ...]:
    total = nodes * gpus_per_node
    out: list[TrainingLayout] = []
    for tp in tps:
        for pp in _divisors(total // tp):
            if pp > layers:
                continue
            dp = total // (tp * pp)
            strategies: tuple[Strategy, ...] = ("zero2", "zero3") if dp > 1 else ("zero2",)
            for strategy in strategies:
                out.append((tp, pp, dp, strategy))
    return tuple(out)
