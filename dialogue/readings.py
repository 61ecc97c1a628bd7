"""What reading a text gives, as values: answers, a proposal, a Hub id to fetch, a refusal.

A slot's reader (``dialogue/readers.py``), the model reader (``dialogue/understand/models.py``)
and the sentence reader (``dialogue/understand/opening.py``) return these; the turn
(``dialogue/answer.py``) decides what each does. Only a refusal fails, and even it is an
answer to give back (the question again, with why), not an exception to unwind: a text that
could mean two things did not fail to be read, and a model to fetch is work for the service.

* :class:`Reading`: the answers the text sets, by key (``dialogue/keys.py``), and those the
  bot inferred rather than read (a headcount's share at once), which are said as assumed.
* :class:`~dialogue.conversation.Proposal`: the text could mean several answers, or one the
  bot must not take without asking (a model's name it only comes near, a bare "fine-tune",
  "32k" at the speed question). The very value a conversation stores: a reader's proposal
  is for the question it reads (a sentence's are keyed by question in ``Found.unsure``).
* :class:`Fetch`: a Hugging Face id the catalog lacks; the service fetches its config.json
  (I/O stays out of the readers).
* :class:`Refusal`: the text answers nothing here; ``message`` says what was expected.

The parsers of one quantity or word (``dialogue/understand/numbers.py``, ``gpus.py``...)
raise :class:`dialogue.errors.ParseError` inside, which carries its :class:`Refusal`; the
readers catch it where they return.
"""

from __future__ import annotations

from dataclasses import dataclass

from dialogue.conversation import AnswerValue, Proposal
from engine.wording import Message

__all__ = ["Fetch", "Proposal", "Read", "Reading", "Refusal"]


@dataclass(frozen=True)
class Reading:
    """The answers a text sets; ``inferred``: the keys among them the bot inferred."""

    answers: dict[str, AnswerValue]
    inferred: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Fetch:
    """A Hugging Face id the catalog does not hold: its config.json is the model."""

    repo: str


@dataclass(frozen=True)
class Refusal:
    """Why a text answers nothing here, and what to offer beside the question asked again.

    ``suggestions`` are catalog ids worth offering as choices (a model or GPU the text came
    near); ``retry`` are typed values that would be accepted (the "did you mean 64k?" of a
    bare ``64``), offered as buttons beside the error; ``ambiguous``: the text named several
    catalog entries, not none."""

    message: Message
    suggestions: tuple[str, ...] = ()
    retry: tuple[str, ...] = ()
    ambiguous: bool = False


#: What reading a text at a question gives.
Read = Reading | Proposal | Fetch | Refusal
