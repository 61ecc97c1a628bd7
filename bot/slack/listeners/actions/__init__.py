"""Clicks on the bot's messages and its App Home, matched by action id
(``bot/slack/cards/ids.py``). Each is recorded in the durable turn queue by a listener
middleware before it is acknowledged (``bot/slack/listeners/deliver.py``)."""

from __future__ import annotations

import re

from slack_bolt import App

from bot.slack.cards import ids
from bot.slack.listeners.actions import (
    answer,
    change,
    charts,
    compare,
    export,
    home_new,
    math,
    quote,
    start,
)
from bot.slack.listeners.deliver import recorded

# gs_answer_<n>, gs_answer_select_<n>, gs_nav_<kind>[_<slot>]: one dialogue turn each
ANSWER = re.compile(rf"^(?:{ids.A_ANSWER}|{ids.A_NAV})_")


def register(app: App) -> None:
    app.action(ANSWER, middleware=[recorded(answer.build)])(answer.on_answer)
    app.action(ids.A_CHANGE, middleware=[recorded(change.build)])(change.on_change)
    app.action(ids.A_COMPARE, middleware=[recorded(compare.build)])(compare.on_compare)
    app.action(ids.A_MATH, middleware=[recorded(math.build)])(math.on_math)
    app.action(ids.A_CHARTS, middleware=[recorded(charts.build)])(charts.on_charts)
    app.action(ids.A_QUOTE, middleware=[recorded(quote.build)])(quote.on_quote)
    app.action(ids.A_EXPORT, middleware=[recorded(export.build)])(export.on_export)
    app.action(ids.A_START, middleware=[recorded(start.build)])(start.on_start)
    app.action(ids.A_HOME_NEW, middleware=[recorded(home_new.build)])(home_new.on_home_new)
