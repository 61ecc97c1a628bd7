"""What one turn of the dialogue returns to a face: plain data, no Slack, no terminal.

A face (``bot/console.py``, ``bot/cards.py``) renders a ``Reply``; it never needs to know
the state machine. ``choices`` answer the current question (buttons, numbered options);
``nav`` are the commands valid everywhere (back, change, restart, cancel, help).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from engine.result import Recommendation

ReplyKind = Literal["question", "result", "ended", "error"]


class Choice(BaseModel):
    model_config = ConfigDict(frozen=True)

    value: str = Field(description="what the dialogue receives when this is picked")
    label: str = Field(description="what a person sees")
    style: Literal["primary", "danger"] | None = None


class Reply(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: ReplyKind
    conversation_id: str
    version: int = Field(description="the stored version after this turn; clicks carry it")
    state: str = Field(description="state name: the slot asked, 'done', 'cancelled'")
    text: str = Field(description="the question, or the result's headline, in plain words")
    help: str | None = None
    notices: list[str] = Field(
        default_factory=list,
        description="what happened since the last turn: step outcomes, what was understood",
    )
    error: str | None = Field(default=None, description="why the last input was not accepted")
    choices: list[Choice] = Field(default_factory=list)
    nav: list[Choice] = Field(default_factory=list)
    answers: dict[str, str] = Field(
        default_factory=dict, description="answers so far, labelled for people"
    )
    recommendation: Recommendation | None = None
