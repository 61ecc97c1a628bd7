"""The brief as a Markdown file: readable as plain text, rendered nicely where Markdown is.

Why escaping here: the brief quotes what a person typed (name, company, notes) and engine
messages that may name an unknown model as typed, and a Markdown viewer gives ``* _ [ ] < >
| ` ~`` and a leading ``#`` or ``-`` meaning. Every rendered sentence is stripped of control
characters (``bot/slack/escape.py``) and backslash-escaped, so a typed ``[click](http://…)``,
``<script>`` or ``# Title`` shows as the characters typed; only the renderer's own headings,
tables and emphasis are markup. Formulas go in fenced code blocks, whose fence is longer than
any run of backticks inside them, so nothing in them is interpreted at all.
"""

from __future__ import annotations

import re

from bot.brief.content import Brief, Row, Section
from bot.slack.escape import strip_controls
from bot.wording import catalog
from engine.units import Lang
from engine.wording import Message, msg

#: Inline markup: emphasis, code, links, HTML, tables, strike-through; ``&`` only where it
#: would start an entity (``&amp;``, ``&#60;``).
_INLINE = re.compile(r"([\\`*_\[\]<>|~]|&(?=#?\w+;))")
#: Block markers at a line's start: headings, list items, a setext underline.
_LINE_START = re.compile(r"^(\s*)(#{1,6}(?=\s|$)|[-+](?=\s|$)|\d{1,9}[.)](?=\s|$)|=+\s*$)",
                         re.MULTILINE)


def escape(words: str) -> str:
    """Plain words as inert Markdown (see the module docstring)."""
    out = _INLINE.sub(r"\\\1", strip_controls(words))
    return _LINE_START.sub(lambda m: m.group(1) + "\\" + m.group(2), out)


class _Writer:
    def __init__(self, lang: Lang) -> None:
        self.lang: Lang = lang
        self.out: list[str] = []

    def say(self, m: Message) -> str:
        return catalog().render(m, self.lang)

    def md(self, m: Message) -> str:
        return escape(self.say(m))

    def cell(self, m: Message | None) -> str:
        return "" if m is None else self.md(m).replace("\n", "<br>")

    def table(self, section: Section) -> None:
        three = any(r.note is not None for r in section.rows) or len(section.columns) == 3
        heads = [self.cell(c) for c in section.columns] or ["", ""]
        width = 3 if three else 2
        heads = (heads + [""] * width)[:width]
        self.out += ["| " + " | ".join(heads) + " |", "|" + " --- |" * width]
        for row in section.rows:
            cells = [self.cell(row.label), self.cell(row.value)]
            if three:
                cells.append(self.cell(row.note))
            self.out.append("| " + " | ".join(cells) + " |")

    def grid(self, section: Section) -> None:
        width = len(section.grid[0]) if section.grid else len(section.columns)
        heads = [self.cell(c) for c in section.columns] or [""] * width
        marks = [" ---: |" if right else " --- |" for right in section.numeric[:width]]
        marks += [" --- |"] * (width - len(marks))
        self.out += ["| " + " | ".join(heads) + " |", "|" + "".join(marks)]
        self.out += ["| " + " | ".join(self.cell(c) for c in cells) + " |"
                     for cells in section.grid]
        self.out += [""] + [f"_{self.md(line)}_" for line in section.lines]

    def definitions(self, rows: list[Row]) -> None:
        for row in rows:
            self.out.append(f"**{self.md(row.label)}**  ")
            self.out.append(self.md(row.value) + ("  " if row.note is not None else ""))
            if row.note is not None:
                self.out.append(f"_{self.md(row.note)}_")
            self.out.append("")

    def code(self, lines: list[Message]) -> None:
        body = [strip_controls(self.say(m)) for m in lines]
        longest = max((len(run) for b in body for run in re.findall(r"`+", b)), default=0)
        fence = "`" * max(3, longest + 1)
        self.out += [fence, *body, fence]

    def section(self, s: Section) -> None:
        if s.new_page:
            self.out += ["---", ""]
        self.out += [f"## {self.md(s.heading)}", ""]
        if s.kind == "paragraphs":
            for line in s.lines:
                self.out += [self.md(line), ""]
            return
        if s.kind == "bullets":
            self.out += [f"- {self.md(line)}" for line in s.lines]
        elif s.kind == "table":
            self.table(s)
        elif s.kind == "definitions":
            self.definitions(s.rows)
            return
        elif s.kind == "code":
            self.code(s.lines)
        elif s.kind == "grid":
            self.grid(s)
        elif s.kind == "charts":
            self.out += [f"- {self.md(msg('brief.chart_in_pdf', caption=c.caption))}"
                         for c in s.charts]
        self.out.append("")


def render_markdown(brief: Brief) -> str:
    """The whole brief as Markdown text (UTF-8 when uploaded)."""
    w = _Writer(brief.lang)
    w.out += [f"# {w.md(brief.title)}", "", f"**{w.md(brief.subtitle)}**", "",
              f"_{w.md(brief.generated)}_", ""]
    for section in brief.sections:
        w.section(section)
    w.out += ["---", "", f"_{w.md(brief.footer)}_", ""]
    return "\n".join(w.out)
