"""What a serving answer misses: stated targets, the floors of the work, a batch's deadline.

An answer that misses what was asked, or serves below what its kind of work accepts (chat at
under 10 tok/s per user, a first token after 10 s: engine/data/work.toml), is never shown as
a plain success: its headline says what it misses and by how much, and its caveats say what
would bring it within reach. It happens when nothing on this GPU can meet a bound (even one
request alone: engine/decision/facts.py sizes without it), or when the tree's last question
answers with what it can.
"""

from __future__ import annotations

from engine.decision.facts import Facts
from engine.decision.outcome import Deployment
from engine.physics.inference import InferencePlan
from engine.wording import Message, msg

__all__ = ["shortfalls"]

#: Figures are compared as shown (rounded); a hair under a bound is not a miss.
_SLACK = 1e-3


def shortfalls(facts: Facts, d: Deployment) -> list[Message]:
    """What ``d`` misses, as the headline says it (empty when it misses nothing)."""
    plan = d.plan
    if facts.request.is_training or not isinstance(plan, InferencePlan) \
            or plan.serving is None:
        return []
    stated, floors = facts.load.bounds, facts.floors
    work = msg(f"work.{facts.work.id}")
    per_user, ttft = plan.per_user_tokens_per_s, plan.ttft_s
    out: list[Message] = []
    if stated.tokens_per_s is not None and per_user < stated.tokens_per_s * (1 - _SLACK):
        out.append(msg("shortfall.per_user_asked", per_user=per_user,
                       asked=stated.tokens_per_s))
    elif floors.tokens_per_s is not None and per_user < floors.tokens_per_s * (1 - _SLACK):
        out.append(msg("shortfall.per_user_floor", per_user=per_user,
                       floor=floors.tokens_per_s, work=work))
    if stated.ttft_s is not None and ttft > stated.ttft_s * (1 + _SLACK):
        out.append(msg("shortfall.ttft_asked", ttft=ttft, asked=stated.ttft_s))
    elif floors.ttft_s is not None and ttft > floors.ttft_s * (1 + _SLACK):
        out.append(msg("shortfall.ttft_floor", ttft=ttft, floor=floors.ttft_s, work=work))
    days, deadline = d.numbers.days, facts.request.deadline_days
    if facts.request.documents is not None and days is not None and deadline is not None:
        if days > deadline * (1 + _SLACK):
            out.append(msg("shortfall.deadline", documents=facts.request.documents,
                           days=days, deadline=deadline))
    elif facts.target and d.numbers.total_tokens_per_s is not None \
            and d.numbers.total_tokens_per_s < facts.target * (1 - _SLACK):
        out.append(msg("shortfall.throughput", got=d.numbers.total_tokens_per_s,
                       asked=facts.target))
    return out
