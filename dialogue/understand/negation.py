"""Meaning, not keywords: yes and no, what a negation covers, questions, and corrections.

A consent the bot acts on (INT4 weights lower quality) must never be read from a refusal:
"avoid int4", "no, keep FP8", "int4 pas acceptable", "sans int4" are all no, whatever
positive word they also hold. So a negation anywhere wins over a yes, and a text with
neither is not an answer (the question is asked again) rather than a guess.

The same words decide more than yes/no:

* :func:`negated`: whether a thing named in a sentence is refused ("not on H100", "pas de
  LoRA", "without INT4"): a recogniser skips it instead of taking it as the answer;
* :func:`is_question`: "what is int4?", "why?", "c'est quoi le contexte ?" ask for help and
  change nothing, whatever answer-like words they hold;
* :func:`corrected`: "64 users, sorry 128 users", "plutôt 128", "enfin 128": the last value
  said is the one meant (:data:`CORRECTION` marks where a person corrects themselves).
"""

from __future__ import annotations

import re

from dialogue.errors import ParseError
from dialogue.understand.lexicon import alternatives, compiled, terms
from dialogue.understand.numbers import whole_groups
from dialogue.understand.text import fold, has_digit, shown
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

# -- questions -----------------------------------------------------------------------------

_QUESTION = re.compile(rf"^(?:{alternatives(lambda b: b.asking.questions)})\b")
#: Asking about a thing rather than proposing it: "what is int4?", "c'est quoi le ctx".
_ABOUT = re.compile(rf"^(?:{alternatives(lambda b: b.asking.about)})\b")
#: A plain yes or no asked back ('ok?', 'oui ?') is a tentative answer, not a question.
_PLAIN = frozenset({"yes", "no", "ok", "okay", "sure", "oui", "non", "d'accord"})


def is_question(text: str) -> bool:
    """A question about the question, not an answer: it opens with an interrogative word, or
    ends with '?' and holds one ('int4?' alone is a question too; '8k?' is a tentative
    answer, and 'what about 128?' a suggestion)."""
    t = fold(text).strip()
    if not t or suggests(t):
        return False
    if _QUESTION.match(t):
        return True
    if not t.endswith("?"):
        return False
    bare = t.rstrip("? ").strip()
    return not any(c.isdigit() for c in bare) and bare not in _PLAIN


def plain(text: str) -> bool:
    """A plain yes or no, maybe asked back ('ok?', 'oui ?')."""
    return fold(text).rstrip("?! .").strip() in _PLAIN


def asks_about(text: str) -> bool:
    """'what is X?', 'why ...', 'c'est quoi X': a request for an explanation, never an
    answer even where a sentence is read for answers (the model question)."""
    t = fold(text).strip()
    return not suggests(t) and _ABOUT.match(t) is not None


def asks_why(text: str) -> bool:
    """'why 2 nodes?', 'pourquoi autant de nœuds ?': a question about the card's reason."""
    return compiled().why.match(fold(text)) is not None


def suggests(folded: str) -> bool:
    """A sentence that proposes an answer, phrased as a question ('what about 128 users?',
    'what if we only have 25GbE', 'et si 64 ?'): the lexicon's leads."""
    return compiled().suggestion.match(folded) is not None


# -- negation scope ------------------------------------------------------------------------

#: Words that refuse what follows them, up to three words on ("not on H100s", "pas de
#: LoRA", "rather not use int4", "we don't want a full fine-tune"): the lexicon's.
_REFUSING = rf"(?:{alternatives(lambda b: b.negation.refusing)})"
_NEGATOR = re.compile(
    rf"(?:^|[\s,;:(]){_REFUSING}"
    rf"(?:\s+(?:{alternatives(lambda b: b.negation.filler)})\b)*\s*$"
)
_ANY_REFUSING = re.compile(rf"(?:^|[\s,;:(]){_REFUSING}")
#: a 'why' just before a refusing word: 'why not 32k?', 'pourquoi pas H200 ?' refuse nothing
_WHY_BEFORE = re.compile(rf"(?:^|\s)(?:{alternatives(lambda b: b.asking.why)})\s*$")


def may_refuse(folded: str) -> bool:
    """Whether a folded sentence holds a word that refuses (a cheap test before
    :func:`refusal_start` is asked of each thing it names)."""
    return _ANY_REFUSING.search(folded) is not None


def negated(folded: str, start: int) -> bool:
    """Whether the words just before ``start`` in a folded sentence refuse what starts
    there: 'not on h100' -> True for 'h100'; 'h100, not a100' -> False for 'h100'."""
    return refusal_start(folded, start) is not None


def refusal_start(folded: str, start: int) -> int | None:
    """Where the words refusing what starts at ``start`` begin ('but not on h100': at
    'not'), or None when nothing just before refuses it."""
    lo = max(0, start - 40)
    cut = max(folded.rfind(",", lo, start), folded.rfind(";", lo, start))
    lo = cut + 1 if cut >= 0 else lo
    before = folded[lo:start]
    m = _NEGATOR.search(before)
    if m is None or _WHY_BEFORE.search(before, 0, m.start() + 1):  # 'why not 32k?' refuses none
        return None
    return lo + m.start() + (1 if before[m.start()] in " \t\n,;:(" else 0)


# -- corrections ---------------------------------------------------------------------------

#: Where a person corrects what they just said: the value after it is the one meant.
CORRECTION = re.compile(
    rf"(?:^|[\s,;:.!(-]){terms('correction')}(?=[\s,;:.!)-]|$)"
)
#: Where a person corrects one value by another of its kind: the corrections, and the bare
#: noes that mean one only there ('3 epochs, non 5 epochs', '64 users, no, 128').
REVALUE = re.compile(
    rf"(?:^|[\s,;:.!(-])(?:{terms('correction')}|{terms('revalue')})(?=[\s,;:.!)-]|$)"
)


#: A count corrected by a bare number ('64 users, pardon 128', '120 concurrent users at peak,
#: actually make that 150', '64k context (sorry, 32k is enough)', '40,000 patents - sorry,
#: 400,000 -') or by a number with the same word again ('2k tokens, sorry, 1,500 tokens on
#: average', '300 collaborateurs, non, à 350 collaborateurs'): the new number with the old
#: one's words. A corrected number is whole ('1,500' is never '1' before ',500'), and a bare
#: one ends its phrase (a stop, a dash, a clause's lead: 'make that 50 once the team joins').
_CORRECTING = (rf"\s*(?:[,;?!(\u2013\u2014-]|\.{{1,3}})?\s*\(?\s*"
               rf"(?:(?:{terms('correction')}|{terms('revalue')}),?\s+)+"
               rf"(?:{terms('corrected_lead')}\s+)?")
_ENDS = rf"(?=\s*(?:[,;.)]|$)|\s+[\u2013\u2014-]\s|\s+{terms('clause_lead')}\b)"
_CLOSING = r"(?:\s+[\u2013\u2014-](?=\s))?"  # the dash that closes an aside ('- sorry, 25 -')
_NEW = r"(?P<b>\d[\d.,]*[km]?)(?![\d.,]*\d)"
_RESAID = re.compile(
    rf"(?<![\w.])\d[\d.,]*[km]?\s+(?P<unit>(?P<u1>[a-z][\w/'-]*)(?:\s+[a-z][\w/'-]*){{0,3}}?)"
    rf"{_CORRECTING}{_NEW}(?:\s+(?P=u1)\b|(?:\s+{terms('enough')})?{_ENDS}{_CLOSING})")
#: A bare number corrected by another ('context de 8k, enfin plutôt 16k parce que'): the new.
_RESAID_BARE = re.compile(
    rf"(?<![\w.])\d[\d.,]*[km]?(?=[\s,(.-]){_CORRECTING}{_NEW}"
    rf"(?:\s+{terms('enough')})?{_ENDS}{_CLOSING}")


def resaid(t: str) -> str:
    """Each value corrected in the sentence by its new one."""
    if REVALUE.search(t) is None:  # the cheap test: no word that corrects
        return t
    t = whole_groups(t)  # '8 000 tokens, pardon, 16 000 tokens': whole numbers
    t = _RESAID.sub(lambda m: f"{m['b']} {m['unit']}", t)  # '64 users, sorry 128': 128 users
    return _RESAID_BARE.sub(lambda m: m["b"], t)  # '8k, enfin plutôt 16k': 16k


def _cut(folded: str, rx: re.Pattern[str]) -> list[str]:
    """``folded`` in the pieces ``rx`` separates, in order, without the separators."""
    starts = [0, *(m.end() for m in rx.finditer(folded))]
    stops = [*(m.start() for m in rx.finditer(folded)), len(folded)]
    pieces = (folded[a:b].strip(" ,;:.!-") for a, b in zip(starts, stops, strict=True))
    return [p for p in pieces if p]


def corrected(text: str) -> list[str]:
    """The readings of a text that corrects itself, the last correction first: '64 users,
    sorry 128 users' -> ['128 users', '64 users']. A bare no between two values corrects
    too ('64, non, 128 en fait'). A text without a correction is itself."""
    folded = fold(text)
    if CORRECTION.search(folded) is None and REVALUE.search(folded) is None:
        return [text]
    parts: list[str] = []
    for piece in _cut(folded, CORRECTION):
        values = _cut(piece, REVALUE)  # 'no' separates only values ('no idea' is none)
        parts += values if len(values) > 1 and all(map(has_digit, values)) else [piece]
    return list(reversed(parts)) or [text]


# -- yes and no ----------------------------------------------------------------------------


def polarity(text: str) -> bool | None:
    """True for a yes, False for a no (a negation anywhere wins), None for neither, and
    None for a question, whatever words it holds (a question is help, not consent)."""
    folded = fold(text)
    if is_question(text) or folded.endswith("?"):
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
