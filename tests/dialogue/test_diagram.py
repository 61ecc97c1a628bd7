"""docs/dialogue.md is generated from the machine; it must not drift from it."""

from __future__ import annotations

from pathlib import Path

from dialogue.diagram import render
from dialogue.machine import MACHINE, STATES

DOC = Path(__file__).resolve().parents[2] / "docs" / "dialogue.md"


def test_docs_match_the_machine() -> None:
    assert DOC.read_text() == render(), "docs/dialogue.md is stale: run `make docs`"


def test_diagram_names_every_state_and_event() -> None:
    text = render()
    assert "stateDiagram-v2" in text
    for state in STATES:
        assert f" as {state}" in text
    for event in MACHINE.events:
        assert f"`{event}`" in text
