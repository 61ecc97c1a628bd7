"""What a batch job does to each of its documents, when that sets its answers' length: a
translation writes as many tokens as it reads, a classification a label. The engine sizes
each kind from its own answer length (engine/data/work.toml); a summary, an extraction or a
task not named keeps a batch's.

Why its own reading: the verbs that say it ('translate', 'classer') also say the workload is
serving, and that reader takes them; this one only looks, so both read the same words.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from dialogue.understand.lexicon import terms

__all__ = ["TASKS", "task"]

#: each task the engine sizes on its own, with the words that name it
TASKS: dict[str, re.Pattern[str]] = {
    "translation": re.compile(rf"\b{terms('translating')}"),
    "classification": re.compile(rf"\b{terms('classifying')}\b"),
}


def task(folded: str, answers: Mapping[str, object]) -> str | None:
    """The one task a batch job's sentence names ('traduire nos 80 000 fiches', 'classify
    500k emails'); None without documents, or when it names several (a translation and a
    classification at once is neither's length)."""
    if "documents" not in answers:
        return None
    named = [name for name, rx in TASKS.items() if rx.search(folded)]
    return named[0] if len(named) == 1 else None
