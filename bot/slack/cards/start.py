"""The messages that open a sizing: the "Start a sizing" post and a thread's root message.

``/gpu-sizing post`` puts the first in a (shared) channel so customers start by clicking,
never by typing a slash command their admins may not allow (docs/slack.md §6). A slash
command in a channel posts the second, so the sizing has a thread to live in.
"""

from __future__ import annotations

from bot.slack.cards import ids, parts
from bot.slack.cards.words import Words
from engine.wording import msg

Payload = parts.Payload


def start_message(poster: str | None, w: Words) -> Payload:
    blocks = [
        parts.section(f"*{w.md(msg('slack.start.title'))}*\n{w.md(msg('slack.start.body'))}"),
        parts.actions([parts.button(w.plain(msg("slack.start.button")), ids.A_START, "",
                                    "primary")]),
        parts.context(w.md(msg("slack.start.posted_by"), who=w.user(poster))),
    ]
    return parts.message(w.md(msg("slack.start.fallback")), blocks)


def root_message(user: str, w: Words) -> Payload:
    """"<@user> started a GPU sizing: answer in the thread." (the thread's root)."""
    text = w.md(msg("slack.root"), who=w.user(user))
    return parts.message(text, [parts.section(text)])
