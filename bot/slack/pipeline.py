"""The one entry from Slack into the bot's work: :meth:`Pipeline.dispatch` of a delivery.

Why one function: a listener acks, builds a typed ``Delivery`` (``bot/slack/payloads.py``)
and hands it here; the flow is chosen by the delivery's kind (and a click's action), and
each turn is timed, counted and logged (``bot/slack/flows/turn.py``). Deliveries are plain
JSON, so a durable queue (a Redis stream, issue 13) can later sit between the listener and
this call without touching the flows: the listener would record the delivery and ack; a
consumer would call :meth:`Pipeline.dispatch` with ``payloads.parse(entry)``.
"""

from __future__ import annotations

from collections.abc import Callable

from slack_sdk import WebClient

from bot.ops.settings import Settings
from bot.slack.api import SlackApi
from bot.slack.flows import actions, commands, export, home, math, mentions, messages, quote
from bot.slack.flows.face import Face
from bot.slack.flows.turn import Turn, recording
from bot.slack.payloads import (
    ActionDelivery,
    ActionKind,
    CommandDelivery,
    Delivery,
    HomeDelivery,
    MentionDelivery,
    MessageDelivery,
    ViewSubmissionDelivery,
)
from dialogue import Dialogue

ActionFlow = Callable[[Face, Turn, ActionDelivery], None]

ACTIONS: dict[ActionKind, ActionFlow] = {
    "answer": actions.click,
    "change": actions.click,
    "compare": actions.compare,
    "start": actions.start_click,
    "math": math.run,
    "quote": quote.run,
    "export": export.run,
    "home_new": home.new,
}


class Pipeline:
    """Everything one app instance needs to apply a delivery."""

    def __init__(self, settings: Settings, dialogue: Dialogue, client: WebClient) -> None:
        self.face = Face(settings, dialogue, SlackApi(client))

    def dispatch(self, d: Delivery) -> None:
        """Apply one delivery: never raises (a defect is logged once, the turn counted)."""
        if isinstance(d, CommandDelivery):
            with recording("command") as t:
                commands.run(self.face, t, d)
        elif isinstance(d, MentionDelivery):
            with recording("mention") as t:
                mentions.run(self.face, t, d)
        elif isinstance(d, MessageDelivery):
            with recording("dm" if d.im else "message") as t:
                messages.run(self.face, t, d)
        elif isinstance(d, ActionDelivery):
            with recording("home" if d.action == "home_new" else "action") as t:
                ACTIONS[d.action](self.face, t, d)
        elif isinstance(d, HomeDelivery):
            with recording("home") as t:
                home.opened(self.face, t, d)
        elif isinstance(d, ViewSubmissionDelivery):
            with recording("view") as t:
                quote.submit(self.face, t, d)
