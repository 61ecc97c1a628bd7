"""Yes, no, and the words that turn one into the other, in English and French.

A consent the bot acts on (INT4 weights lower quality) must never be read from a refusal:
"avoid int4", "no, keep FP8", "int4 pas acceptable", "sans int4" are all no, whatever
positive word they also hold. So a negation anywhere wins over a yes, and a text with
neither is not an answer (the question is asked again) rather than a guess.

This is the room for meaning, not keywords (issue #10: questions such as "what is int4?"
read as a request for help, corrections such as "sorry, 128"): it starts with polarity.
"""

from __future__ import annotations

import re

from dialogue.errors import ParseError
from dialogue.understand.text import fold, shown
from engine.wording import msg

YES = frozenset({
    "yes", "y", "yeah", "yep", "yup", "ok", "okay", "sure", "fine", "acceptable", "true",
    "allowed", "good", "go", "agreed", "absolutely", "please", "int4",
    "oui", "ouais", "d'accord", "dac", "accord", "volontiers", "acceptee", "accepte",
    "parfait", "bien",
})
NEGATIONS = frozenset({
    "no", "n", "nope", "nah", "not", "never", "don't", "dont", "unacceptable", "false",
    "without", "avoid", "rather", "refuse", "keep",
    "non", "pas", "ne", "jamais", "sans", "eviter", "evitons", "inacceptable", "refus",
    "garder", "gardons", "plutot",
})
_WORD = re.compile(r"[a-z0-9']+")
#: A question about the question ("what is int4?", "c'est quoi int4 ?") is never consent.
_QUESTION = re.compile(r"\?\s*$|^(?:what|why|how|is|does|do|which|c'est quoi|qu'est-ce"
                       r"|pourquoi|comment|quel|quelle|est-ce)\b")


def polarity(text: str) -> bool | None:
    """True for a yes, False for a no (a negation anywhere wins), None for neither, and
    None for a question, whatever words it holds (reading it as help is issue #10's)."""
    folded = fold(text)
    if _QUESTION.search(folded):
        return None
    found = {w.strip("'") for w in _WORD.findall(folded)}
    if found & NEGATIONS:
        return False
    if found & YES:
        return True
    return None


def yes_no(text: str) -> bool:
    answer = polarity(text)
    if answer is None:
        raise ParseError(msg("dialogue.error.yes_no", text=shown(text)))
    return answer
