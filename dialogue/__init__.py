"""The guided sizing dialogue: a state machine that asks, the engine that answers.

No Slack here: faces (``bot/``) call :class:`Dialogue` and render the :class:`Reply` it
returns, in the reply's language, with their layered catalog. Conversations live in a
``Store`` (Redis, or memory for the console and tests). ``command(text)`` tells a face
whether a text is navigation (back, help, change, restart, cancel, a language) before it
decides where the text goes; ``follow_up(text)`` whether a text typed after a card is about
it ('what about 128 users?') rather than a new sizing. docs/architecture.md shows the rooms.
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
from dialogue.intent import follow_up
from dialogue.reply import AnswerView, Choice, Nav, Notice, Reply
from dialogue.service import Dialogue
from dialogue.store import MemoryStore, RedisStore, Store
from dialogue.turn import command

__all__ = [
    "AnswerView",
    "Choice",
    "Conflict",
    "Conversation",
    "Dialogue",
    "DialogueError",
    "Duplicate",
    "MemoryStore",
    "Nav",
    "NotFinished",
    "NotOwner",
    "Notice",
    "RedisStore",
    "Reply",
    "Store",
    "StoreUnavailable",
    "command",
    "follow_up",
]
