"""The charts a brief embeds: the same images the Slack thread shows (``bot/charts.py``).

Why a room of the brief: a brief is built for a result the person already has on screen, and
its charts are the ones drawn for that result (kept per conversation version and language),
as :class:`~bot.brief.content.Chart` images with the engine's captions. A result whose charts
cannot be drawn gets a brief without them: the brief itself, its numbers and its text, is
never held back by a picture (the failure is logged by its kind, ``bot/charts.py``).
"""

from __future__ import annotations

from bot.brief.content import Chart
from bot.charts import ChartsFailed, charts_of
from dialogue import Reply
from engine.units import Lang

__all__ = ["brief_charts"]

#: Width of a chart on the A4 page (the text width: 210 mm less 2 x 18 mm margins).
WIDTH_MM = 170.0


def brief_charts(reply: Reply, lang: Lang) -> list[Chart]:
    """The charts of ``reply``'s result for a brief in ``lang``; none when they cannot be
    drawn."""
    try:
        drawn = charts_of(reply, lang)
    except ChartsFailed:
        return []
    return [Chart(png=image.png, caption=image.caption, width_mm=WIDTH_MM, kind=image.kind)
            for image in drawn.images]
