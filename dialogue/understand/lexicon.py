"""The vocabulary people type, loaded from ``dialogue/data/lexicon.<lang>.toml`` and compiled
once into patterns: misspellings and phrases rewritten to the words the readers know, spelled
numbers, the words a count is typed glued to.

Why data: adding a phrasing should be adding a line to a file a reviewer reads at a glance,
never one more alternative in a reader's regular expression (the way Rasa compiles its lookup
tables into patterns). Both languages' files are merged: a message is tidied before its
language is known, and the entries of one language are not words of the other.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from dialogue.understand.text import fold
from engine.units import Lang

__all__ = ["LANGS", "Lexicon", "alternation", "alternatives", "compiled", "entries", "factors",
           "fractions", "key", "loose", "noise_words", "numbered", "raw", "terms", "unread"]

LANGS: tuple[Lang, ...] = ("en", "fr")
DATA = Path(__file__).resolve().parents[1] / "data"


class _Rules(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    joiners: list[str]
    compound_only: list[str]
    before_scale: list[str]
    not_after: list[str]
    multiplied: list[str]


class _Numbers(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    units: dict[str, int]
    scales: dict[str, int]
    rules: _Rules


class _Glued(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    words: list[str]
    scales: list[str]


class _Slips(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    #: the words that carry an answer: a word one slip from one of them is read as it
    words: list[str]
    #: the shortest word a slip is read in (shorter ones are too near other words)
    shortest: int


class _Asking(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    questions: list[str]
    about: list[str]
    suggestions: list[str]
    why: list[str]
    #: words a question may open with before what it asks ('ok but why ...')
    fillers: list[str] = []


class _Negation(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    refusing: list[str]
    filler: list[str]


class _Fields(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    count: list[str]
    load: list[str]
    context: list[str]
    target: list[str]
    speed: list[str]
    gpu: list[str]
    deadline: list[str]
    tokens: list[str]
    ttft: list[str]
    latency: list[str]
    four_bit: list[str]
    people: list[str]
    share: list[str]
    each: list[str]
    epochs: list[str]
    as_said: list[str]


class _Noise(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    words: list[str]


class _Markers(BaseModel):
    """The words that tell a language, and those the other language's speakers borrow
    (French sales write 'users'): a borrowed word counts half, so it decides a message alone
    but yields to one word only this language uses."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    words: list[str] = []
    borrowed: list[str] = []


class Lexicon(BaseModel):
    """One language's file, validated at load (a typo in the data fails there, not on a
    customer's message)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    numbers: _Numbers
    typos: dict[str, str]
    phrases: dict[str, str]
    asking: _Asking
    glued: _Glued
    slips: _Slips
    #: a card's actions typed ('show the math'), by action, and the words around them that
    #: change nothing ('please')
    actions: dict[str, list[str]] = {}
    noise: _Noise
    negation: _Negation
    fields: _Fields
    #: the readers' words, by meaning ('roles', 'items', 'at_once'): each list is one
    #: alternation of a recogniser's pattern, named there
    words: dict[str, list[str]] = {}
    fractions: dict[str, int] = {}  # a share said in words: one in how many ('a third': 3)
    approximate: dict[str, int] = {}  # a count said roughly ('une cinquantaine': 50)
    #: a factor said in a word ('double': 2, 'half': 0.5): a change relative to the card
    factors: dict[str, float] = {}
    weekdays: dict[str, int] = {}  # Monday 0
    months: dict[str, int] = {}  # January 1
    #: navigation words said as the whole message, and what each does
    commands: dict[str, Literal["back", "help", "restart", "cancel"]] = {}
    markers: _Markers = _Markers()  # the words that tell this language from the other


@cache
def raw(lang: Lang) -> Lexicon:
    with (DATA / f"lexicon.{lang}.toml").open("rb") as fh:
        return Lexicon.model_validate(tomllib.load(fh))


_LOOSE = {"a": "[aàâä]", "e": "[eéèêë]", "i": "[iîï]", "o": "[oôö]", "u": "[uùûü]",
          "c": "[cç]", " ": r"[\s\u00a0-]+", "-": r"[-\s]?"}


def _loose_atoms(key: str) -> tuple[str, ...]:
    return tuple(_LOOSE.get(ch, re.escape(ch)) for ch in key)


def loose(key: str) -> str:
    """A folded key as a pattern that matches it typed with accents, any case, any spaces:
    'reglage fin' matches 'Réglage  fin'."""
    return "".join(_loose_atoms(key))


def trie(entries: Iterable[tuple[str, ...]]) -> str:
    """Entries, each a sequence of pattern atoms, as one alternation shaped as a prefix tree:
    'ab', 'abc', 'b' -> 'ab(?:c)?|b'. Why: Python's regex engine tries an alternation's
    branches one by one at every position of a message, and the lexicon's lists run to
    hundreds of phrases; sharing their prefixes lets one failed letter drop them all at once.
    What matches is what the flat alternation, longest first, matches: a phrase is tried
    before the shorter ones it extends (an optional tail is greedy), and sibling branches
    begin with different atoms, so at most one of them can match (a wildcard's branch, which
    may overlap a letter's, comes where its longest phrase would)."""
    root: dict[str, Any] = {}
    for atoms in entries:
        if not atoms:
            continue
        node = root
        for atom in atoms:
            node = node.setdefault(atom, {})
        node[""] = {}  # a phrase ends here

    def depth(node: dict[str, Any]) -> int:
        return max((1 + depth(child) for atom, child in node.items() if atom), default=0)

    def emit(node: dict[str, Any]) -> str:
        kids = sorted(((atom, child) for atom, child in node.items() if atom),
                      key=lambda kc: (-depth(kc[1]), kc[0]))
        parts = [atom + emit(child) for atom, child in kids]
        if not parts:
            return ""
        if "" not in node and len(parts) == 1:
            return parts[0]
        return "(?:" + "|".join(parts) + ")" + ("?" if "" in node else "")
    return emit(root)


def _alternation(keys: list[str] | set[str]) -> str:
    return trie(_loose_atoms(k) for k in keys)


@dataclass(frozen=True)
class Compiled:
    """Both languages' entries merged, and their patterns."""

    rewrites: dict[str, str]  # a typo or phrase (its key) -> its replacement
    rewrite: re.Pattern[str]
    units: dict[str, int]
    scales: dict[str, int]
    joiners: frozenset[str]
    articles: frozenset[str]  # 'a' of 'a hundred'
    multiplied: frozenset[str]
    spelled: re.Pattern[str]  # a run of number words
    glued: re.Pattern[str]  # a count glued to the word it counts
    glued_after: re.Pattern[str]  # a word glued to the count it takes ('contexte16k')
    slips: dict[str, frozenset[str]]  # a word or one of its one-letter deletions -> words
    known: frozenset[str]  # the words a slip is never read in (they are words already)
    shortest: int
    apart: re.Pattern[str]  # a count and its scale typed apart
    scaled: re.Pattern[str]  # digits and a scale word of thousands or more ('2 lakh', '5lakh')
    suggestion: re.Pattern[str]  # a folded sentence that proposes ('what if ...')
    why: re.Pattern[str]  # a folded sentence that asks why the card is so
    actions: dict[str, frozenset[str]]  # action -> the folded phrases that ask for it
    polite: frozenset[str]  # the words around an action's phrase that change nothing (each)


def key(said: str) -> str:
    """The one form of a lexicon entry and of what matched it: folded, without spaces or
    hyphens ('Fine-tunning', 'fine tunning' -> 'finetunning')."""
    return re.sub(r"[\s-]+", "", fold(said))


@cache
def compiled() -> Compiled:
    books = [raw(lang) for lang in LANGS]
    said = {k: v for b in books for k, v in (*b.typos.items(), *b.phrases.items())}
    rewrites = {key(k): v for k, v in said.items()}
    units = {k: v for b in books for k, v in b.numbers.units.items()}
    scales = {k: v for b in books for k, v in b.numbers.scales.items()}
    rules = [b.numbers.rules for b in books]
    joiners = {w for r in rules for w in r.joiners}
    only_in_runs = {w for r in rules for w in r.compound_only}
    before = {w for r in rules for w in r.before_scale}
    not_after = {w for r in rules for w in r.not_after}
    word = _alternation(set(units) | set(scales))
    sep = rf"(?:[\s-]+(?:(?:{_alternation(joiners)})[\s-]+)?)"
    guard = "".join(rf"(?<!\b{re.escape(w)} )" for w in sorted(not_after))
    start = (rf"(?:{_alternation(set(units) - only_in_runs)}"
             rf"|{guard}(?:{_alternation(set(scales) - only_in_runs)})"
             # 'a hundred', 'a couple dozen': the article starts a run before a scale, and
             # so does a count said only in runs ('one hundred', 'neuf cents'): left out,
             # 'one' stayed a word before '100' and was read again as '1 100'
             rf"|(?:{_alternation(before | only_in_runs)})"
             rf"(?=\s+(?:(?:{_alternation(only_in_runs)})\s+)?"
             rf"(?:{_alternation(set(scales))})\b))")
    spelled = re.compile(rf"(?<![\w-])(?:{start})(?:{sep}(?:{word}))*(?![\w-])", re.I)
    glued_words = {w for b in books for w in b.glued.words}
    glued = re.compile(
        rf"(?<![\w.,])(\d+(?:[.,]\d+)?(?:k|m|b)?)(?=(?:{_alternation(glued_words)})\b)", re.I)
    glued_after = re.compile(rf"(?<![\w-])({_alternation(glued_words)})(?=\d)", re.I)
    carriers = {w for b in books for w in b.slips.words}
    slips: dict[str, set[str]] = {}
    for w in carriers:
        for variant in (key(w), *_deletions(key(w))):
            slips.setdefault(variant, set()).add(w)
    known = {key(w) for w in carriers | glued_words | set(units) | set(scales)}
    apart_scales = {w for b in books for w in b.glued.scales}
    apart = re.compile(rf"(?<![\w.,])(\d+(?:[.,]\d+)?)\s+({_alternation(apart_scales)})(?![\w-])",
                       re.I)
    rewrite = re.compile(rf"(?<![\w-])(?:{_alternation(set(said))})(?![\w-])", re.I)
    big = {w for w, v in scales.items() if v >= 1000}
    scaled = re.compile(rf"(?<![\w.,])(\d+(?:[.,]\d+)?)\s*({_alternation(big)})(?![\w-])", re.I)
    return Compiled(rewrites, rewrite, units, scales, frozenset(joiners), frozenset(before),
                    frozenset(w for r in rules for w in r.multiplied), spelled, glued,
                    glued_after, {k: frozenset(v) for k, v in slips.items()},
                    frozenset(known), min(b.slips.shortest for b in books), apart, scaled,
                    _leads({w for b in books for w in b.asking.suggestions}),
                    _leads({w for b in books for w in b.asking.why},
                           {w for b in books for w in b.asking.fillers}),
                    {a: frozenset(fold(p) for b in books for p in b.actions.get(a, ()))
                     for a in {a for b in books for a in b.actions} - {"polite"}},
                    frozenset(w for b in books for p in b.actions.get("polite", ())
                              for w in fold(p).split()))


def _deletions(word: str) -> list[str]:
    """The word with one letter left out, at each place."""
    return [word[:i] + word[i + 1:] for i in range(len(word))]


def one_slip(typed: str, word: str) -> bool:
    """Whether ``typed`` is ``word`` with one slip: a letter missing, extra or wrong, or two
    neighbours swapped (Damerau's single edit)."""
    if typed == word or abs(len(typed) - len(word)) > 1:
        return False
    if len(typed) == len(word):
        diff = [i for i, (a, b) in enumerate(zip(typed, word, strict=True)) if a != b]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and typed[diff[0]] == word[diff[1]]
                                  and typed[diff[1]] == word[diff[0]])
    short, long_ = sorted((typed, word), key=len)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


@lru_cache(maxsize=8192)  # a pure look-up of one word: the same words recur across messages
def slipped(typed: str) -> str | None:
    """The answer-carrying word ``typed`` is one slip from ('utilisateures', 'fien-tune',
    'contxt'), when exactly one is; None for a word the lexicon knows or nothing near."""
    lex = compiled()
    k = key(typed)
    if len(k) < lex.shortest or k in lex.known:
        return None
    near = {w for v in (k, *_deletions(k), *_swaps(k)) for w in lex.slips.get(v, ())
            if one_slip(k, key(w))}
    return next(iter(near)) if len(near) == 1 else None


def _swaps(word: str) -> list[str]:
    return [word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in range(len(word) - 1)]


def _leads(words: set[str], fillers: Iterable[str] = ()) -> re.Pattern[str]:
    """Folded sentences that open with one of ``words``, maybe after ``fillers`` ('ok but
    why ...')."""
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    lead = "|".join(re.escape(w) for w in sorted(fillers, key=len, reverse=True))
    before = rf"(?:(?:{lead})[\s,]+)*" if lead else ""
    return re.compile(rf"^{before}(?:{alternatives})\b")


def alternatives(pick: Callable[[Lexicon], list[str]]) -> str:
    """Both languages' entries of one list as a pattern's alternatives (escaped, as a prefix
    tree: an alternation then takes a whole phrase, never its start)."""
    return trie(tuple(re.escape(c) for c in w)
                for w in {w for lang in LANGS for w in pick(raw(lang))})


def noise_words() -> list[str]:
    """Both languages' words that carry no answer, longest first (a pattern's alternation
    then takes a whole word, never its start)."""
    words = {w for lang in LANGS for w in raw(lang).noise.words}
    return sorted(words, key=lambda w: (-len(w), w))


#: the names of ``[words]`` the readers asked for (a list no reader names is read nowhere)
_NAMED: set[str] = set()


def entries(name: str) -> list[str]:
    """Both languages' words of one meaning (``[words]``), longest first. A name no file holds
    fails at import, never on a customer's message."""
    _NAMED.add(name)
    found = {w for lang in LANGS for w in raw(lang).words.get(name, [])}
    if not found:
        raise KeyError(f"the lexicon has no words named {name!r}")
    return sorted(found, key=lambda w: (-len(w), w))


def unread() -> set[str]:
    """The lists of ``[words]`` no reader imported so far has named: words added there that
    nothing would ever read."""
    return {name for lang in LANGS for name in raw(lang).words} - _NAMED


def _term(word: str) -> tuple[str, ...]:
    """One entry as pattern atoms: escaped letters, a '*' for any letters ('concurren*',
    'reparti* sur')."""
    atoms: list[str] = []
    for i, part in enumerate(word.split("*")):
        atoms += ([r"\w*"] if i else []) + [re.escape(c) for c in part]
    return tuple(atoms)


@cache
def terms(name: str) -> str:
    """Both languages' words of one meaning as one group, ready to sit in a pattern: escaped,
    longest first (an alternation then takes a whole phrase, never its start)."""
    return "(?:" + trie(_term(w) for w in entries(name)) + ")"


def fractions() -> dict[str, float]:
    """Both languages' shares said in words, as fractions ('a third' -> 1/3)."""
    return {w: 1 / n for lang in LANGS for w, n in raw(lang).fractions.items()}


def factors() -> dict[str, float]:
    """Both languages' factors said in words ('twice' 2, 'la moitié' 0.5)."""
    return {w: n for lang in LANGS for w, n in raw(lang).factors.items()}


def numbered(table: Literal["approximate", "weekdays", "months"]) -> dict[str, int]:
    """Both languages' words of a table that gives each a number ('a dozen' 12, 'vendredi' 4,
    'mars' 3)."""
    return {w: n for lang in LANGS for w, n in getattr(raw(lang), table).items()}


def alternation(words: Iterable[str]) -> str:
    """Words as one group of a pattern: escaped, as a prefix tree (:func:`trie`)."""
    return "(?:" + trie(tuple(re.escape(c) for c in w) for w in set(words)) + ")"
