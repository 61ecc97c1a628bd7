"""Listeners grouped by Slack surface, the Bolt starter template's shape: each group has
``register(app)``, and each listener's callback lives in its own module.

Every callback does the same three things: acknowledge (events are acknowledged by Bolt
itself), build the typed delivery from Bolt's ``context`` (``bot/slack/payloads.py``), and
hand it to the app's pipeline (``bot/slack/listeners/deliver.py``). With
``process_before_response=False`` Bolt's thread runner returns the HTTP 200 as soon as
``ack()`` is called and keeps the callback running in its executor, so Redis, the engine and
Slack API calls (with their 429 back-offs) all happen after Slack got its answer
(docs/slack.md §1.2). One exception, by Slack's design: a modal's submission is checked
before its ack, because only the ack can answer "this field is wrong" and keep the form open
(``bot/slack/listeners/views/quote.py``; the check is pure, no I/O).
"""

from __future__ import annotations

from slack_bolt import App

from bot.slack.listeners import actions, commands, events, views
from bot.slack.listeners.deliver import attach
from bot.slack.pipeline import Pipeline


def register(app: App, pipeline: Pipeline) -> None:
    """Put ``pipeline`` in every request's context, then register each surface's listeners."""
    app.middleware(attach(pipeline))
    commands.register(app)
    actions.register(app)
    events.register(app)
    views.register(app)
