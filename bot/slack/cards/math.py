""""Show the math": the formulas behind a result, with the constants used, in code blocks.

Posted once in the sizing's thread (or the DM) for its owner, privately for anyone else
(``bot/slack/flows/math.py``). The engine's ``math`` messages carry the figures as
parameters, so the formulas read in the conversation's language with its number format.
"""

from __future__ import annotations

from bot.slack import blockkit
from bot.slack.cards import parts
from bot.slack.cards.words import Words
from bot.slack.escape import clip_md
from engine.result import Recommendation, verdict_name
from engine.wording import msg

Payload = parts.Payload
CODE = "```"


def math_message(rec: Recommendation, w: Words) -> Payload:
    name = verdict_name(rec.verdict, rec.gpus_per_node)
    blocks: list[Payload] = [parts.header(w.plain(msg("slack.math.header", verdict=name)))]
    lines = [w.md(m) for m in rec.math] or [w.md(msg("slack.math.none"))]
    pieces: list[str] = []
    room = parts.MAX_SECTION_TEXT - 2 * len(CODE)
    for line in lines:
        line = clip_md(line, room)
        if pieces and len(pieces[-1]) + 1 + len(line) <= room:
            pieces[-1] += "\n" + line
        else:
            pieces.append(line)
    space = blockkit.MAX_BLOCKS_MESSAGE - 2
    blocks += [parts.section(f"{CODE}{piece}{CODE}") for piece in pieces[:space]]
    if len(pieces) > space:
        blocks.append(parts.context(w.md(msg("slack.math.more", n=len(pieces) - space))))
    return parts.message(w.md(msg("slack.math.fallback", model=rec.model.name)), blocks)
