"""The load a serving request puts on a deployment: request shape, what each user must see,
the throughput, and the requests in flight.

Why its own module: the load is settled once, before any plan is searched, from fields that
interact (a context, or prompt and answer lengths; a throughput target, a request rate or a
batch of documents by a deadline; per-user targets stated or assumed), and the rules are
the article's, the serving model's and the kind of work's (engine/data/work.toml), not the
catalog's. engine/decision/facts.py bundles what this returns.

Three standings of a per-user figure, kept apart because they weigh differently:

* **stated**: what the person said (a speed, a first-token bound): a requirement, the
  bounds the tree sizes for;
* **floors**: the least the kind of work accepts (chat: 10 tok/s, a first token within
  10 s; a batch has none): an answer below them says so in its headline, and offers what
  meets them, but they never multiply the hardware on their own;
* **preferred**: what a face assumed where the person said nothing (``assumed``: the bot's
  comfortable reading speed): sized for only when it costs no more hardware
  (engine/decision/standing.py). Nothing assumed ('no target', or the CLI without a speed):
  no preference.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.catalog.schema import Policy, WorkProfile
from engine.errors import UnsizableRequest
from engine.physics.inference import Bounds, Shape
from engine.request import SizingRequest
from engine.wording import Message, msg

__all__ = ["Settled", "settle", "tighter"]

SECONDS_PER_DAY = 86_400.0


@dataclass(frozen=True)
class Settled:
    """A serving request's load, settled: the request as sized, the shape of one request,
    the bounds the sizing must meet (the stated targets), the work's floors, the bounds
    with the floors and with the preference (None when they add nothing to the bounds),
    the throughput target, and what settling it assumed."""

    request: SizingRequest
    shape: Shape
    bounds: Bounds
    floors: Bounds
    floored: Bounds | None
    preferred: Bounds | None
    target: float | None
    said: tuple[Message, ...]


def tighter(a: Bounds, b: Bounds) -> Bounds:
    """The bounds of both: the higher per-user speed, the shorter first token."""
    speeds = [x for x in (a.tokens_per_s, b.tokens_per_s) if x is not None]
    ttfts = [x for x in (a.ttft_s, b.ttft_s) if x is not None]
    return Bounds(tokens_per_s=max(speeds) if speeds else None,
                  ttft_s=min(ttfts) if ttfts else None)


def _shape(request: SizingRequest, given: frozenset[str], work: WorkProfile,
           limit: int) -> tuple[SizingRequest, Shape]:
    """Prompt and answer tokens per request, and the context the KV cache holds: as said,
    else the kind of work's answer and the share of the window its prompts fill (the
    premises say which, engine/decision/premises.py)."""
    p, o = request.prompt_tokens, request.output_tokens
    ctx = request.context
    if (p or o) and "context" not in given:
        o = o or work.answer(p, ctx)
        p = p or max(1, round(ctx * work.prompt_share) - o)
        ctx = min(limit, p + o)
        request = request.model_copy(update={"context": ctx})
    if p and o and p + o > ctx:
        raise UnsizableRequest(msg("error.shape_too_long", prompt=p, output=o, context=ctx))
    osl = o or work.answer(p, ctx)
    isl = p or max(1, round((ctx - osl) * work.prompt_share))
    # a conversation's history is in the prefix cache: a turn prefills its new tokens only
    new = min(isl, work.turn_tokens) if work.turn_tokens and not p else isl
    return request, Shape(context=ctx, isl=float(new), osl=float(max(2, osl)),
                          cached=float(isl - new))


def settle(request: SizingRequest, given: frozenset[str], policy: Policy, limit: int,
           work: WorkProfile) -> Settled:
    """The request as it is sized (its context, and the requests in flight a rate implies),
    its shape, the bounds each user must see, the throughput target, and what was assumed.

    A request rate needs ``rate x (answer - 1)`` output tokens/s, and so does a batch of
    documents by its deadline; without a concurrency, the requests in flight follow by
    Little's law at the per-user speed asked (or the work's floor, else the policy's
    comfortable speed)."""
    request, shape = _shape(request, given, work, limit)
    said: list[Message] = []
    stated = Bounds(
        tokens_per_s=request.per_user_tokens_per_s
        if request.stated("per_user_tokens_per_s") else None,
        ttft_s=request.ttft_s if request.stated("ttft_s") else None)
    floors = Bounds() if request.is_training else Bounds(tokens_per_s=work.min_tokens_per_s,
                                                         ttft_s=work.max_ttft_s)
    bounds = stated
    floored = tighter(bounds, floors)
    pref_speed = (request.per_user_tokens_per_s if "per_user_tokens_per_s" in request.assumed
                  and not request.is_training else None)
    pref_ttft = request.ttft_s if "ttft_s" in request.assumed else None
    wanted = tighter(floored, Bounds(tokens_per_s=pref_speed, ttft_s=pref_ttft))
    target = request.target_tokens_per_s if request.stated("target_tokens_per_s") else None
    rate = request.requests_per_s
    if request.documents is not None and request.deadline_days:
        batch_rate = request.documents / (request.deadline_days * SECONDS_PER_DAY)
        rate = max(rate or 0.0, batch_rate)
        said.append(msg("assumption.batch_rate", documents=request.documents,
                        days=request.deadline_days, rate=batch_rate))
    if rate is not None and not request.is_training:
        needed = rate * (shape.osl - 1.0)
        target = max(target or 0.0, needed)
        if "concurrency" not in given:
            speed = bounds.tokens_per_s or pref_speed or policy.comfortable_tokens_per_s
            in_flight = max(1, math.ceil(needed / speed))
            request = request.model_copy(update={"concurrency": min(in_flight, 100_000)})
            said.append(msg("assumption.little", rate=rate, output=shape.osl, speed=speed,
                            in_flight=request.concurrency))
    return Settled(request=request, shape=shape, bounds=bounds, floors=floors,
                   floored=floored if floored != bounds else None,
                   preferred=wanted if wanted not in (bounds, floored) else None,
                   target=target, said=tuple(said))
