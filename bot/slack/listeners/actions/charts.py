""""Show the charts" on the card.

The click is recorded in the turn queue by the listener middleware (``build`` makes its
delivery, ``bot/slack/listeners/deliver.py``) before this callback acks it; the charts are
drawn and uploaded by the flow that takes it from the queue (``bot/slack/flows/charts.py``),
never on the ack path.
"""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, BoltContext

from bot.slack import payloads
from bot.slack.listeners.deliver import after_ack


def build(body: dict[str, Any], context: BoltContext) -> payloads.ActionDelivery | None:
    return payloads.action(body, context, "charts")


def on_charts(ack: Ack, context: BoltContext) -> None:
    ack()
    after_ack(context)
