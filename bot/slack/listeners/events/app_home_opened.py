"""The App Home tab opened (its Messages tab is ignored by ``payloads.home_opened``; recorded by
the listener middleware with :func:`build`, ``bot/slack/listeners/deliver.py``)."""

from __future__ import annotations

from typing import Any

from slack_bolt import BoltContext

from bot.slack import payloads
from bot.slack.listeners.deliver import after_ack


def build(body: dict[str, Any], context: BoltContext) -> payloads.HomeDelivery | None:
    return payloads.home_opened(body, context)


def on_app_home_opened(context: BoltContext) -> None:
    after_ack(context)
