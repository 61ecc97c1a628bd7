"""Navigation, recognised before any answer: back, help, change <answer> [to <value>],
restart, cancel, and a choice of language, in English and French.

They are reserved at every question, so a person can always get out; none of them is a
plausible answer to any question (the yes/no question accepts "no" and "non", never
"cancel" or "annuler"). The answer names a ``change`` may reopen come from the slots
(``dialogue.slots.ALIASES``), passed in, so this module knows words, not questions.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from dialogue.understand.language import chosen
from dialogue.understand.text import fold
from engine.units import Lang

Kind = Literal["back", "help", "restart", "cancel", "change", "language"]

WORDS: dict[str, Kind] = {
    # English
    "back": "back", "go back": "back", "previous": "back", "undo": "back", "prev": "back",
    "help": "help", "?": "help", "what": "help", "why": "help", "explain": "help",
    "what is this": "help", "what does this mean": "help", "help me": "help",
    "restart": "restart", "start over": "restart", "start again": "restart", "reset": "restart",
    "new sizing": "restart", "start a new sizing": "restart", "again": "restart",
    "new": "restart",
    "cancel": "cancel", "stop": "cancel", "quit": "cancel", "exit": "cancel", "abort": "cancel",
    # French (folded: no accents)
    "retour": "back", "revenir": "back", "precedent": "back", "en arriere": "back",
    "question precedente": "back", "revenir en arriere": "back",
    "aide": "help", "aidez-moi": "help", "aide-moi": "help", "pourquoi": "help",
    "quoi": "help", "explique": "help", "expliquez": "help", "c'est quoi": "help",
    "je ne comprends pas": "help", "comment": "help",
    "recommencer": "restart", "on recommence": "restart", "recommencer a zero": "restart",
    "repartir de zero": "restart", "nouveau": "restart", "nouveau dimensionnement": "restart",
    "nouvelle estimation": "restart", "reinitialiser": "restart",
    "annuler": "cancel", "arreter": "cancel", "quitter": "cancel", "abandonner": "cancel",
    "sortir": "cancel",
}
_CHANGE = re.compile(
    r"^(?:changer|change|edit|modify|update|fix|redo|set|modifier|corriger|mettre)\b"
    r"(?:\s+(?:the|my|le|la|les|mon|ma|mes)\b|\s+l')?(?:\s*(?P<slot>.+?))?$"
)
# "change context to 32k", "set gpu = h100", "changer le contexte à 32k": the new answer too
_TO = re.compile(r"^(?P<name>.+?)\s*(?:\s(?:to|into|a|en|par|pour)\s|=|:)\s*(?P<value>.+)$")


@dataclass(frozen=True)
class Command:
    kind: Kind
    slot: str | None = None  # for change: the slot, or None when the name is unknown
    raw: str = ""
    value: str | None = None  # change: the new answer given with it; language: the rest
    language: Lang | None = None  # for language: the one asked for


def read(text: str, aliases: Mapping[str, str]) -> Command | None:
    """The command ``text`` is, or None when it is an answer. ``aliases``: the words for
    each answer a change may reopen (folded), to its slot name."""
    said = " ".join(text.strip().rstrip("!.").split())  # the person's case, for a value
    t = fold(said)
    bare = t.rstrip("? ").strip()
    if bare in WORDS:  # 'why?', 'back?', 'aide ?'
        return Command(WORDS[bare], raw=bare)
    if t in WORDS:
        return Command(WORDS[t], raw=t)
    lang = chosen(said)
    if lang is not None:
        return Command("language", raw=t, language=lang[0], value=lang[1] or None)
    m = _CHANGE.match(t)
    if m is None:
        return None
    name = (m["slot"] or "").strip()
    if name and name not in aliases:
        to = _TO.match(name)
        if to is not None and to["name"].strip() in _LANGUAGE:
            asked = _LANGUAGE_VALUES.get(to["value"].strip())
            if asked is not None:
                return Command("language", raw=t, language=asked)
        if to is not None and to["name"].strip() in aliases:
            value = to["value"]
            if len(said) == len(t):  # the value in the person's case ('H100'), same offsets
                value = said[m.start("slot") + to.start("value"):]
            return Command("change", aliases[to["name"].strip()], raw=name, value=value)
        # 'changer contexte 32k', 'change gpu h100': the answer's name, then its new value
        named = max((a for a in aliases if name.startswith(a + " ")), key=len, default=None)
        if named is not None:
            value = name[len(named):].strip()
            if len(said) == len(t):
                value = said[m.start("slot") + len(named):].strip()
            return Command("change", aliases[named], raw=named, value=value)
    return Command("change", aliases.get(name), raw=name)


_LANGUAGE = frozenset({"language", "langue", "lang"})
_LANGUAGE_VALUES: dict[str, Lang] = {"french": "fr", "francais": "fr", "fr": "fr",
                                     "english": "en", "anglais": "en", "en": "en"}
