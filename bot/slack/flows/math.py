""""Show the math": posted once per result in the sizing's thread (or the DM) for its owner,
privately for anyone else.

Once per result, on any worker: a claim (``Store.claim``) per result and attempt makes a
double click post once; the attempt number lives in the placement's :class:`MathPost`, so a
post Slack refused can be asked for again, and a posted one is not posted twice. The claim's
holder is the click's delivery id, so a retry of that click (its worker died, Slack failed)
still holds it, and the post carries its own id (``math:<conversation>:<version>``): a retry
finds it instead of posting it twice (``bot/slack/written.py``).
"""

from __future__ import annotations

import contextlib

from bot.slack import placement, work, written
from bot.slack.cards.math import math_message
from bot.slack.cards.words import Words
from bot.slack.errors import SlackError, SlackRefused
from bot.slack.flows.face import Face
from bot.slack.flows.result import clicked_result
from bot.slack.flows.turn import Turn
from bot.slack.payloads import ActionDelivery
from bot.slack.placement import MathPost, Placement
from dialogue import StoreUnavailable
from engine.wording import msg

CLAIM_TTL_S = 24 * 3600


def run(face: Face, t: Turn, d: ActionDelivery) -> None:
    found = clicked_result(face, t, d, msg("slack.math_no_result"))
    if found is None:
        return
    key, aud = found.key, found.aud
    message = math_message(found.rec, Words(aud.lang))
    if found.conv.owner != d.user:
        with contextlib.suppress(SlackError):  # a note is never retried
            face.api.ephemeral(aud.channel or "", d.user, message, key.root)
        return
    where = placement.of(found.conv) or Placement.new(key, surface="turn", actor_team=None,
                                                        shared=False)
    done = where.math if where.math is not None and where.math.version == found.conv.version \
        else MathPost(version=found.conv.version)
    already = msg("slack.math_in_thread") if key.root else msg("slack.math_above")
    if done.posted:
        t.outcome = "duplicate"
        if not work.current().replay:  # a retry of the click that posted it says nothing
            face.tell(aud, already)
        return
    try:
        first = face.dialogue.store.claim(
            f"math:{key.format()}:{done.version}:{done.attempt}", CLAIM_TTL_S, holder=d.id)
    except StoreUnavailable:
        face.store_down(t, aud)
    if not first:
        t.outcome = "duplicate"
        face.tell(aud, already)
        return
    try:
        face.api.post(where.channel, message, key.root,
                      mid=written.message_id("math", found.conv.id, done.version))
    except SlackRefused as exc:
        t.outcome = "error"
        fresh = placement.load(face.dialogue, key) or where  # the newest ts, whoever wrote it
        retry = done.model_copy(update={"attempt": done.attempt + 1})
        placement.save(face.dialogue, key, fresh.model_copy(update={"math": retry}))
        face.tell(aud, face.cannot_post(msg("slack.what.math_not_posted"), exc))
        return
    fresh = placement.load(face.dialogue, key) or where  # the newest ts, whoever wrote it
    placement.save(face.dialogue, key,
                   fresh.model_copy(update={"math": done.model_copy(update={"posted": True})}))
