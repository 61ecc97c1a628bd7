"""The terms an answer is written with: precisions, workloads, hardware, loads, layouts.

Each is a :class:`engine.wording.Message` (or a name that is never translated, such as a GPU's
or a layout's notation), so the question, the evidence, the headline and the alternatives
name a thing the same way, in English and in French, and tests can compare ids.
"""

from __future__ import annotations

from engine.decision.facts import Facts
from engine.physics.inference import InferencePlan
from engine.physics.memory import Strategy
from engine.physics.parallel import notation
from engine.physics.training import TrainingPlan
from engine.result import Precision, Workload
from engine.wording import Message, msg, text

__all__ = ["hardware", "inference_layout", "load", "model_name", "precision",
           "training_layout", "workload"]

_PRECISION: dict[Precision, str] = {
    "bf16": "precision.bf16",
    "fp16": "precision.fp16",
    "fp8": "precision.fp8",
    "int4": "precision.int4",
    "nf4": "precision.nf4",
    "nvfp4": "precision.nvfp4",
    "mxfp4": "precision.mxfp4",
}
_WORKLOAD: dict[Workload, str] = {
    "inference": "workload.inference",
    "lora": "workload.lora",
    "qlora": "workload.qlora",
    "full-finetune": "workload.full_finetune",
    "pretrain": "workload.pretrain",
}
_STRATEGY: dict[Strategy, str] = {"zero2": "strategy.zero2", "zero3": "strategy.zero3"}


# Messages are frozen: the terms that take no parameters are built once and shared.
_PRECISION_MSG = {p: msg(i) for p, i in _PRECISION.items()}
_WORKLOAD_MSG = {w: msg(i) for w, i in _WORKLOAD.items()}
_STRATEGY_MSG = {s: msg(i) for s, i in _STRATEGY.items()}


def precision(p: Precision) -> Message:
    """'FP8', 'INT4', ... (format names are the same in every language)."""
    return _PRECISION_MSG[p]


def workload(w: Workload) -> Message:
    """'inference', 'LoRA fine-tune' / 'inférence', 'fine-tuning LoRA'."""
    return _WORKLOAD_MSG[w]


def hardware(facts: Facts, nodes: int = 1) -> Message:
    """'8x NVIDIA L40S' for one node, '2 nodes of 8x NVIDIA L40S' for several."""
    if nodes == 1:
        return msg("hardware.node", gpus=facts.gpn, gpu=facts.gpu.name)
    return msg("hardware.nodes", nodes=nodes, gpus=facts.gpn, gpu=facts.gpu.name)


def load(facts: Facts, concurrency: int | None = None) -> Message:
    """The sized load: '64 x 8k' (concurrent requests x context); with ``concurrency``, a
    copy's share of the requests at the same context ('22 x 16k')."""
    r = facts.request
    return msg("load.inference", concurrency=r.concurrency if concurrency is None
               else concurrency, context=r.context)


def model_name(facts: Facts) -> Message:
    """The model's name (the catalog's, or the config.json's), or 'a 70B dense model' / 'a
    1T MoE model with 32B active' for one known only by its size: the counts as given (the
    synthetic architecture lands within a few percent of them; the math shows its own)."""
    r = facts.request
    if facts.in_catalog or r.params_b is None or r.arch is not None or r.hf_config is not None:
        return text(facts.model.name)
    if r.active_params_b is not None and r.active_params_b < r.params_b:
        return msg("model.synthetic_moe", params=r.params_b * 1e9,
                   active=r.active_params_b * 1e9)
    return msg("model.synthetic", params=r.params_b * 1e9)


def inference_layout(plan: InferencePlan, nodes: int = 1) -> Message:
    """How a serving plan runs: 'TP=8 x PP=2', or '2 copies of TP=4'; a plan of one node run
    on each of ``nodes`` nodes counts every node's copies ('4 copies of TP=4' on two nodes
    of 2), never one node's as if they were all."""
    copies = plan.dp * (nodes if plan.nodes == 1 else 1)
    if copies == 1:
        return text(plan.label)
    return msg("layout.copies", copies=copies,
               layout=notation(plan.tp, plan.pp, 1, attention_dp=plan.attention_dp))


def training_layout(plan: TrainingPlan) -> Message:
    """How a training plan runs: 'TP=8 x DP=2 (ZeRO-2)', 'TP=8' (no data parallelism)."""
    if plan.dp == 1:
        return text(plan.label)
    return msg("layout.training", layout=plan.label, strategy=_STRATEGY_MSG[plan.strategy])
