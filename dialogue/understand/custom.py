"""A model outside the catalog, described by its parameter counts: "1T total, 32B active MoE",
"a 70B MoE with 12B active", "30B-A3B", "a 30B dense model", "1000 milliards de paramètres
dont 32 milliards actifs".

Why a room of its own: an MoE given by its counts must never be sized as a dense model of its
total ("1T total, 32B active" sized as a 1000B dense model gives 1.47 TB of KV
cache), and a size alone ("34b") says nothing of the architecture. So:

* total and active counts (or an ``A<n>B`` suffix) are an MoE: both are returned;
* "MoE" with a total and no active count is refused by name (the active count decides the
  compute: it is asked, never guessed);
* a count with a word that says it is one ("params", "dense", "billion", "model") is a dense
  model of that size; a bare size is not read here (the caller confirms it).

Counts are decimal billions (``engine.units``: ``1T`` = 1000B, French ``Md``/``milliards``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dialogue.errors import ParseError
from dialogue.understand.lexicon import terms
from dialogue.understand.text import shown, words
from engine.catalog import catalog
from engine.catalog.names import known_word
from engine.units import NUMBER, Kind, Lang, quantity
from engine.wording import msg

PARAMS_MAX_B = 100_000.0  # the engine's bound (SizingRequest.params_b)
_SCALE = terms("big_scales")


def _count(name: str) -> str:
    return rf"(?P<{name}>{NUMBER}\s*{_SCALE})"


_MOE_WORD = terms("moe")
_TOTAL_WORD = terms("total_params")
_ACTIVE_WORD = terms("active_params")
_FILL = rf"(?:\s+{terms('params_fill')})*"

_PATTERNS = [
    # '1T total, 32B active', '671b total / 37b active', '1000 milliards dont 32 actifs'
    # ('1T total params, 32B active': the params word after 'total' too)
    re.compile(_count("total") + _FILL + rf"\s*(?:{_TOTAL_WORD})?{_FILL}\s*(?:{_MOE_WORD})?"
               rf"[\s,;/]*{terms('and_with')}?\s*"
               + _count("active") + _FILL + rf"\s*{_ACTIVE_WORD}(?:\s*{_MOE_WORD})?"),
    # '32B active out of 1T', '32B actifs sur 1T'
    re.compile(_count("active") + _FILL + rf"\s*{_ACTIVE_WORD}\s*{terms('out_of')}"
               r"\s*(?:a\s+|un\s+)?" + _count("total")),
    # '30B-A3B', 'a 235b a22b model' (not inside a name: 'qwen3-30b-a3b' is the catalog's)
    re.compile(rf"(?:^|(?<=[\s,;(]))(?P<total>{NUMBER}\s*b)[\s-]*a(?P<active>{NUMBER}\s*b)\b"),
]
_MOE = re.compile(rf"\b{_MOE_WORD}\b")
_ACTIVE_CUES = ("activ", "actif", "per token", "par token", "par jeton")
_MOE_CUES = ("moe", "mixture", "sparse", "expert")
_DENSE_CUES = ("param", "dense", "model", "modele", "llm")
_DENSE_WORDS = frozenset({"params", "param", "parameters", "parameter", "parametres",
                          "parametre", "dense", "model", "modele", "llm", "billion", "billions",
                          "milliard", "milliards", "million", "millions", "trillion"})
_FILLER = frozenset({"a", "an", "un", "une", "our", "own", "notre", "nos", "custom", "dense",
                     "model", "modele", "llm", "with", "de", "d", "of", "params", "param",
                     "parameters", "parameter", "parametres", "parametre", "total", "maison",
                     "propre", "in", "house", "in-house", "fine-tuned", "internal", "interne"})


@dataclass(frozen=True)
class Counts:
    """A model known by its counts: ``total`` billions, and ``active`` for an MoE."""

    total: float
    active: float | None = None


def _billions(text: str, lang: Lang) -> float | None:
    q = quantity(text, Kind.PARAMS, lang)
    if q is None or q[1] or q[0] <= 0:
        return None
    return q[0] / 1e9


def counts(text: str, lang: Lang = "en") -> Counts | None:
    """The counts a text gives, or None when it gives none (see the module doc). Raises a
    ParseError for an MoE without its active count, or counts the engine cannot take."""
    t = words(text).replace("'", "' ").replace("' ", "'")
    for rx in _PATTERNS:
        m = rx.search(t)
        if m is None:
            continue
        total, active = _billions(m["total"], lang), _billions(m["active"], lang)
        if total is None or active is None:
            continue
        if not 0 < active <= total <= PARAMS_MAX_B:
            raise ParseError(msg("dialogue.error.moe_counts", text=shown(text)))
        return Counts(total, active)
    if _MOE.search(t):
        total = _first_count(t, lang)
        if total is not None:
            raise ParseError(msg("dialogue.error.moe_active", total=total * 1e9))
        return None
    return _dense(t, lang)


_DENSE_IN_SENTENCE = [
    re.compile(rf"\b{terms('model_word')}\s+(?:dense\s+)?(?:de\s+|of\s+)?" + _count("total")
               + rf"(?:\s+(?:de\s+|d')?{terms('params')})?\b"),
    # 'dense 30B', 'un modèle maison, dense 30B': the architecture said before the size
    re.compile(r"\bdense\s+" + _count("total") + rf"(?:\s+(?:de\s+|of\s+)?{terms('params')})?\b"),
    re.compile(_count("total") + rf"[\s-]*(?:(?:de\s+|of\s+)?{terms('params')}"
               rf"|dense(?:\s+{terms('model_word')})?|(?:parameter|param)\s+(?:dense\s+)?model)\b"),
]


def find(folded: str, lang: Lang = "en") -> tuple[Counts, tuple[int, int]] | None:
    """The counts a sentence gives and where (on folded text, as the opening reads it):
    an MoE's total and active, or a dense count said as one ('our own 30B dense model').
    Raises ParseError for an MoE without its active count."""
    said_active = any(w in folded for w in _ACTIVE_CUES)
    for rx in _PATTERNS:
        if rx is not _PATTERNS[2] and not said_active:
            continue  # a cheap test before the costly patterns: no active count said
        m = rx.search(folded)
        if m is None or (rx is _PATTERNS[2] and _named_before(folded, m.start())):
            continue
        total, active = _billions(m["total"], lang), _billions(m["active"], lang)
        if total is not None and active is not None:
            if not 0 < active <= total <= PARAMS_MAX_B:
                raise ParseError(msg("dialogue.error.moe_counts", text=shown(m.group(0))))
            return Counts(total, active), _moe_word_before(folded, m.span())
    moe = _MOE.search(folded) if any(w in folded for w in _MOE_CUES) else None
    if moe is not None:
        near = folded[max(0, moe.start() - 24):moe.end() + 24]
        total = _first_count(near, lang)
        if total is not None:
            raise ParseError(msg("dialogue.error.moe_active", total=total * 1e9))
    for rx in _DENSE_IN_SENTENCE if any(w in folded for w in _DENSE_CUES) else ():
        m = rx.search(folded)
        if m is not None:
            value = _billions(m["total"], lang)
            if value is not None and 0 < value <= PARAMS_MAX_B:
                return Counts(value), m.span()
    return None


_MOE_BEFORE = re.compile(rf"\b{_MOE_WORD}\s+(?:{terms('of_with')}\s*)?$")


def _moe_word_before(folded: str, span: tuple[int, int]) -> tuple[int, int]:
    """The counts' span with the MoE word said before them ('un MoE de 120B dont 12B
    actifs', 'an MoE of 120B with 12B active'): part of the description, not a leftover."""
    m = _MOE_BEFORE.search(folded, 0, span[0])
    return (m.start(), span[1]) if m is not None else span


def _named_before(folded: str, start: int) -> bool:
    """'qwen 30b a3b': a family word just before the counts makes them part of a name."""
    before = folded[:start].split()
    return bool(before) and known_word(before[-1], catalog().models) and not before[-1].isdigit()


def _first_count(t: str, lang: Lang) -> float | None:
    m = re.search(_count("n"), t)
    return None if m is None else _billions(m["n"], lang)


def _dense(t: str, lang: Lang) -> Counts | None:
    """'30b params', 'a 30B dense model', '70 billion', '30 milliards de paramètres'."""
    toks = t.replace("'", " ").split()
    if not any(w in _DENSE_WORDS for w in toks):
        return None
    rest = " ".join(w for w in toks if w not in _FILLER)
    q = quantity(rest, Kind.PARAMS, lang)
    if q is None or q[1] or q[0] < 1e6:  # a bare '30' is not a parameter count
        return None
    value = q[0] / 1e9
    return Counts(value) if 0 < value <= PARAMS_MAX_B else None


def bare_size(text: str, lang: Lang = "en") -> float | None:
    """A size alone ('34b', '1,5T', '0.5b'): billions, or None. The caller confirms it: a
    size is not an architecture."""
    q = quantity(words(text), Kind.PARAMS, lang)
    if q is None or q[1] or q[0] < 1e6:
        return None
    value = q[0] / 1e9
    return value if 0 < value <= PARAMS_MAX_B else None
