"""The math behind an answer ("Show the math"): each formula with the constants it used.

One message per line, its params the figures (parameter counts, byte widths, measured
kernel costs, efficiencies) as the physics used them: the explanation quotes the same
definitions the formulas use (the KV byte width and weight bits of engine/physics/memory.py,
the FLOPs factor of engine/physics/training.py, the step and serving times of
engine/physics/step.py and serving.py), so the two cannot drift apart.
"""

from __future__ import annotations

from engine.decision import terms
from engine.decision.facts import Facts
from engine.decision.outcome import Deployment
from engine.physics.inference import InferencePlan
from engine.physics.kernels import kernel_dtype
from engine.physics.memory import kv_bytes_per_token, kv_element_bytes, weight_bits
from engine.physics.training import TrainingPlan, flops_factor, flops_per_token, goodput
from engine.wording import Message, msg

__all__ = ["math_lines"]


def _inference(facts: Facts, plan: InferencePlan) -> list[Message]:
    m, pc, pol = facts.model, facts.params, facts.policy
    out = [msg("math.params", total=pc.total, active=pc.active, embedding=pc.embedding)]
    if plan.precision in ("bf16", "fp16"):
        out.append(msg("math.weights_16bit", weights=plan.weights_bytes))
    else:
        out.append(msg("math.weights_quantized", bits=weight_bits(plan.precision, pol),
                       weights=plan.weights_bytes, precision=terms.precision(plan.precision)))
    b = kv_element_bytes(plan.kv_precision)
    per_token = kv_bytes_per_token(m, plan.kv_precision)
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
    k = facts.kernels
    gemm = k.gemm(plan.precision)
    per_copy = plan.per_copy
    out.append(msg("math.decode", layout=plan.label, sequences=per_copy,
                   step_ms=plan.decode_step_ms,
                   fixed_us=gemm.fixed(float(per_copy)) * 1e6,
                   stream=gemm.stream(float(per_copy)) / 1e9, bw=facts.gpu.mem_bw_gbs,
                   kernel=kernel_dtype(facts.gpu, plan.precision),
                   part=k.part.name, aic=k.calibration.aiconfigurator))
    s = plan.serving
    if s is not None:
        out.append(msg("math.serving", batch=s.batch, isl=facts.shape.isl,
                       osl=facts.shape.osl, mix_ms=s.mix_step_s * 1e3,
                       gen_ms=s.decode_step_s * 1e3, tpot_ms=s.tpot_s * 1e3,
                       prefill_ms=s.prefill_s * 1e3, ttft=s.ttft_s,
                       drain=pol.tpot_drain_steps))
        out.append(msg("math.throughput", batch=s.batch, osl=facts.shape.osl,
                       copies=plan.busy, tokens_per_s=plan.tokens_per_s,
                       requests_per_s=plan.requests_per_s))
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
        msg("math.mfu", mfu=facts.mfu, share=pol.train_gemm_share,
            gemm=facts.mfu / pol.train_gemm_share, part=facts.kernels.part.name),
    ]
    plan = deployment.plan
    if deployment.verdict == "frontier":
        n = deployment.numbers
        gpus = n.gpus_needed or 1
        eff = plan.efficiency if isinstance(plan, TrainingPlan) else 1.0
        out.append(msg("math.gpu_months", k=flops_factor(workload),
                       tflops=facts.gpu.bf16_tflops, mfu=facts.mfu, efficiency=eff,
                       goodput=goodput(gpus, pol), hours=pol.hours_per_month,
                       months=n.gpu_months or 0.0))
        out.append(msg("math.goodput", rate=pol.failures_per_gpu_hour, gpus=gpus,
                       lost=pol.hours_lost_per_failure, goodput=goodput(gpus, pol)))
    elif isinstance(plan, TrainingPlan):
        out.append(msg("math.step", layout=terms.training_layout(plan), step=plan.step_time_s,
                       batch=plan.tokens_per_s * plan.step_time_s,
                       efficiency=plan.efficiency))
    return out


def math_lines(facts: Facts, deployment: Deployment) -> list[Message]:
    """The formulas behind ``deployment``, in the order a reader checks them."""
    if facts.request.is_training:
        return _training(facts, deployment)
    if isinstance(deployment.plan, InferencePlan):
        return _inference(facts, deployment.plan)
    return []  # a frontier serving estimate: its evidence is its formula
