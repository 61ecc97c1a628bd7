"""The quote brief as data: sections of messages, rows and charts, before any format.

Why a model between the recommendation and the documents: the brief exists as a Markdown
file and as a PDF (``bot/brief/markdown.py``, ``bot/brief/pdf.py``), for the quote channel
(internal details included) and for the requester's own copy (customer-safe). Building it
once, as typed data, means both formats say exactly the same things in the same order, and
a test can check what a brief holds (message ids, numbers) without reading a document. Every
sentence is an :class:`engine.wording.Message` rendered by a renderer with the faces'
catalog (``bot/wording.py``) in :attr:`Brief.lang`; every figure is a message parameter
formatted by ``engine/units.py``. What a person typed (the contact details) travels as
verbatim ``text`` messages and is made safe by each renderer for its format.

Charts travel in sections of kind ``charts`` (PNG images with their captions; page one
shows the load or training curve, ``bot/brief/summary.py``): the PDF embeds them and the
Markdown names them. The options side by side are a section of kind ``grid``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from engine.units import Lang
from engine.wording import Message, msg

#: Budget bands a requester picks from (euros; the vendor quotes in euros).
BudgetBand = Literal["under_50k", "50k_250k", "250k_1m", "over_1m", "undecided"]
BUDGET_BANDS: tuple[BudgetBand, ...] = ("under_50k", "50k_250k", "250k_1m", "over_1m",
                                        "undecided")
_BAND_BOUNDS: dict[BudgetBand, tuple[int, int]] = {
    "under_50k": (0, 50_000), "50k_250k": (50_000, 250_000), "250k_1m": (250_000, 1_000_000),
    "over_1m": (1_000_000, 0), "undecided": (0, 0)}

#: The longest text each contact field keeps (the modal enforces the same limits).
MAX_NAME = 100
MAX_EMAIL = 254  # RFC 5321's path limit
MAX_COMPANY = 120
MAX_TIMELINE = 100
MAX_NOTES = 1000

SectionKind = Literal["paragraphs", "bullets", "table", "definitions", "code", "charts", "grid"]
Audience = Literal["internal", "customer"]


def budget_words(band: BudgetBand) -> Message:
    """A budget band in words, its bounds formatted by ``engine/units.py`` (``{n:count}``)."""
    low, high = _BAND_BOUNDS[band]
    if band == "under_50k":
        return msg("brief.budget.under", high=high)
    if band == "over_1m":
        return msg("brief.budget.over", low=low)
    if band == "undecided":
        return msg("brief.budget.undecided")
    return msg("brief.budget.between", low=low, high=high)


class _Data(BaseModel):
    model_config = ConfigDict(frozen=True)


class Contact(_Data):
    """Who sales should contact, as the requester typed it (controls removed, trimmed)."""

    name: str = Field(min_length=1, max_length=MAX_NAME)
    email: str = Field(min_length=3, max_length=MAX_EMAIL)
    company: str = Field(default="", max_length=MAX_COMPANY)
    timeline: str = Field(default="", max_length=MAX_TIMELINE)
    budget: BudgetBand | None = None
    notes: str = Field(default="", max_length=MAX_NOTES)
    copy_requested: bool = Field(default=False, description="send the requester the brief")


class Chart(_Data):
    """An image to embed: a PNG, its caption, its width on the page, and what it shows (the
    engine's chart kinds: ``load``, ``memory``, ``training``; page one shows the load or
    training curve)."""

    png: bytes
    caption: Message
    width_mm: float = Field(default=170.0, gt=0)
    kind: str = "other"


class Row(_Data):
    """One line of a table or a definition list: a label, a value, an optional note (the
    third column of a table, or a second line under a definition)."""

    label: Message
    value: Message
    note: Message | None = None


class Section(_Data):
    """One part of the brief: a heading and what it holds, by kind."""

    id: str = Field(description="stable name: 'figures', 'math', 'contact', ...")
    heading: Message
    kind: SectionKind
    lines: list[Message] = Field(default_factory=list)
    rows: list[Row] = Field(default_factory=list)
    columns: list[Message] = Field(default_factory=list, description="a table's headings")
    charts: list[Chart] = Field(default_factory=list)
    grid: list[list[Message]] = Field(
        default_factory=list, description="a grid's rows of cells (``columns`` head them)")
    numeric: list[bool] = Field(default_factory=list, description="a grid's right-aligned columns")
    new_page: bool = Field(default=False, description="starts a new page (the appendix)")
    dense: bool = Field(default=False, description="small type, tight lines (page one)")


class Brief(_Data):
    """A whole brief: title, subtitle, the sections in order, a footer; one language."""

    lang: Lang
    audience: Audience
    title: Message
    subtitle: Message
    generated: Message
    sections: list[Section]
    footer: Message
    file_stem: str = Field(description="ASCII file name without extension")

    def section(self, ident: str) -> Section | None:
        return next((s for s in self.sections if s.id == ident), None)
