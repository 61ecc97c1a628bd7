"""Listeners grouped by Slack surface; each module has ``register(app, turns)``.

Every listener acknowledges first (events are acknowledged by Bolt itself), then hands the
payload to :class:`bot.slack.turns.Turns`. With ``process_before_response=False`` Bolt's thread
runner returns the HTTP 200 as soon as ``ack()`` is called and keeps the listener running in
its executor, so Redis, the engine and Slack API calls (with their 429 back-offs) all happen
after Slack got its answer (notes §1.2).
"""

from __future__ import annotations

from slack_bolt import App

from bot.slack.listeners import actions, commands, events, views
from bot.slack.turns import Turns


def register(app: App, turns: Turns) -> None:
    """Register every surface's listeners on ``app``."""
    commands.register(app, turns)
    actions.register(app, turns)
    events.register(app, turns)
    views.register(app, turns)
