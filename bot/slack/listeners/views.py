"""The App Home tab: "New sizing" and the person's recent sizings."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, App, BoltContext

from bot.slack import cards
from bot.slack.turns import Turns, install_team


def register(app: App, turns: Turns) -> None:
    @app.event("app_home_opened")
    def on_home(body: dict[str, Any]) -> None:
        turns.home(body)

    @app.action(cards.A_HOME_NEW)
    def on_new(ack: Ack, body: dict[str, Any], context: BoltContext) -> None:
        ack()
        turns.home_new(body, install_team(context))
