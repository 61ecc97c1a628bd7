"""The Bolt listeners, registered in one loop from the routing table (``bot/slack/routes.py``).

Every listener does the same three things: build the typed delivery from Bolt's ``context``
(``bot/slack/payloads.py``), record it in the durable turn queue, and only then acknowledge
(``bot/slack/listeners/deliver.py``; events and clicks record in a listener middleware, which
runs before Bolt's ack and can answer 503 when the queue cannot take the delivery). The turn
itself (the store, the engine, Slack API calls and their back-offs) runs later, in a queue
consumer of any worker (``bot/slack/app.py``), never on the 3-second path (docs/slack.md §1.2).
Clicks and events share two generic listeners; a module exists only for a listener with logic
of its own: the slash command (``commands.py``, which owns its ack) and the modal's submission
(``views.py``, checked before its ack, because only the ack can answer "this field is wrong"
and keep the form open; the check is pure, no I/O).
"""

from __future__ import annotations

from slack_bolt import App

from bot.slack import routes
from bot.slack.listeners.commands import on_gpu_sizing
from bot.slack.listeners.deliver import Recorder, acked, attach, recorded, seen
from bot.slack.listeners.views import on_quote_submit

__all__ = ["register"]


def register(app: App, recorder: Recorder) -> None:
    """Put ``recorder`` in every request's context, then one listener per row of the table."""
    app.middleware(attach(recorder))
    for command in routes.COMMANDS:
        app.command(command)(on_gpu_sizing)
    for kind, action_id in routes.CLICKS.items():
        app.action(action_id, middleware=[recorded(routes.clicked(kind))])(acked)
    for event, build in routes.EVENTS.items():
        app.event(event, middleware=[recorded(build)])(seen)
    for callback_id in routes.VIEWS:
        app.view(callback_id)(on_quote_submit)
