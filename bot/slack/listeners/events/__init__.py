"""Events API: mentions, messages (DMs and thread replies), the App Home tab opened.

Bolt acknowledges events before the listener runs, so each event is recorded in the durable
turn queue by a listener middleware, which runs first and answers 503 when the queue cannot
take it (Slack retries; ``bot/slack/listeners/deliver.py``). Redeliveries (Slack's retries carry
``X-Slack-Retry-Num``) carry the same ``event_id``: the queue's dedupe marker answers them 200
without queueing them again, and the dialogue records the id inside the write that applies the
turn, so a turn is applied once whichever worker receives what.
``app.event("message")`` (not ``app.message``) sees every subtype, so edits and deletes are
acknowledged and dropped (``bot/slack/payloads.py``) instead of answered 404, which Slack
would retry.
"""

from __future__ import annotations

from slack_bolt import App

from bot.slack.listeners.deliver import recorded
from bot.slack.listeners.events import app_home_opened, app_mention, message


def register(app: App) -> None:
    app.event("app_mention", middleware=[recorded(app_mention.build)])(
        app_mention.on_app_mention)
    app.event("message", middleware=[recorded(message.build)])(message.on_message)
    app.event("app_home_opened", middleware=[recorded(app_home_opened.build)])(
        app_home_opened.on_app_home_opened)
