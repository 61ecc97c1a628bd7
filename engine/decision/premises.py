"""What every answer to a request assumes, whatever the verdict: the premises it is sized on.

Said once per answer (not per question) and always: the request shape and the runtime
reserve for serving; the token budget and deadline when defaulted, the training recipe and
the optimizer's bytes for training. Each is a message whose params are the policy's figures
(engine/data/policy.toml), so the answer states the constant it used.
"""

from __future__ import annotations

from engine.decision import terms
from engine.decision.facts import Facts
from engine.wording import Message, msg

__all__ = ["premises"]


def _inference(facts: Facts) -> list[Message]:
    r, pol, m = facts.request, facts.policy, facts.model
    out = [
        msg("assumption.request_shape", context=r.context, prompt=1 - pol.output_share,
            output=pol.output_share, kv_precision=terms.precision(r.kv_precision)),
        msg("assumption.reserve", reserve=pol.runtime_reserve_gb_per_gpu),
    ]
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
                   mfu=pol.mfu_train))
    out.append(msg("assumption.adam",
                   bytes=2 + pol.master_grad_bytes_per_param + pol.adam_bytes_per_param))
    if r.workload in ("lora", "qlora"):
        state = facts.state
        out.append(msg("assumption.lora", rank=pol.lora_rank, trainable=state.trainable_params,
                       precision=terms.precision(state.base_precision)))
    return out


def premises(facts: Facts) -> list[Message]:
    """The request's premises, after what building the facts assumed."""
    return [*facts.assumptions,
            *(_training(facts) if facts.request.is_training else _inference(facts))]
