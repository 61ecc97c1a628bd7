"""A click whose block id the server did not sign: changes nothing; trusted only if looked up.

Why: a block id names a conversation and a version, and a client could put
anything there, so only ids the server signed are believed (``bot/slack/cards/ids.py``). One
kind of unsigned id is legitimate: a message posted before the ids were signed (``gs1|…``). Its
key is not believed either, but it can be *looked up*: when the stored sizing at that key says
its message is the very one clicked (the channel and ``ts`` come from Slack's own container)
and the clicker is its owner, the message is brought to the current state, with signed ids,
and the person told their click changed nothing. Anything else is only told so.
"""

from __future__ import annotations

from bot.slack import placement
from bot.slack.flows.face import Audience, Face
from bot.slack.flows.show import reconcile
from bot.slack.flows.turn import Turn
from bot.slack.keys import ConversationKey
from bot.slack.payloads import ActionDelivery
from engine.wording import msg

LEGACY_PREFIX = "gs1"


def _legacy_key(block_id: str | None) -> ConversationKey | None:
    parts = (block_id or "").split("|", 3)
    if len(parts) != 4 or parts[0] != LEGACY_PREFIX:
        return None
    return ConversationKey.parse(parts[3])


def unverified(face: Face, t: Turn, d: ActionDelivery) -> None:
    """Nothing changes; the clicker is told, and an owner's pre-signing message of their own
    sizing, confirmed by the store, is brought up to date."""
    t.outcome = "refused"
    if not d.channel or d.ephemeral:
        return
    key = _legacy_key(d.block_id)
    if key is not None and key.owner == d.user and key.channel == d.channel and d.message_ts:
        where = placement.load(face.dialogue, key)
        if where is not None and where.channel == d.channel and where.ts == d.message_ts:
            aud = Audience(d.user, d.channel, key.root, lang=face.lang_of(key))
            if reconcile(face, key, aud, d.message_ts):
                face.tell(aud, msg("slack.behind"))
                return
    face.tell(Audience(d.user, d.channel, d.thread_ts or d.message_ts), msg("slack.unverified"))
