"""The result a card button acts on, found once for "Show the math" and "Request a quote".

Only the result the clicked card shows counts: an older card (in a DM, often an earlier
sizing's) is out of date, and a sizing without a result has nothing to act on; either way the
person is told why nothing happened, and a card that is behind is brought up to date
(``bot/slack/flows/show.py`` reconcile). A card whose block id the server did not sign
changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from bot.slack.cards.ids import parse_block_id
from bot.slack.flows.face import Audience, Face
from bot.slack.flows.show import reconcile
from bot.slack.flows.turn import Turn
from bot.slack.flows.unsigned import unverified
from bot.slack.keys import ConversationKey
from bot.slack.payloads import ActionDelivery
from dialogue import Conversation, Reply, StoreUnavailable
from engine.result import Recommendation
from engine.wording import Message, msg


@dataclass(frozen=True)
class Clicked:
    key: ConversationKey
    conv: Conversation
    reply: Reply
    rec: Recommendation
    aud: Audience


def clicked_result(face: Face, t: Turn, d: ActionDelivery, missing: Message) -> Clicked | None:
    """The clicked card's result, or None after telling the person why not (``missing``)."""
    parsed = parse_block_id(d.block_id)
    if not d.channel:
        return None
    if parsed is None:
        unverified(face, t, d)
        return None
    key, version = parsed
    aud = Audience(d.user, d.channel, key.root)
    try:
        conv = face.dialogue.load(key.format())
        reply = face.dialogue.current(key.format()) if conv is not None else None
    except StoreUnavailable:
        face.store_down(t, aud)
    if reply is not None:
        aud = replace(aud, lang=reply.language)
    if conv is not None and reply is not None and conv.version != version:
        t.outcome = "conflict"
        if not d.ephemeral:
            reconcile(face, key, aud, d.message_ts)
        face.tell(aud, msg("slack.out_of_date"))
        return None
    if conv is None or reply is None or reply.recommendation is None:
        t.outcome = "ended"
        face.tell(aud, missing)
        return None
    t.from_reply(reply)
    return Clicked(key, conv, reply, reply.recommendation, aud)
