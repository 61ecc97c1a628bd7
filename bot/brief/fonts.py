"""The TrueType font the PDF brief is set in, and the characters it can draw.

Why DejaVu Sans: a PDF must embed a font that has every glyph French needs (é è ê à ç œ Œ
« », the narrow no-break space U+202F ``engine/units.py`` groups thousands with, the
no-break space before a colon) and the bar characters; DejaVu Sans has them all, and its
licence (Bitstream Vera terms, DejaVu changes in the public domain) allows redistribution.
Where it comes from: matplotlib's bundled copy (``mpl-data/fonts/ttf``, with its
``LICENSE_DEJAVU``), matplotlib being a dependency for the charts, which are
set in the same font: the brief and the charts it embeds read alike. It is found without
importing matplotlib (a brief does not load the plotting library it does not draw with).

:func:`drawable` replaces what the font cannot draw (an emoji typed in the notes) with
U+FFFD before the text reaches fpdf2, which would otherwise log the missing characters:
typed text never reaches a log.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from functools import cache
from pathlib import Path

REGULAR, BOLD = "DejaVuSans.ttf", "DejaVuSans-Bold.ttf"
LICENSE = "LICENSE_DEJAVU"
REPLACEMENT = "\ufffd"


class FontMissing(RuntimeError):
    """matplotlib's DejaVu Sans is not installed (matplotlib is a dependency)."""


@dataclass(frozen=True)
class FontFiles:
    regular: Path
    bold: Path
    license: Path


def fonts_dir() -> Path:
    """matplotlib's bundled TrueType folder, found without importing matplotlib."""
    spec = importlib.util.find_spec("matplotlib")
    if spec is None or not spec.origin:
        raise FontMissing("matplotlib is not installed: the brief's font comes with it")
    return Path(spec.origin).parent / "mpl-data" / "fonts" / "ttf"


@cache
def font_files() -> FontFiles:
    """The regular and bold faces of DejaVu Sans, and their licence."""
    found = fonts_dir()
    files = FontFiles(found / REGULAR, found / BOLD, found / LICENSE)
    if not (files.regular.is_file() and files.bold.is_file()):
        raise FontMissing(f"no DejaVu Sans in {found}")
    return files


@cache
def coverage() -> frozenset[int]:
    """Code points both faces can draw."""
    from fontTools.ttLib import TTFont  # type: ignore[import-untyped]  # fpdf2's dependency

    files = font_files()
    maps = []
    for path in (files.regular, files.bold):
        with TTFont(path, lazy=True) as font:
            maps.append(set(font.getBestCmap()))
    return frozenset(maps[0] & maps[1])


def drawable(text: str) -> str:
    """``text`` with every character the font lacks replaced by U+FFFD (tabs become spaces)."""
    have = coverage()
    return "".join(c if c == "\n" or ord(c) in have else
                   " " if c == "\t" else REPLACEMENT for c in text)
