"""The questions as data: what each slot asks, offers, accepts, shows and sends the engine.

Like a Rasa form's required slots: each :class:`Slot` names its reader (``dialogue/understand``),
its choices, how its answer is shown, its default (what an empty answer takes, shown with the
question), and its mapping onto the engine's request (the keys of ``python -m engine
recommend``: ``model`` or ``params_b``, ``target_tokens_per_s``, ``int4``, ...). Its wording
is in the catalog under ``dialogue.slot.<name>.{label,ask,help}``. ``ORDER`` is the order of
the article's tree (docs/decision-tree.md): model and workload, then what step 1 needs, then
what only a "no" at step 1 makes necessary (INT4 consent, the link between nodes). Which
slot is asked next is ``dialogue/flow.py``'s; this module holds no decision.

Menus are the catalog's (GPUs, links, models) and the engine's (workloads, defaults): none is
listed here again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any

import engine
from dialogue.conversation import AnswerValue
from dialogue.reply import Choice
from dialogue.understand import names, negation, numbers
from engine import EngineError
from engine.catalog import catalog
from engine.request import DEFAULT_GPU, DEFAULT_INTERCONNECT, TRAINING, SizingRequest
from engine.units import Lang
from engine.wording import Message, Param, msg, text

Answers = Mapping[str, AnswerValue]


@dataclass(frozen=True)
class Default:
    """The answer an empty reply takes at a question (``value`` may be None: 'no target')."""

    value: AnswerValue


@dataclass(frozen=True)
class Slot:
    name: str  # the state that asks it, and its key in Conversation.answers
    aliases: tuple[str, ...]  # folded words for 'change <answer>', English and French
    numeric: bool  # a bare number typed is the answer, not a choice's index
    applies: Callable[[Answers], bool]  # whether it can matter for these answers
    read: Callable[[str, Answers, Lang], AnswerValue]
    choices: Callable[[Answers], list[Choice]]
    show: Callable[[AnswerValue], Message]
    to_request: Callable[[AnswerValue], dict[str, Any]]  # onto the engine CLI's keys
    default: Callable[[Answers], Default | None] = lambda a: None
    ask_params: Callable[[Answers], dict[str, Param]] = lambda a: {}

    @cached_property
    def label(self) -> Message:
        return msg(f"dialogue.slot.{self.name}.label")

    def ask(self, answers: Answers) -> Message:
        return msg(f"dialogue.slot.{self.name}.ask", **self.ask_params(answers))

    @cached_property
    def help(self) -> Message:
        return msg(f"dialogue.slot.{self.name}.help")


# -- what the answers so far say -------------------------------------------------------------


def is_training(answers: Answers) -> bool:
    return answers.get("workload") in TRAINING


def serving(answers: Answers) -> bool:
    return not is_training(answers)


def context_limit(answers: Answers) -> int | None:
    """The model's context window, from the engine (None before the model is known, or for
    a stored model the catalog no longer holds: the engine then refuses it, and says so)."""
    m = answers.get("model")
    try:
        if isinstance(m, str):
            return engine.max_context(m, None)
        if isinstance(m, int | float) and not isinstance(m, bool):
            return engine.max_context(None, float(m))
    except EngineError:
        return None
    return None


def show_model(v: AnswerValue) -> Message:
    if isinstance(v, str):
        spec = catalog().models.get(v)
        return text(spec.name if spec else v)
    if isinstance(v, int | float) and not isinstance(v, bool):
        return msg("dialogue.show.sized_model", params=float(v) * 1e9)
    return msg("dialogue.show.none")


def model_name(answers: Answers) -> Message:
    return show_model(answers.get("model"))


# -- shown values ----------------------------------------------------------------------------


def _count(v: AnswerValue) -> Message:
    return msg("dialogue.show.count", n=v if isinstance(v, int | float) else 0)


def _context(v: AnswerValue) -> Message:
    n = int(v) if isinstance(v, int | float) else 0
    # '(32k)' beside the powers of two people write as 32k; 128,000 typed is not '(125k)'
    binary = n >= 1024 and n % 1024 == 0 and n % 1000 != 0
    return msg("dialogue.show.context_k" if binary else "dialogue.show.context", tokens=n)


def _rate(v: AnswerValue) -> Message:
    if v is None:
        return msg("dialogue.show.no_target")
    return msg("dialogue.show.rate", rate=float(v))


def _yes_no(v: AnswerValue) -> Message:
    return msg("dialogue.show.yes" if v is True else "dialogue.show.no")


def _tokens(v: AnswerValue) -> Message:
    return msg("dialogue.show.tokens", n=float(v) if isinstance(v, int | float) else 0.0)


def _days(v: AnswerValue) -> Message:
    return msg("dialogue.show.days", days=float(v) if isinstance(v, int | float) else 0.0)


def _workload(v: AnswerValue) -> Message:
    return msg(f"workload.{str(v).replace('-', '_')}")  # the engine's name for it


def _link(v: AnswerValue) -> Message:
    link = catalog().links.get(str(v))
    return text(link.name if link else str(v))


def _gpu(v: AnswerValue) -> Message:
    g = catalog().gpus.get(str(v))
    return text(g.name if g else str(v))


# -- choices (the fixed menus are built once: a choice is frozen data) ---------------------------

#: The models offered as buttons at the first question (any catalog model can be typed).
FEATURED_MODELS = ("llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "qwen-2.5-72b",
                   "deepseek-v3", "gpt-oss-120b")


def model_choices(ids: list[str] | tuple[str, ...]) -> list[Choice]:
    models = catalog().models
    return [Choice(value=m, label=text(models[m].name)) for m in ids if m in models]


def _models(_: Answers) -> list[Choice]:
    return list(_models_menu())


@cache
def _models_menu() -> tuple[Choice, ...]:
    return tuple(model_choices([m for m in FEATURED_MODELS if m in catalog().models]
                               or sorted(catalog().models)[:6]))


def _workloads(_: Answers) -> list[Choice]:
    return list(_workloads_menu())


@cache
def _workloads_menu() -> tuple[Choice, ...]:
    return tuple(Choice(value=w, label=msg(f"dialogue.choice.workload.{w.replace('-', '_')}"))
                 for w in names.WORKLOADS)


def _concurrencies(_: Answers) -> list[Choice]:
    return list(_concurrencies_menu())


@cache
def _concurrencies_menu() -> tuple[Choice, ...]:
    return tuple(Choice(value=str(n), label=msg("dialogue.choice.concurrency", n=n))
                 for n in (1, 8, 16, 32, 48, 64, 128, 256))


def _contexts(answers: Answers) -> list[Choice]:
    top = context_limit(answers)  # the model's window: no choice beyond it
    out = [Choice(value=f"{k}k", label=msg("dialogue.choice.context", tokens=k * 1024))
           for k in (4, 8, 32, 128) if top is None or k * 1024 <= top]
    if out or top is None:
        return out
    return [Choice(value=str(top), label=msg("dialogue.choice.context", tokens=top))]


def _targets(_: Answers) -> list[Choice]:
    return list(_targets_menu())


@cache
def _targets_menu() -> tuple[Choice, ...]:
    out = [Choice(value="no target", label=msg("dialogue.choice.no_target"), style="primary")]
    out += [Choice(value=f"{n} tok/s", label=msg("dialogue.show.rate", rate=n))
            for n in (1000, 3000, 6000, 20000)]
    return tuple(out)


def _int4s(_: Answers) -> list[Choice]:
    return list(_int4s_menu())


@cache
def _int4s_menu() -> tuple[Choice, ...]:
    return (Choice(value="yes", label=msg("dialogue.choice.int4_yes"), style="primary"),
            Choice(value="no", label=msg("dialogue.choice.int4_no")))


_BUDGETS = (("1B tokens", 1e9), ("10B tokens", 10e9), ("100B tokens", 100e9),
            ("1.5T tokens", 1.5e12), ("15T tokens", 15e12))


def _budgets(answers: Answers) -> list[Choice]:
    d = _finetune_tokens(answers)
    return [Choice(value=value, label=_tokens(v),
                   style="primary" if d is not None and d.value == v else None)
            for value, v in _BUDGETS]


_DEADLINES = (("7 days", "dialogue.choice.days", 7), ("2 weeks", "dialogue.choice.weeks", 2),
              ("30 days", "dialogue.choice.days", 30), ("3 months", "dialogue.choice.months", 3),
              ("1 year", "dialogue.choice.years", 1))


def _deadlines(answers: Answers) -> list[Choice]:
    d = _deadline_default(answers)
    return [Choice(value=value, label=msg(mid, n=n),
                   style="primary" if d is not None and numbers.deadline(value) == d.value
                   else None)
            for value, mid, n in _DEADLINES]


def _links(_: Answers) -> list[Choice]:
    return list(_links_menu())


@cache
def _links_menu() -> tuple[Choice, ...]:
    return tuple(Choice(value=lk.id, label=text(lk.name),
                        style="primary" if lk.id == DEFAULT_INTERCONNECT else None)
                 for lk in catalog().inter_links())


def _gpus(_: Answers) -> list[Choice]:
    return list(_gpus_menu())


@cache
def _gpus_menu() -> tuple[Choice, ...]:
    gpus = sorted(catalog().gpus.values(), key=lambda g: (not g.vendor_builds, -g.memory_gb))
    return tuple(Choice(value=g.id, label=msg("dialogue.choice.gpu", name=g.name,
                                              memory=g.memory_gb),
                        style="primary" if g.id == DEFAULT_GPU else None) for g in gpus)


# -- defaults: the engine's, shown with the question -----------------------------------------


def _finetune_tokens(answers: Answers) -> Default | None:
    """A fine-tune's token budget defaults to the policy's; pretraining has no default (its
    budget decides everything: it is asked)."""
    if answers.get("workload") == "pretrain":
        return None
    return Default(catalog().policy.default_finetune_tokens)


def _deadline_default(_: Answers) -> Default | None:
    return Default(catalog().policy.default_deadline_days)


# -- reading ---------------------------------------------------------------------------------


def _read_context(t: str, a: Answers, lang: Lang) -> AnswerValue:
    return numbers.context(t, context_limit(a) or 10**9, model_name(a))


def _model_request(v: AnswerValue) -> dict[str, Any]:
    if isinstance(v, str):
        return {"model": v}
    return {"params_b": v}


def _key(name: str) -> Callable[[AnswerValue], dict[str, Any]]:
    return lambda v: {name: v}


def _always(_: Answers) -> bool:
    return True


SLOTS: dict[str, Slot] = {
    s.name: s
    for s in (
        Slot("model", ("model", "llm", "the model", "modele", "le modele"), False, _always,
             lambda t, a, lang: names.model(t, lang), _models, show_model, _model_request),
        Slot("workload", ("workload", "task", "job", "use", "charge de travail", "travail",
                          "tache", "usage"), False, _always,
             lambda t, a, lang: names.workload(t), _workloads, _workload, _key("workload"),
             ask_params=lambda a: {"model": model_name(a)}),
        Slot("concurrency", ("concurrency", "users", "concurrent", "requests", "load",
                             "utilisateurs", "requetes", "concurrence", "charge"), True, serving,
             lambda t, a, lang: numbers.concurrency(t), _concurrencies, _count,
             _key("concurrency")),
        Slot("context", ("context", "ctx", "context length", "window", "contexte",
                         "longueur de contexte", "fenetre"), True, serving,
             _read_context, _contexts, _context, _key("context"),
             ask_params=lambda a: {"model": model_name(a), "limit": context_limit(a) or 0}),
        Slot("target_tokens_per_s", ("target", "throughput", "tok/s", "tokens per second",
                                     "speed", "objectif", "debit", "cible", "vitesse"), True,
             serving, lambda t, a, lang: numbers.target(t), _targets, _rate,
             _key("target_tokens_per_s"), default=lambda a: Default(None)),
        Slot("int4", ("int4", "quantization", "quantisation", "4-bit", "quantification"), False,
             serving, lambda t, a, lang: negation.yes_no(t), _int4s, _yes_no, _key("int4"),
             ask_params=lambda a: {"model": model_name(a)}),
        Slot("train_tokens", ("tokens", "token budget", "budget", "dataset", "data", "jetons",
                              "donnees"), True, is_training,
             lambda t, a, lang: numbers.tokens(t, lang), _budgets, _tokens, _key("train_tokens"),
             default=_finetune_tokens),
        Slot("deadline_days", ("deadline", "days", "time", "duration", "delai", "echeance",
                               "duree", "jours"), True, is_training,
             lambda t, a, lang: numbers.deadline(t), _deadlines, _days, _key("deadline_days"),
             default=_deadline_default),
        Slot("interconnect", ("interconnect", "network", "link", "fabric", "nic", "reseau",
                              "interconnexion", "lien"), False, _always,
             lambda t, a, lang: names.interconnect(t), _links, _link, _key("interconnect"),
             default=lambda a: Default(DEFAULT_INTERCONNECT),
             ask_params=lambda a: {"default": _link(DEFAULT_INTERCONNECT)}),
        Slot("gpu", ("gpu", "gpus", "card", "cards", "hardware", "accelerator", "carte",
                     "cartes", "materiel"), False, _always,
             lambda t, a, lang: names.gpu(t), _gpus, _gpu, _key("gpu"),
             default=lambda a: Default(DEFAULT_GPU),
             ask_params=lambda a: {"gpus": SizingRequest.model_fields["gpus_per_node"].default}),
    )
}

ORDER: tuple[str, ...] = tuple(SLOTS)
ALIASES: dict[str, str] = {alias: s.name for s in SLOTS.values() for alias in s.aliases}


def valid(slot: str, answers: Answers) -> bool:
    """Answered, and still valid for the other answers (a context beyond a new model's max)."""
    if slot not in answers:
        return False
    if slot == "context":
        v, limit = answers[slot], context_limit(answers)
        return isinstance(v, int) and (limit is None or v <= limit)
    return True


def expects_number(state: str) -> bool:
    """True when a bare number typed at this question is the answer, not a choice index."""
    slot = SLOTS.get(state)
    return slot is not None and slot.numeric
