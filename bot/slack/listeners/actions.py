"""Clicks on the bot's messages: answers, navigation, card buttons, start buttons."""

from __future__ import annotations

import re
from typing import Any

from slack_bolt import Ack, App, BoltContext

from bot.slack import cards
from bot.slack.turns import Turns, install_team

# gs_answer_<n>, gs_answer_select_<n>, gs_nav_<n>, gs_nav_restart: one dialogue turn each
ANSWER = re.compile(rf"^(?:{cards.A_ANSWER}|{cards.A_NAV})_")


def register(app: App, turns: Turns) -> None:
    @app.action(ANSWER)
    def on_answer(ack: Ack, body: dict[str, Any], action: dict[str, Any]) -> None:
        ack()
        turns.click(body, action)

    @app.action(cards.A_CHANGE)
    def on_change(ack: Ack, body: dict[str, Any], action: dict[str, Any]) -> None:
        ack()
        turns.click(body, action)

    @app.action(cards.A_COMPARE)
    def on_compare(ack: Ack, body: dict[str, Any], action: dict[str, Any]) -> None:
        ack()
        turns.compare(body, action)

    @app.action(cards.A_MATH)
    def on_math(ack: Ack, body: dict[str, Any], action: dict[str, Any]) -> None:
        ack()
        turns.math(body, action)

    @app.action(cards.A_QUOTE)
    def on_quote(ack: Ack, body: dict[str, Any], action: dict[str, Any]) -> None:
        ack()
        turns.quote(body, action)

    @app.action(cards.A_START)
    def on_start(
        ack: Ack, body: dict[str, Any], action: dict[str, Any], context: BoltContext
    ) -> None:
        ack()
        turns.start_click(body, action, install_team(context))
