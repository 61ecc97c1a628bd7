"""A sizing begins: its thread (a root message when none exists), the conversation, the question.

Every way in lands here: a slash command, a mention, a DM message, a Start button, the App
Home. In a channel the sizing lives in a thread: a mention's or a clicked message's thread,
or a root message the bot posts for a slash command. In a DM it is the DM's own sizing
(``ConversationKey.dm``), replacing the one there, and its question is a top-level message.

The placement is written with the conversation (one atomic write), then the question is
posted (``bot/slack/flows/show.py``). What Slack refused is undone where it would mislead (a
root announcing a sizing with nothing in its thread is deleted) and said.

A start may run more than once (its worker died, or the store or Slack failed and the queue
retries it): the root carries its own id (``root:<delivery>``) and is found again rather than
posted twice, the dialogue recognises the delivery it already applied (``Duplicate``), and then
the start finishes what the earlier attempt left: the question shown, once. A replayed slash
command (the same ``trigger_id``) is the same delivery: the queue's dedupe marker drops it
before any of this (``bot/slack/listeners/deliver.py``).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, replace

from bot.ops import metrics
from bot.slack import placement, written
from bot.slack.cards.start import root_message
from bot.slack.cards.words import Words
from bot.slack.errors import SlackRefused
from bot.slack.flows.face import Audience, Face
from bot.slack.flows.show import counted, post_first, show
from bot.slack.flows.turn import Turn
from bot.slack.keys import ConversationKey
from bot.slack.placement import Placement, Surface
from dialogue import Conflict, Duplicate, Reply, StoreUnavailable
from engine.units import Lang
from engine.wording import msg


@dataclass(frozen=True)
class Start:
    """What a new sizing needs to know."""

    team: str | None
    channel: str
    user: str
    surface: Surface
    dm: bool = False
    root: str | None = None  # the thread it lives in; None in a channel: post a root
    opening: str = ""
    delivery_id: str | None = None
    actor_team: str | None = None
    shared: bool = False
    response_url: str | None = None
    lang: Lang | None = None  # the face's hint (a French command word); the opening overrides


def start(face: Face, t: Turn, s: Start, aud: Audience) -> None:
    """Start the sizing ``s`` describes; ``aud`` is who to tell when something fails."""
    root = None if s.dm else s.root
    own_root = root is None and not s.dm
    if own_root:
        try:
            root = face.api.post(s.channel, root_message(s.user, Words(aud.lang)),
                                 mid=written.message_id("root", s.delivery_id or s.user)).ts
        except SlackRefused as exc:
            t.outcome = "error"
            face.tell(aud, face.cannot_post(msg("slack.what.no_sizing"), exc))
            return
    key = (ConversationKey.dm(s.team, s.channel, s.user) if root is None
           else ConversationKey.thread(s.team, s.channel, root, s.user))
    where = Placement.new(key, surface=s.surface, actor_team=s.actor_team, shared=s.shared,
                          poster=s.delivery_id)
    told = replace(aud, thread=None) if own_root else aud
    try:
        reply = face.dialogue.start(key.format(), s.opening, owner=s.user,
                                    delivery_id=s.delivery_id, meta=where.as_meta(),
                                    language=s.lang)
    except Duplicate:  # an earlier attempt of this delivery started it: finish what it left
        t.outcome = "duplicate"
        finish(face, t, key, told)
        return
    except Conflict:  # a double click whose twin started the sizing and posts it
        t.outcome = "conflict"
        if own_root and root:
            _delete(face, s.channel, root)
        return
    except StoreUnavailable:  # the retry finds the root again by its id and reuses it
        face.store_down(t, told)
    except Exception:
        if own_root and root:
            _delete(face, s.channel, root)
        face.failed(t, told)
        return
    t.from_reply(reply)
    told = replace(told, lang=reply.language)
    metrics.conversation_started()
    try:
        post_first(face, key, reply, where)
    except SlackRefused as exc:
        # the sizing is kept but nobody can see its question: say so; a root we posted would
        # announce a sizing with nothing in its thread. The next mention, Start click or DM
        # message shows the question again (flows/show.py needs_reshow).
        t.outcome = "error"
        if own_root and root:
            _delete(face, s.channel, root)
        face.tell(told, face.cannot_post(msg("slack.what.question_not_shown"), exc))
        return
    counted(reply)


def _delete(face: Face, channel: str, ts: str) -> None:
    """Delete a root that would mislead; one Slack will not delete stays (nothing else to
    do about it)."""
    with contextlib.suppress(SlackRefused):
        face.api.delete(channel, ts)


def finish(face: Face, t: Turn, key: ConversationKey, aud: Audience) -> None:
    """A start replayed after it was applied: show its question if nobody did, else bring the
    sizing's message up to date (both find what an earlier attempt posted)."""
    reply = face.dialogue.current(key.format())
    where = placement.load(face.dialogue, key)
    if reply is None or where is None:
        return
    t.from_reply(reply)
    if where.ts is None:
        _post_first(face, t, key, reply, where, aud)
        return
    show(face, key, reply, replace(aud, lang=reply.language))


def reshow(face: Face, t: Turn, key: ConversationKey, aud: Audience) -> None:
    """Post a sizing's current question again (its first post failed)."""
    try:
        reply = face.dialogue.current(key.format())
    except StoreUnavailable:
        face.store_down(t, aud)
    where = placement.load(face.dialogue, key)
    if reply is None or where is None:
        return
    t.from_reply(reply)
    _post_first(face, t, key, reply, where, aud)


def _post_first(face: Face, t: Turn, key: ConversationKey, reply: Reply, where: Placement,
                aud: Audience) -> None:
    """Show a sizing's question nobody showed; say so when Slack refuses it."""
    try:
        post_first(face, key, reply, where)
    except SlackRefused as exc:
        t.outcome = "error"
        face.tell(replace(aud, lang=reply.language),
                  face.cannot_post(msg("slack.what.question_not_shown"), exc))
