"""Events API: mentions, and messages (DMs start a sizing; thread replies answer one).

Bolt acknowledges events before the listener runs. Duplicate deliveries (Slack retries with
``X-Slack-Retry-Num``) are recognised by ``event_id``, which the dialogue remembers in Redis,
so whichever worker receives the retry drops it.
"""

from __future__ import annotations

from typing import Any

from slack_bolt import App, BoltContext

from bot.slack.turns import Turns, install_team


def register(app: App, turns: Turns) -> None:
    @app.event("app_mention")
    def on_mention(body: dict[str, Any], context: BoltContext) -> None:
        turns.mention(body, install_team(context), context.actor_team_id)

    # app.event("message") (not app.message) sees every subtype, so edits and deletes are
    # acknowledged and ignored here instead of answered 404 (which Slack would retry).
    @app.event("message")
    def on_message(body: dict[str, Any], context: BoltContext) -> None:
        turns.message(body, install_team(context), context.actor_team_id)
