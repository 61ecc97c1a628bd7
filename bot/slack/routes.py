"""What Slack sends, and the flow that applies it: the bot's one routing table.

Why one table: a click, an event, a command or a form is matched twice, once by a Bolt listener
(which records its typed delivery and acks, ``bot/slack/listeners/deliver.py``) and once by
the consumer that applies the delivery (``bot/slack/pipeline.py``). Both read this module, so
a new button is one row of :data:`CLICKS` and one of :data:`FLOWS`, and nothing else.

* **Slack's side**, registered in a loop by :func:`bot.slack.listeners.register`: the action
  ids of :data:`CLICKS` (each recorded as an ``ActionDelivery`` of that kind), the Events API
  types of :data:`EVENTS`, the slash commands of :data:`COMMANDS`, the modal callbacks of
  :data:`VIEWS`. A command and a form have listeners of their own
  (``bot/slack/listeners/commands.py``, ``bot/slack/listeners/views.py``): they own their ack
  (a command is answered 200 even when it could not be recorded; a form is checked before the
  ack, the only moment it can be kept open).
* **The delivery's side**: :data:`FLOWS`, keyed by :func:`route_of` (the delivery's kind, a
  click's kind, a DM told from a thread), gives the flow and the turn kind the turn is counted
  and logged under (``gpubot_turns_total{kind}``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from slack_bolt import BoltContext

from bot.slack import payloads
from bot.slack.cards import ids
from bot.slack.flows import actions, commands, export, home, math, mentions, messages, quote
from bot.slack.flows import charts as chart_flow
from bot.slack.flows.face import Face
from bot.slack.flows.turn import Turn
from bot.slack.payloads import ActionDelivery, ActionKind, Delivery, MessageDelivery

Builder = Callable[[dict[str, Any], BoltContext], Delivery | None]
Flow = Callable[[Face, Turn, Any], None]


@dataclass(frozen=True)
class Route:
    """The flow that applies a delivery, and the turn kind it is counted under."""

    flow: Flow
    counted_as: str


#: Clicks, by action id (``bot/slack/cards/ids.py``): gs_answer_<n>, gs_answer_select_<n> and
#: gs_nav_<kind>[_<slot>] are each one dialogue turn.
CLICKS: dict[ActionKind, str | re.Pattern[str]] = {
    "answer": re.compile(rf"^(?:{ids.A_ANSWER}|{ids.A_NAV})_"),
    "change": ids.A_CHANGE,
    "compare": ids.A_COMPARE,
    "math": ids.A_MATH,
    "charts": ids.A_CHARTS,
    "quote": ids.A_QUOTE,
    "export": ids.A_EXPORT,
    "start": ids.A_START,
    "home_new": ids.A_HOME_NEW,
}

#: Events API types. ``message`` (``app.event``, not ``app.message``) sees every subtype, so
#: edits and deletes are acknowledged and dropped by ``payloads.message`` instead of answered
#: 404, which Slack would retry.
EVENTS: dict[str, Builder] = {
    "app_mention": payloads.mention,
    "message": payloads.message,
    "app_home_opened": payloads.home_opened,
}

#: ``/gpu-sizing``, and ``/gpu-sizing-dev`` of the development app
#: (``deploy/slack/manifest.socket.yaml``), which can live beside the production one.
COMMAND = "/gpu-sizing"
COMMANDS = (COMMAND, f"{COMMAND}-dev")

#: Modal forms the bot opens, by callback id.
VIEWS: dict[str, payloads.ViewKind] = {ids.V_QUOTE: "quote"}

#: Each delivery's flow, by :func:`route_of`.
FLOWS: dict[str, Route] = {
    "command": Route(commands.run, "command"),
    "mention": Route(mentions.run, "mention"),
    "message": Route(messages.run, "message"),
    "dm": Route(messages.dm, "dm"),
    "home_opened": Route(home.opened, "home"),
    "view_submission:quote": Route(quote.submit, "view"),
    "action:answer": Route(actions.click, "action"),
    "action:change": Route(actions.click, "action"),
    "action:compare": Route(actions.compare, "action"),
    "action:start": Route(actions.start_click, "action"),
    "action:math": Route(math.run, "action"),
    "action:charts": Route(chart_flow.run, "action"),
    "action:quote": Route(quote.run, "action"),
    "action:export": Route(export.run, "action"),
    "action:home_new": Route(home.new, "home"),
}


def route_of(d: Delivery) -> str:
    """The key of ``d``'s row in :data:`FLOWS`."""
    if isinstance(d, ActionDelivery):
        return f"action:{d.action}"
    if isinstance(d, MessageDelivery):
        return "dm" if d.im else "message"
    if d.kind == "view_submission":
        return f"view_submission:{d.view}"
    return d.kind


def clicked(kind: ActionKind) -> Builder:
    """The builder of a click of ``kind`` (what its listener matched)."""

    def build(body: dict[str, Any], context: BoltContext) -> Delivery | None:
        return payloads.action(body, context, kind)

    return build
