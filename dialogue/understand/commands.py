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

from dialogue.conversation import SlotName
from dialogue.understand.language import chosen
from dialogue.understand.lexicon import LANGS, raw, terms
from dialogue.understand.text import fold
from engine.units import Lang

Kind = Literal["back", "help", "restart", "cancel", "change", "language"]

#: The navigation words of both languages (the lexicon's), said as the whole message.
WORDS: dict[str, Kind] = {w: kind for lang in LANGS for w, kind in raw(lang).commands.items()}
_CHANGE = re.compile(
    rf"^{terms('change_verbs')}\b"
    rf"(?:\s+{terms('my_the')}\b|\s+l')?(?:\s*(?P<slot>.+?))?$"
)
# "change context to 32k", "set gpu = h100", "changer le contexte à 32k": the new answer too
_TO = re.compile(rf"^(?P<name>.+?)\s*(?:\s{terms('change_to')}\s|=|:)\s*(?P<value>.+)$")


@dataclass(frozen=True)
class Command:
    kind: Kind
    slot: SlotName | None = None  # for change: the slot, or None when the name is unknown
    raw: str = ""
    value: str | None = None  # change: the new answer given with it; language: the rest
    language: Lang | None = None  # for language: the one asked for


def read(text: str, aliases: Mapping[str, SlotName]) -> Command | None:
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
