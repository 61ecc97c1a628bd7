""""Export brief" in the card's overflow menu (vendor team only): the brief in the clicker's DM."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, BoltContext

from bot.slack import payloads
from bot.slack.listeners.deliver import deliver


def on_export(ack: Ack, body: dict[str, Any], context: BoltContext) -> None:
    ack()
    deliver(context, payloads.action(body, context, "export"))
