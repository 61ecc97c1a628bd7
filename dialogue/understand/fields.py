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

__all__ = ["as_phrases"]

_NONE = re.compile(rf"^{terms('form_none')}$")
_HAS_UNIT = re.compile(r"[a-z]")


#: a value said of each user ('40 tok/s per user', '40 tok/s/user', '30 jetons/s chacun')
_PER_USER = re.compile(rf"\b{terms('form_each')}\b|/\s*(?:users?|utilisateurs?)\b")
_YES = re.compile(terms("form_yes"))
_NO = re.compile(terms("form_no"))


def _target(v: str) -> str:
    return "no target" if _NONE.match(v) else v if _PER_USER.search(v) else f"{v} in total"


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


def _tokens(v: str) -> str:
    return v if re.search(r"tokens?|jetons?", v) else f"{v} tokens"


def _ttft(v: str) -> str:
    return f"first token under {v}" if _HAS_UNIT.search(v) else f"first token under {v} s"


def _count(v: str) -> str:
    return f"{v} users" if re.fullmatch(r"[\d.,]+\s*[km]?", v) else ""


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
    "as_said": lambda v: v,
}
_LABELS: tuple[tuple[str, Callable[[str], str]], ...] = tuple(
    (alternatives(attrgetter(f"fields.{kind}")), said) for kind, said in _PHRASES.items())
_ANY = "|".join(f"(?:{p})" for p, _ in _LABELS)
_FIELD = re.compile(rf"(?:^|(?<=[\s,;|(]))(?<!\d\s)(?P<label>{_ANY})\s*[:=]\s*"
                    rf"(?P<value>[^,;\n|]+?)\s*(?=[,;\n|]|$|(?:{_ANY})\s*[:=])")


def as_phrases(folded: str) -> str:
    """``folded`` with each 'label: value' field as its phrase (the rest as it was)."""
    if ":" not in folded and "=" not in folded:
        return folded

    def phrase(m: re.Match[str]) -> str:
        label, value = m["label"], m["value"].strip()
        for pattern, said in _LABELS:
            if re.fullmatch(pattern, label):
                # its own phrase: nothing beside it joins it ('semaine :, modèle : qwen3 8b')
                return f" | {said(value)} | " if said(value) else m.group(0) + " "
        return m.group(0)
    return _FIELD.sub(phrase, folded)
