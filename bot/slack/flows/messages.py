"""A person's message: a reply in a sizing's thread, or a message in their DM with the bot.

In a channel or group DM only a reply in the thread of the author's own sizing is an answer
(anyone else talking there is simply not answering). In a DM people answer at top level:

* ``help`` explains; ``new`` (or the dialogue's restart words) starts a fresh sizing;
* otherwise the DM's sizing in progress takes the message as a typed answer, and with none in
  progress it opens a new one, read as its opening; after the card, a change (``change
  context to 32k``) or ``back`` still refers to the finished sizing;
* in a thread of the DM: the sizing of that thread (one started there before DMs had their
  own key), else the DM's sizing whatever its state (a reply under its card may change an
  answer), else nothing, as a thread reply in a channel.
"""

from __future__ import annotations

from dataclasses import replace

from bot.slack import written
from bot.slack.cards.notes import help_message
from bot.slack.cards.words import Words
from bot.slack.flows.answer import answer
from bot.slack.flows.commands import which
from bot.slack.flows.face import Audience, Face, conversation_lang, finished
from bot.slack.flows.start import Start, start
from bot.slack.flows.turn import Turn
from bot.slack.keys import ConversationKey
from bot.slack.payloads import MessageDelivery
from dialogue import StoreUnavailable, command

# typed to a finished DM sizing at top level, these refer to it (they cannot open a sizing)
DONE_COMMANDS = frozenset({"change", "back"})


def run(face: Face, t: Turn, d: MessageDelivery) -> None:
    if d.im:
        dm(face, t, d)
        return
    if not d.text or not d.thread_ts:
        return
    key = ConversationKey.thread(d.team, d.channel, d.thread_ts, d.user)
    aud = Audience(d.user, d.channel, d.thread_ts)
    try:
        conv = face.dialogue.load(key.format())
    except StoreUnavailable:
        face.store_down(t, aud)
    if conv is not None:
        answer(face, t, key, d.text, replace(aud, lang=conversation_lang(conv)),
               delivery_id=d.id, typed=True)


def dm(face: Face, t: Turn, d: MessageDelivery) -> None:
    if not d.text:
        return
    aud = Audience(d.user, d.channel, d.thread_ts)
    asked = which(d.text.strip(" ?!.") or "?", "help", "new")  # the whole message
    if not d.thread_ts and asked is not None and asked[0] == "help":
        face.api.post(d.channel, help_message(Words(asked[1])),
                      mid=written.message_id("help", d.id))
        return
    cmd = command(d.text)
    fresh = (asked is not None and asked[0] == "new") or (cmd is not None
                                                           and cmd.kind == "restart")
    new = Start(team=d.team, channel=d.channel, user=d.user, surface="dm", dm=True,
                delivery_id=d.id, actor_team=d.actor_team)
    if not d.thread_ts and fresh:
        start(face, t, replace(new, lang=asked[1] if asked else None), aud)
        return
    key = ConversationKey.dm(d.team, d.channel, d.user)
    try:
        if d.thread_ts:
            old = ConversationKey.thread(d.team, d.channel, d.thread_ts, d.user)
            old_conv = face.dialogue.load(old.format())
            if old_conv is not None:
                answer(face, t, old, d.text, replace(aud, lang=conversation_lang(old_conv)),
                       delivery_id=d.id, typed=True)
                return
        conv = face.dialogue.load(key.format())
    except StoreUnavailable:
        face.store_down(t, aud)
    if conv is not None and (
        d.thread_ts or not finished(conv)
        or (conv.state == "done" and cmd is not None and cmd.kind in DONE_COMMANDS)
    ):
        answer(face, t, key, d.text, replace(aud, lang=conversation_lang(conv)),
               delivery_id=d.id, typed=True)
        return
    if not d.thread_ts:
        start(face, t, replace(new, opening=d.text), aud)
