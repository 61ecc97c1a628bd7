"""The questions as data: what each slot asks, offers, accepts, defaults to and sets.

Like a Rasa form's required slots: each :class:`Slot` names its reader (``dialogue/understand``),
its choices, its default (what an empty answer takes, shown with the question), and the keys
its answer may set (``dialogue/keys.py``: the load question takes "64 at once", "200
employees", "20 requests per second" or a batch job; the speed question a per-user speed or a
total). Its wording is in the catalog under ``dialogue.slot.<name>.{label,ask,help,word,
change}``. ``ORDER`` is the order of the article's tree (docs/decision-tree.md): model and
workload, then what step 1 needs, then what only a "no" at step 1 makes necessary (INT4
consent, the link between nodes). Which slot is asked next is ``dialogue/flow.py``'s.

Menus are ``dialogue/choices.py``'s, built from the catalog (GPUs, links, models) and the
engine (workloads, defaults): none is listed here again.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import TypeGuard

from dialogue import choices, readers
from dialogue import keys as answer_keys
from dialogue.assumptions import assumptions
from dialogue.conversation import Conversation, SlotName
from dialogue.keys import Answers
from dialogue.readings import Reading
from dialogue.reply import Choice
from dialogue.understand import models, names
from engine import units
from engine.catalog import catalog
from engine.request import DEFAULT_GPU, DEFAULT_INTERCONNECT, TRAINING, SizingRequest
from engine.units import tokens
from engine.wording import Message, Param, msg, text

Reader = readers.Reader


@dataclass(frozen=True)
class Default:
    """What an empty reply takes at a question: the answers it sets, and the text a person
    would type for it (a button's value)."""

    answers: Answers
    typed: str
    label: Message


@dataclass(frozen=True)
class Slot:
    name: SlotName  # the state that asks it
    aliases: tuple[str, ...]  # folded words for 'change <answer>', English and French
    numeric: bool  # a bare number typed is the answer, not a choice's index
    applies: Callable[[Answers], bool]  # whether it can matter for these answers
    read: Reader
    choices: Callable[[Answers], list[Choice]]
    default: Callable[[Answers], Default | None] = lambda a: None
    ask_params: Callable[[Answers], dict[str, Param]] = lambda a: {}
    merge: bool = False  # a new answer keeps the slot's other keys (a GPU keeps its count)
    #: keys a new answer leaves as they are, which do not answer the question alone (a first
    #: token within 2 s stays when a speed is given; it is no speed)
    keeps: tuple[str, ...] = ()
    #: the parts of an answer an incomplete one keeps (a data set's count before its length):
    #: shown and kept while the question waits for the rest; once it is answered, only the
    #: parts its answer says stay (a new total replaces what the old one was made of)
    parts: tuple[str, ...] = ()
    #: how an answer the other answers no longer allow is shown with the question again
    was: str = "dialogue.question.was"
    #: the question's wording for these answers, when it has more than one
    asks: Callable[[Answers], str] | None = None
    #: keys that make one answer together (a batch: its documents, their length, its
    #: deadline): a new value for some of them keeps the others
    together: tuple[str, ...] = ()
    #: the other questions a new answer settles, with their answer: a 16- or 8-bit weight
    #: format chosen says no to 4-bit weights (the format chosen is the card's)
    settles: Callable[[Answers], dict[SlotName, Answers]] = lambda a: {}
    #: the answers a new answer leaves void, dropped and asked again: the GPU of the card
    #: refused ('not on H200 actually') is no answer any more
    voids: Callable[[Answers], tuple[str, ...]] = lambda a: ()
    #: whether it is answered, and validly for the other answers (a context within the
    #: model's window); None: its own key is there
    complete: Callable[[Answers], bool] | None = None
    #: the question that takes its answer instead, for these answers (a batch job's deadline
    #: is part of its load)
    instead: Callable[[Answers], SlotName | None] = lambda a: None
    #: what refusing to change it says when the engine's answer makes it moot (a message
    #: id: 4-bit weights that change nothing, a link the answer never crosses)
    moot: str | None = None
    #: its answer is a whole sentence, read as an opening is ('llama 70b for 50 users')
    sentence: bool = False
    #: its answer decides which other questions exist (the model, the workload): said after
    #: the card it is a change, and the questions it brings are asked; said beside another
    #: question's answer it is never taken (only 'change' changes it)
    shapes: bool = False
    #: a correction ('64, sorry 128') is read from its last part by the question; False: its
    #: reader reads corrections itself (a yes or no: 'yes, sorry, no' is no)
    corrected: bool = True
    #: what 'none of these' says at its proposal (a message id)
    none: str = "dialogue.notice.none"
    #: its change is on every question's navigation, answered or not (the GPU: comparing is
    #: what people do most)
    offered: bool = False
    #: a bound refused outright at the question ('no deadline', 'pas pressé') leaves the
    #: value to the bot as 'not sure' does: its default, said as assumed
    open_ended: bool = False

    def answered(self, answers: Answers) -> bool:
        """Answered, and still valid for the other answers."""
        return self.complete(answers) if self.complete else self.name in answers

    @cached_property
    def keys(self) -> tuple[str, ...]:
        """The answer keys this question sets (``dialogue/keys.py``)."""
        return answer_keys.of_slot(self.name)

    @cached_property
    def label(self) -> Message:
        return msg(f"dialogue.slot.{self.name}.label")

    def ask(self, answers: Answers) -> Message:
        ident = self.asks(answers) if self.asks else f"dialogue.slot.{self.name}.ask"
        return msg(ident, **self.ask_params(answers))

    def worded_for(self, answers: Answers) -> bool:
        """Whether the question is worded for these answers (a batch job's deadline): it
        says what it keeps itself, so no '(now: ...)' is shown beside it."""
        return self.asks is not None and self.asks(answers) != f"dialogue.slot.{self.name}.ask"

    @cached_property
    def help(self) -> Message:
        return msg(f"dialogue.slot.{self.name}.help")

    def show(self, answers: Answers) -> Message:
        """The answer as one phrase (the question's '(now: ...)'): its main key."""
        for k in self.keys:
            if k in answers and answer_keys.KEYS[k].shown:
                return answer_keys.KEYS[k].show(answers[k])
        return msg("dialogue.show.none")


def is_training(answers: Answers) -> bool:
    return answers.get("workload") in TRAINING


def serving(answers: Answers) -> bool:
    return not is_training(answers)


# -- the token budgets offered (the fine-tune's default first) -----------------------------

_BUDGETS = (("1B tokens", 1e9), ("10B tokens", 10e9), ("100B tokens", 100e9),
            ("1.5T tokens", 1.5e12), ("15T tokens", 15e12))


#: one item's length offered when the data set was counted in items ('50k tickets')
_LENGTHS = (256, 512, 1000, 2000, 4000)


def _budgets(answers: Answers) -> list[Choice]:
    if "examples" in answers and "train_tokens" not in answers:
        return [Choice(value=f"{n} tokens each", label=msg("dialogue.show.tokens_each", n=n))
                for n in _LENGTHS]
    d = _finetune_tokens(answers)
    return [Choice(value=value, label=msg("dialogue.show.tokens", n=v),
                   style="primary" if d is not None and d.answers["train_tokens"] == v
                   else None)
            for value, v in _BUDGETS]


# -- defaults: the engine's, shown with the question -----------------------------------------


def _finetune_tokens(answers: Answers) -> Default | None:
    """A fine-tune's token budget defaults to the policy's; pretraining has no default (its
    budget decides everything: it is asked), nor a data set counted in items or passes
    (what was said is completed, never replaced by a budget nobody said)."""
    if answers.get("workload") == "pretrain" or "examples" in answers or "epochs" in answers:
        return None
    n = catalog().policy.default_finetune_tokens
    return Default({"train_tokens": n}, f"{tokens(n)} tokens",
                   msg("dialogue.show.tokens", n=n))


def _deadline_default(_: Answers) -> Default:
    days = catalog().policy.default_deadline_days
    return Default({"deadline_days": days}, f"{days:g} days", msg("dialogue.show.days", days=days))


def _concurrency_default(answers: Answers) -> Default | None:
    """Only a total output rate said ('2000 tok/s in total'): the requests at once it makes
    at a comfortable reading speed each, assumed and said; nothing else to estimate from."""
    total = answers.get("target_tokens_per_s")
    if not isinstance(total, int | float) or isinstance(total, bool) or total <= 0:
        return None
    n = max(1, math.ceil(total / readers.reading_speed()))
    return Default({"concurrency": n}, str(n), msg("dialogue.choice.concurrency", n=n))


def _context_default(answers: Answers) -> Default | None:
    """A window a chat conversation rarely outgrows, within the model's; a batch job's
    question asks its documents' size, which only they know."""
    if readers.sizeless_batch(answers):
        return None
    n = min(assumptions().context_tokens, readers.context_limit(answers) or 10**9)
    return Default({"context": n}, units.context(float(n), "en"),
                   answer_keys.KEYS["context"].show(n))


def _speed_default(_: Answers) -> Default:
    """A comfortable reading speed per user: what most people mean by "fast enough"."""
    r = readers.reading_speed()
    return Default({"per_user_tokens_per_s": r}, f"{r:g} tok/s per user",
                   msg("dialogue.show.per_user", rate=r))


#: the weight formats that are no 4-bit one
_WIDE = frozenset({"fp8", "bf16", "fp16"})


def _always(_: Answers) -> bool:
    return True


def _model_given(a: Answers) -> bool:
    """A model, and for one named by its config.json, the config itself."""
    m = a.get("model")
    return m is not None and (not isinstance(m, str) or not m.startswith(
        answer_keys.CONFIG) or "model_config" in a)


def _load_given(a: Answers) -> bool:
    """Requests at once or per second; a batch job is a load once it has its deadline."""
    return any(k in a for k in ("concurrency", "requests_per_s")) or (
        "documents" in a and "batch_days" in a)


def _context_given(a: Answers) -> bool:
    """A context within the model's window; or prompt and answer lengths, or a batch's
    documents (the engine sums them)."""
    v, limit = a.get("context"), readers.context_limit(a)
    if v is None:
        return "prompt_tokens" in a or "output_tokens" in a or "document_tokens" in a
    return isinstance(v, int) and not isinstance(v, bool) and (limit is None or v <= limit)


def _speed_given(a: Answers) -> bool:
    """A per-user speed or a total; a batch job has its deadline instead (nobody reads it)."""
    return any(k in a for k in ("target_tokens_per_s", "per_user_tokens_per_s", "documents"))


def _format_given(a: Answers) -> bool:
    """A format the GPU runs (NVFP4 needs FP4 tensor cores), or only the KV cache's."""
    weights = a.get("precision")
    return ("kv_precision" in a and weights is None) or (
        weights in {c.value for c in choices.precisions(a)})


def _gpu_given(a: Answers) -> bool:
    return "gpu" in a or "gpus_per_node" in a


SLOTS: dict[SlotName, Slot] = {
    s.name: s
    for s in (
        Slot("model", ("model", "llm", "the model", "modele", "le modele"), False, _always,
             lambda t, a, lang, today: models.model(t, lang), choices.menu(choices.models_menu),
             complete=_model_given, sentence=True, shapes=True,
             none="dialogue.notice.none_model"),
        Slot("workload", ("workload", "task", "job", "use", "charge de travail", "travail",
                          "tache", "usage"), False, _always,
             readers.one("workload", names.workload), choices.menu(choices.workloads_menu),
             shapes=True,
             ask_params=lambda a: {"model": readers.model_name(a)}),
        Slot("concurrency", ("concurrency", "users", "concurrent", "requests", "load",
                             "utilisateurs", "requetes", "concurrence", "charge"), True, serving,
             readers.read_load, choices.concurrencies, default=_concurrency_default,
             complete=_load_given,
             # only a headcount over a period is kept without a load ('2 million monthly
             # users'): said beside the question, which asks how many of them at once
             was="dialogue.question.was_people",
             ask_params=lambda a: {"documents": int(a.get("documents") or 0)},
             # a batch job said without its deadline: the question asks it
             asks=lambda a: "dialogue.slot.concurrency.ask_deadline"
             if readers.undated_batch(a) else "dialogue.slot.concurrency.ask",
             # a batch's prompt is its document: a new document length replaces it
             together=readers.BATCH,
             # a batch said without its deadline: its documents (and their length) are
             # shown and kept while the question asks by when
             parts=("documents", "document_tokens"),
             voids=lambda a: ("prompt_tokens",) if "document_tokens" in a and a.get(
                 "prompt_tokens") not in (None, a["document_tokens"]) else ()),
        Slot("context", ("context", "ctx", "context length", "window", "contexte",
                         "longueur de contexte", "fenetre"), True, serving,
             readers.read_context, choices.contexts, complete=_context_given,
             default=_context_default,
             ask_params=lambda a: {"model": readers.model_name(a),
                                   "limit": readers.context_limit(a) or 0,
                                   "documents": int(a.get("documents") or 0)},
             # a batch job said without its documents' size: its prompts are the documents
             asks=lambda a: "dialogue.slot.context.ask_documents" if readers.sizeless_batch(a)
             else "dialogue.slot.context.ask"),
        Slot("target_tokens_per_s", ("target", "throughput", "tok/s", "tokens per second",
                                     "speed", "objectif", "debit", "cible", "vitesse"), True,
             serving, readers.read_speed, choices.menu(choices.speeds_menu), default=_speed_default,
             complete=_speed_given,
             ask_params=lambda a: {"reading": readers.reading_speed(),
                                   "chatgpt": assumptions().chatgpt_tokens_per_s},
             keeps=("ttft_s",)),
        Slot("int4", ("int4", "quantization", "quantisation", "4-bit", "quantification"), False,
             serving, readers.one("int4", readers.yes_no),
             choices.menu(choices.int4s_menu), moot="dialogue.error.change_moot_int4",
             corrected=False,
             ask_params=lambda a: {"model": readers.model_name(a), "precision": msg(
                 f"precision.{a.get('precision') or 'fp8'}"), "format": msg(
                 "precision.nvfp4" if catalog().gpus[str(a.get("gpu") or DEFAULT_GPU)]
                 .fp4_tflops else "precision.int4")}),
        # asked only when the format named cannot run on the GPU (FP8, or a model's native
        # 4-bit checkpoint, is sized unless one is named): read from what people type ('in
        # BF16', 'an FP8 KV cache'), and changed like the GPU (a new weight format keeps the
        # KV cache's)
        Slot("precision", ("precision", "weight format", "weights format", "format", "weights",
                           "format des poids", "poids"), False, serving,
             readers.one("precision", names.precision), choices.precisions,
             complete=_format_given,
             ask_params=lambda a: {"model": readers.model_name(a), "gpu": text(
                 catalog().gpus[str(a.get("gpu") or DEFAULT_GPU)].name)},
             was="dialogue.question.was_format", merge=True,
             settles=lambda a: {"int4": {"int4": False}} if a.get("int4") is True and a.get(
                 "precision") in _WIDE else {}),
        Slot("train_tokens", ("tokens", "token budget", "budget", "dataset", "data", "jetons",
                              "donnees"), True, is_training,
             readers.read_budget, _budgets,
             ask_params=lambda a: {k: int(v) for k, v in a.items() if k in ("examples", "epochs")
                                   and isinstance(v, int)},
             # a data set counted in items asks one item's length; passes alone, one pass; a
             # change, the total
             asks=lambda a: "dialogue.slot.train_tokens.ask" + ("" if "train_tokens" in a else
                 "_examples_epochs" if "examples" in a and "epochs" in a else "_examples"
                 if "examples" in a else "_epochs" if "epochs" in a else ""),
             parts=("examples", "example_tokens", "epochs"), default=_finetune_tokens),
        Slot("deadline_days", ("deadline", "days", "time", "duration", "delai", "echeance",
                               "duree", "jours"), True, is_training,
             readers.read_deadline, choices.deadlines, default=_deadline_default,
             open_ended=True,
             # a batch job's deadline is part of its load
             instead=lambda a: "concurrency" if "documents" in a and serving(a) else None),
        Slot("interconnect", ("interconnect", "network", "link", "fabric", "nic", "reseau",
                              "interconnexion", "lien"), False, _always,
             readers.one("interconnect", names.interconnect), choices.menu(choices.links_menu),
             moot="dialogue.error.change_moot_link",
             default=lambda a: Default({"interconnect": DEFAULT_INTERCONNECT},
                                       DEFAULT_INTERCONNECT,
                                       answer_keys.KEYS["interconnect"].show(
                                           DEFAULT_INTERCONNECT)),
             ask_params=lambda a: {"default": answer_keys.KEYS["interconnect"].show(
                 DEFAULT_INTERCONNECT)}),
        Slot("gpu", ("gpu", "gpus", "card", "cards", "hardware", "accelerator", "carte",
                     "cartes", "materiel", "gpus per node", "gpu count"), False, _always,
             readers.read_gpu, choices.gpus_offered,
             complete=_gpu_given, offered=True,
             default=lambda a: None if DEFAULT_GPU in answer_keys.avoided(a.get("avoid_gpus"))
             else Default({"gpu": DEFAULT_GPU}, DEFAULT_GPU,
                          answer_keys.KEYS["gpu"].show(DEFAULT_GPU)),  # never one refused
             ask_params=lambda a: {"gpus": a.get("gpus_per_node") or SizingRequest.model_fields[
                 "gpus_per_node"].default}, merge=True, keeps=("nodes_owned", "avoid_gpus"),
             voids=lambda a: ("gpu",) if a.get("gpu") in answer_keys.avoided(a.get("avoid_gpus"))
             else ()),
    )
}
ORDER: tuple[SlotName, ...] = tuple(SLOTS)
ALIASES: dict[str, SlotName] = {alias: s.name for s in SLOTS.values() for alias in s.aliases}


def is_question(state: str) -> TypeGuard[SlotName]:
    """Whether a state (or a word read as one) is a question, not ``done`` or ``cancelled``."""
    return state in SLOTS


def question(state: str) -> SlotName:
    """The question a turn at ``state`` is answering (a turn at the result answers none)."""
    if not is_question(state):
        raise ValueError(f"{state!r} is not a question")
    return state


def valid(slot: SlotName, answers: Answers) -> bool:
    """Answered, and still valid for the other answers (:meth:`Slot.answered`)."""
    return SLOTS[slot].answered(answers)


def holds(key: str, answers: Answers) -> bool:
    """Whether an answer key counts for these answers (sent to the engine, shown): its
    question applies and is validly answered, or the key is one its question keeps beside
    an answer still to come (a first-token bound before the speed is said). While the
    workload is still asked, whatever was said is shown: which questions apply is not known
    yet ('continued pretraining on 50B tokens in 4 weeks' keeps its budget and deadline)."""
    slot = SLOTS[answer_keys.KEYS[key].slot]
    return key in answers and (slot.applies(answers) or "workload" not in answers) and (
        valid(slot.name, answers) or key in slot.keeps or key in slot.parts)


def assumed(conv: Conversation, slot: SlotName) -> bool:
    """Whether the bot inferred this question's answer (shown, to be confirmed or changed)."""
    keys = [k for k in SLOTS[slot].keys if k in conv.answers]
    return bool(keys) and all(conv.sources.get(k) == "assumed" for k in keys)


def current_default(conv: Conversation) -> Default | None:
    """What an empty answer takes here: an assumed answer (Enter confirms it), else the
    question's own default."""
    slot = SLOTS[question(conv.state)]
    if assumed(conv, slot.name):
        answers = {k: conv.answers[k] for k in slot.keys if k in conv.answers}
        return Default(answers, _typed(slot, answers), slot.show(conv.answers))
    return slot.default(conv.answers)


def _typed(slot: Slot, answers: Answers) -> str:
    """The text that gives these answers again (a default button's value)."""
    for choice in slot.choices(answers):
        if slot.read(choice.value, answers, "en", None) == Reading(dict(answers)):
            return choice.value
    value = answers.get(slot.name, next(iter(answers.values()), ""))
    return f"{value:g}" if isinstance(value, float) else str(value)


def expects_number(state: str) -> bool:
    """True when a bare number typed at this question is the answer, not a choice index."""
    return is_question(state) and SLOTS[state].numeric
