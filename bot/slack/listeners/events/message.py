"""Every ``message`` event; what can never be an answer is dropped by ``payloads.message``."""

from __future__ import annotations

from typing import Any

from slack_bolt import BoltContext

from bot.slack import payloads
from bot.slack.listeners.deliver import deliver


def on_message(body: dict[str, Any], context: BoltContext) -> None:
    deliver(context, payloads.message(body, context))
