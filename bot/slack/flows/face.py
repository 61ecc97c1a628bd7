"""The services every flow uses, and the one way a person is told something privately.

Why one object: a flow needs the settings, the dialogue, the Web API wrapper and the access
policy; :class:`Face` holds them (built once per app, ``bot/slack/pipeline.py``) so a flow's
signature is ``(face, turn, delivery)`` rather than eleven arguments. What a person is told
goes through :meth:`Face.tell`: a slash command's ``response_url`` when there is one (it
works where the bot cannot post), else an ephemeral message; and every "Slack refused" is
worded by :meth:`Face.cannot_post`, which tells "invite me" from "Slack is down".

When a turn must wait (the store or Slack is failing: the queue keeps the delivery and retries
it, ``bot/ops/consumer.py``), the person is told once, on the first attempt, and told the
truth: "nothing was lost" only when the store keeps what it is given across a crash
(``bot/slack/storefacts.py``); otherwise what may be lost (:meth:`Face.waits`).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import NoReturn

from bot.ops.settings import Settings
from bot.slack import cards, work
from bot.slack.access import Access
from bot.slack.api import SlackApi
from bot.slack.cards.notes import note_message
from bot.slack.errors import SlackError, SlackRefused
from bot.slack.flows.turn import Turn
from bot.slack.keys import ConversationKey
from bot.slack.storefacts import StoreFacts
from dialogue import Conversation, Dialogue, StoreUnavailable
from engine.units import Lang
from engine.wording import Message, msg

log = logging.getLogger(__name__)

FINISHED_STATES = frozenset({"done", "cancelled", "ended", "expired"})


@dataclass(frozen=True)
class Audience:
    """One person, where to tell them something: their channel and thread, or the
    ``response_url`` of their slash command; ``lang``: the words they get."""

    user: str
    channel: str | None
    thread: str | None = None
    response_url: str | None = None
    lang: Lang = "en"


def conversation_lang(conv: Conversation | None, default: Lang = "en") -> Lang:
    """The language a conversation is held in (``default`` when there is none)."""
    return conv.language if conv is not None else default


def finished(conv: Conversation | None) -> bool:
    return conv is None or conv.state in FINISHED_STATES


class Face:
    """Settings, dialogue, Web API and access policy for one app instance."""

    def __init__(self, settings: Settings, dialogue: Dialogue, api: SlackApi,
                 facts: StoreFacts | None = None,
                 backlog: Callable[[], int] | None = None) -> None:
        self.settings = settings
        self.dialogue = dialogue
        self.api = api
        self.access = Access(settings.internal_teams, api)
        self.facts = facts or StoreFacts(None)
        self.backlog = backlog or (lambda: 0)

    def lang_of(self, key: ConversationKey, default: Lang = "en") -> Lang:
        """The language of the sizing at ``key`` (``default`` when it is gone or unreadable),
        for telling someone about it before any turn is taken."""
        try:
            return conversation_lang(self.dialogue.load(key.format()), default)
        except StoreUnavailable:
            return default

    @staticmethod
    def cannot_post(what: Message, refused: SlackRefused | None = None) -> Message:
        """What to say when Slack refused a post (``refused``: how): how to let the bot in,
        or try again."""
        if refused is not None and refused.no_access:
            return msg("slack.cannot_post")
        return msg("slack.slack_failed", what=what)

    def tell(self, aud: Audience, text: Message, *, start: tuple[str, str] | None = None,
             **mentions: str) -> None:
        """Tell ``aud`` privately; ``start``: add "Start my own sizing" for that thread."""
        w = cards.Words(aud.lang)
        note = note_message(w.md(text, **mentions), w, start=start)
        if aud.response_url and self.api.respond(aud.response_url, note):
            return
        if aud.channel:
            # never retried, whatever failed: a note that may have arrived is not sent twice
            with contextlib.suppress(SlackError):
                self.api.ephemeral(aud.channel, aud.user, note, aud.thread)

    def store_down(self, t: Turn, aud: Audience) -> NoReturn:
        """The store is unreachable mid-turn: count it, tell the person once, and raise, so the
        queue keeps the delivery and the turn is retried when the store is back."""
        t.store_down()
        self.waiting(t, aud, store=True)
        raise StoreUnavailable("store unreachable during a turn")

    def waits(self, *, store: bool) -> Message:
        """What to say when an answer waits for the store (``store``) or for Slack: true to
        what the store keeps across a crash."""
        if not store:
            return msg("slack.waits.slack")
        kind = self.facts.persistence()
        return msg(f"slack.waits.store_{'unknown' if kind == 'memory' else kind}")

    def waiting(self, t: Turn, aud: Audience, *, store: bool) -> None:
        """Tell ``aud`` their answer waits, on the turn's first attempt only."""
        if t.told or not work.current().first:
            return
        t.told = True
        self.tell(aud, self.waits(store=store))

    def failed(self, t: Turn, aud: Audience) -> None:
        """An unexpected error in the dialogue: log it, tell the person, keep serving."""
        t.outcome = "error"
        log.error("dialogue turn failed", exc_info=True,
                  extra={"json_fields": {"kind": t.kind, "conversation_id": t.conversation_id}})
        self.tell(aud, msg("slack.failed_turn"))
