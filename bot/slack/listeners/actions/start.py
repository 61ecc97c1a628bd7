""""Start a sizing" / "Start my own sizing" / "Start a new sizing"."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, BoltContext

from bot.slack import payloads
from bot.slack.listeners.deliver import deliver


def on_start(ack: Ack, body: dict[str, Any], context: BoltContext) -> None:
    ack()
    deliver(context, payloads.action(body, context, "start"))
