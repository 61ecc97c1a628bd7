"""Show a reply in the sizing's message: updated in place; replaced only when it cannot be.

The message's channel and ``ts`` are the conversation's placement (``bot/slack/placement.py``),
so whichever worker took the turn updates the same message. While the starter of the sizing
is still posting its first question, a turn leaves the message to it (the starter brings it
up to date right after recording the ``ts``): nothing waits, nothing is posted twice.

Failures:

* ``chat.update`` is retried when Slack fails for a passing reason, each time with the stored
  state rendered afresh (:func:`update`), and then the whole turn is put off and retried
  (``SlackPassing``), never answered with a second message: a sizing shows one live question;
* only when Slack refuses the update for good (the message was deleted, it can no longer be
  edited) is the current state posted as a new message (``sizing:<conversation>:<gen+1>``),
  which becomes the sizing's message; the old one is marked superseded (updated to a short
  note without buttons, or deleted) as soon as Slack lets the bot, by this turn or a later one;
* a click on an older message of the sizing, or on its message while it was behind (an update
  that never landed), brings that message to the current state (:func:`reconcile`), instead of
  refusing forever.
"""

from __future__ import annotations

import contextlib
import time

from bot.ops import metrics
from bot.slack import cards, placement, work, written
from bot.slack.cards.notes import superseded_message
from bot.slack.errors import SlackPassing, SlackRefused
from bot.slack.flows.face import Audience, Face
from bot.slack.keys import ConversationKey
from bot.slack.placement import Placement
from dialogue import Reply
from engine.units import Lang
from engine.wording import msg

UPDATE_ATTEMPTS = 3
UPDATE_BACKOFF_S = 0.2


def counted(reply: Reply) -> None:
    """A finished sizing is counted once, by its verdict."""
    if reply.kind == "result" and reply.recommendation is not None:
        metrics.recommendation(reply.recommendation.verdict)
        metrics.conversation_finished()


def sizing_id(reply: Reply, where: Placement, *, next_gen: bool = False) -> str:
    """The id the sizing's live message carries (``bot/slack/written.py``); ``next_gen``: the
    one of the message that would replace it."""
    return written.message_id("sizing", reply.conversation_id, where.gen + int(next_gen))


def show(face: Face, key: ConversationKey, reply: Reply, aud: Audience,
         message_ts: str | None = None) -> None:
    """Bring the sizing's message up to date with ``reply`` (``message_ts``: the clicked one)."""
    where = placement.load(face.dialogue, key)
    mine = where is not None and where.posted_by(work.current().delivery_id)
    if where is not None and where.ts is None and where.being_posted and not mine:
        if reply.error is not None:  # the starter shows the state, not why this was refused
            face.tell(aud, reply.error)
        return
    if where is None:
        where = Placement.new(key, surface="turn", actor_team=None, shared=False)
    message = cards.render(reply, key)
    ts = where.ts or message_ts
    if ts and update(face, key, reply, where, ts):
        if where.ts != ts:
            where = where.posted(where.channel, ts)
            placement.save(face.dialogue, key, where)
        retire(face, key, where, reply.language)
        return
    try:
        if ts:  # refused for good: a new message, and the old one superseded
            posted = face.api.post(where.channel, message, where.root,
                                   mid=sizing_id(reply, where, next_gen=True), look_first=True)
        else:  # nobody showed it: an earlier attempt may have (state "posting")
            posted = face.api.post(where.channel, message, where.root,
                                   mid=sizing_id(reply, where),
                                   look_first=where.shown == "posting")
    except SlackRefused as exc:
        face.tell(aud, face.cannot_post(msg("slack.what.update_failed"), exc))
        return
    new_ts, found = posted.ts, posted.found
    where = where.replaced(where.channel, new_ts) if ts else where.posted(where.channel, new_ts)
    placement.save(face.dialogue, key, where)
    if found:  # an earlier attempt posted it, showing what was true then
        update(face, key, reply, where, new_ts)
    retire(face, key, where, reply.language)


def update(face: Face, key: ConversationKey, reply: Reply, where: Placement, ts: str) -> bool:
    """``chat.update`` of the sizing's message ``ts`` with ``reply``; False when Slack refused.

    Retried here, not by the client: each attempt renders the stored state afresh, because the
    same payload sent again after a newer turn's update would show an older question. Once it
    landed, a turn applied meanwhile is shown too (its own update may have landed first), so
    the message always ends on the newest state. A passing failure beyond the attempts raises
    ``SlackPassing`` (the turn is put off and retried)."""
    for attempt in range(UPDATE_ATTEMPTS):
        try:
            face.api.update(where.channel, ts, cards.render(reply, key),
                            mid=sizing_id(reply, where), version=reply.version,
                            thread_ts=where.root)
        except SlackRefused:
            return False
        except SlackPassing:
            if attempt == UPDATE_ATTEMPTS - 1:
                raise
            time.sleep(UPDATE_BACKOFF_S * (attempt + 1))
            fresh = face.dialogue.current(key.format())
            if fresh is not None and fresh.version != reply.version:
                reply = fresh  # keep a re-ask's error while it is still the newest
            continue
        latest = face.dialogue.current(key.format())
        if latest is None or latest.version == reply.version:
            return True
        reply = latest
    return True


def retire(face: Face, key: ConversationKey, where: Placement, lang: Lang) -> None:
    """Mark the sizing's older messages superseded (updated to a note without buttons, else
    deleted); the ones Slack would not take now stay in the placement and the turn is put off
    (retried when Slack is back)."""
    if not where.retire:
        return
    note = superseded_message(cards.Words(lang), dm=key.is_dm)
    done: set[str] = set()
    down: SlackPassing | None = None
    for old in where.retire:
        try:
            try:
                face.api.update(where.channel, old, note)
            except SlackRefused:  # gone already, or too old to edit
                with contextlib.suppress(SlackRefused):
                    face.api.delete(where.channel, old)
            done.add(old)
        except SlackPassing as exc:
            down = exc
    if done:
        placement.save(face.dialogue, key, where.retired(done))
    if down is not None:
        raise down


def reconcile(face: Face, key: ConversationKey, aud: Audience, message_ts: str | None) -> bool:
    """A click on a message of this sizing that is behind: bring the live message to the
    current state (True), or mark an older message of the sizing superseded. Any other
    message (an earlier sizing's card in the same DM) is left as it is."""
    current = face.dialogue.current(key.format())
    where = placement.load(face.dialogue, key)
    if current is None or where is None:
        return False
    if message_ts and where.ts and message_ts != where.ts:
        if message_ts in where.retire:
            retire(face, key, where, current.language)
        return False
    show(face, key, current, aud, message_ts)
    return True


def post_first(face: Face, key: ConversationKey, reply: Reply, where: Placement) -> str:
    """Post a new sizing's question, record its ``ts``, then catch up with any turn taken
    meanwhile (see ``bot/slack/placement.py``). The ts; ``SlackRefused`` when Slack refused
    it (recorded as failed, so the next turn shows it again).

    A retry of the start (or a turn finishing what a dead starter left ``posting``) looks for
    the question by its id before posting it; one it finds is brought to the current state
    (a turn taken while its starter was dead left the message to that starter)."""
    try:
        posted = face.api.post(where.channel, cards.render(reply, key), where.root,
                               mid=sizing_id(reply, where), look_first=where.shown == "posting"
                               and not where.posted_by(work.current().delivery_id))
    except SlackRefused:
        placement.save(face.dialogue, key, where.failed())
        raise
    ts, found = posted.ts, posted.found  # found: an earlier attempt's, showing what was then
    placement.save(face.dialogue, key, where.posted(where.channel, ts))
    latest = face.dialogue.current(key.format())
    if latest is not None and (found or latest.version != reply.version):
        update(face, key, latest, where, ts)
    return ts


def needs_reshow(where: Placement | None) -> bool:
    """The sizing's question was never shown (its post failed, or its poster died)."""
    return where is not None and where.ts is None and not where.being_posted
