"""``@GPU Sizing …`` in a channel or group DM: an answer in a known thread, or a new sizing.

A mention in the thread of the person's sizing in progress is a typed answer (an empty one
shows a question that was never shown); otherwise it starts a sizing in the mention's thread
(a finished sizing there is replaced: the person is asking again), read from what follows
the mention. A text-like file shared with the mention (a config.json, a snippet) is what it
says instead of its words, as in a thread reply (``bot/slack/flows/files.py``); other files are
not read.
"""

from __future__ import annotations

from bot.slack import placement
from bot.slack.flows import files
from bot.slack.flows.answer import answer
from bot.slack.flows.face import Audience, Face, conversation_lang, finished
from bot.slack.flows.show import needs_reshow
from bot.slack.flows.start import Start, reshow, start
from bot.slack.flows.turn import Turn
from bot.slack.keys import ConversationKey
from bot.slack.payloads import MentionDelivery
from dialogue import StoreUnavailable


def run(face: Face, t: Turn, d: MentionDelivery) -> None:
    aud = Audience(d.user, d.channel, d.thread_ts)
    chosen = files.pick(face, d) if d.files else None
    if d.thread_ts:
        key = ConversationKey.thread(d.team, d.channel, d.thread_ts, d.user)
        try:
            conv = face.dialogue.load(key.format())
        except StoreUnavailable:
            face.store_down(t, aud)
        if not finished(conv):
            aud = Audience(d.user, d.channel, d.thread_ts, lang=conversation_lang(conv))
            if d.text or chosen is not None:
                if (said := files.said(face, t, d, chosen, aud)) is not None:
                    answer(face, t, key, said.text, aud, delivery_id=d.id, typed=True,
                           file=said.file)
            elif needs_reshow(placement.of(conv)):
                reshow(face, t, key, aud)
            return
    opening = d.text
    if chosen is not None:  # a config.json shared with the mention opens the sizing
        if (said := files.said(face, t, d, chosen, aud)) is None:
            return
        opening = said.text
    start(face, t, Start(team=d.team, channel=d.channel, user=d.user, surface="mention",
                         root=d.thread_ts or d.ts, opening=opening, delivery_id=d.id,
                         actor_team=d.actor_team, shared=d.shared), aud)
