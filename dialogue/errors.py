"""The dialogue's typed failures: each one tells its caller what happened, not how it broke.

Faces catch the :class:`DialogueError` family by type (``bot/`` never inspects Redis
exceptions): ``StoreUnavailable`` means "try again, nothing was lost"; ``Conflict`` means
another answer landed first; ``Duplicate`` is a redelivered event to drop silently;
``NotOwner`` is someone else's click; ``NotFinished`` a quote asked before the result. Each
carries ``message``, a catalog message (``dialogue.failure.*``) a face renders in the
conversation's language; ``str(exc)`` is the English text, for logs.

:class:`ParseError` never reaches a face: the readers in ``dialogue/understand/`` raise it and
the turn turns it into the reply's ``error`` (the same question, asked again).
:class:`Unsure` is a ParseError that proposes: the turn keeps it as the question's proposal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.wording import Message, msg

if TYPE_CHECKING:
    from dialogue.conversation import Option, SlotName


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
    """Typed text does not answer the question; ``message`` says what was expected.

    ``suggestions`` are catalog ids worth offering as choices (a model or GPU the text came
    near); ``retry`` are typed values that would be accepted (the "did you mean 64k?" of a
    bare ``64``), offered as buttons beside the error.
    """

    def __init__(
        self,
        message: Message,
        suggestions: list[str] | None = None,
        *,
        ambiguous: bool = False,
        retry: list[str] | None = None,
    ) -> None:
        self.message = message
        self.suggestions = suggestions or []
        self.ambiguous = ambiguous  # the text named several catalog entries, not none
        self.retry = retry or []
        super().__init__(message.id)


class Unsure(ParseError):
    """The text could mean several answers, or one the bot must not take without asking (a
    model's name it only comes near, a bare 'fine-tune', '32k' at the speed question):
    ``message`` asks, ``options`` are the buttons, each with the answers it sets.

    ``slot`` is the question the proposal belongs to (a model proposal found in an opening
    waits at the model question). The turn stores it and shows it as a question."""

    def __init__(self, message: Message, options: list[Option], slot: SlotName) -> None:
        super().__init__(message)
        self.options = options
        self.slot = slot
