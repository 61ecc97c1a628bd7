"""What a question and the card both show: notices, decision steps, the answers with their
source, the verdict's name.

Why one module: "what the bot understood, assumed or defaulted is always shown" is one rule
for every message of a sizing; the answers line marks each answer the person did not say
themselves (assumed, default) the same way on a question and on the card. Everything is
chosen by typed fields (a notice's ``kind``, an answer's ``source``), never by reading text.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.slack.cards.words import Words
from dialogue.reply import AnswerView, Notice
from engine.result import StepAnswer
from engine.wording import Message, msg, text

_ANSWER_WORD = {"yes": msg("answer.yes"), "no": msg("answer.no"),
                "not applicable": msg("answer.not_applicable")}
#: The engine's names of precisions and workloads (typed values -> its messages).
PRECISION_WORDS: dict[str, Message] = {
    "bf16": msg("precision.bf16"), "fp16": msg("precision.fp16"), "fp8": msg("precision.fp8"),
    "int4": msg("precision.int4"), "nf4": msg("precision.nf4"),
    "nvfp4": msg("precision.nvfp4"), "mxfp4": msg("precision.mxfp4")}
WORKLOAD_WORDS: dict[str, Message] = {
    "inference": msg("workload.inference"), "lora": msg("workload.lora"),
    "qlora": msg("workload.qlora"), "full-finetune": msg("workload.full_finetune"),
    "pretrain": msg("workload.pretrain")}
#: Where an answer came from, in words (the quote summary lists every input with it).
SOURCE_WORDS: dict[str, Message] = {
    "said": msg("slack.source.said"), "assumed": msg("slack.source.assumed"),
    "default": msg("slack.source.default"), "confirmed": msg("slack.source.confirmed")}


def named(words: dict[str, Message], value: str) -> Message:
    """The engine's name of a typed value, or the value itself when it has none."""
    return words.get(value) or text(value)


def notices(items: Sequence[Notice], w: Words) -> str | None:
    """What happened since the last turn, as bullets; step notices are left to the steps."""
    lines = [f"{':warning: ' if n.kind == 'warning' else '• '}{w.md(n.text)}"
             for n in items if n.kind != "step"]
    return "\n".join(lines) or None


def step_lines(steps: Sequence[StepAnswer], w: Words) -> list[str]:
    """Each decision step: its question, its answer, and the evidence with its numbers."""
    return [w.md(msg("slack.step.line", n=s.step, question=s.question,
                     answer=_ANSWER_WORD[s.answer], because=s.because)) for s in steps]


def _answer(a: AnswerView) -> Message:
    if a.source == "assumed":
        return msg("slack.answers.assumed", label=a.label, shown=a.shown)
    if a.source == "default":
        return msg("slack.answers.default", label=a.label, shown=a.shown)
    return msg("slack.answers.said", label=a.label, shown=a.shown)


def answers_line(answers: Sequence[AnswerView], w: Words, title: Message) -> str | None:
    """``title`` then every answer, marked when assumed or defaulted."""
    if not answers:
        return None
    items = [w.md(_answer(a)) for a in answers]
    return f"{w.md(title)} " + " · ".join(items)


def error_line(error: Message | None, w: Words) -> str | None:
    return f":warning: {w.md(error)}" if error is not None else None
