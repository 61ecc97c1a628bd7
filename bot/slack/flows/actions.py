"""Clicks on the bot's messages: answers and navigation, Compare, and the Start buttons.

An answer, a nav button or "Change an answer" is one dialogue turn with the button's value
(the text a person could type for the same effect) and the version in the clicked block's
id, so a stale or repeated click changes nothing (and brings the clicked message up to date).
Block ids are signed by the server (``bot/slack/cards/ids.py``): one that does not verify
changes nothing and the clicker is told so privately. A click on someone else's sizing is
refused before the dialogue: the key names its owner, and an expired sizing has no stored
owner left to check, so a stranger's "restart" would otherwise take over the owner's
thread. Compare re-runs the same answers with another GPU through the dialogue's own
"change gpu" path (two turns), so "Change an answer -> GPU" switches back.
"""

from __future__ import annotations

from dataclasses import replace

from bot.slack import placement, work
from bot.slack.cards.ids import parse_block_id, parse_start_value
from bot.slack.flows.answer import answer, not_owner, refused, stale
from bot.slack.flows.face import Audience, Face, conversation_lang, finished
from bot.slack.flows.show import needs_reshow, reconcile
from bot.slack.flows.start import Start, reshow, start
from bot.slack.flows.turn import Turn
from bot.slack.flows.unsigned import unverified
from bot.slack.keys import ConversationKey
from bot.slack.payloads import ActionDelivery, is_dm
from dialogue import Conflict, Duplicate, NotOwner, StoreUnavailable
from engine.wording import msg

START_BUCKET_S = 10  # two clicks on Start within this many seconds start one sizing
START_CLAIM_TTL_S = 60


def _clicked(face: Face, t: Turn,
             d: ActionDelivery) -> tuple[ConversationKey, int, Audience] | None:
    parsed = parse_block_id(d.block_id)
    if not d.channel:
        return None
    if parsed is None:
        unverified(face, t, d)
        return None
    key, version = parsed
    return key, version, Audience(d.user, d.channel, key.root)


def click(face: Face, t: Turn, d: ActionDelivery) -> None:
    """An answer, nav or "Change an answer" click on a question or card: one dialogue turn."""
    found = _clicked(face, t, d)
    if found is None or not d.value:
        return
    key, version, aud = found
    if key.owner != d.user:
        not_owner(face, t, key, key.owner, aud)
        return
    answer(face, t, key, d.value, aud, version=version, delivery_id=d.id,
           message_ts=None if d.ephemeral else d.message_ts)


def compare(face: Face, t: Turn, d: ActionDelivery) -> None:
    """Compare with another GPU: the same answers with that GPU, in place (two turns, each
    with its own delivery id, so a replay applies neither twice)."""
    found = _clicked(face, t, d)
    if found is None or not d.value:
        return
    key, version, aud = found
    if key.owner != d.user:
        not_owner(face, t, key, key.owner, aud)
        return
    second = f"{d.id}:gpu" if d.id else None
    try:
        first = face.dialogue.handle(key.format(), "change gpu", version=version, actor=d.user,
                                     delivery_id=f"{d.id}:change" if d.id else None)
    except Duplicate:  # a replay: the first turn was applied; finish with the second
        answer(face, t, key, d.value, aud, delivery_id=second, message_ts=d.message_ts)
        return
    except (Conflict, NotOwner, StoreUnavailable) as exc:
        refused(face, t, exc, key, aud, d.message_ts)
        return
    except Exception:
        face.failed(t, aud)
        return
    aud = replace(aud, lang=first.language)
    if stale(first, version):
        t.outcome = "conflict"
        caught_up = reconcile(face, key, aud, d.message_ts)
        face.tell(aud, msg("slack.behind" if caught_up else "slack.stale"))
        return
    answer(face, t, key, d.value, aud, version=first.version, delivery_id=second,
           message_ts=d.message_ts)


def start_click(face: Face, t: Turn, d: ActionDelivery) -> None:
    """"Start a sizing" / "Start my own sizing": a sizing in the clicked message's thread (or
    the thread the button names), or the DM's when clicked in a DM."""
    target = parse_start_value(d.value)
    channel = target[0] if target else d.channel
    root = target[1] if target else (d.thread_ts or d.message_ts)
    if not channel:
        return
    dm = d.im if channel == d.channel else is_dm(channel)
    if not (root or dm):
        return
    key = (ConversationKey.dm(d.team, channel, d.user) if dm
           else ConversationKey.thread(d.team, channel, str(root), d.user))
    aud = Audience(d.user, channel, key.root)
    try:
        conv = face.dialogue.load(key.format())
    except StoreUnavailable:
        face.store_down(t, aud)
    if not finished(conv):
        aud = replace(aud, lang=conversation_lang(conv))
        if needs_reshow(placement.of(conv)):
            reshow(face, t, key, aud)  # its question was never shown
            return
        t.outcome = "ignored"
        face.tell(aud, msg("slack.already_dm") if dm else msg("slack.already_thread"))
        return
    # two quick clicks both saw the same (absent or finished) sizing: one starts it. The
    # time bucket keeps the claim from blocking a real new start later
    seen = conv.version if conv is not None else 0
    bucket = int(work.current().queued_at // START_BUCKET_S)  # the click's time, not a retry's
    try:
        first = face.dialogue.store.claim(f"start:{key.format()}:{seen}:{bucket}",
                                          START_CLAIM_TTL_S, holder=d.id)
    except StoreUnavailable:
        face.store_down(t, aud)
    if not first:
        t.outcome = "duplicate"
        return
    start(face, t, Start(team=d.team, channel=channel, user=d.user, surface="button", dm=dm,
                         root=key.root, delivery_id=d.id, actor_team=d.actor_team,
                         shared=d.shared), aud)
