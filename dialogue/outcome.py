"""What a turn did, as values: the :class:`Step` each part of it took, and the one
:class:`Outcome` they add up to.

Why values: the parts of a turn (reading an answer, a click, a command, moving on; see
``dialogue/answer.py`` and ``dialogue/turn.py``) each say what they did by returning it,
never by filling a shared record, so what a turn tells is the sum of what its parts
returned, in order, and a part can be read (and tested) alone. The conversation itself is
the one thing they change in place: the turn's own copy (``Conversation.fork``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from dialogue.conversation import Conversation
from dialogue.flow import Plan
from dialogue.reply import CardAction, Choice, Notice
from engine.wording import Message


@dataclass(frozen=True)
class Step:
    """What one part of a turn did, beside what it changed in the conversation: steps add
    up (``a + b``: the notices of both in order, the later error, choices, Hub id and plan
    when it has one, and either one's flags).

    ``answered``: the question was answered, the turn moves on. ``changed``: the
    conversation changed without an answer to the question (a proposal stored, another
    question's answer noted), so it is saved and the same question shown. ``plan`` and
    ``finished`` are the turn's: the flow after the step, and whether it reached the card."""

    notices: tuple[Notice, ...] = ()
    error: Message | None = None
    choices: tuple[Choice, ...] | None = None  # offered beside an error ('did you mean')
    fetch: str | None = None  # a Hugging Face id whose config.json the service must fetch
    answered: bool = False
    changed: bool = False
    plan: Plan | None = None
    finished: bool = False
    action: CardAction | None = None  # a card action the face performs (the charts, ...)

    def __add__(self, later: Step) -> Step:
        if later is NOTHING or later.empty:  # most parts of a turn add nothing: no new step
            return self
        if self is NOTHING or self.empty:
            return later
        return Step(
            notices=self.notices + later.notices,
            error=later.error if later.error is not None else self.error,
            choices=later.choices if later.choices is not None else self.choices,
            fetch=later.fetch if later.fetch is not None else self.fetch,
            answered=self.answered or later.answered,
            changed=self.changed or later.changed,
            plan=later.plan if later.plan is not None else self.plan,
            finished=self.finished or later.finished,
            action=later.action if later.action is not None else self.action,
        )

    @property
    def empty(self) -> bool:
        """Nothing done: nothing to tell, to fetch, or to move."""
        return not (self.notices or self.answered or self.changed or self.finished) and (
            self.error is None and self.choices is None and self.fetch is None
            and self.plan is None and self.action is None)


#: What a part of a turn that did nothing returns.
NOTHING: Final = Step()


def tell(*notices: Notice) -> Step:
    """A step that only tells something."""
    return Step(notices=notices)


@dataclass(frozen=True)
class Outcome:
    """What one text did: the conversation after it, whether to save, what to tell."""

    conv: Conversation
    changed: bool = False
    notices: list[Notice] = field(default_factory=list)
    error: Message | None = None
    choices: list[Choice] | None = None  # offered beside an error (candidates, 'did you mean')
    plan: Plan | None = None
    finished: bool = False  # the result was reached by this turn (it is audited)
    fetch: str | None = None  # a Hugging Face id whose config.json the service must fetch
    action: CardAction | None = None  # a card action typed, for the face to perform

    @classmethod
    def of(cls, conv: Conversation, step: Step) -> Outcome:
        """The turn's outcome: the conversation after it, and the steps it took."""
        return cls(conv, changed=step.changed, notices=list(step.notices), error=step.error,
                   choices=None if step.choices is None else list(step.choices),
                   plan=step.plan, finished=step.finished, fetch=step.fetch,
                   action=step.action)

    @property
    def step(self) -> Step:
        """What the turn did, to go on from (the service's fetch)."""
        return Step(notices=tuple(self.notices), error=self.error, choices=None
                    if self.choices is None else tuple(self.choices), fetch=self.fetch,
                    changed=self.changed, plan=self.plan, finished=self.finished,
                    action=self.action)
