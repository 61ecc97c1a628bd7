"""The load a serving request puts on a deployment: request shape, bounds, throughput, and the
requests in flight.

Why its own module: the load is settled once, before any plan is searched, from fields that
interact (a context, or prompt and answer lengths; a throughput target, or a request rate;
a per-user speed), and the rules are the article's and the serving model's, not the
catalog's (docs/calibration.md, "Serving: TTFT, time per output token, per-user speed,
requests/s"). engine/decision/facts.py bundles what this returns.
"""

from __future__ import annotations

import math

from engine.catalog.schema import Policy
from engine.errors import UnsizableRequest
from engine.physics.inference import Bounds, Shape
from engine.request import SizingRequest
from engine.wording import Message, msg

__all__ = ["settle"]


def _shape(request: SizingRequest, given: frozenset[str], policy: Policy,
           limit: int) -> tuple[SizingRequest, Shape]:
    """Prompt and answer tokens per request, and the context the KV cache holds."""
    p, o = request.prompt_tokens, request.output_tokens
    ctx = request.context
    if (p or o) and "context" not in given:
        share = policy.output_share
        p = p or round((o or 0) * (1 - share) / share)
        o = o or max(1, round(p * share / (1 - share)))
        ctx = min(limit, p + o)
        request = request.model_copy(update={"context": ctx})
    if p and o and p + o > ctx:
        raise UnsizableRequest(msg("error.shape_too_long", prompt=p, output=o, context=ctx))
    osl = o or max(2, round(ctx * policy.output_share))
    isl = p or max(1, ctx - osl)
    return request, Shape(context=ctx, isl=float(isl), osl=float(max(2, osl)))


def settle(
    request: SizingRequest, given: frozenset[str], policy: Policy, limit: int,
) -> tuple[SizingRequest, Shape, Bounds, float | None, list[Message]]:
    """The request as it is sized (its context, and the requests in flight a rate implies),
    its shape, the bounds each user must see, the throughput target, and what was assumed.

    A request rate needs ``rate x (answer - 1)`` output tokens/s; without a concurrency, the
    requests in flight follow by Little's law at the per-user speed asked (or the policy's
    comfortable one)."""
    request, shape = _shape(request, given, policy, limit)
    bounds = Bounds(tokens_per_s=request.per_user_tokens_per_s, ttft_s=request.ttft_s)
    target = request.target_tokens_per_s
    rate = request.requests_per_s
    said: list[Message] = []
    if rate is not None and not request.is_training:
        needed = rate * (shape.osl - 1.0)
        target = max(target or 0.0, needed)
        if "concurrency" not in given:
            speed = bounds.tokens_per_s or policy.comfortable_tokens_per_s
            in_flight = max(1, math.ceil(needed / speed))
            request = request.model_copy(update={"concurrency": min(in_flight, 100_000)})
            said.append(msg("assumption.little", rate=rate, output=shape.osl, speed=speed,
                            in_flight=request.concurrency))
    return request, shape, bounds, target, said
