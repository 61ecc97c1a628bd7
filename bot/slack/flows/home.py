"""The App Home tab: its view (New sizing and the person's recent sizings), and New sizing.

"New sizing" opens the person's DM with the bot and starts the DM's own sizing there, so
their next messages answer it. A Home tab click has no channel to answer in: what went
wrong (the DM could not be opened, the store is down) is said on the tab itself; a turn the
store failed is retried by the queue, and the tab then shows what it should.
"""

from __future__ import annotations

import contextlib
from typing import Any

from bot.slack import work
from bot.slack.cards.home import home_view
from bot.slack.cards.words import Words
from bot.slack.errors import SlackRefused
from bot.slack.flows.face import Audience, Face
from bot.slack.flows.start import Start, start
from bot.slack.flows.turn import Turn
from bot.slack.payloads import ActionDelivery, HomeDelivery
from dialogue import StoreUnavailable
from engine.units import LANGS, Lang
from engine.wording import msg

RECENT = 5
NEW_BUCKET_S = 10  # a double click on New sizing within this many seconds opens one sizing
CLAIM_TTL_S = 60


def opened(face: Face, t: Turn, d: HomeDelivery) -> None:
    """Publish the Home tab: New sizing and the person's recent sizings."""
    recent: list[dict[str, Any]] = []
    try:
        recent = face.dialogue.recent(d.user, limit=RECENT)
    except StoreUnavailable:
        # say so on the tab now; the turn is retried, and shows the list once the store is back
        if work.current().first:
            with contextlib.suppress(SlackRefused):  # the retry draws the tab again
                face.api.publish_home(d.user, home_view([], Words("en"), store_ok=False))
        raise
    t.outcome = "question"
    with contextlib.suppress(SlackRefused):  # a tab Slack will not take: nothing to redo
        face.api.publish_home(d.user, home_view(recent, Words(_lang(recent)), store_ok=True))


def _lang(recent: list[dict[str, Any]]) -> Lang:
    """The language of the person's latest sizing (English before any)."""
    said = recent[0].get("language") if recent else None
    return next((lang for lang in LANGS if lang == said), "en")


def new(face: Face, t: Turn, d: ActionDelivery) -> None:
    """New sizing: the DM's own sizing, started in the person's DM with the bot."""
    w = Words("en")
    bucket = int(work.current().queued_at // NEW_BUCKET_S)  # the click's time, not a retry's
    try:
        first = face.dialogue.store.claim(f"home:{d.user}:{bucket}", CLAIM_TTL_S, holder=d.id)
    except StoreUnavailable:
        if work.current().first:
            with contextlib.suppress(SlackRefused):  # the retry draws the tab again
                face.api.publish_home(d.user, home_view([], w, store_ok=False))
        raise
    if not first:
        t.outcome = "duplicate"  # a double click: the first one opens the sizing
        return
    try:
        channel = face.api.open_dm(d.user)
    except SlackRefused as exc:
        t.outcome = "error"
        problem = w.md(face.cannot_post(msg("slack.what.no_sizing"), exc))
        with contextlib.suppress(SlackRefused):  # the tab cannot say it either
            face.api.publish_home(d.user, home_view([], w, problem=problem))
        return
    start(face, t, Start(team=d.team, channel=channel, user=d.user, surface="home", dm=True,
                         delivery_id=d.id, actor_team=d.actor_team), Audience(d.user, channel))
