"""Clicks on the bot's messages and its App Home, matched by action id
(``bot/slack/cards/ids.py``)."""

from __future__ import annotations

import re

from slack_bolt import App

from bot.slack.cards import ids
from bot.slack.listeners.actions.answer import on_answer
from bot.slack.listeners.actions.change import on_change
from bot.slack.listeners.actions.compare import on_compare
from bot.slack.listeners.actions.export import on_export
from bot.slack.listeners.actions.home_new import on_home_new
from bot.slack.listeners.actions.math import on_math
from bot.slack.listeners.actions.quote import on_quote
from bot.slack.listeners.actions.start import on_start

# gs_answer_<n>, gs_answer_select_<n>, gs_nav_<kind>[_<slot>]: one dialogue turn each
ANSWER = re.compile(rf"^(?:{ids.A_ANSWER}|{ids.A_NAV})_")


def register(app: App) -> None:
    app.action(ANSWER)(on_answer)
    app.action(ids.A_CHANGE)(on_change)
    app.action(ids.A_COMPARE)(on_compare)
    app.action(ids.A_MATH)(on_math)
    app.action(ids.A_QUOTE)(on_quote)
    app.action(ids.A_EXPORT)(on_export)
    app.action(ids.A_START)(on_start)
    app.action(ids.A_HOME_NEW)(on_home_new)
