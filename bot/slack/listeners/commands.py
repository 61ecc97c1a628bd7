"""The slash command ``/gpu-sizing [help|post|status|opening text]``."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, App, BoltContext, Respond

from bot.slack.turns import Turns, install_team

COMMAND = "/gpu-sizing"


def register(app: App, turns: Turns) -> None:
    @app.command(COMMAND)
    def on_command(ack: Ack, body: dict[str, Any], context: BoltContext, respond: Respond) -> None:
        # An empty ack shows nothing; the root message and the question follow in the channel.
        ack()
        turns.command(body, install_team(context), respond)
