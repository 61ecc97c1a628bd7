"""How a listener reaches the pipeline: through Bolt's ``context``, set by one middleware.

Why the context: callbacks keep Bolt's own signature (``ack``, ``body``, ``context``), so they
are plain module functions as in the starter template, and the app's one pipeline is
attached to each request rather than imported as a global.
"""

from __future__ import annotations

from collections.abc import Callable

from slack_bolt import BoltContext, BoltRequest, BoltResponse

from bot.slack.payloads import Delivery
from bot.slack.pipeline import Pipeline

CONTEXT_KEY = "gpu_sizing_pipeline"

def attach(pipeline: Pipeline) -> Callable[[BoltRequest, Callable[[], BoltResponse]],
                                            BoltResponse]:
    """A global middleware putting ``pipeline`` in the context of every request."""

    def attach_pipeline(req: BoltRequest, next: Callable[[], BoltResponse]) -> BoltResponse:
        req.context[CONTEXT_KEY] = pipeline
        return next()

    return attach_pipeline


def deliver(context: BoltContext, delivery: Delivery | None) -> None:
    """Hand ``delivery`` (None: nothing to do) to the request's pipeline."""
    if delivery is None:
        return
    pipeline = context.get(CONTEXT_KEY)
    if isinstance(pipeline, Pipeline):
        pipeline.dispatch(delivery)
