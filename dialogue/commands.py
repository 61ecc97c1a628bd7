"""Navigation words, recognised before any answer: back, change <slot>, restart, cancel, help.

They are reserved at every question, so a person can always get out; none of them is a
plausible answer to any question (the yes/no question accepts "no", never "cancel").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from dialogue.slots import ALIASES

Kind = Literal["back", "help", "restart", "cancel", "change"]

_WORDS: dict[str, Kind] = {
    "back": "back", "go back": "back", "previous": "back", "undo": "back", "prev": "back",
    "help": "help", "?": "help", "what": "help", "why": "help", "explain": "help",
    "what is this": "help", "what does this mean": "help", "help me": "help",
    "restart": "restart", "start over": "restart", "start again": "restart", "reset": "restart",
    "new sizing": "restart", "start a new sizing": "restart", "again": "restart",
    "cancel": "cancel", "stop": "cancel", "quit": "cancel", "exit": "cancel", "abort": "cancel",
}
_CHANGE = re.compile(
    r"^(?:change|edit|modify|update|fix|redo|set)(?:\s+(?:the|my))?(?:\s+(?P<slot>.+?))?$", re.I
)
# "change context to 32k", "set gpu = h100": the new answer comes with the command
_TO = re.compile(r"^(?P<name>.+?)\s*(?:\s(?:to|into|=)\s|=|:)\s*(?P<value>.+)$", re.I)


@dataclass(frozen=True)
class Command:
    kind: Kind
    slot: str | None = None  # for change: the slot, or None when the name is unknown
    raw: str = ""
    value: str | None = None  # for change: the new answer given with it, if any


def command(text: str) -> Command | None:
    said = " ".join(text.strip().rstrip("!.").split())  # the person's case, for a value
    t = said.lower()
    if t.rstrip("?") in _WORDS and t.rstrip("?"):  # 'why?', 'back?', 'help?'
        return Command(_WORDS[t.rstrip("?")], raw=t.rstrip("?"))
    if t in _WORDS:
        return Command(_WORDS[t], raw=t)
    m = _CHANGE.match(said)
    if m is not None:
        name = (m["slot"] or "").strip()
        if name.lower() not in ALIASES:
            to = _TO.match(name)
            if to is not None and to["name"].strip().lower() in ALIASES:
                return Command("change", ALIASES[to["name"].strip().lower()], raw=name.lower(),
                               value=to["value"])
        return Command("change", ALIASES.get(name.lower()), raw=name.lower())
    return None
