"""A change said relative to the card: 'what if 2x the concurrency?', 'double the users and
the context', 'twice as many users', 'deux fois plus d'utilisateurs', 'trois fois plus de
courriels', 'la moitié des exemples', 'et avec un contexte deux fois plus long ?'.

A person who has the card in front of them speaks of its numbers without repeating them:
the factor multiplies the value the card holds. What the factor applies to is read by the
readers themselves: the noun after it is given a probe number ('4000 courriels') and the
keys the opening's readers take from that are the ones multiplied, so that every count they
know (people, requests, documents, examples, epochs, context) is multiplied without a list
here. A length said comparatively ('deux fois plus long', 'twice as long') is the length the
card holds: the documents' in a batch job, the examples' in a training run, else the
context. The words are the lexicon's (``[factors]``, ``[words]`` times, more, longer,
articles, joined).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from dialogue.understand.lexicon import alternation, factors, terms
from dialogue.understand.numbers import digits_in
from dialogue.understand.opening import extract
from dialogue.understand.text import fold

_FACTORS = factors()
_ARTICLE = terms("articles")
_FACTOR = re.compile(
    rf"(?<![\w.,])(?:(?P<n>\d+(?:[.,]\d+)?)\s*{terms('times')}"
    rf"(?:\s+(?P<fewer>{terms('fewer')})|\s+(?P<more>{terms('more')}))?"
    rf"|(?P<pct>\d+(?:[.,]\d+)?)\s*%\s*(?:(?P<less>{terms('pct_less')})|{terms('pct_more')})"
    rf"|(?P<w>{alternation(_FACTORS)})(?:\s+(?:{terms('more')}|(?P<less_w>{terms('fewer')})))?)"
    rf"(?:(?<=')|(?![\w-]))"  # 'le nombre d'utilisateurs': the article elided
    rf"(?P<long>\s+{terms('longer')}(?![\w-]))?")
#: Where the noun a factor applies to ends: punctuation, or a word that opens a new clause
_NOUN_END = re.compile(rf"[,.;:!?()]|\s{terms('clause_ends')}(?![\w-])")
_JOINED = re.compile(rf"\s+{terms('joined')}\s+")
_LEAD = re.compile(rf"^(?:{_ARTICLE}\s+|(?:d|l)')*")
#: the probe numbers a noun is read with ('4000 courriels', 'concurrency 4000', '4 epochs')
_PROBES = ("{n} {w}", "{w} {n}")
_PROBE_VALUES = (4000, 4)


@dataclass(frozen=True)
class Relative:
    """The card's values a sentence multiplies, with their new values, and those new values
    as the readers read them typed ('50000 examples'): the question's reader completes the
    rest from them (a data set's total from its new count)."""

    values: dict[str, int | float]
    said: str


def change(text: str, answers: Mapping[str, object]) -> Relative | None:
    """The card's values ``text`` multiplies, with their new values, or None."""
    t = digits_in(fold(text))
    m = _FACTOR.search(t)
    if m is None:
        return None
    if m["pct"]:  # '50 % more users', '20 % de moins'
        share = float(m["pct"].replace(",", ".")) / 100
        factor = 1 - share if m["less"] else 1 + share
    elif m["n"]:  # '2x the users', 'deux fois moins d'epochs'
        factor = float(m["n"].replace(",", "."))
        factor = 1 / factor if m["fewer"] and factor else factor
    else:  # 'moitié moins de contexte' is half of it, as 'half the context'
        factor = _FACTORS[m["w"]]
        factor = 1 / factor if m["less_w"] and factor > 1 else factor
    if not 0 < factor <= 1000 or factor == 1:
        return None
    named: list[tuple[str, list[str]]]
    if m["long"]:
        named = [("", [_length_key(answers)])]
    else:
        stop = _NOUN_END.search(t, m.end())
        nouns = _JOINED.split(t[m.end(): stop.start() if stop else len(t)])
        counts = bool(m["n"]) and not m["fewer"] and not m["more"]
        named = [_keys(noun, answers, counts=counts) for noun in nouns]
    out: dict[str, int | float] = {}
    phrases: list[str] = []
    for shape, keys in named:
        for key in keys:
            old = answers.get(key)
            if key in out or isinstance(old, bool) or not isinstance(old, int | float):
                continue
            new = old * factor
            out[key] = max(1, round(new)) if isinstance(old, int) else round(new, 6)
            if shape and key == keys[-1]:
                phrases.append(shape.format(n=out[key]))
    return Relative(out, ", ".join(phrases)) if out else None


def _length_key(answers: Mapping[str, object]) -> str:
    if "document_tokens" in answers:
        return "document_tokens"
    return "example_tokens" if "example_tokens" in answers else "context"


def _keys(noun: str, answers: Mapping[str, object], *, counts: bool = False
          ) -> tuple[str, list[str]]:
    """The card's keys a noun names ('les users' -> users_total, concurrency), as the
    opening's readers read it after a number, and the shape it was read in ('{n} users').
    A bare 'Nx' before a GPU's name ``counts`` those GPUs ('8x L40S per node' is eight of
    them, as the opening reads it), never a factor: none is named then."""
    words = _LEAD.sub("", noun.strip()).split()[:2]
    if not words or not words[0][0].isalpha():  # '64 x 8k' is a load, never a factor
        return "", []
    training = "examples" in answers or "train_tokens" in answers
    for n in _PROBE_VALUES:
        for shape in _PROBES:
            typed = shape.replace("{w}", " ".join(words))
            found = extract(typed.format(n=n), find_model=False, training=training)
            if counts and "gpu" in found.answers:  # '8x L40S per node': GPUs counted
                return "", []
            # an inferred key counts when it is the count typed ('4000 users' at once),
            # never a share derived from it
            keys = [k for k, v in found.answers.items() if k in answers
                    and (k not in found.inferred or v == n)]
            if keys:
                if "concurrency" in keys and "users_total" not in answers:
                    return "", ["concurrency"]  # requests at once stay so, never a headcount
                return typed, keys
    return "", []
