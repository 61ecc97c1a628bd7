"""The faces' catalog: the engine's, the dialogue's and the bot's own messages, in one.

Every face (the Slack cards, the console, the JSON console) renders with this one catalog, so
a message from any layer reads the same everywhere; ids are unique across layers (a clash
fails at load).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import dialogue
import engine
from engine.wording import Catalog, Lang, Message

__all__ = ["catalog", "say"]


@cache
def catalog() -> Catalog:
    return Catalog([
        Path(engine.__file__).parent / "data" / "messages",
        Path(dialogue.__file__).parent / "messages",
        Path(__file__).parent / "messages",
    ])


def say(message: Message | str, lang: Lang = "en") -> str:
    """``message`` in words, in ``lang``."""
    return catalog().render(message, lang)
