""""Compare with another GPU" on the card: the same answers with that GPU."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, BoltContext

from bot.slack import payloads
from bot.slack.listeners.deliver import deliver


def on_compare(ack: Ack, body: dict[str, Any], context: BoltContext) -> None:
    ack()
    deliver(context, payloads.action(body, context, "compare"))
