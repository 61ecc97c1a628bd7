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
    r"^(?:change|edit|modify|update|fix|redo)(?:\s+(?:the|my))?(?:\s+(?P<slot>.+?))?$"
)


@dataclass(frozen=True)
class Command:
    kind: Kind
    slot: str | None = None  # for change: the slot, or None when the name is unknown
    raw: str = ""


def command(text: str) -> Command | None:
    t = " ".join(text.strip().lower().rstrip("!.").split())
    if t in _WORDS:
        return Command(_WORDS[t], raw=t)
    m = _CHANGE.match(t)
    if m is not None:
        name = (m["slot"] or "").strip()
        return Command("change", ALIASES.get(name), raw=name)
    return None
