"""``/gpu-sizing [help|post|status|what you know]``: explain, post a Start message, report,
or start a sizing.

The command words exist in English and French (``slack.words.*`` in
``bot/messages/slack.*.toml``, comma-separated): whichever language a word belongs to is the
language of the answer. Anything else is the opening of a sizing (``/gpu-sizing llama 3.1
70b inference 64 users``), read by the dialogue. ``post`` and ``status`` are internal-only
(``bot/slack/access.py``, confirmed with ``users.info``); ``status`` says what the store
keeps across a crash (``bot/slack/storefacts.py``) and how many turns wait in the queue.
"""

from __future__ import annotations

from functools import cache

from bot.slack import written
from bot.slack.cards.start import start_message
from bot.slack.cards.words import Words
from bot.slack.errors import SlackRefused
from bot.slack.flows.face import Audience, Face
from bot.slack.flows.start import Start, start
from bot.slack.flows.turn import Turn
from bot.slack.payloads import CommandDelivery
from bot.wording import catalog
from dialogue import StoreUnavailable
from dialogue.understand.language import detect
from engine.units import LANGS, Lang
from engine.wording import Message, msg


@cache
def words(name: str) -> dict[str, Lang]:
    """The command word ``name`` (help, post, status, new) in every language -> its language."""
    out: dict[str, Lang] = {}
    for lang in LANGS:
        for word in catalog().template(f"slack.words.{name}", lang).split(","):
            out.setdefault(word.strip().lower(), lang)
    return out


def which(word: str, *names: str) -> tuple[str, Lang] | None:
    """(command name, its language) when ``word`` is one of the command words ``names``."""
    for name in names:
        lang = words(name).get(word.strip().lower())
        if lang is not None:
            return name, lang
    return None


def status(face: Face) -> Message:
    """Internal diagnostics for the vendor's team: mode, store (reachable, and what it keeps
    across a crash), the turn queue's backlog, where quote requests go, internal teams."""
    up, kept = face.facts.check()
    try:
        face.dialogue.recent("-", limit=1)
        store = msg("slack.status.reachable")
    except StoreUnavailable:
        store = msg("slack.status.unreachable")
        up = False
    if up is False:
        store = msg("slack.status.unreachable")
    try:
        waiting = max(0, face.backlog() - 1)  # besides this command, itself a queued turn
    except StoreUnavailable:
        waiting = 0
    mode, teams = face.settings.mode, len(face.settings.internal_teams)
    common = {"mode": mode, "store": store, "kept": msg(f"slack.status.kept.{kept}"),
              "waiting": waiting, "teams": teams}
    if face.settings.quote_channel_id:
        return msg("slack.status.line", **common)
    return msg("slack.status.line_unset", **common)


def run(face: Face, t: Turn, d: CommandDelivery) -> None:
    first = d.text.split(maxsplit=1)[0] if d.text.strip() else ""
    found = which(first, "help", "post", "status")
    # before a sizing exists, its words are in the command word's language or the opening's
    lang = found[1] if found else detect(d.text) or "en"
    aud = Audience(d.user, d.channel, None, d.response_url, lang)
    if found is not None and found[0] == "help":
        face.tell(aud, msg("slack.help"))
        return
    if found is not None:
        if not face.access.is_internal(d.user, d.actor_team, confirm=True):
            t.outcome = "forbidden"
            face.tell(aud, msg("slack.refused"))
        elif found[0] == "post":
            try:
                face.api.post(d.channel, start_message(d.user, Words(aud.lang)),
                              mid=written.message_id("start", d.id))
                t.outcome = "question"
            except SlackRefused as exc:
                t.outcome = "error"
                face.tell(aud, face.cannot_post(msg("slack.what.start_not_posted"), exc))
        else:
            w = Words(aud.lang)
            face.tell(aud, status(face), channel=w.channel(face.settings.quote_channel_id))
        return
    start(face, t, Start(team=d.team, channel=d.channel, user=d.user, surface="command",
                         dm=d.im, opening=d.text, delivery_id=d.id, actor_team=d.actor_team,
                         response_url=d.response_url, lang=lang), aud)
