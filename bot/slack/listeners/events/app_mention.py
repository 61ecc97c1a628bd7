"""``@GPU Sizing …`` in a channel or group DM (recorded by the listener middleware with
:func:`build` before Bolt acknowledges it, ``bot/slack/listeners/deliver.py``)."""

from __future__ import annotations

from typing import Any

from slack_bolt import BoltContext

from bot.slack import payloads
from bot.slack.listeners.deliver import after_ack


def build(body: dict[str, Any], context: BoltContext) -> payloads.MentionDelivery | None:
    return payloads.mention(body, context)


def on_app_mention(context: BoltContext) -> None:
    after_ack(context)
