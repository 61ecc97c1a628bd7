""""Request a formal quote": a form, then one summary with the quote brief in
``QUOTE_CHANNEL_ID``, an audit record, and a private confirmation to the requester.

Two steps, because sales needs to know whom to call:

1. **The click** (:func:`run`) opens the form (``bot/slack/cards/quote_modal.py``) with the
   click's ``trigger_id`` (Slack accepts it for 3 seconds), pre-filled with what the person
   typed in their last form for this sizing, else their Slack name and e-mail
   (``users.info``). Refused first, privately, as before: an older card, someone else's
   sizing (the vendor's team may quote anyone's), a quote channel missing or shared.
2. **The submission** (:func:`submit`), already checked field by field by its listener
   (``bot/slack/listeners/views.py``), is verified against the stored conversation:
   the form's key and version are read from its metadata but trusted only once the stored
   sizing has that version and a result, and the submitter may quote it. Then, in order, so
   nothing internal can leak and nothing is done twice: one application per form on any
   worker (``Store.claim`` on the view id and its submitter: Slack's retries and double
   submits; a view is one person's, so nobody else's submission can use up theirs), one request
   per person and result (a second form says "already with our sales team"); the target
   confirmed unshared (``conversations.info``); the audit record with the contact details;
   the summary; the brief (PDF + Markdown) in the summary's thread; the requester's copy in
   their DM if they asked (customer-safe: no team ids, channel, key or audit id); one
   private confirmation where they clicked. Nothing is posted in the sizing's channel (it
   may be shared with the customer's organisation), and an external requester is not told
   the internal channel's name or the audit id.

Exactly once under retries (the queue replays a submission whose worker died, or whose
Slack calls failed): both claims are held by the submission's delivery id, so its own retry
passes them; the summary carries its own id (``quote:<conversation>:<version>:<user>``) and the
audit id in its metadata, so a retry finds it and neither records nor posts again; the brief is
found again by its file names (``bot/slack/written.py``).

The contact details reach the audit record through ``Dialogue.record_quote``'s ``note``
(JSON: requester kind and contact), the one field it takes from a face. What the person
typed is kept with the conversation (face metadata ``quote_contact.<user>``) so a form
reopened after a refusal or for a new result starts with it: nothing typed is lost.
"""

from __future__ import annotations

import contextlib
import json
import logging
from dataclasses import replace

from pydantic import ValidationError

from bot.brief import Brief, Contact, Requester, brief_charts, build_brief
from bot.slack import placement, work, written
from bot.slack.cards.notes import note_message
from bot.slack.cards.quote import quote_summary
from bot.slack.cards.quote_modal import Prefill, parse_metadata, quote_view
from bot.slack.cards.words import Words
from bot.slack.errors import SlackError, SlackRefused
from bot.slack.flows import briefs
from bot.slack.flows.answer import not_owner
from bot.slack.flows.face import Audience, Face
from bot.slack.flows.result import clicked_result
from bot.slack.flows.turn import Turn
from bot.slack.keys import ConversationKey
from bot.slack.payloads import ActionDelivery, ViewSubmissionDelivery
from dialogue import Conversation, StoreUnavailable
from engine.wording import Message, msg

log = logging.getLogger(__name__)

CLAIM_TTL_S = 24 * 3600
DRAFT_FIELD = "quote_contact."


def _draft(conv: Conversation, user: str) -> Contact | None:
    raw = conv.meta.get(DRAFT_FIELD + user)
    if not raw:
        return None
    try:
        return Contact.model_validate_json(raw)
    except ValidationError:
        return None


def _keep_draft(face: Face, key: ConversationKey, user: str, contact: Contact) -> None:
    with contextlib.suppress(StoreUnavailable):  # only a convenience for the next form
        face.dialogue.update_meta(key.format(), {DRAFT_FIELD + user: contact.model_dump_json()})


def _prefill(face: Face, conv: Conversation, user: str) -> Prefill:
    """The person's last form for this sizing, else what Slack says of them (their own data:
    name and, where the app may read it, e-mail)."""
    draft = _draft(conv, user)
    if draft is not None:
        return Prefill.of(draft)
    try:
        info = face.api.user_info(user)
    except SlackRefused:
        info = {}
    profile = info.get("profile") if isinstance(info.get("profile"), dict) else {}
    assert isinstance(profile, dict)
    name = next((v for v in (profile.get("real_name"), info.get("real_name"),
                             profile.get("display_name")) if isinstance(v, str) and v), "")
    email = profile.get("email")
    return Prefill(name=name, email=email if isinstance(email, str) else "")


def _target(face: Face, t: Turn, aud: Audience) -> str | None:
    """The quote channel, confirmed unshared; None after telling the person."""
    target = face.settings.quote_channel_id
    if not target or not face.access.is_private_channel(target):
        t.outcome = "forbidden"
        log.error("quote channel missing, shared or unreadable; request not forwarded")
        face.tell(aud, msg("slack.quote_unavailable"))
        return None
    return target


def run(face: Face, t: Turn, d: ActionDelivery) -> None:
    """The card's button: the form, pre-filled, for the result the card shows."""
    internal = face.access.is_internal(d.user, d.actor_team, confirm=False)
    found = clicked_result(face, t, d, msg("slack.quote_needs_result"))
    if found is None:
        return
    key, aud = found.key, found.aud
    if not face.access.may_quote(found.conv.owner, d.user, internal=internal):
        not_owner(face, t, key, found.conv.owner or key.owner, aud)
        return
    if _target(face, t, aud) is None:
        return
    view = quote_view(found.rec, key, found.conv.version, Words(aud.lang),
                      _prefill(face, found.conv, d.user))
    t.extra["trigger_age_ms"] = round(1000 * work.current().age_s)  # Slack allows 3 s
    try:
        if not d.trigger_id:
            raise SlackRefused("views.open", "no_trigger")
        face.api.open_view(d.trigger_id, view)
    except SlackError:  # never put off: a later attempt could not use the trigger any more
        t.outcome = "error"
        face.tell(aud, msg("slack.quoting.form_failed"))
        return
    t.outcome = "ok"


def audit_note(contact: Contact, internal: bool) -> str:
    """What ``record_quote`` keeps in the record's ``note``: the requester kind, the contact."""
    return json.dumps({"requester": "internal" if internal else "external",
                       "contact": contact.model_dump(mode="json")},
                      ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def submit(face: Face, t: Turn, d: ViewSubmissionDelivery) -> None:
    """A checked form: verified, recorded, posted with its brief, confirmed (module docstring)."""
    meta = parse_metadata(d.metadata)
    if meta is None:  # the listener refuses these; a forged delivery is only logged
        t.outcome = "refused"
        log.warning("quote form without readable metadata")
        return
    key = meta.key
    aud = Audience(d.user, key.channel, key.root, lang=meta.lang)
    # confirmed (users.info): the answer names the quote channel and the audit record
    internal = face.access.is_internal(d.user, d.actor_team, confirm=True)
    try:
        first = face.dialogue.store.claim(f"quote-form:{d.view_id}:{d.user}", CLAIM_TTL_S,
                                          holder=d.id)
        conv = face.dialogue.load(key.format()) if first else None
        reply = face.dialogue.current(key.format()) if conv is not None else None
    except StoreUnavailable:
        face.store_down(t, aud)
    if not first:  # Slack's retry of a submission already being applied
        t.outcome = "duplicate"
        return
    if reply is not None:
        aud = replace(aud, lang=reply.language)
        t.from_reply(reply)
    if conv is not None and not face.access.may_quote(conv.owner, d.user, internal=internal):
        not_owner(face, t, key, conv.owner or key.owner, aud)
        return
    if conv is not None:
        _keep_draft(face, key, d.user, d.contact)
    if conv is None or reply is None or reply.recommendation is None:
        t.outcome = "ended"
        face.tell(aud, msg("slack.quote_needs_result"))
        return
    if conv.version != meta.version:
        t.outcome = "conflict"
        face.tell(aud, msg("slack.quoting.changed"))
        return
    target = _target(face, t, aud)
    if target is None:
        return
    once_token = f"quote:{key.format()}:{conv.version}:{d.user}"
    try:
        once = face.dialogue.store.claim(once_token, CLAIM_TTL_S, holder=d.id)
    except StoreUnavailable:
        face.store_down(t, aud)
    if not once:
        t.outcome = "duplicate"
        face.tell(aud, msg("slack.quote_already"))
        return
    mid = written.message_id("quote", conv.id, conv.version, d.user)
    earlier = face.api.found_payload(target, None, mid) if work.current().replay else None
    rec, w = reply.recommendation, Words(aud.lang)
    where = placement.of(conv)
    channel = where.channel if where else key.channel
    shared = where.shared if where else False
    if earlier is not None:  # an earlier attempt recorded and posted it: go on from there
        audit = str(earlier.get("audit") or "")
        ts = face.api.find(target, None, mid)
    else:
        try:
            record = face.dialogue.record_quote(key.format(), d.user,
                                                note=audit_note(d.contact, internal))
        except StoreUnavailable:
            face.store_down(t, aud)
        except Exception as exc:  # NotFinished, or a race with a restart
            t.outcome = "error"
            log.warning("record_quote failed",
                        extra={"json_fields": {"error": type(exc).__name__}})
            _release(face, once_token, d.id)  # nothing recorded: a new form may try again
            face.tell(aud, msg("slack.quote_needs_result"))
            return
        audit = str(record.get("id") or "")
        summary = quote_summary(
            record, requester=d.user, requester_team=d.actor_team, internal=internal,
            channel=channel, shared=shared, key=key, rec=rec, answers=reply.answers, w=w,
            contact=d.contact)
        try:
            ts = face.api.post(target, summary, mid=mid, audit=audit).ts
        except SlackRefused:
            ts = None
    if ts is None:  # Slack refused the summary: sales has nothing, so the request is not made
        t.outcome = "error"
        _release(face, once_token, d.id)
        face.tell(aud, msg("slack.quote_unreachable"))
        return
    facts = Requester(user=d.user, team=d.actor_team, internal=internal, owner=conv.owner,
                      channel=channel, shared=shared, key=key.format(), audit=audit)
    brief = build_brief(rec, reply.answers, lang=aud.lang, purpose="quote", contact=d.contact,
                        requester=facts, charts=brief_charts(reply, aud.lang))
    try:
        briefs.send(face, target, brief, w.md(msg("slack.quoting.comment",
                                                  model=rec.model.name, audit=audit)),
                    thread_ts=ts)
        attached = True
    except SlackRefused:
        attached = False
    if not attached:  # say so where sales reads it: the summary promised the brief
        t.extra["brief"] = "not_attached"
        with contextlib.suppress(SlackRefused):  # the summary is there; the note is extra
            face.api.post(target, note_message(w.md(msg("slack.quoting.brief_missing")), w),
                          ts, mid=written.message_id("quote-note", conv.id, conv.version,
                                                     d.user))
    customer = build_brief(rec, reply.answers, lang=aud.lang, purpose="quote",
                           contact=d.contact, charts=brief_charts(reply, aud.lang),
                           ) if d.contact.copy_requested else None
    copy = _send_copy(face, d.user, customer, w.md(msg("slack.quoting.comment_copy",
                                                       model=rec.model.name)))
    t.outcome = "ok"
    if internal:
        face.tell(aud, msg("slack.quoting.posted" if attached else "slack.quoting.posted_bare",
                           audit=audit, copy=copy), channel=w.channel(target))
    else:
        face.tell(aud, msg("slack.quoting.thanks", name=d.contact.name, email=d.contact.email,
                           copy=copy))


def _release(face: Face, token: str, holder: str | None) -> None:
    """Give the once-per-result claim back: what it guarded did not reach sales, so the
    person's next form is applied, not told "already with our sales team"."""
    if holder is None:  # a claim without a holder cannot be told apart: it expires
        return
    with contextlib.suppress(StoreUnavailable):  # it expires with CLAIM_TTL_S anyway
        face.dialogue.store.release(token, holder)


def _send_copy(face: Face, user: str, brief: Brief | None, comment: str) -> Message:
    """The customer-safe ``brief`` in the requester's DM (None: no copy was asked for); what
    to tell them about it."""
    if brief is None:
        return msg("slack.quoting.copy_none")
    try:
        briefs.send(face, face.api.open_dm(user), brief, comment)
    except SlackRefused:
        return msg("slack.quoting.copy_failed")
    return msg("slack.quoting.copy_sent")
