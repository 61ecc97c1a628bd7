"""A GPU the catalog does not hold, named where a GPU goes ('on 8x B300', 'sur des MI300X').

Why: :func:`dialogue.understand.gpus.find_gpu` takes exact catalog names only, so an
unknown part was left among the words not used and the card was sized on the default GPU,
a question nobody asked. Named where only hardware goes (after a count and 'x', or after
'on' / 'sur' and the like) and shaped like a part number (letters then digits: B300,
MI300X, H20, GB200), it is refused by name with the nearest parts the catalog holds, and
the GPU question is asked before any card (``dialogue/flow.py``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from dialogue.errors import ParseError
from dialogue.readings import Refusal
from dialogue.understand.gpus import gpu
from dialogue.understand.lexicon import terms

__all__ = ["refuse_unknown_gpu"]

#: A part number: one to three letters, two to four digits, an optional letter suffix; a
#: model size ('70b') starts with its digits and is not one.
_PART = r"[a-z]{1,3}\d{2,4}[a-z]?"
_WHERE = re.compile(
    rf"(?:(?<= )\d+\s?x\s?|(?<= ){terms('on_with')}(?: {terms('on_with_a')})? )"
    rf"(?P<part>{_PART})s?(?= )")


def refuse_unknown_gpu(rest: str, answers: Mapping[str, object], refusals: list[Refusal],
                       refused: dict[str, Refusal]) -> str:
    """``rest`` without the first unknown part named where a GPU goes, its refusal added
    to ``refusals`` and to ``refused`` (as the GPU's); ``rest`` as it was when a GPU was
    found, or no unknown part is named."""
    if "gpu" in answers:
        return rest
    for m in _WHERE.finditer(rest):
        try:
            gpu(m["part"])
        except ParseError as exc:
            refusals.append(exc.refusal)
            refused["gpu"] = exc.refusal
            return rest[: m.start()] + " | " + rest[m.end():]
    return rest
