"""Every ``message`` event; what can never be an answer is dropped by ``payloads.message``
(no delivery: nothing is recorded); the rest is recorded by the listener middleware with
:func:`build` (``bot/slack/listeners/deliver.py``)."""

from __future__ import annotations

from typing import Any

from slack_bolt import BoltContext

from bot.slack import payloads
from bot.slack.listeners.deliver import after_ack


def build(body: dict[str, Any], context: BoltContext) -> payloads.MessageDelivery | None:
    return payloads.message(body, context)


def on_message(context: BoltContext) -> None:
    after_ack(context)
