"""Short notes to one person (usually ephemeral), and the plain help.

A note says what happened to what the person asked for (not theirs to answer, out of date,
Slack refused, the store is down, an answer that waits); it may carry a **Start my own
sizing** button, whose value says in which thread the new sizing goes
(``bot/slack/cards/ids.py``). An older message of a sizing that a newer one replaced becomes a
superseded note, without buttons.
"""

from __future__ import annotations

from bot.slack.cards import ids, parts
from bot.slack.cards.words import Words
from engine.wording import msg

Payload = parts.Payload


def note_message(text_md: str, w: Words, *, start: tuple[str, str] | None = None) -> Payload:
    """``text_md`` (already escaped mrkdwn); with ``start`` = (channel, thread root)."""
    blocks = [parts.section(text_md)]
    if start is not None:
        blocks.append(parts.actions([parts.button(
            w.plain(msg("slack.button.start_own")), ids.A_START, ids.start_value(*start),
            "primary")]))
    return parts.message(text_md, blocks)


def help_message(w: Words) -> Payload:
    """What the bot does and how to use it (``/gpu-sizing help``, ``help`` in a DM)."""
    return note_message(w.md(msg("slack.help")), w)


def superseded_message(w: Words, *, dm: bool) -> Payload:
    """What an older message of a sizing becomes once a newer one replaced it: a note without
    buttons, so a sizing never shows two live questions."""
    text = w.md(msg("slack.superseded.dm" if dm else "slack.superseded.thread"))
    return parts.message(text, [parts.context(text)])
