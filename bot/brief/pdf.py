"""The brief as a PDF (A4), drawn with fpdf2 in DejaVu Sans.

Why fpdf2: pure Python (no system libraries, no browser), maintained, embeds TrueType fonts
as subsets with a ToUnicode map (so the text can be searched, copied and extracted, which
the tests do with pypdf), draws tables, and embeds PNG images for the charts. Why no
Markdown or HTML step in between: the brief is already structured data
(``bot/brief/content.py``), so each section kind maps to one drawing call and nothing a
person typed can be read as markup: fpdf2's own ``markdown=`` option stays off everywhere.

Text is rendered with the faces' catalog (``bot/wording.py``) in the brief's language,
stripped of control characters (``bot/slack/escape.py``) and limited to what the font can
draw (``bot/brief/fonts.py``).
"""

from __future__ import annotations

import io
from datetime import UTC, datetime

from fpdf import FPDF
from fpdf.fonts import FontFace

from bot.brief.content import Brief, Chart, Row, Section
from bot.brief.fonts import drawable, font_files
from bot.slack.escape import strip_controls
from bot.wording import catalog
from engine.wording import Message, msg

FAMILY = "DejaVu"
BODY, SMALL, CODE, GRID = 9.5, 7.5, 8.5, 7.5
LINE = 5.0
GREY = (95, 95, 95)
FILL = (242, 242, 242)
KEEP_WITH_NEXT_MM = 28.0
CHART_KEEP_MM = 105.0  # a chart's heading starts a page unless the chart fits under it
_WIDTHS = {2: (0.42, 0.58), 3: (0.36, 0.40, 0.24)}


class _Doc(FPDF):
    """An A4 document with the brief's page numbers in its footer."""

    def __init__(self, brief: Brief) -> None:
        super().__init__(orientation="portrait", unit="mm", format="A4")
        self.brief = brief

    def say(self, m: Message) -> str:
        return drawable(strip_controls(catalog().render(m, self.brief.lang)))

    def footer(self) -> None:
        self.set_y(-12)
        self.set_font(FAMILY, "", 7.5)
        self.set_text_color(*GREY)
        self.cell(0, 5, self.say(msg("brief.page", n=self.page_no(),
                                     total=self.str_alias_nb_pages)), align="C")
        self.set_text_color(0, 0, 0)


def _text(pdf: _Doc, words: str, *, size: float = BODY, bold: bool = False,
          grey: bool = False, fill: bool = False, height: float = LINE) -> None:
    pdf.set_font(FAMILY, "B" if bold else "", size)
    if grey:
        pdf.set_text_color(*GREY)
    pdf.multi_cell(0, height, words, align="L", fill=fill, new_x="LMARGIN", new_y="NEXT")
    pdf.set_text_color(0, 0, 0)


def _heading(pdf: _Doc, s: Section) -> None:
    keep = CHART_KEEP_MM if s.kind == "charts" else KEEP_WITH_NEXT_MM
    if s.new_page or pdf.get_y() > pdf.page_break_trigger - keep:
        pdf.add_page()
    pdf.ln(2 if s.dense else 3)
    _text(pdf, pdf.say(s.heading), size=11.5 if s.dense else 12, bold=True,
          height=6 if s.dense else 7)
    y = pdf.get_y()
    pdf.set_draw_color(180, 180, 180)
    pdf.line(pdf.l_margin, y, pdf.w - pdf.r_margin, y)
    pdf.ln(1.5 if s.dense else 2)


def _table(pdf: _Doc, s: Section) -> None:
    three = any(r.note is not None for r in s.rows) or len(s.columns) == 3
    width = 3 if three else 2
    pdf.set_font(FAMILY, "", BODY)
    with pdf.table(col_widths=_WIDTHS[width], text_align="LEFT", line_height=LINE,
                   first_row_as_headings=bool(s.columns), width=pdf.epw,
                   headings_style=FontFace(emphasis="BOLD", fill_color=FILL),
                   padding=1.2) as table:
        if s.columns:
            heads = [pdf.say(c) for c in s.columns] + [""] * width
            row = table.row()
            for head in heads[:width]:
                row.cell(head)
        for r in s.rows:
            row = table.row()
            row.cell(pdf.say(r.label))
            row.cell(pdf.say(r.value))
            if three:
                row.cell(pdf.say(r.note) if r.note is not None else "")


def _grid(pdf: _Doc, s: Section) -> None:
    """A table of many columns (the options side by side, page one's figures): small type,
    names and verdicts wider than figures, figures right-aligned; its note under it."""
    n = len(s.grid[0]) if s.grid else len(s.columns)
    widths = ((2.6, *(0.8 if i < 2 else 1.1 for i in range(n - 2)), 1.9) if s.columns
              else tuple(1.8 if right else 2.0 for right in s.numeric))
    aligns = tuple("RIGHT" if right else "LEFT" for right in s.numeric)
    pdf.set_font(FAMILY, "", GRID if s.columns else BODY - 1)
    with pdf.table(col_widths=widths, text_align=aligns or "LEFT", line_height=3.9,
                   width=pdf.epw, first_row_as_headings=bool(s.columns),
                   headings_style=FontFace(emphasis="BOLD", fill_color=FILL),
                   padding=0.9) as table:
        if s.columns:
            head = table.row()
            for c in s.columns:
                head.cell(pdf.say(c))
        for cells in s.grid:
            row = table.row()
            for c in cells:
                row.cell(pdf.say(c))
    pdf.ln(1)
    for line in s.lines:
        _text(pdf, pdf.say(line), size=SMALL, grey=True, height=3.6)


def _definitions(pdf: _Doc, rows: list[Row]) -> None:
    for r in rows:
        _text(pdf, pdf.say(r.label), bold=True)
        _text(pdf, pdf.say(r.value))
        if r.note is not None:
            _text(pdf, pdf.say(r.note), size=SMALL, grey=True)
        pdf.ln(1.5)


def _charts(pdf: _Doc, charts: list[Chart], captions: bool = True) -> None:
    for chart in charts:
        pdf.image(io.BytesIO(chart.png), w=min(chart.width_mm, pdf.epw))
        if captions:
            _text(pdf, pdf.say(chart.caption), size=SMALL, grey=True)
        pdf.ln(2)


def _section(pdf: _Doc, s: Section) -> None:
    _heading(pdf, s)
    if s.kind == "paragraphs":
        for line in s.lines:
            _text(pdf, pdf.say(line))
            pdf.ln(0.8)
    elif s.kind == "bullets":
        for line in s.lines:
            if s.dense:
                _text(pdf, "•  " + pdf.say(line), size=BODY - 1, height=4.3)
            else:
                _text(pdf, "•  " + pdf.say(line))
                pdf.ln(0.8)
    elif s.kind == "table":
        _table(pdf, s)
    elif s.kind == "definitions":
        _definitions(pdf, s.rows)
    elif s.kind == "code":
        pdf.set_fill_color(*FILL)
        for line in s.lines:
            _text(pdf, pdf.say(line), size=CODE, fill=True, height=4.4)
    elif s.kind == "charts":
        _charts(pdf, s.charts, captions=not s.dense)  # page one's heading says what it is
    elif s.kind == "grid":
        _grid(pdf, s)


def render_pdf(brief: Brief, *, at: float | None = None) -> bytes:
    """The whole brief as PDF bytes; ``at`` fixes the creation date (tests, reproducible)."""
    files = font_files()
    pdf = _Doc(brief)
    pdf.add_font(FAMILY, "", str(files.regular))
    pdf.add_font(FAMILY, "B", str(files.bold))
    pdf.set_margins(18, 16, 18)
    pdf.set_auto_page_break(True, margin=15)
    pdf.set_lang(brief.lang)
    pdf.set_title(pdf.say(brief.title))
    pdf.set_subject(pdf.say(brief.subtitle))
    pdf.set_author("GPU Sizing")
    pdf.set_creator("gpu-sizing-bot")
    if at is not None:
        pdf.set_creation_date(datetime.fromtimestamp(at, tz=UTC))
    pdf.add_page()
    _text(pdf, pdf.say(brief.title), size=16, bold=True, height=8)
    _text(pdf, pdf.say(brief.subtitle), size=11, bold=True, height=6)
    _text(pdf, pdf.say(brief.generated), size=SMALL, grey=True)
    for section in brief.sections:
        _section(pdf, section)
    pdf.ln(4)
    _text(pdf, pdf.say(brief.footer), size=SMALL, grey=True)
    return bytes(pdf.output())
