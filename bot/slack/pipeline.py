"""The one entry from Slack into the bot's work: :meth:`Pipeline.dispatch` of a delivery.

Why one function: a listener records a typed ``Delivery`` (``bot/slack/payloads.py``) in the
durable turn queue and acks (``bot/slack/listeners/deliver.py``); a consumer of the queue, in
any worker, calls :meth:`Pipeline.dispatch` with ``payloads.parse(entry.payload)``
(``bot/slack/app.py``). The flow is the delivery's row in the routing table
(``bot/slack/routes.py``), and each turn is timed, counted and logged
(``bot/slack/flows/turn.py``).

What dispatch raises is what the queue must know: ``StoreUnavailable`` (the store failed
mid-turn) and :class:`~bot.slack.errors.SlackPassing` (Slack failed and what was asked is not
settled) leave the entry pending, to be retried; the person is told once, on the first
attempt, that their answer waits (``Face.waiting``). A retry is harmless: the dialogue records
each delivery id inside the write that applies it, and the Web API looks for what an earlier
attempt posted (``bot/slack/written.py``). Every other failure is a defect: logged once,
swallowed, and the entry acknowledged.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from slack_sdk import WebClient

from bot.ops.settings import Settings
from bot.slack import routes, work
from bot.slack.api import SlackApi
from bot.slack.cards.ids import parse_block_id
from bot.slack.errors import SlackPassing
from bot.slack.flows.face import Audience, Face
from bot.slack.flows.turn import recording
from bot.slack.keys import ConversationKey
from bot.slack.payloads import (
    ActionDelivery,
    CommandDelivery,
    Delivery,
    MentionDelivery,
    MessageDelivery,
)
from bot.slack.storefacts import StoreFacts
from dialogue import Dialogue, StoreUnavailable
from dialogue.understand.language import detect


def audience(face: Face, d: Delivery) -> Audience:
    """Who to tell something about ``d`` when no flow did (an answer that waits), in the
    language of the sizing it concerns when that can be read."""
    if isinstance(d, CommandDelivery):
        return Audience(d.user, d.channel, None, d.response_url, detect(d.text) or "en")
    if isinstance(d, MentionDelivery | MessageDelivery):
        thread = d.thread_ts
        if isinstance(d, MessageDelivery) and d.im:
            key = ConversationKey.dm(d.team, d.channel, d.user)
        else:
            key = ConversationKey.thread(d.team, d.channel, thread or d.ts, d.user)
        return Audience(d.user, d.channel, thread, lang=face.lang_of(key))
    if isinstance(d, ActionDelivery):
        parsed = parse_block_id(d.block_id)
        lang = face.lang_of(parsed[0]) if parsed else "en"
        return Audience(d.user, d.channel, d.thread_ts or d.message_ts, lang=lang)
    return Audience(d.user, None)


class Pipeline:
    """Everything one app instance needs to apply a delivery."""

    def __init__(self, settings: Settings, dialogue: Dialogue, client: WebClient, *,
                 facts: StoreFacts | None = None,
                 backlog: Callable[[], int] | None = None) -> None:
        self.face = Face(settings, dialogue, SlackApi(client), facts, backlog)

    def dispatch(self, d: Delivery, attempt: work.Work | None = None) -> None:
        """Apply one delivery (``attempt``: which try of it this is). Raises StoreUnavailable
        and SlackPassing for the queue to retry it (see the module docstring); never anything
        else."""
        route = routes.FLOWS[routes.route_of(d)]
        with work.running(attempt or work.Work(delivery_id=d.id)), \
                recording(route.counted_as) as t:
            # raw ids: the turn's log line writes only their keyed hashes (bot/ops/logs.py)
            t.extra.update(team=d.team, channel=getattr(d, "channel", None))
            try:
                route.flow(self.face, t, d)
            except (StoreUnavailable, SlackPassing) as exc:
                if not t.told and work.current().first:
                    # telling is best effort; the retry is what matters
                    with contextlib.suppress(StoreUnavailable, SlackPassing):
                        self.face.waiting(t, audience(self.face, d),
                                          store=isinstance(exc, StoreUnavailable))
                raise
