"""The dialogue's typed failures: each one tells its caller what happened, not how it broke.

Faces catch the :class:`DialogueError` family by type (``bot/`` never inspects Redis
exceptions): ``StoreUnavailable`` means "try again, nothing was lost"; ``Conflict`` means
another answer landed first; ``Duplicate`` is a redelivered event to drop silently;
``NotOwner`` is someone else's click; ``NotFinished`` a quote asked before the result. Each
carries ``message``, a catalog message (``dialogue.failure.*``) a face renders in the
conversation's language; ``str(exc)`` is the English text, for logs.

:class:`ParseError` never reaches a face, nor the turn: the parsers of one quantity or word
in ``dialogue/understand/`` raise it, and the readers catch it where they return and give
its :class:`~dialogue.readings.Refusal` back as a value (``dialogue/readings.py``: what a
reading gives, a proposal and a Hub id to fetch among them, none of them an exception).
"""

from __future__ import annotations

from dialogue.readings import Refusal
from engine.wording import Message, msg


class DialogueError(Exception):
    """Base class for the errors a face is expected to handle."""

    message: Message

    def __init__(self, message: Message, detail: str) -> None:
        self.message = message
        super().__init__(detail)


class StoreUnavailable(DialogueError):
    """The store cannot be reached (connection refused, timeout). Nothing was written."""

    def __init__(self, detail: str = "") -> None:
        self.detail = detail
        super().__init__(
            msg("dialogue.failure.store_down"),
            "the sizing service cannot reach its store; nothing was lost, try again in a minute"
            + (f" ({detail})" if detail else ""),
        )


class Conflict(DialogueError):
    """Another answer was saved first (compare-and-set lost); this one was not applied."""

    def __init__(self, key: str, expected: int | None) -> None:
        self.key = key
        self.expected = expected
        super().__init__(
            msg("dialogue.failure.conflict"),
            f"another answer to this sizing landed first (expected version {expected}); "
            "nothing was overwritten",
        )


class Duplicate(DialogueError):
    """This delivery id was already processed: a redelivered event, to be dropped."""

    def __init__(self, delivery_id: str) -> None:
        self.delivery_id = delivery_id
        super().__init__(msg("dialogue.failure.duplicate"),
                         f"delivery {delivery_id!r} was already handled")


class NotOwner(DialogueError):
    """The actor is not the person who started the sizing; only they may answer it."""

    def __init__(self, owner: str, actor: str) -> None:
        self.owner = owner
        self.actor = actor
        super().__init__(msg("dialogue.failure.not_owner"),
                         f"this sizing belongs to {owner}; {actor} cannot answer it")


class NotFinished(DialogueError):
    """A quote was requested for a sizing that has no result yet."""

    def __init__(self, key: str, state: str) -> None:
        self.key = key
        self.state = state
        super().__init__(msg("dialogue.failure.not_finished"),
                         f"the sizing at {key!r} is not finished (it is at '{state}')")


class ParseError(ValueError):
    """A parser's refusal of typed text, raised inside ``dialogue/understand/`` and the
    readers, and returned where a reader returns: ``refusal`` says what was expected and
    what to offer (:class:`~dialogue.readings.Refusal`)."""

    def __init__(
        self,
        message: Message,
        suggestions: list[str] | None = None,
        *,
        ambiguous: bool = False,
        retry: list[str] | None = None,
    ) -> None:
        self.refusal = Refusal(message, tuple(suggestions or ()), tuple(retry or ()), ambiguous)
        super().__init__(message.id)

    @property
    def message(self) -> Message:
        return self.refusal.message
