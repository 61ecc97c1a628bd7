"""Modal forms submitted to the bot, matched by callback id (``bot/slack/cards/ids.py``)."""

from __future__ import annotations

from slack_bolt import App

from bot.slack.cards import ids
from bot.slack.listeners.views.quote import on_quote_submit


def register(app: App) -> None:
    app.view(ids.V_QUOTE)(on_quote_submit)
