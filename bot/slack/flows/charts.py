""""Show the charts": the result's charts (PNG) uploaded once per card version and viewer:
into the sizing's thread (or its DM) for the owner, privately for anyone else.

Privately means the viewer's DM with the bot: an ephemeral message cannot carry files
(``chat.postEphemeral`` takes text and blocks; an image block needs a URL the viewer can open,
and a file the bot uploads without sharing it is the bot's own), so a third person's click
uploads the charts to their DM and tells them so in an ephemeral note in the thread, as "Show
the math" tells them privately. Where Slack will not open that DM (someone from another
organisation in a Slack Connect channel may not be messaged directly), they are told so and
nothing is posted where others would see it.

Once per card version, on any worker, under retries: a claim (``Store.claim``) keyed by the
conversation, the version, the viewer and the attempt makes a double click upload once; the
claim's holder is the click's delivery id, so a retry of that click (its worker died, Slack
failed) still holds it, and the upload itself looks for files of the same names before
sharing them again (``bot/slack/api.py`` ``upload``; the names carry the conversation and the
version). Whether the charts went out is kept per viewer in the conversation's face metadata
(``charts:<viewer>``, a :class:`ChartsPost`), so an upload Slack refused, or charts that could
not be drawn, may be asked for again, and the person is told either way: nothing is lost.

The charts are drawn here, in the flow (after the click was recorded and acknowledged), once
per result and language (``bot/charts.py``).
"""

from __future__ import annotations

import logging

from pydantic import BaseModel, ConfigDict, ValidationError

from bot.charts import ChartsFailed, charts_of
from bot.slack import placement, work
from bot.slack.api import Upload
from bot.slack.cards.words import Words
from bot.slack.errors import SlackRefused
from bot.slack.flows.face import Face
from bot.slack.flows.result import Clicked, clicked_result
from bot.slack.flows.turn import Turn
from bot.slack.payloads import ActionDelivery
from dialogue import Conversation, StoreUnavailable
from engine.result import verdict_name
from engine.wording import Message, msg

log = logging.getLogger(__name__)

CLAIM_TTL_S = 24 * 3600
META_PREFIX = "charts:"


class ChartsPost(BaseModel):
    """One viewer's charts of one result: uploaded once; a failed attempt may be retried."""

    model_config = ConfigDict(frozen=True)

    version: int
    attempt: int = 0
    posted: bool = False


def post_of(conv: Conversation, viewer: str) -> ChartsPost:
    """What ``viewer`` was sent of the conversation's current result."""
    raw = conv.meta.get(META_PREFIX + viewer)
    if raw:
        try:
            done = ChartsPost.model_validate_json(raw)
        except ValidationError:
            log.warning("unreadable charts record", extra={"json_fields": {"field": "charts"}})
        else:
            if done.version == conv.version:
                return done
    return ChartsPost(version=conv.version)


def _save(face: Face, t: Turn, found: Clicked, viewer: str, done: ChartsPost) -> None:
    try:
        face.dialogue.update_meta(found.key.format(),
                                  {META_PREFIX + viewer: done.model_dump_json()})
    except StoreUnavailable:
        face.store_down(t, found.aud)


def _failed(face: Face, t: Turn, found: Clicked, viewer: str, done: ChartsPost,
            said: Message) -> None:
    """Tell the person, and let the next click try again."""
    t.outcome = "error"
    _save(face, t, found, viewer, done.model_copy(update={"attempt": done.attempt + 1}))
    face.tell(found.aud, said)


def _already(owner: bool, in_thread: bool) -> Message:
    if not owner:
        return msg("slack.charts.in_dm")
    return msg("slack.charts.in_thread") if in_thread else msg("slack.charts.above")


def run(face: Face, t: Turn, d: ActionDelivery) -> None:
    found = clicked_result(face, t, d, msg("slack.charts.no_result"))
    if found is None:
        return
    key, aud, conv, rec = found.key, found.aud, found.conv, found.rec
    viewer = d.user
    owner = conv.owner == viewer
    done = post_of(conv, viewer)
    if done.posted:
        t.outcome = "duplicate"
        if not work.current().replay:  # a retry of the click that posted them says nothing
            face.tell(aud, _already(owner, key.root is not None))
        return
    try:
        first = face.dialogue.store.claim(
            f"charts:{key.format()}:{done.version}:{viewer}:{done.attempt}", CLAIM_TTL_S,
            holder=d.id)
    except StoreUnavailable:
        face.store_down(t, aud)
    if not first:  # a double click: the first one is uploading them
        t.outcome = "duplicate"
        face.tell(aud, msg("slack.charts.on_their_way"))
        return
    try:
        drawn = charts_of(found.reply, aud.lang)
    except ChartsFailed:
        _failed(face, t, found, viewer, done, msg("slack.charts.not_drawn"))
        return
    if owner:
        where = placement.of(conv)
        channel: str | None = where.channel if where else key.channel
        thread = key.root
    else:
        try:
            channel, thread = face.api.open_dm(viewer), None
        except SlackRefused:
            _failed(face, t, found, viewer, done, msg("slack.charts.no_dm"))
            return
    w = Words(aud.lang)
    files = [Upload(name, w.plain(msg("slack.charts.file_title", caption=image.caption)), data)
             for image, (name, data) in zip(drawn.images, drawn.files(), strict=True)]
    comment = w.md(msg("slack.charts.comment", model=rec.model.name,
                       verdict=verdict_name(rec.verdict, rec.gpus_per_node)))
    try:
        face.api.upload(channel or key.channel, files, thread_ts=thread, comment=comment)
    except SlackRefused as exc:
        _failed(face, t, found, viewer, done,
                face.cannot_post(msg("slack.charts.not_posted"), exc))
        return
    _save(face, t, found, viewer, done.model_copy(update={"posted": True}))
    t.outcome = "ok"
    t.extra["charts"] = len(files)
    if not owner:
        face.tell(aud, msg("slack.charts.sent_dm"))
