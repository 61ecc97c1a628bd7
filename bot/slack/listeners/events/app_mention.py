"""``@GPU Sizing …`` in a channel or group DM."""

from __future__ import annotations

from typing import Any

from slack_bolt import BoltContext

from bot.slack import payloads
from bot.slack.listeners.deliver import deliver


def on_app_mention(body: dict[str, Any], context: BoltContext) -> None:
    deliver(context, payloads.mention(body, context))
