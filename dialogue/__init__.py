"""The guided sizing dialogue: a state machine that asks, the engine that answers.

No Slack here: faces (``bot/``) call ``Dialogue`` and render the ``Reply`` it returns.
Conversations live in a ``Store`` (Redis, or memory for the console and tests).
"""

from dialogue.conversation import Conversation
from dialogue.errors import (
    Conflict,
    DialogueError,
    Duplicate,
    NotFinished,
    NotOwner,
    StoreUnavailable,
)
from dialogue.reply import Choice, Reply
from dialogue.service import Dialogue
from dialogue.store import MemoryStore, RedisStore, Store

__all__ = [
    "Choice",
    "Conflict",
    "Conversation",
    "Dialogue",
    "DialogueError",
    "Duplicate",
    "MemoryStore",
    "NotFinished",
    "NotOwner",
    "RedisStore",
    "Reply",
    "Store",
    "StoreUnavailable",
]
