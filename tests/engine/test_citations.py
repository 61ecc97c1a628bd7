"""The engine cites only what a clone has: docs in this repository, by section.

Every reference the engine's code and data make to the research notes points at a section of
docs/engine-notes.md that exists; none points outside the repository (../shared, /work/shared,
notes/engine.md), where a clone would find nothing.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOTES = ROOT / "docs" / "engine-notes.md"
OUTSIDE = re.compile(r"\.\./shared|/work/shared|\bengine\.md\b")
CITE = re.compile(r"docs/engine-notes\.md#([a-z0-9-]+)")


def _anchor(title: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^a-z0-9 -]", "", title.strip().lower()).replace(" ", "-")


def _files() -> list[Path]:
    files = [*(ROOT / "engine").rglob("*.py"), *(ROOT / "engine" / "data").rglob("*.toml")]
    return sorted(files)


def test_no_reference_leaves_the_repository() -> None:
    bad = [f"{p.relative_to(ROOT)}:{n}" for p in _files()
           for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
           if OUTSIDE.search(line.replace("engine-notes.md", ""))]
    assert bad == []


def test_every_cited_section_exists() -> None:
    headings = {_anchor(line.lstrip("#")) for line in NOTES.read_text(encoding="utf-8").splitlines()
                if line.startswith("#")}
    cited = {m for p in _files() for m in CITE.findall(p.read_text(encoding="utf-8"))}
    assert cited, "the engine cites its notes"
    assert cited - headings == set()


def test_the_notes_keep_their_unconfirmed_markers() -> None:
    text = NOTES.read_text(encoding="utf-8")
    assert text.count("UNCONFIRMED") >= 10
    assert "## UNCONFIRMED items" in text
