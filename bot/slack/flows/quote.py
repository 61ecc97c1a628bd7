""""Request a formal quote": the internal summary to ``QUOTE_CHANNEL_ID`` only, an audit
record, and a private "what happens next" to the requester. Nothing is posted in the channel
where the sizing runs (it may be shared with the customer's organisation), and an external
requester is not told the internal channel's name.

Order, so nothing internal can leak and nothing is done twice: the owner (or the vendor's
team) only; the target must be confirmed unshared (``bot/slack/access.py``); one request per
person and result on any worker (``Store.claim``); the audit record, then the post.
"""

from __future__ import annotations

import logging

from bot.slack import placement
from bot.slack.cards.quote import quote_summary
from bot.slack.cards.words import Words
from bot.slack.flows.answer import not_owner
from bot.slack.flows.face import Face
from bot.slack.flows.result import clicked_result
from bot.slack.flows.turn import Turn
from bot.slack.payloads import ActionDelivery
from dialogue import StoreUnavailable
from engine.wording import msg

log = logging.getLogger(__name__)

CLAIM_TTL_S = 24 * 3600


def run(face: Face, t: Turn, d: ActionDelivery) -> None:
    internal = face.access.is_internal(d.user, d.actor_team, confirm=False)
    found = clicked_result(face, t, d, msg("slack.quote_needs_result"))
    if found is None:
        return
    key, aud = found.key, found.aud
    if not face.access.may_quote(found.conv.owner, d.user, internal=internal):
        not_owner(face, t, key, found.conv.owner or key.owner, aud)
        return
    target = face.settings.quote_channel_id
    if not target or not face.access.is_private_channel(target):
        t.outcome = "forbidden"
        log.error("quote channel missing, shared or unreadable; request not forwarded")
        face.tell(aud, msg("slack.quote_unavailable"))
        return
    try:
        first = face.dialogue.store.claim(
            f"quote:{key.format()}:{found.conv.version}:{d.user}", CLAIM_TTL_S)
    except StoreUnavailable:
        face.store_down(t, aud)
        return
    if not first:
        t.outcome = "duplicate"
        face.tell(aud, msg("slack.quote_already"))
        return
    try:
        record = face.dialogue.record_quote(key.format(), d.user,
                                            note="" if internal else "external")
    except StoreUnavailable:
        face.store_down(t, aud)
        return
    except Exception as exc:  # NotFinished, or a race with a restart
        t.outcome = "error"
        log.warning("record_quote failed", extra={"json_fields": {"error": type(exc).__name__}})
        face.tell(aud, msg("slack.quote_needs_result"))
        return
    where = placement.of(found.conv)
    summary = quote_summary(
        record, requester=d.user, requester_team=d.actor_team, internal=internal,
        channel=where.channel if where else d.channel or key.channel,
        shared=(where.shared if where else False) or d.shared, key=key, rec=found.rec,
        answers=found.reply.answers, w=Words(aud.lang))
    if face.api.post(target, summary) is None:
        t.outcome = "error"
        face.tell(aud, msg("slack.quote_unreachable"))
        return
    if internal:
        face.tell(aud, msg("slack.quote_posted"), channel=Words(aud.lang).channel(target))
    else:
        face.tell(aud, msg("slack.quote_thanks"))
