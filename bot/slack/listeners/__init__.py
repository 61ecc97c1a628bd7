"""Listeners grouped by Slack surface, the Bolt starter template's shape: each group has
``register(app)``, and each listener's callback lives in its own module.

Every listener does the same three things: build the typed delivery from Bolt's ``context``
(``bot/slack/payloads.py``), record it in the durable turn queue, and only then acknowledge
(``bot/slack/listeners/deliver.py``; events and clicks record in a listener middleware, which
runs before Bolt's ack and can answer 503 when the queue cannot take the delivery). The turn
itself (the store, the engine, Slack API calls and their back-offs) runs later, in a queue
consumer of any worker (``bot/slack/app.py``), never on the 3-second path (docs/slack.md §1.2).
One exception, by Slack's design: a modal's submission is checked before its ack, because
only the ack can answer "this field is wrong" and keep the form open
(``bot/slack/listeners/views/quote.py``; the check is pure, no I/O).
"""

from __future__ import annotations

from slack_bolt import App

from bot.slack.listeners import actions, commands, events, views
from bot.slack.listeners.deliver import Recorder, attach


def register(app: App, recorder: Recorder) -> None:
    """Put ``recorder`` in every request's context, then register each surface's listeners."""
    app.middleware(attach(recorder))
    commands.register(app)
    actions.register(app)
    events.register(app)
    views.register(app)
