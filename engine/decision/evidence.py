"""The evidence a serving step quotes: why a layout fits one node (or a cluster), or why not,
and what it serves against the targets a person gave.

The figures come from the VRAM picture (engine/decision/picture.py), so what a step says is
used and free is what the face's bar draws. A "no" is explained with the layout that came
closest to fitting: either the weights break the article's 70 % rule (C2) or they fit and
the work does not ("room for the weights, not for the work", C4); or it fits and falls short
of a target, and the evidence names which one decided: the throughput, the per-user speed or
the time to first token.
"""

from __future__ import annotations

from engine.decision import terms
from engine.decision.facts import Facts
from engine.decision.picture import inference_bytes, inference_picture
from engine.physics.inference import Bounds, InferencePlan
from engine.physics.memory import weights_bytes
from engine.result import Precision
from engine.units import GB
from engine.wording import Message, Param, msg, text

__all__ = ["BRIEF", "asks", "bound_parts", "fit", "miss", "nearest_miss", "rate", "shortfall"]

#: What the evidence of brief facts says (an alternative is compared, never explained: its
#: questions' evidence is never shown, so it is not worded; engine/decision/facts.py).
BRIEF = text("")


def fit(facts: Facts, plan: InferencePlan) -> Message:
    """Weights against the VRAM holding them, the KV cache of the plan's own load (a copy's
    share of the requests when copies split them), what is used and stays free."""
    if facts.brief:
        return BRIEF
    seg = inference_picture(plan).per_copy
    common: dict[str, Param] = dict(
        precision=terms.precision(plan.precision), load=terms.load(facts, plan.concurrency),
        kv=seg.work_gb, reserve=seg.reserve_gb, used=seg.used_gb, vram=seg.vram_gb,
        free_share=seg.free_share, layout=terms.inference_layout(plan))
    if plan.dp == 1 and plan.attention_dp:  # why these weights outweigh the model's
        once = weights_bytes(facts.params, plan.precision, facts.policy, facts.model) / GB
        return msg("evidence.fit_attention_dp", weights=seg.weights_gb, once=once,
                   group=plan.tp, weights_share=plan.weights_share, **common)
    if plan.dp == 1:
        return msg("evidence.fit", weights=seg.weights_gb, weights_share=plan.weights_share,
                   **common)
    return msg("evidence.fit_copies", copies=plan.dp, weights=seg.weights_gb,
               weights_each=seg.weights_gb / plan.dp, weights_share=plan.weights_share,
               copy_vram=seg.vram_gb / plan.dp, **common)


def asks(facts: Facts) -> Message | None:
    """What the request asks beyond fitting, as one phrase for the question (or None)."""
    parts = [msg("target.rate", target=facts.target)] if facts.target else []
    parts += bound_parts(facts.bounds)
    return msg("target.all", parts=parts) if parts else None


def bound_parts(bounds: Bounds) -> list[Message]:
    """Per-user bounds as phrases: '40 tok/s per user', 'a first token within 2 s'."""
    parts: list[Message] = []
    if bounds.tokens_per_s is not None:
        parts.append(msg("target.per_user", speed=bounds.tokens_per_s))
    if bounds.ttft_s is not None:
        parts.append(msg("target.ttft", ttft=bounds.ttft_s))
    return parts


def shortfall(facts: Facts, plan: InferencePlan) -> Message | None:
    """The first target ``plan`` misses (throughput, per-user speed, first token), or None."""
    if facts.target and plan.tokens_per_s < facts.target:
        return msg("evidence.short_rate", tokens_per_s=plan.tokens_per_s, target=facts.target)
    speed = facts.bounds.tokens_per_s
    if speed is not None and plan.per_user_tokens_per_s < speed:
        return msg("evidence.short_user", per_user=plan.per_user_tokens_per_s, speed=speed,
                   per_copy=plan.per_copy)
    ttft = facts.bounds.ttft_s
    if ttft is not None and plan.ttft_s > ttft:
        return msg("evidence.short_ttft", ttft=plan.ttft_s, bound=ttft, per_copy=plan.per_copy)
    return None


def rate(facts: Facts, plan: InferencePlan, evidence: Message) -> Message:
    """The evidence, then what the layout serves, and the target it misses if any."""
    if facts.brief:
        return BRIEF
    served = msg("evidence.served", tokens_per_s=plan.tokens_per_s,
                 per_user=plan.per_user_tokens_per_s, ttft=plan.ttft_s,
                 requests_per_s=plan.requests_per_s)
    short = shortfall(facts, plan)
    if short is not None:
        return msg("evidence.slow", fit=evidence, served=served, short=short)
    if asks(facts) is not None:
        return msg("evidence.meets", fit=evidence, served=served, asks=asks(facts))
    return msg("evidence.rate", fit=evidence, served=served)


def nearest_miss(plans: list[InferencePlan]) -> InferencePlan:
    """The layout that came closest to fitting (least VRAM used), to explain a 'no'."""
    whole = [p for p in plans if p.dp == 1 and p.tp * p.pp == p.nodes * p.gpus_per_node]
    pool = whole or plans

    def used(p: InferencePlan) -> float:
        vram, weights, kv, reserve = inference_bytes(p)
        return (weights + kv + reserve) / vram

    return min(pool, key=lambda p: (used(p), -p.tp))


def miss(facts: Facts, plans: list[InferencePlan], precision: Precision) -> Message:
    """Why no layout fits: the 70 % rule, or no room for the KV cache."""
    if facts.brief:
        return BRIEF
    near = nearest_miss(plans)
    seg = inference_picture(near).per_copy
    policy = facts.policy
    if near.weights_share > policy.max_weights_share:
        return msg("evidence.over_rule", precision=terms.precision(precision),
                   weights=seg.weights_gb, weights_share=near.weights_share,
                   hardware=terms.hardware(facts, near.nodes), vram=seg.vram_gb,
                   max_share=policy.max_weights_share)
    return msg("evidence.no_room", precision=terms.precision(precision),
               weights=seg.weights_gb, weights_share=near.weights_share,
               load=terms.load(facts), kv=seg.work_gb, used=seg.used_gb, vram=seg.vram_gb)
