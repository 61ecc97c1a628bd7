""""Request a formal quote" on the card: opens the quote form (the click's ``trigger_id`` opens
a modal only within 3 seconds, ``bot/slack/flows/quote.py``)."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, BoltContext

from bot.slack import payloads
from bot.slack.listeners.deliver import deliver


def on_quote(ack: Ack, body: dict[str, Any], context: BoltContext) -> None:
    ack()
    deliver(context, payloads.action(body, context, "quote"))
