"""The services every flow uses, and the one way a person is told something privately.

Why one object: a flow needs the settings, the dialogue, the Web API wrapper and the access
policy; :class:`Face` holds them (built once per app, ``bot/slack/pipeline.py``) so a flow's
signature is ``(face, turn, delivery)`` rather than eleven arguments. What a person is told
goes through :meth:`Face.tell`: a slash command's ``response_url`` when there is one (it
works where the bot cannot post), else an ephemeral message; and every "Slack refused" is
worded by :meth:`Face.cannot_post`, which tells "invite me" from "Slack is down".
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from bot.ops.settings import Settings
from bot.slack import cards
from bot.slack.access import Access
from bot.slack.api import SlackApi
from bot.slack.cards.notes import note_message
from bot.slack.flows.turn import Turn
from bot.slack.keys import ConversationKey
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

    def __init__(self, settings: Settings, dialogue: Dialogue, api: SlackApi) -> None:
        self.settings = settings
        self.dialogue = dialogue
        self.api = api
        self.access = Access(settings.internal_teams, api)

    def lang_of(self, key: ConversationKey, default: Lang = "en") -> Lang:
        """The language of the sizing at ``key`` (``default`` when it is gone or unreadable),
        for telling someone about it before any turn is taken."""
        try:
            return conversation_lang(self.dialogue.load(key.format()), default)
        except StoreUnavailable:
            return default

    def cannot_post(self, what: Message) -> Message:
        """What to say when Slack refused a post: how to let the bot in, or try again."""
        if self.api.no_access:
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
            self.api.ephemeral(aud.channel, aud.user, note, aud.thread)

    def store_down(self, t: Turn, aud: Audience) -> None:
        """The store is unreachable (the ack already went to Slack): count it, say so."""
        t.store_down()
        self.tell(aud, msg("slack.store_down", why=msg("dialogue.failure.store_down")))

    def failed(self, t: Turn, aud: Audience) -> None:
        """An unexpected error in the dialogue: log it, tell the person, keep serving."""
        t.outcome = "error"
        log.error("dialogue turn failed", exc_info=True,
                  extra={"json_fields": {"kind": t.kind, "conversation_id": t.conversation_id}})
        self.tell(aud, msg("slack.failed_turn"))
