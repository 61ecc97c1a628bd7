"""What every answer to a request assumes, whatever the verdict: the premises it is sized on.

Said once per answer (not per question) and always: the capacity unit of the cards (the
vendor's "96 GB" is 96 GiB), where the GPU's speed comes from (its own measurements, or the
closest measured part's, and which); for serving, the request shape, the KV format, the
runtime reserve and the in-flight batching model; for training, the token budget and
deadline when defaulted, the training recipe, the MFU and the optimizer's bytes. Each is a
message whose params are the catalog's and the policy's figures (engine/data/*.toml), so the
answer states the constant it used.
"""

from __future__ import annotations

from engine.decision import terms
from engine.decision.facts import Facts
from engine.wording import Message, Param, msg

__all__ = ["premises"]


def _hardware(facts: Facts) -> list[Message]:
    gpu, k = facts.gpu, facts.kernels
    out = [msg("assumption.capacity", gpu=gpu.name, nominal=gpu.memory_gb,
               unit=gpu.memory_unit, real=gpu.memory_bytes, gpus=facts.gpn,
               node_nominal=gpu.memory_gb * facts.gpn, node_real=facts.node_bytes)]
    if k.measured:
        out.append(msg("assumption.measured", gpu=gpu.name, aic=k.calibration.aiconfigurator))
    else:
        out.append(msg("assumption.calibrated_as", gpu=gpu.name, part=k.part.name,
                       aic=k.calibration.aiconfigurator))
    link = facts.fabric.in_node
    if link is not None and link.measured and link.host != k.part.id:
        host = facts.catalog.gpus[link.host].name if link.host else "?"
        out.append(msg("assumption.link_measured_on", link=facts.fabric.intra.name, host=host))
    elif link is None or not link.measured:
        out.append(msg("assumption.link_unmeasured", link=facts.fabric.intra.name))
    return out


def _inference(facts: Facts) -> list[Message]:
    r, pol, m = facts.request, facts.policy, facts.model
    sh = facts.shape
    shape: dict[str, Param] = dict(context=r.context, prompt=sh.isl + sh.cached,
                                   output=sh.osl, kv_precision=terms.precision(r.kv_precision))
    said = r.prompt_tokens is not None and r.output_tokens is not None
    out = [
        msg("assumption.request_shape", **shape) if said else msg(
            "assumption.request_shape_work", work=msg(f"work.{facts.work.id}"), **shape),
        *([msg("assumption.prefix_cache", new=sh.isl, cached=sh.cached)] if sh.cached else []),
        msg("assumption.reserve", reserve=pol.runtime_reserve_gb_per_gpu),
        msg("assumption.serving_model", aic=facts.kernels.calibration.aiconfigurator,
            budget=pol.prefill_token_budget),
    ]
    if facts.precision != r.precision and facts.precision == m.native_precision:
        out.append(msg("assumption.native", model=m.name,
                       precision=terms.precision(facts.precision)))
    if m.is_moe:
        out.append(msg("assumption.moe_decode", active=m.experts_active, experts=m.experts))
    return out


def _training(facts: Facts) -> list[Message]:
    r, pol = facts.request, facts.policy
    out: list[Message] = []
    if not r.train_tokens:
        if r.workload == "pretrain":
            out.append(msg("assumption.tokens_pretrain", tokens=facts.train_tokens,
                           per_param=pol.pretrain_tokens_per_param))
        else:
            out.append(msg("assumption.tokens_finetune", tokens=facts.train_tokens))
    if not r.deadline_days:
        out.append(msg("assumption.deadline", days=facts.deadline_days))
    out.append(msg("assumption.train_shape", seq=pol.train_seq_len,
                   micro=pol.train_micro_batch, batch=pol.global_batch_tokens,
                   mfu=facts.mfu))
    out.append(msg("assumption.adam",
                   bytes=2 + pol.master_grad_bytes_per_param + pol.adam_bytes_per_param))
    if r.workload in ("lora", "qlora"):
        state = facts.state
        out.append(msg("assumption.lora", rank=pol.lora_rank, trainable=state.trainable_params,
                       precision=terms.precision(state.base_precision)))
    return out


def premises(facts: Facts) -> list[Message]:
    """The request's premises, after what building the facts assumed."""
    return [*facts.assumptions, *_hardware(facts),
            *(_training(facts) if facts.request.is_training else _inference(facts))]
