"""A conversation as plain data: what is stored between turns, and nothing else.

No machine, no recommendation, no callbacks: the JSON of a finished conversation is well
under 1 KB (measured in ``bench/dialogue.py``), any worker can load it, and a schema
change is visible in ``schema_version`` (a conversation of another schema is treated as
gone: "start again", never a guess). The recommendation is recomputed on demand because
the engine is deterministic and cheaper than storing its output.

Schema (version 3)::

    id, key, owner, version, created_at, updated_at, expires_at   identity and lifetime
    state        the slot being asked (``dialogue.slots``), 'done' or 'cancelled'
    answers      key -> value, keys as the engine CLI names them (``dialogue.slots.KEYS``):
                 'model' (catalog id; billions of parameters for a model known by its
                 counts, with 'active_params_b' for an MoE; 'config:<name>' for a model
                 given by its config.json, kept in 'model_config'), 'workload',
                 'concurrency', 'users_total', 'requests_per_s', 'prompt_tokens',
                 'output_tokens', 'documents', 'document_tokens', 'batch_days', 'context',
                 'target_tokens_per_s' (null: no target), 'per_user_tokens_per_s', 'ttft_s',
                 'int4', 'train_tokens' (with 'examples', 'example_tokens' and 'epochs': what
                 a data set counted in items is made of), 'deadline_days', 'interconnect', 'gpu',
                 'gpus_per_node', 'nodes_owned' (the servers they said they have: compared
                 with the answer, never sized)
    sources      key -> where its answer came from: said / assumed / default / confirmed
    reask        answer keys refused where they were said ('17 GPUs per node'): their
                 question is asked before the card, never left to its default
    proposals    slot -> what the bot proposes there and waits for a click on (the
                 candidates for a model name, the kind of fine-tune, "did you mean context
                 32k?"): the options and the answers each one sets, marked 'confirmed'
    language     'en' or 'fr'; language_source: default / detected / chosen
    history      the questions to return to on 'back'

``meta`` (face data such as a Slack message ts) is kept beside the document by the store.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from dialogue.reply import Source
from engine.units import Lang
from engine.wording import Message

SCHEMA_VERSION = 3
HISTORY_LIMIT = 24  # "back" rarely goes further; the cap keeps a fidgety user's record small

#: bool before int and float: True is an int to Python, and pydantic before 2.8 serialized a
#: True answer in an int-first union as 1.0 (a stored yes then read back as a number).
AnswerValue = str | bool | int | float | None
#: How the language was set: nothing said yet (the face's hint or English), read from the
#: person's words, or asked for ("in French"). Only a default one follows the next words.
LanguageSource = Literal["default", "detected", "chosen"]
#: The questions, by the state that asks each (``dialogue/slots.py`` holds what each one asks,
#: reads and offers, in the tree's order). Typed so that a misspelt slot fails the type check,
#: not a conversation.
SlotName = Literal["model", "workload", "concurrency", "context", "target_tokens_per_s", "int4",
                   "precision", "train_tokens", "deadline_days", "interconnect", "gpu"]
#: Where a conversation is: a question, the result shown (``done``), or ``cancelled``.
State = SlotName | Literal["done", "cancelled"]
DONE: Final = "done"
CANCELLED: Final = "cancelled"


class Option(BaseModel):
    """One button of a proposal: what it says, the text it sends, the answers it sets (none
    for 'none of these', which reopens the question with the ways to describe)."""

    model_config = ConfigDict(frozen=True)

    value: str
    label: Message
    answers: dict[str, AnswerValue] = Field(default_factory=dict)
    style: Literal["primary", "danger"] | None = None


class Proposal(BaseModel):
    """What the bot asks a person to confirm at one question, and the options."""

    model_config = ConfigDict(frozen=True)

    text: Message
    options: list[Option]
    #: a yes-or-no question ('Did you mean Llama 3.3 70B?'): a yes takes its first option,
    #: a no its last (none of these, keep what was said, the other reading)
    confirms: bool = False


class Conversation(BaseModel):
    """One person's sizing in progress (or finished), keyed by where it happens."""

    model_config = ConfigDict(extra="ignore")

    schema_version: int = SCHEMA_VERSION
    id: str
    key: str
    state: State
    answers: dict[str, AnswerValue] = Field(default_factory=dict)
    sources: dict[str, Source] = Field(default_factory=dict)
    proposals: dict[str, Proposal] = Field(default_factory=dict)
    reask: list[str] = Field(default_factory=list)
    language: Lang = "en"
    language_source: LanguageSource = "default"
    history: list[SlotName] = Field(default_factory=list,
                                    description="questions to return to on back")
    owner: str | None = None
    meta: dict[str, str] = Field(default_factory=dict, exclude=True)
    version: int = 0
    created_at: float
    updated_at: float
    expires_at: float

    @model_validator(mode="after")
    def _every_answer_has_a_source(self) -> Conversation:
        for slot in self.answers:
            self.sources.setdefault(slot, "said")
        for slot in [s for s in self.sources if s not in self.answers]:
            del self.sources[slot]
        return self

    def put(self, slot: str, value: AnswerValue, source: Source) -> None:
        """Set one answer and where it came from (the one way answers are written)."""
        self.answers[slot] = value
        self.sources[slot] = source

    def fork(self) -> Conversation:
        """A copy a turn may change without touching this one: new containers (the values
        in them are scalars), at a fraction of a deep copy's cost."""
        return self.model_copy(update={
            "answers": dict(self.answers), "sources": dict(self.sources),
            "proposals": dict(self.proposals), "history": list(self.history),
            "reask": list(self.reask),
            "meta": dict(self.meta),
        })

    def refused(self, keys: Iterable[str]) -> None:
        """Answers refused where they were said: their question is asked again."""
        self.reask.extend(k for k in keys if k not in self.reask)

    def answered(self, keys: Iterable[str]) -> None:
        """A question answered: what was refused there is asked no more."""
        self.reask[:] = [k for k in self.reask if k not in keys]

    def drop(self, slot: str) -> None:
        self.answers.pop(slot, None)
        self.sources.pop(slot, None)

    def to_json(self) -> str:
        """The stored form. ``meta`` is kept beside it (see ``dialogue/store/base.py``)."""
        return self.model_dump_json()

    @classmethod
    def from_json(cls, doc: str, meta: dict[str, str] | None = None) -> Conversation:
        conv = cls.model_validate_json(doc)
        if meta:
            conv.meta = dict(meta)
        return conv
