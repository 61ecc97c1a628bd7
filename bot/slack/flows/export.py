""""Export the brief" (the card's overflow menu): the vendor's team downloads the brief of any
card, as PDF and Markdown, in the clicker's DM with the bot.

Why the vendor's team only, and refused before anything is read: the exported brief is the
internal one (who started the sizing, where it runs, its conversation key), which an external
person in a shared channel must never receive; an external clicker is told privately that
this is for the vendor's team. The clicker's team is confirmed with ``users.info``
(``bot/slack/access.py``): a guest of the vendor's workspace carries its team id too.

Like the other card buttons it acts only on the result the card shows
(``bot/slack/flows/result.py``). A double click uploads once: a short claim per person and
result (``Store.claim``) expires soon enough to let a later export of the same card through,
since exporting twice on purpose is harmless. The claim is held by the click's delivery id,
so a retry of that click (put off while Slack failed) still uploads, once: the upload is
found again by its file names (``bot/slack/api.py``).
"""

from __future__ import annotations

from bot.brief import Requester, brief_charts, build_brief
from bot.slack import placement
from bot.slack.cards.ids import parse_block_id
from bot.slack.cards.words import Words
from bot.slack.errors import SlackRefused
from bot.slack.flows import briefs
from bot.slack.flows.face import Audience, Face
from bot.slack.flows.result import clicked_result
from bot.slack.flows.turn import Turn
from bot.slack.payloads import ActionDelivery
from dialogue import StoreUnavailable
from engine.wording import msg

DOUBLE_CLICK_S = 30


def run(face: Face, t: Turn, d: ActionDelivery) -> None:
    if not face.access.is_internal(d.user, d.actor_team, confirm=True):
        t.outcome = "forbidden"
        parsed = parse_block_id(d.block_id)
        key = parsed[0] if parsed else None
        lang = face.lang_of(key) if key is not None else "en"
        face.tell(Audience(d.user, d.channel, key.root if key else d.thread_ts, lang=lang),
                  msg("slack.refused"))
        return
    found = clicked_result(face, t, d, msg("slack.export.no_result"))
    if found is None:
        return
    key, aud, rec = found.key, found.aud, found.rec
    try:
        first = face.dialogue.store.claim(
            f"export:{key.format()}:{found.conv.version}:{d.user}", DOUBLE_CLICK_S,
            holder=d.id)
    except StoreUnavailable:
        face.store_down(t, aud)
    if not first:
        t.outcome = "duplicate"
        face.tell(aud, msg("slack.export.already"))
        return
    where = placement.of(found.conv)
    facts = Requester(user=d.user, team=d.actor_team, internal=True, owner=found.conv.owner,
                      channel=where.channel if where else key.channel,
                      shared=(where.shared if where else False) or d.shared, key=key.format())
    brief = build_brief(rec, found.reply.answers, lang=aud.lang, purpose="export",
                        requester=facts, charts=brief_charts(found.reply, aud.lang))
    w = Words(aud.lang)
    try:
        briefs.send(face, face.api.open_dm(d.user), brief,
                    w.md(msg("slack.export.comment", model=rec.model.name)))
    except SlackRefused as exc:
        t.outcome = "error"
        face.tell(aud, face.cannot_post(msg("slack.export.not_sent"), exc))
        return
    t.outcome = "ok"
    face.tell(aud, msg("slack.export.sent"))
