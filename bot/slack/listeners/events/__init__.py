"""Events API: mentions, messages (DMs and thread replies), the App Home tab opened.

Bolt acknowledges events before the listener runs. Redeliveries (Slack's retries carry
``X-Slack-Retry-Num``) carry the same ``event_id``, which the dialogue records inside the
write that applies the turn, so whichever worker receives a retry changes nothing.
``app.event("message")`` (not ``app.message``) sees every subtype, so edits and deletes are
acknowledged and dropped (``bot/slack/payloads.py``) instead of answered 404, which Slack
would retry.
"""

from __future__ import annotations

from slack_bolt import App

from bot.slack.listeners.events.app_home_opened import on_app_home_opened
from bot.slack.listeners.events.app_mention import on_app_mention
from bot.slack.listeners.events.message import on_message


def register(app: App) -> None:
    app.event("app_mention")(on_app_mention)
    app.event("message")(on_message)
    app.event("app_home_opened")(on_app_home_opened)
