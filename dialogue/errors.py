"""The dialogue's typed failures: each one tells a face what to say, not how it broke.

Faces catch these by type (``bot/`` never inspects Redis exceptions): ``StoreUnavailable``
means "try again, nothing was lost"; ``Conflict`` means another answer landed first;
``Duplicate`` is a redelivered event to drop silently; ``NotOwner`` is someone else's click.
"""

from __future__ import annotations


class DialogueError(Exception):
    """Base class for the errors a face is expected to handle."""


class StoreUnavailable(DialogueError):
    """The store cannot be reached (connection refused, timeout). Nothing was written."""

    def __init__(self, detail: str = "") -> None:
        self.detail = detail
        super().__init__(
            "the sizing service cannot reach its store; nothing was lost, try again in a minute"
            + (f" ({detail})" if detail else "")
        )


class Conflict(DialogueError):
    """Another answer was saved first (compare-and-set lost); this one was not applied."""

    def __init__(self, key: str, expected: int | None) -> None:
        self.key = key
        self.expected = expected
        super().__init__(
            f"another answer to this sizing landed first (expected version {expected}); "
            "nothing was overwritten"
        )


class Duplicate(DialogueError):
    """This delivery id was already processed: a redelivered event, to be dropped."""

    def __init__(self, delivery_id: str) -> None:
        self.delivery_id = delivery_id
        super().__init__(f"delivery {delivery_id!r} was already handled")


class NotOwner(DialogueError):
    """The actor is not the person who started the sizing; only they may answer it."""

    def __init__(self, owner: str, actor: str) -> None:
        self.owner = owner
        self.actor = actor
        super().__init__(f"this sizing belongs to {owner}; {actor} cannot answer it")


class NotFinished(DialogueError):
    """A quote was requested for a sizing that has no result yet."""

    def __init__(self, key: str, state: str) -> None:
        self.key = key
        self.state = state
        super().__init__(f"the sizing at {key!r} is not finished (it is at '{state}')")
