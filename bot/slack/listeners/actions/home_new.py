""""New sizing" on the App Home tab: a sizing in the person's DM.

The click is recorded in the turn queue by the listener middleware (``build`` makes its
delivery, ``bot/slack/listeners/deliver.py``) before this callback acks it.
"""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, BoltContext

from bot.slack import payloads
from bot.slack.listeners.deliver import after_ack


def build(body: dict[str, Any], context: BoltContext) -> payloads.ActionDelivery | None:
    return payloads.action(body, context, "home_new")


def on_home_new(ack: Ack, context: BoltContext) -> None:
    ack()
    after_ack(context)
