"""The answers as data: each key a conversation keeps, the question it belongs to, how it is
shown, and how it is named for the engine.

Why keys and not only questions: one question takes several shapes of answer (the load is
"64 at once", or "200 employees" with an assumed share at once, or "20 requests per second",
or "10M documents of 2k tokens by Friday"; a speed is per user or in total), and each shape
is its own fact with its own source (you said / I assumed / default / confirmed), shown on
its own line and sent to the engine under the name its CLI uses (``python -m engine
recommend``: ``model`` or ``params_b`` and ``active_params_b``, ``per_user_tokens_per_s``,
``requests_per_s``, ``prompt_tokens``, ``output_tokens``, ``gpus_per_node``, ...). The
facts the engine has no field for (a headcount, a batch's documents) are shown, and the
engine is sent what they mean (``dialogue/flow.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from dialogue.conversation import AnswerValue, SlotName
from dialogue.understand import config
from engine.catalog import catalog
from engine.wording import Message, msg, text

Answers = Mapping[str, AnswerValue]
CONFIG = "config:"  # the prefix of a model given by its config.json ('config:<name>')


def _num(v: AnswerValue) -> float:
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else 0.0


def show_model(v: AnswerValue) -> Message:
    if isinstance(v, str) and v.startswith(CONFIG):
        return msg("dialogue.show.config_model", name=v[len(CONFIG):])
    if isinstance(v, str):
        spec = catalog().models.get(v)
        return text(spec.name if spec else v)
    if isinstance(v, int | float) and not isinstance(v, bool):
        return msg("dialogue.show.sized_model", params=float(v) * 1e9)
    return msg("dialogue.show.none")


def _context(v: AnswerValue) -> Message:
    n = int(_num(v))
    # '(32k)' beside the powers of two people write as 32k; 128,000 typed is not '(125k)'
    binary = n >= 1024 and n % 1024 == 0 and n % 1000 != 0
    return msg("dialogue.show.context_k" if binary else "dialogue.show.context", tokens=n)


def _rate(v: AnswerValue) -> Message:
    return msg("dialogue.show.no_target") if v is None else msg("dialogue.show.rate",
                                                                   rate=_num(v))


def _workload(v: AnswerValue) -> Message:
    return msg(f"workload.{str(v).replace('-', '_')}")  # the engine's name for it


def _entry(kind: str) -> Callable[[AnswerValue], Message]:
    def show(v: AnswerValue) -> Message:
        table: Mapping[str, Any] = catalog().links if kind == "link" else catalog().gpus
        e = table.get(str(v))
        return text(e.name if e else str(v))
    return show


def avoided(v: AnswerValue) -> tuple[str, ...]:
    """The GPU ids of an ``avoid_gpus`` answer."""
    return tuple(g for g in str(v or "").split(",") if g)


def _shown(mid: str, param: str) -> Callable[[AnswerValue], Message]:
    return lambda v: msg(mid, **{param: _num(v)})


def _model_request(v: AnswerValue, answers: Answers) -> dict[str, Any]:
    if isinstance(v, str) and v.startswith(CONFIG):
        stored = answers.get("model_config")
        return {"hf_config": config.loads(stored) if isinstance(stored, str) else {}}
    if isinstance(v, str):
        return {"model": v}
    return {"params_b": v}


@dataclass(frozen=True)
class Key:
    """One answer a conversation may keep: its question, its shown value, its engine name."""

    name: str
    slot: SlotName
    show: Callable[[AnswerValue], Message]
    request: Callable[[AnswerValue, Answers], dict[str, Any]] | None = None  # None: as named
    shown: bool = True  # on the summary (the stored config.json is shown by the model's line)
    #: the answers without which it means nothing (a documents' length, without documents
    #: to process): said alone, it is not kept, and the reply says why
    needs: tuple[str, ...] = ()
    #: the key the same words mean on a batch job's card ('by tomorrow' is the job's
    #: deadline, '3000 tokens' its documents' length), unless its question's other keys are
    #: said beside it ('1k prompts, 300-token answers' stay lengths)
    batch: str | None = None

    @property
    def label(self) -> Message:
        return msg(f"dialogue.key.{self.name}.label")

    def to_request(self, v: AnswerValue, answers: Answers) -> dict[str, Any]:
        return {self.name: v} if self.request is None else self.request(v, answers)


KEYS: dict[str, Key] = {k.name: k for k in (
    Key("model", "model", show_model, _model_request),
    Key("active_params_b", "model", lambda v: msg("dialogue.show.params", params=_num(v) * 1e9)),
    Key("model_config", "model", lambda v: text(""), lambda v, a: {}, shown=False),
    Key("workload", "workload", _workload),
    Key("users_total", "concurrency", _shown("dialogue.show.people", "n")),
    Key("concurrency", "concurrency", _shown("dialogue.show.count", "n")),
    Key("requests_per_s", "concurrency", _shown("dialogue.show.per_second", "rate")),
    Key("documents", "concurrency", _shown("dialogue.show.documents", "n")),
    Key("document_tokens", "concurrency", _shown("dialogue.show.tokens_each", "n"),
        needs=("documents",)),
    Key("batch_days", "concurrency", _shown("dialogue.show.days", "days")),
    # what the batch does to each document, when that sets its answers' length (a
    # translation, a classification): the engine's kind of work
    Key("task", "concurrency", lambda v: msg(f"dialogue.task.{v}"), lambda v, a: {}),
    Key("context", "context", _context, batch="document_tokens"),
    Key("prompt_tokens", "context", _shown("dialogue.show.length", "n")),
    Key("output_tokens", "context", _shown("dialogue.show.length", "n")),
    Key("per_user_tokens_per_s", "target_tokens_per_s", _shown("dialogue.show.per_user",
                                                               "rate")),
    Key("ttft_s", "target_tokens_per_s", _shown("dialogue.show.seconds", "s")),
    Key("target_tokens_per_s", "target_tokens_per_s", _rate),
    Key("int4", "int4", lambda v: msg("dialogue.show.yes" if v is True else "dialogue.show.no")),
    Key("precision", "precision", lambda v: msg(f"precision.{v}")),
    Key("kv_precision", "precision", lambda v: msg(f"precision.{v}")),
    Key("train_tokens", "train_tokens", _shown("dialogue.show.tokens", "n")),
    # a data set counted in items, and its passes: shown, the engine takes the budget they make
    Key("examples", "train_tokens", _shown("dialogue.show.examples", "n")),
    Key("example_tokens", "train_tokens", _shown("dialogue.show.tokens_each", "n")),
    Key("epochs", "train_tokens", _shown("dialogue.show.count", "n")),
    Key("deadline_days", "deadline_days", _shown("dialogue.show.days", "days"),
        batch="batch_days"),
    Key("interconnect", "interconnect", _entry("link")),
    Key("gpu", "gpu", _entry("gpu")),
    # a node size said with its GPU ('on a single RTX 4090', 'on 4x L40S') is the hardware
    # in question: the engine says first what one such node does (or the nodes they have)
    Key("gpus_per_node", "gpu", _shown("dialogue.show.count", "n"),
        lambda v, a: {"gpus_per_node": v, **({"nodes_owned": 1} if "gpu" in a
                                               and "nodes_owned" not in a else {})}),
    # the servers they have, of the GPU they named: the engine says first what they do
    Key("nodes_owned", "gpu", _shown("dialogue.show.nodes", "n"),
        lambda v, a: {"nodes_owned": v} if "gpu" in a else {}),
    # the GPUs they refused ('not on L40S'), comma-separated ids: never offered
    Key("avoid_gpus", "gpu", lambda v: text(", ".join(
        g.name for g in (catalog().gpus.get(i) for i in avoided(v)) if g is not None)),
        lambda v, a: {"avoid_gpus": list(avoided(v))}),
)}
ORDER: tuple[str, ...] = tuple(KEYS)


def of_slot(slot: SlotName) -> tuple[str, ...]:
    """The keys a question's answer may set (a new answer to it replaces them all)."""
    return tuple(k for k, key in KEYS.items() if key.slot == slot)


def for_batch(said: Mapping[str, AnswerValue]) -> dict[str, AnswerValue]:
    """What a sentence said after a batch job's card, in the batch's keys (``Key.batch``)."""
    out: dict[str, AnswerValue] = {}
    for k, v in said.items():
        batch = KEYS[k].batch
        beside = set(of_slot(KEYS[k].slot)) - {k}
        out[batch if batch is not None and not beside & set(said) else k] = v
    return out


def pair(key: str, value: AnswerValue, before: Answers | None = None) -> Message:
    """'Concurrent requests: 64': one answer as every reply says it; with the value it
    replaces when ``before`` held another ('Concurrent requests: 50 -> 100'), so that a
    change said relative to the card, or in passing, is checked at a glance."""
    k = KEYS[key]
    old = before.get(key) if before is not None else None
    if old is None or old == value:
        return msg("dialogue.notice.pair", label=k.label, value=k.show(value))
    return msg("dialogue.notice.pair_from", label=k.label, old=k.show(old), new=k.show(value))
