"""The TrueType font the PDF brief is set in, and the characters it can draw.

Why DejaVu Sans: a PDF must embed a font that has every glyph French needs (é è ê à ç œ Œ
« », the narrow no-break space U+202F ``engine/units.py`` groups thousands with, the
no-break space before a colon) and the bar characters; DejaVu Sans has them all, and its
licence (Bitstream Vera terms, DejaVu changes in the public domain) allows redistribution.
Where it comes from, in order: matplotlib's bundled copy (``mpl-data/fonts/ttf``) when
matplotlib is installed (issue #12's charts bring it), found without importing matplotlib;
otherwise the copy vendored beside this module (``bot/brief/fonts/``, DejaVu 2.37, with its
``LICENSE``). Both are the same font, so a brief reads the same either way.

:func:`drawable` replaces what the font cannot draw (an emoji typed in the notes) with
U+FFFD before the text reaches fpdf2, which would otherwise log the missing characters:
typed text never reaches a log.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

VENDORED = Path(__file__).parent / "fonts"
REGULAR, BOLD = "DejaVuSans.ttf", "DejaVuSans-Bold.ttf"
REPLACEMENT = "\ufffd"


@dataclass(frozen=True)
class FontFiles:
    regular: Path
    bold: Path
    origin: Literal["matplotlib", "vendored"]


def _matplotlib_dir() -> Path | None:
    spec = importlib.util.find_spec("matplotlib")
    if spec is None or not spec.origin:
        return None
    return Path(spec.origin).parent / "mpl-data" / "fonts" / "ttf"


@cache
def font_files() -> FontFiles:
    """The regular and bold faces, matplotlib's first (see the module docstring)."""
    found = _matplotlib_dir()
    if found is not None and (found / REGULAR).is_file() and (found / BOLD).is_file():
        return FontFiles(found / REGULAR, found / BOLD, "matplotlib")
    return FontFiles(VENDORED / REGULAR, VENDORED / BOLD, "vendored")


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
