"""What one turn of the dialogue returns to a face: plain data, no Slack, no terminal.

A face (the Slack cards, the console, the JSON console) renders a ``Reply``; it never needs to
know the state machine and never reads the dialogue's prose: every sentence is a
:class:`engine.wording.Message` rendered in ``language`` with the face's catalog, and every
structure a face shows (the steps, the answers with their source, the navigation, the VRAM
picture inside the recommendation) is typed data.

``choices`` answer the current question (buttons, numbered options); ``nav`` are the commands
valid everywhere (back, change, restart, cancel, help). A choice's or nav's ``value`` is the
text a person could type for the same effect, so a click and typed text share one path.
``default`` is the choice an empty answer takes (the console's Enter): a face shows it, and
the answer is then marked ``default`` in ``sources``.

Message ids of the dialogue start with ``dialogue.`` (``dialogue/messages/*.toml``); a face
renders them, and the engine's, with its layered catalog (``bot/wording.py``).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from engine.result import Recommendation, StepAnswer
from engine.wording import Lang, Message

ReplyKind = Literal["question", "result", "ended", "error"]
NavKind = Literal["back", "help", "change", "restart", "cancel"]
#: Where an answer came from: the person said it, the bot assumed it (shown, one click to
#: change), it is the engine's default, or the person confirmed what the bot proposed.
Source = Literal["said", "assumed", "default", "confirmed"]
NoticeKind = Literal["understood", "ignored", "assumed", "step", "tradeoff", "info", "warning"]
#: What the card offers besides changing an answer, typed or clicked: the math and a GPU to
#: compare are the dialogue's; the charts, the quote form and the brief are a face's to make
#: (a reply carries the one a person typed as ``action``).
CardAction = Literal["math", "compare", "charts", "quote", "export", "change"]


class _Data(BaseModel):
    model_config = ConfigDict(frozen=True)


class Choice(_Data):
    value: str = Field(description="what the dialogue receives when this is picked")
    label: Message = Field(description="what a person sees")
    style: Literal["primary", "danger"] | None = None


class Nav(_Data):
    kind: NavKind
    slot: str | None = Field(default=None, description="for change: the answer it reopens")
    label: Message
    value: str = Field(description="the typed command with the same effect")
    style: Literal["primary", "danger"] | None = None


class Notice(_Data):
    kind: NoticeKind
    text: Message


class AnswerView(_Data):
    """One answer as a face shows it: its label, its value in words, and where it came from."""

    slot: str
    label: Message
    shown: Message
    source: Source


class Reply(_Data):
    kind: ReplyKind
    conversation_id: str
    version: int = Field(description="the stored version after this turn; clicks carry it")
    state: str = Field(description="state name: the slot asked, 'done', 'cancelled'")
    asking: str | None = Field(default=None, description="the slot being asked; None otherwise")
    language: Lang = "en"
    text: Message = Field(description="the question, or the result's headline")
    help: Message | None = None
    notices: list[Notice] = Field(
        default_factory=list, description="what happened since the last turn"
    )
    steps: list[StepAnswer] = Field(
        default_factory=list, description="decision steps already answered (shown with a question)"
    )
    error: Message | None = Field(default=None, description="why the last input was not accepted")
    choices: list[Choice] = Field(default_factory=list)
    default: Choice | None = Field(default=None, description="what an empty answer takes")
    nav: list[Nav] = Field(default_factory=list)
    answers: list[AnswerView] = Field(default_factory=list, description="answers so far")
    request: dict[str, Any] = Field(
        default_factory=dict,
        description="the answers as the engine CLI names them (model, params_b, workload, ...)",
    )
    sources: dict[str, Source] = Field(
        default_factory=dict, description="the source of each key of ``request``"
    )
    recommendation: Recommendation | None = None
    action: CardAction | None = Field(
        default=None, description="a card action typed that the face performs (the charts, "
        "the quote form, the brief): nothing in the sizing changed")
