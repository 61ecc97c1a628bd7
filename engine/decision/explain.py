"""The math behind an answer ("Show the math"): each formula with the constants it used.

One message per line, its params the figures (parameter counts, byte widths, bandwidths,
efficiencies) as the physics used them: the explanation quotes the same definitions the
formulas use (the KV byte width of engine/physics/memory.py, the FLOPs factor of
engine/physics/training.py), so the two cannot drift apart.
"""

from __future__ import annotations

import math

from engine.decision import terms
from engine.decision.facts import Facts
from engine.decision.outcome import Deployment
from engine.physics.inference import InferencePlan
from engine.physics.memory import int4_bits, kv_bytes_per_token, kv_element_bytes
from engine.physics.training import TrainingPlan, flops_factor, flops_per_token
from engine.wording import Message, msg

__all__ = ["math_lines"]


def _inference(facts: Facts, plan: InferencePlan) -> list[Message]:
    m, pc, pol, r = facts.model, facts.params, facts.policy, facts.request
    out = [msg("math.params", total=pc.total, active=pc.active, embedding=pc.embedding)]
    if plan.precision in ("bf16", "fp16"):
        out.append(msg("math.weights_16bit", weights=plan.weights_bytes))
    else:
        bits = 8.0 if plan.precision == "fp8" else int4_bits(pol)
        out.append(msg("math.weights_quantized", bits=bits, weights=plan.weights_bytes,
                       precision=terms.precision(plan.precision)))
    b = kv_element_bytes(r.kv_precision)
    per_token = kv_bytes_per_token(m, r.kv_precision)
    if m.mla is not None:
        out.append(msg("math.kv_mla", b=b, layers=m.layers, rank=m.mla.kv_lora_rank,
                       rope=m.mla.qk_rope_head_dim, per_token=per_token))
    else:
        out.append(msg("math.kv_gqa", b=b, layers=m.layers, kv_heads=m.kv_heads,
                       head_dim=m.head_dim, per_token=per_token))
    if m.swa_layers:
        out.append(msg("math.kv_window", swa=m.swa_layers, layers=m.layers,
                       window=m.sliding_window))
    out.append(msg("math.kv_cache", kv=plan.kv_bytes))
    out.append(msg("math.fits", max_share=pol.max_weights_share,
                   reserve=pol.runtime_reserve_gb_per_gpu))
    out.append(msg("math.decode", bw=facts.gpu.mem_bw_gbs, eff=pol.hbm_efficiency,
                   step_ms=plan.decode_step_ms, sequences=math.ceil(plan.concurrency / plan.dp),
                   layout=plan.label))
    out.append(msg("math.prefill", mfu=pol.mfu_prefill, prefill=plan.prefill_tokens_per_s,
                   prompt=1 - pol.output_share, output=plan.tokens_per_s))
    return out


def _training(facts: Facts, deployment: Deployment) -> list[Message]:
    pc, pol, state = facts.params, facts.policy, facts.state
    workload = facts.training_workload
    tokens = facts.train_tokens
    out = [
        msg("math.params_training", total=pc.total, active=pc.active),
        msg("math.training_state", weights=state.weights, grads=state.grads,
            optimizer=state.optimizer, total=state.total),
        msg("math.compute", k=flops_factor(workload), active=pc.active, tokens=tokens,
            flops=flops_per_token(pc, workload) * tokens),
    ]
    plan = deployment.plan
    if deployment.verdict == "frontier":
        n = deployment.numbers
        out.append(msg("math.gpu_months", k=flops_factor(workload),
                       tflops=facts.gpu.bf16_tflops, mfu=pol.mfu_train,
                       efficiency=n.scaling_efficiency or 1.0, hours=pol.hours_per_month,
                       months=n.gpu_months or 0.0))
    elif isinstance(plan, TrainingPlan):
        out.append(msg("math.step", layout=terms.training_layout(plan), step=plan.step_time_s,
                       batch=pol.global_batch_tokens, efficiency=plan.efficiency))
    return out


def math_lines(facts: Facts, deployment: Deployment) -> list[Message]:
    """The formulas behind ``deployment``, in the order a reader checks them."""
    if facts.request.is_training:
        return _training(facts, deployment)
    if isinstance(deployment.plan, InferencePlan):
        return _inference(facts, deployment.plan)
    return []  # a frontier serving estimate: its evidence is its formula


