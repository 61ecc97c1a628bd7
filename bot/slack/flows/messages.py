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

A message that shares a file or snippet answers as if its text had been pasted: the first
text-like file's content is the answer (``Dialogue.attach``), in a thread or a DM, and it opens
a DM sizing as a pasted config.json would; a file that cannot be read is said privately and
changes nothing (``bot/slack/flows/files.py``). Someone else's files in a sizing's thread are
not read.
"""

from __future__ import annotations

import contextlib
from dataclasses import replace

from bot.slack import written
from bot.slack.cards.notes import help_message
from bot.slack.cards.words import Words
from bot.slack.errors import SlackRefused
from bot.slack.flows import files, typed
from bot.slack.flows.answer import answer
from bot.slack.flows.commands import which
from bot.slack.flows.face import Audience, Face, conversation_lang, finished
from bot.slack.flows.start import Start, start
from bot.slack.flows.turn import Turn
from bot.slack.keys import ConversationKey
from bot.slack.payloads import MessageDelivery, SharedFile
from dialogue import StoreUnavailable, command, follow_up

# typed to a finished DM sizing at top level, these refer to it (they cannot open a sizing);
# so does a text that gives answers and names no model (``dialogue.follow_up``)
DONE_COMMANDS = frozenset({"change", "back"})


def run(face: Face, t: Turn, d: MessageDelivery) -> None:
    if d.im:
        dm(face, t, d)
        return
    if not (d.text or d.files) or not d.thread_ts:
        return
    key = ConversationKey.thread(d.team, d.channel, d.thread_ts, d.user)
    aud = Audience(d.user, d.channel, d.thread_ts)
    try:
        conv = face.dialogue.load(key.format())
    except StoreUnavailable:
        face.store_down(t, aud)
    if conv is None:
        return
    if d.files and conv.owner is not None and conv.owner != d.user:
        t.outcome = "not_owner"  # someone else's files in the thread: not read, not an answer
        return
    aud = replace(aud, lang=conversation_lang(conv))
    _apply(face, t, key, d, files.pick(face, d) if d.files else None, aud)


def _apply(face: Face, t: Turn, key: ConversationKey, d: MessageDelivery,
           chosen: SharedFile | None, aud: Audience) -> None:
    """Answer the sizing at ``key`` with what ``d`` says: the file ``chosen`` (read as a pasted
    config.json is), else its typed text (``bot/slack/flows/files.py``)."""
    said = files.said(face, t, d, chosen, aud)
    if said is None:
        return
    reply = answer(face, t, key, said.text, aud, delivery_id=d.id, typed=True, file=said.file)
    if reply is not None and reply.action is not None:  # 'show the charts', typed
        typed.run(face, t, key, d, reply, replace(aud, lang=reply.language))


def dm(face: Face, t: Turn, d: MessageDelivery) -> None:
    if not d.text and not d.files:
        return
    aud = Audience(d.user, d.channel, d.thread_ts)
    # a text-like file is the answer, whatever the words with it: those are not commands then
    chosen = files.pick(face, d) if d.files else None
    typed = d.text if chosen is None else ""
    asked = which(typed.strip(" ?!.") or "?", "help", "new") if typed else None
    if not d.thread_ts and asked is not None and asked[0] == "help":
        with contextlib.suppress(SlackRefused):  # nowhere else to say it
            face.api.post(d.channel, help_message(Words(asked[1])),
                          mid=written.message_id("help", d.id))
        return
    cmd = command(typed) if typed else None
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
                _apply(face, t, old, d, chosen, replace(aud, lang=conversation_lang(old_conv)))
                return
        conv = face.dialogue.load(key.format())
    except StoreUnavailable:
        face.store_down(t, aud)
    aud = replace(aud, lang=conversation_lang(conv))
    if conv is not None and (
        d.thread_ts or not finished(conv)
        or (conv.state == "done" and cmd is not None and cmd.kind in DONE_COMMANDS)
        or (conv.state == "done" and cmd is None and chosen is None
            and follow_up(typed, conversation_lang(conv)))  # 'what about 128 users?'
    ):
        _apply(face, t, key, d, chosen, aud)
        return
    if not d.thread_ts and (said := files.said(face, t, d, chosen, aud)) is not None:
        start(face, t, replace(new, opening=said.text), aud)
