"""The card's options table: the answer and its alternatives side by side (bot/options.py).

Why a Block Kit table block: the rows are compared column by column (speed per user, first
token, power), which a list of sentences cannot show; Slack draws one table per message, and
the card has only this one. Cells are plain text (``raw_text``: nothing in them is parsed),
clipped to a cell's length; figures are right-aligned. The power note under it says where the
watts come from.
"""

from __future__ import annotations

from slack_sdk.models.blocks import TableBlock

from bot.options import options_table
from bot.slack.cards import parts
from bot.slack.cards.words import Words
from bot.slack.escape import clip
from engine.result import Recommendation
from engine.wording import msg

__all__ = ["options_blocks"]

MAX_CELL = 120


def _cell(words: str) -> dict[str, str]:
    return {"type": "raw_text", "text": clip(words.strip() or "-", MAX_CELL)}


def options_blocks(rec: Recommendation, w: Words) -> list[parts.Payload]:
    """The heading, the table and its power note."""
    t = options_table(rec)
    rows = [[_cell(w.plain(c)) for c in t.columns]]
    rows += [[_cell(w.plain(c)) for c in row] for row in t.rows]
    settings = [{"align": "right"} if numeric else {"is_wrapped": True} for numeric in t.numeric]
    table = TableBlock(rows=rows, column_settings=settings).to_dict()
    return [parts.section(f"*{w.md(msg('options.heading'))}*"), table,
            parts.context(w.md(t.power_note))]
