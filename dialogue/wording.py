"""The dialogue's catalog: the engine's messages and the dialogue's own, in one.

The dialogue renders nothing for a person (faces do, with ``bot/wording.py``); it reads its
own labels back: a choice's label typed instead of clicked ("NVIDIA L40S (48 GB)",
"Pas d'objectif") must do what the click does, in either language.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import engine
from engine.wording import Catalog

MESSAGES = Path(__file__).parent / "messages"


@cache
def catalog() -> Catalog:
    return Catalog([Path(engine.__file__).parent / "data" / "messages", MESSAGES])
