"""Replies -> Block Kit: pure functions, no Slack calls, no Redis; one module per message kind.

Why pure: every message the bot can post is produced here from plain data (the dialogue's
``Reply``, the engine's ``Recommendation``), so a test can build each one and check it
against Block Kit's limits (``bot/slack/blockkit.py``) without a network. Every text is a
catalog message rendered in the reply's language (``bot/slack/cards/words.py``), escaped where
Slack would parse it.

Kinds: ``question`` (and an ended sizing), ``result`` (the card), ``math``, ``notes``,
``home``, ``start`` (the Start post and a thread's root), ``quote`` (the internal summary).
Shared pieces: ``parts`` (Block Kit builders), ``ids`` (action and block ids), ``words``,
``shared`` (notices, steps, answers), ``numbers``, ``vram``.
"""

from __future__ import annotations

from bot.slack.cards.parts import Payload
from bot.slack.cards.question import ended_message, question_message
from bot.slack.cards.result import card_message
from bot.slack.cards.words import Words
from bot.slack.keys import ConversationKey
from dialogue.reply import Reply


def render(reply: Reply, key: ConversationKey) -> Payload:
    """The message of any reply (question, result, ended, error) in the reply's language."""
    w = Words(reply.language)
    if reply.recommendation is not None and reply.kind in ("result", "error"):
        return card_message(reply, key, w)
    if reply.kind == "ended":
        return ended_message(reply, key, w)
    return question_message(reply, key, w)


__all__ = ["Words", "render"]
