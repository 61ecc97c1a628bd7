"""A conversation as plain data: what is stored between turns, and nothing else.

No machine, no recommendation, no callbacks: the JSON of a finished conversation is well
under 1 KB (measured in ``bench/dialogue.py``), any worker can load it, and a schema
change is visible in ``schema_version``. The recommendation is recomputed on demand
because the engine is deterministic and cheaper than storing its output.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = 1
HISTORY_LIMIT = 24  # "back" rarely goes further; the cap keeps a fidgety user's record small

AnswerValue = str | int | float | bool | None


class Conversation(BaseModel):
    """One person's sizing in progress (or finished), keyed by where it happens."""

    model_config = ConfigDict(extra="ignore")

    schema_version: int = SCHEMA_VERSION
    id: str
    key: str
    state: str
    answers: dict[str, AnswerValue] = Field(default_factory=dict)
    history: list[str] = Field(default_factory=list, description="states to return to on back")
    owner: str | None = None
    meta: dict[str, str] = Field(default_factory=dict, exclude=True)
    version: int = 0
    created_at: float
    updated_at: float
    expires_at: float

    def to_json(self) -> str:
        """The stored form. ``meta`` is kept beside it (see ``store.py``), not inside."""
        return self.model_dump_json()

    @classmethod
    def from_json(cls, doc: str, meta: dict[str, str] | None = None) -> Conversation:
        conv = cls.model_validate_json(doc)
        if meta:
            conv.meta = dict(meta)
        return conv
