"""The quote brief: what sales files, forwards and quotes from, in Markdown and in PDF.

Its rooms: ``content.py`` (the brief as data: sections of messages, rows, charts; the
contact details a requester typed), ``build.py`` (a recommendation, its answers and the
contact -> a brief, internal or customer-safe), ``charts.py`` (the result's charts, the
images the Slack thread shows), and the renderers ``markdown.py`` and
``pdf.py`` (with ``fonts.py``, the font the PDF embeds). No Slack here: the Slack face
uploads what these produce (``bot/slack/flows/quote.py``, ``bot/slack/flows/export.py``).
The PDF renderer is imported only when a PDF is made, so fpdf2 is loaded on first use.
"""

from __future__ import annotations

from bot.brief.build import Requester, build_brief
from bot.brief.charts import brief_charts
from bot.brief.content import BUDGET_BANDS, Brief, BudgetBand, Chart, Contact, budget_words
from bot.brief.markdown import render_markdown

__all__ = ["BUDGET_BANDS", "Brief", "BudgetBand", "Chart", "Contact", "Requester",
           "brief_charts", "budget_words", "build_brief", "render_markdown"]
