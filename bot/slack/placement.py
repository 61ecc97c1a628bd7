"""Where a sizing is shown in Slack: one typed record kept with the conversation.

Any worker may take the next turn, so the question message's channel and ``ts`` must live
with the conversation in the store, not in a process. They are one pydantic model,
:class:`Placement`, stored as one field of the conversation's face metadata (``meta["slack"]``)
and read and written only here: nothing travels as loose strings ("1", "unshown").

How a fast second turn finds the question (no waiting): the start writes the placement with
the conversation, in the same atomic write, in state ``posting``; the starter then posts the
question and records its ``ts`` (state ``shown``), *then* re-reads the conversation and brings
the message up to date if a turn landed meanwhile. A turn that finds ``posting`` has its
answer saved and leaves the message to the starter (the two orders of "record ts" and "read
ts" cover each other, so one of them always shows the newest state). A ``posting`` older than
:data:`POSTING_GRACE_S` is a starter that died: the next turn posts the question itself, as
it does after a post Slack refused (state ``failed``).

The message carries its own id (``sizing:<conversation>:<gen>``, ``bot/slack/written.py``), so
whoever posts it after an attempt whose outcome is unknown (state ``posting``: a starter that
died or was put off) first looks for it. ``gen`` grows only when the message cannot be updated
any more (deleted, too old): a new one is posted, and the old ones wait in ``retire`` until
Slack lets the bot mark them superseded, so a sizing never shows two live questions.
``poster`` is the delivery that started the sizing: its own retry is not "someone else
posting".
"""

from __future__ import annotations

import logging
import time
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from bot.slack.keys import ConversationKey
from dialogue import Conversation, Dialogue

log = logging.getLogger(__name__)

META_FIELD = "slack"
POSTING_GRACE_S = 15.0  # a question post takes well under a second; retries a few seconds

Shown = Literal["posting", "shown", "failed"]
Surface = Literal["command", "mention", "dm", "button", "home", "turn"]


class MathPost(BaseModel):
    """"Show the math" of one result: posted once; a post Slack refused may be asked again."""

    model_config = ConfigDict(frozen=True)

    version: int
    attempt: int = 0
    posted: bool = False


class Placement(BaseModel):
    """The sizing's question message and what the bot knew about where it runs."""

    model_config = ConfigDict(frozen=True)

    channel: str
    root: str | None = None  # the thread's root; None for a DM (the question is top level)
    ts: str | None = None  # the question (later the card) message
    shown: Shown = "posting"
    since: float = 0.0  # when ``shown`` last changed
    surface: Surface = "turn"
    actor_team: str | None = None  # the starter's own team, as the payload said
    shared: bool = False  # started in a Slack Connect (shared) channel
    math: MathPost | None = None
    gen: int = 0  # which message of the sizing is its live one (see the module docstring)
    retire: tuple[str, ...] = ()  # older messages of the sizing still to mark superseded
    poster: str | None = None  # the delivery that started the sizing (it posts the question)

    @classmethod
    def new(cls, key: ConversationKey, *, surface: Surface, actor_team: str | None,
            shared: bool, poster: str | None = None) -> Placement:
        return cls(channel=key.channel, root=key.root, surface=surface, actor_team=actor_team,
                   shared=shared, since=time.time(), poster=poster)

    def posted_by(self, delivery_id: str | None) -> bool:
        """``delivery_id`` is the delivery that started the sizing (and posts its question)."""
        return delivery_id is not None and delivery_id == self.poster

    @property
    def being_posted(self) -> bool:
        """The starter is posting the question right now (and will bring it up to date)."""
        return self.shown == "posting" and time.time() - self.since < POSTING_GRACE_S

    def posted(self, channel: str, ts: str) -> Placement:
        return self.model_copy(update={"channel": channel, "ts": ts, "shown": "shown",
                                       "since": time.time()})

    def replaced(self, channel: str, ts: str) -> Placement:
        """A new message of the sizing (the live one could not be updated): the old one waits
        in ``retire`` to be marked superseded."""
        old = (self.ts,) if self.ts and self.ts != ts else ()
        return self.posted(channel, ts).model_copy(update={
            "gen": self.gen + 1, "retire": tuple(dict.fromkeys(self.retire + old))})

    def retired(self, done: set[str]) -> Placement:
        return self.model_copy(update={"retire": tuple(t for t in self.retire if t not in done)})

    def failed(self) -> Placement:
        return self.model_copy(update={"shown": "failed", "since": time.time()})

    def as_meta(self) -> dict[str, str]:
        return {META_FIELD: self.model_dump_json()}


def of(conv: Conversation | None) -> Placement | None:
    """The conversation's placement; None when it has none (or an unreadable one)."""
    raw = conv.meta.get(META_FIELD) if conv is not None else None
    if not raw:
        return None
    try:
        return Placement.model_validate_json(raw)
    except ValidationError:
        log.warning("unreadable slack placement", extra={"json_fields": {"field": META_FIELD}})
        return None


def load(dialogue: Dialogue, key: ConversationKey) -> Placement | None:
    """Read the placement fresh from the store (None when absent); raises StoreUnavailable,
    so a turn that cannot know where its message is waits and is retried."""
    return of(dialogue.load(key.format()))


def save(dialogue: Dialogue, key: ConversationKey, placement: Placement) -> None:
    """Record ``placement`` with the conversation (its version does not change); raises
    StoreUnavailable (the turn is retried: the message it posted is found again by its id)."""
    dialogue.update_meta(key.format(), placement.as_meta())
