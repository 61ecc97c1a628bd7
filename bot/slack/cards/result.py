"""The recommendation card: the verdict, each decision step with its number, the VRAM bar, the
numbers, caveats, alternatives, assumptions, the answers with their source, and the buttons.

Buttons: **Start over** and **Change an answer** come from the reply's typed navigation (the
``restart`` nav and the ``change`` navs with their slot); a click sends the nav's ``value``,
the text a person could type for the same effect, so clicks and typing share one path.
**Compare with another GPU** lists the catalog's GPUs (vendor-built first) but the one shown;
the card it leads to, like every card with alternatives, sets them beside the answer in one
table (``bot/slack/cards/options.py``).
**Show the math**, **Show the charts**, **Request a formal quote** and the overflow menu's
**Export brief** (vendor team only) act on the result the card shows (its version is in the
block id).
"""

from __future__ import annotations

from functools import cache

from bot.slack.cards import ids, parts, vram
from bot.slack.cards.numbers import config_line, fields
from bot.slack.cards.options import options_blocks
from bot.slack.cards.shared import answers_line, error_line, notices, step_lines
from bot.slack.cards.words import Words
from bot.slack.escape import clip_md
from bot.slack.keys import ConversationKey
from dialogue.reply import Reply
from engine.catalog import catalog
from engine.result import verdict_name
from engine.wording import Message, msg

Payload = parts.Payload
MAX_ALTERNATIVES = 4
MAX_STEP_SECTIONS = 6


@cache
def _gpus() -> tuple[tuple[str, float, str], ...]:
    """(id, memory GB, name) of the catalog's GPUs: vendor-built first, then the largest."""
    gpus = sorted(catalog().gpus.values(),
                  key=lambda g: (not g.vendor_builds, -g.memory_gb, g.name))
    return tuple((g.id, g.memory_gb, g.name) for g in gpus)


def compare_options(shown_gpu: str, w: Words) -> list[tuple[str, str]]:
    """(label, GPU id) for the Compare menu: every GPU but the one on the card."""
    return [(w.plain(msg("slack.card.gpu_option", name=name, gb=gb)), gpu)
            for gpu, gb, name in _gpus() if gpu != shown_gpu]


def _chunks(lines: list[str], limit: int) -> list[str]:
    """Lines joined into pieces of at most ``limit`` characters (a long line is clipped)."""
    out: list[str] = []
    cur = ""
    for line in lines:
        line = clip_md(line, limit)
        if cur and len(cur) + 1 + len(line) > limit:
            out.append(cur)
            cur = line
        else:
            cur = f"{cur}\n{line}" if cur else line
    return [*out, cur] if cur else out


def card_message(reply: Reply, key: ConversationKey, w: Words) -> Payload:
    """The card of the reply's recommendation (a reply without one is a question)."""
    rec = reply.recommendation
    assert rec is not None
    name: Message = verdict_name(rec.verdict, rec.gpus_per_node)
    blocks: list[Payload] = [parts.header(w.plain(msg("slack.card.header", verdict=name,
                                                      model=rec.model.name)))]
    error = error_line(reply.error, w)
    if error:
        blocks.append(parts.section(error))
    said = notices(reply.notices, w)
    if said:
        blocks.append(parts.context(said))
    blocks.append(parts.section(f"*{w.md(rec.headline)}*\n{config_line(rec, w)}"))
    if rec.numbers.memory is not None:
        blocks.append(parts.section(vram.section_text(rec.numbers.memory, w)))
    for piece in _chunks(step_lines(rec.questions, w), parts.MAX_SECTION_TEXT)[:MAX_STEP_SECTIONS]:
        blocks.append(parts.section(piece))
    blocks.extend(parts.fields(fields(rec, w)))
    if rec.caveats:
        blocks.append(parts.section("\n".join(
            [f"*{w.md(msg('slack.card.caveats'))}*"] + [f"• {w.md(c)}" for c in rec.caveats])))
    if rec.alternatives:
        blocks.append(parts.section("\n".join(
            [f"*{w.md(msg('slack.card.alternatives'))}*"]
            + ["• " + w.md(msg("slack.card.alternative", label=a.label, summary=a.summary))
               for a in rec.alternatives[:MAX_ALTERNATIVES]])))
        blocks.extend(options_blocks(rec, w))
    if rec.assumptions:
        blocks.append(parts.context(f"{w.md(msg('slack.card.assumptions'))} "
                                    + " · ".join(w.md(a) for a in rec.assumptions)))
    line = answers_line(reply.answers, w, msg("slack.card.your_answers"))
    if line:
        blocks.append(parts.context(line))
    restart = next((n for n in reply.nav if n.kind == "restart"), None)
    changes = [(w.plain(n.label), n.value) for n in reply.nav if n.kind == "change"]
    blocks.append(parts.actions([
        parts.button(w.plain(msg("slack.button.start_over")), ids.A_RESTART, restart.value)
        if restart is not None else None,
        parts.select(w.plain(msg("slack.button.change")), ids.A_CHANGE, changes),
        parts.select(w.plain(msg("slack.button.compare")), ids.A_COMPARE,
                     compare_options(rec.gpu, w)),
        parts.button(w.plain(msg("slack.button.math")), ids.A_MATH, "math"),
        parts.button(w.plain(msg("slack.button.charts")), ids.A_CHARTS, "charts"),
        parts.button(w.plain(msg("slack.button.quote")), ids.A_QUOTE, "quote", "primary"),
        parts.overflow(ids.A_EXPORT, [(w.plain(msg("slack.button.export")), "export")]),
    ], ids.block_id(reply.version, key, 0)))
    fallback = w.md(msg("slack.card.fallback", model=rec.model.name, verdict=name,
                        headline=rec.headline))
    return parts.message(fallback, blocks)
