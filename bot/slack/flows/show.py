"""Show a reply in the sizing's question message: updated in place, posted again if it must be.

The message's channel and ``ts`` are the conversation's placement (``bot/slack/placement.py``),
so whichever worker took the turn updates the same message. While the starter of the sizing
is still posting its first question, a turn leaves the message to it (the starter brings it
up to date right after recording the ``ts``): nothing waits, nothing is posted twice. When
an update fails (the message was deleted, Slack timed out) the current state is posted as a
new message in the same place and becomes the sizing's message; when that fails too the
person is told their answer was saved.
"""

from __future__ import annotations

from bot.ops import metrics
from bot.slack import cards, placement
from bot.slack.flows.face import Audience, Face
from bot.slack.keys import ConversationKey
from bot.slack.placement import Placement
from dialogue import Reply, StoreUnavailable
from engine.wording import msg


def counted(reply: Reply) -> None:
    """A finished sizing is counted once, by its verdict."""
    if reply.kind == "result" and reply.recommendation is not None:
        metrics.recommendation(reply.recommendation.verdict)
        metrics.conversation_finished()


def show(face: Face, key: ConversationKey, reply: Reply, aud: Audience,
         message_ts: str | None = None) -> None:
    """Bring the sizing's message up to date with ``reply`` (``message_ts``: the clicked one)."""
    where = placement.load(face.dialogue, key)
    if where is not None and where.ts is None and where.being_posted:
        if reply.error is not None:  # the starter shows the state, not why this was refused
            face.tell(aud, reply.error)
        return
    if where is None:
        where = Placement.new(key, surface="turn", actor_team=None, shared=False)
    message = cards.render(reply, key)
    ts = where.ts or message_ts
    if ts and face.api.update(where.channel, ts, message):
        if where.ts != ts:
            placement.save(face.dialogue, key, where.posted(where.channel, ts))
        return
    new_ts = face.api.post(where.channel, message, where.root)
    if new_ts is None:
        face.tell(aud, face.cannot_post(msg("slack.what.update_failed")))
        return
    if not placement.save(face.dialogue, key, where.posted(where.channel, new_ts)):
        metrics.redis_error()


def post_first(face: Face, key: ConversationKey, reply: Reply, where: Placement) -> str | None:
    """Post a new sizing's question, record its ``ts``, then catch up with any turn taken
    meanwhile (see ``bot/slack/placement.py``). The ts, or None when Slack refused it."""
    ts = face.api.post(where.channel, cards.render(reply, key), where.root)
    if ts is None:
        if not placement.save(face.dialogue, key, where.failed()):
            metrics.redis_error()
        return None
    if not placement.save(face.dialogue, key, where.posted(where.channel, ts)):
        metrics.redis_error()
        return ts
    try:
        conv = face.dialogue.load(key.format())
        latest = face.dialogue.current(key.format()) \
            if conv is not None and conv.version != reply.version else None
    except StoreUnavailable:
        metrics.redis_error()
        return ts
    if latest is not None:
        face.api.update(where.channel, ts, cards.render(latest, key))
    return ts


def needs_reshow(where: Placement | None) -> bool:
    """The sizing's question was never shown (its post failed, or its poster died)."""
    return where is not None and where.ts is None and not where.being_posted
