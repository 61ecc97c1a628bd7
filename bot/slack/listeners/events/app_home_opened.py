"""The App Home tab opened (its Messages tab is ignored by ``payloads.home_opened``)."""

from __future__ import annotations

from typing import Any

from slack_bolt import BoltContext

from bot.slack import payloads
from bot.slack.listeners.deliver import deliver


def on_app_home_opened(body: dict[str, Any], context: BoltContext) -> None:
    deliver(context, payloads.home_opened(body, context))
