"""Which language a message is in, and which one a person asks for.

A conversation speaks English or French (``engine.units.LANGS``). Its language comes from
the opening ("nous voulons faire tourner Llama 70B pour 50 utilisateurs": French words;
"inférence": an accent) or from the person's choice ("in French", "en français", "in
English", alone or inside a longer message, at any point). Model names, units and numbers
say nothing about a language, so a message made only of them leaves it undecided (``None``)
and the conversation keeps what it had.
"""

from __future__ import annotations

import re

from dialogue.understand.lexicon import raw, terms
from dialogue.understand.text import fold
from engine.units import Lang

#: The function and sizing words (folded) frequent in a sizing request in one language and
#: rare in the other, the lexicon's markers, each with its weight (a borrowed word counts half).
_WEIGHTS: dict[Lang, dict[str, float]] = {
    lang: {**dict.fromkeys(raw(lang).markers.borrowed, 0.5),
           **dict.fromkeys(raw(lang).markers.words, 1.0)}
    for lang in ("fr", "en")}
_ACCENTED = re.compile(r"[àâçéèêëîïôûùüÿœæ]", re.IGNORECASE)
_WORD = re.compile(r"[a-z']+")

#: Asking for a language: anywhere in a message ("..., in French please"), or a language's
#: name alone as the whole message ("français", "english").
_ANYWHERE: tuple[tuple[Lang, str], ...] = (("fr", terms("ask_french")),
                                           ("en", terms("ask_english")))
_ALONE: tuple[tuple[Lang, str], ...] = (("fr", terms("french")), ("en", terms("english")))
_PLEASE = rf"(?: {terms('please')})?"
_CHOICE_RE = [
    *[(lang, re.compile(rf"(?:^|[\s,;:.(!?])(?:{p}){_PLEASE}(?=$|[\s,;:.)!?])"))
      for lang, p in _ANYWHERE],
    *[(lang, re.compile(rf"^(?:{p}){_PLEASE}[\s.!?]*$")) for lang, p in _ALONE],
]


def detect(text: str) -> Lang | None:
    """The language of ``text``, or None when it says nothing either way (names, numbers)."""
    if _ACCENTED.search(text):
        return "fr"
    found = _WORD.findall(fold(text).replace("'", " "))
    fr = sum(_WEIGHTS["fr"].get(w, 0.0) for w in found)
    en = sum(_WEIGHTS["en"].get(w, 0.0) for w in found)
    if fr > en:
        return "fr"
    if en > fr:
        return "en"
    return None


#: A translation's verb or noun: the language named next is its target, not the reply's
_TRANSLATING = re.compile(rf"\b{terms('translating')}")


def chosen(text: str) -> tuple[Lang, str] | None:
    """A language the person asks for, and the rest of the message without those words:
    'en français, llama 70b' -> ('fr', 'llama 70b'). None when no language is asked for.
    The first language named after a translation ('traduire nos fiches en anglais') is what
    the model translates into: the conversation's language stays the message's."""
    t = fold(text)
    verb = _TRANSLATING.search(t)
    target = None if verb is None else min(
        (m.start() for _, rx in _CHOICE_RE for m in rx.finditer(t, verb.end())), default=None)
    for lang, rx in _CHOICE_RE:
        m = next((m for m in rx.finditer(t) if m.start() != target), None)
        if m is not None:
            rest = (t[: m.start()] + " " + t[m.end():]).strip(" ,;:.!?")
            return lang, " ".join(rest.split())
    return None
