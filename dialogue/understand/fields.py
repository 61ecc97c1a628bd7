"""Answers typed as a form ('model: llama 3.1 70b, users: 64, context: 8k, target: none'):
each 'label: value' is rewritten as the phrase the readers know ('64 users', '8k context',
'no target') before a sentence is read.

Why: a rep pasting a customer's brief writes labels and values. Read as prose, 'users: 64,
context: 8k' gave a 64-token context, and '70b users' (the model's size before the label)
was refused as a headcount of 70 billion, the model lost with it. The labels are the
questions' own words, in English and French; a value runs to the next comma, semicolon,
line or label.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from operator import attrgetter

from dialogue.understand.lexicon import alternatives, terms
from dialogue.understand.names import unsure

__all__ = ["as_phrases"]

_NONE = re.compile(rf"^{terms('form_none')}$")
_HAS_UNIT = re.compile(r"[a-z]")
#: a rate's value starts with its number ('3000 tok/s', '~3k', 'environ 3000')


#: a value said of each user ('40 tok/s per user', '40 tok/s/user', '30 jetons/s chacun')
_PER_USER = re.compile(rf"\b{terms('form_each')}\b|/\s*{terms('user_nouns')}\b")
_YES = re.compile(terms("form_yes"))
_NO = re.compile(terms("form_no"))


#: what a target's value holds when it is a speed ('3000', '3k tok/s', '40 jetons/s')
_RATE_SAID = re.compile(rf"^[\d.,\s]+[km]?$|/\s*s\b|\b{terms('rate_said')}")


def _target(v: str) -> str:
    """'target: 3k tok/s' is a throughput; 'objectif : résumer 1,2 million de comptes rendus'
    is the job's aim, in prose (the label is also a plain word), read as the rest is."""
    if _NONE.match(v):
        return "no target"
    if not _RATE_SAID.search(v):
        return ""
    return v if _PER_USER.search(v) else f"{v} in total"


def _speed(v: str) -> str:
    said = v if re.search(r"[a-z]", v) else f"{v} tok/s"  # 'speed: 30'
    return said if _PER_USER.search(v) else f"{said} per user"


def _deadline(v: str) -> str:
    return f"in {v}" if re.match(r"^\d", v) else f"by {v}"


def _four_bit(v: str) -> str:
    """'int4: no' is a refusal, 'int4: yes' a consent (anything else: not this label's)."""
    if _YES.fullmatch(v):
        return "int4 ok"
    if _NO.fullmatch(v):
        return "no int4"
    return ""


#: what a data set may be counted in besides tokens ('dataset: 50k examples')
_ITEMS = re.compile(rf"\b(?:{terms('examples')}|{terms('training_items')}|{terms('items')})\b")


_TOKENS = re.compile(terms("tokens"))


def _tokens(v: str) -> str:
    """'dataset: 50M' is tokens; 'dataset: 50k examples, ~1,200 tokens each' is counted in
    its own words, and read as the sentence it is (its length may follow its comma)."""
    if _ITEMS.search(v):
        return ""
    return v if _TOKENS.search(v) else f"{v} tokens"


#: a length already said per item ('1 500 tokens par document', '800 tokens each')
_PER_ITEM = re.compile(rf"\b(?:{terms('length_tails')})\b")


def _each(v: str) -> str:
    """'tokens per page: ~1,100', 'taille moyenne : 1 500 tokens par document': each item's
    length, said once."""
    said = _tokens(v)
    return said if not said or _PER_ITEM.search(said) else f"{said} each"


def _ttft(v: str) -> str:
    return f"first token under {v}" if _HAS_UNIT.search(v) else f"first token under {v} s"


#: a count, and maybe the words that say it is at once ('90 concurrent', '30 en simultané')
_COUNT = re.compile(rf"(?P<n>[\d.,]+\s*[km]?)(?P<once>\s+(?:{terms('users_at_once_after')}"
                    rf"|{terms('said_at_once')}))?")
#: a label that says its count is at once ('concurrent users', 'utilisateurs simultanés')
_AT_ONCE = re.compile(terms("at_once_hints") + "|" + terms("users_at_once_after"))


def _count(v: str) -> str:
    m = _COUNT.fullmatch(v)
    return f"{m['n']} users{m['once'] or ''}" if m else ""


def _people(v: str) -> str:
    """'employees: 1200': a headcount, its share at once said apart or asked."""
    return f"{v} people" if re.fullmatch(r"[\d.,]+\s*[km]?", v) else ""


def _share(v: str) -> str:
    """'share at once: 5%': the share of the headcount said beside it."""
    return f"{v} at once" if re.fullmatch(r"[\d.,]+\s*%", v) else ""


#: How each kind of label's value reads as a phrase; the labels themselves, in both
#: languages, are the lexicon's (``[fields]`` in ``dialogue/data/lexicon.<lang>.toml``).
#: 'load: 64' is a load, 'charge : inférence' a workload ('charge de travail').
_PHRASES: dict[str, Callable[[str], str]] = {
    "count": _count,
    "load": lambda v: _count(v) or v,
    "context": lambda v: f"{v} context",
    "target": _target,
    "speed": _speed,
    "gpu": lambda v: f"on {v}",
    "deadline": _deadline,
    "tokens": _tokens,
    "ttft": _ttft,
    "latency": lambda v: f"latency under {v}",  # read as an assumed first token
    "four_bit": _four_bit,
    "people": _people,
    "share": _share,
    "each": _each,  # 'tokens per page: ~1,100': each item's length
    "epochs": lambda v: f"{v} epochs" if re.fullmatch(r"\d+(?:[.,]\d+)?", v) else "",
    "as_said": lambda v: v,
}
#: a count's label is also what is counted at once, in any of its words ('Users at the same
#: time', 'Users simultanés', 'sessions in parallel'), beside the labels listed
_COUNTED = (rf"(?:{terms('users_counted')}|{terms('people')})"
            rf"(?:\s+(?:{terms('users_at_once_after')}|{terms('said_at_once')}))")
_LABELS: tuple[tuple[str, Callable[[str], str]], ...] = tuple(
    (alternatives(attrgetter(f"fields.{kind}")) + (f"|{_COUNTED}" if kind == "count" else ""),
     said) for kind, said in _PHRASES.items())
_ANY = "|".join(f"(?:{p})" for p, _ in _LABELS)
_FIELD = re.compile(rf"(?:^|(?<=[\s,;|(]))(?<!\d\s)(?P<label>{_ANY})\s*[:=]\s*"
                    rf"(?P<value>(?:[^,;\n|]|(?<=\d),(?=\d))+?)\s*"  # '1,2 million': one value
                    rf"(?=(?<!\d),|,(?!\d)|[;\n|]|$|(?:{_ANY})\s*[:=])")


def as_phrases(folded: str) -> str:
    """``folded`` with each 'label: value' field as its phrase (the rest as it was)."""
    if ":" not in folded and "=" not in folded:
        return folded

    def phrase(m: re.Match[str]) -> str:
        label, value = m["label"], m["value"].strip()
        if unsure(value):  # 'GPU : pas d'avis': left to the bot, as at its question
            return " | "
        for pattern, said in _LABELS:
            if re.fullmatch(pattern, label):
                phrase = said(value)
                if said is _count and phrase and _AT_ONCE.search(label) and not _AT_ONCE.search(
                        phrase):  # 'utilisateurs simultanés : 40': 40 at once, no headcount
                    phrase += " at once"
                # its own phrase: nothing beside it joins it ('semaine :, modèle : qwen3 8b')
                return f" | {phrase} | " if phrase else m.group(0) + " "
        return m.group(0)
    return _FIELD.sub(phrase, folded)
