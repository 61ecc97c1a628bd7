"""Reading an answer at a question, purely: what the text sets, with its source, or why not.

Split from ``dialogue/turn.py`` (which routes a text: a command, a click, an answer) because
this is where meaning is decided, beyond any one pattern: a text corrected ("64, sorry 128")
is read from its last correction; a value that fits another question ("32k" at the load
question) is proposed there; several answers typed at once are noted; a proposal's option
picked (by click or typed) is *confirmed*; an answer inferred rather than said is *assumed*
and said so. Nothing here touches a store or the network: a Hub id to fetch is returned as
``Outcome.fetch`` for the service to resolve.
"""

from __future__ import annotations

from collections.abc import Container, Mapping
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache

from dialogue import readers
from dialogue.conversation import AnswerValue, Conversation, Option, Proposal, SlotName
from dialogue.errors import ParseError, Unsure
from dialogue.flow import Plan
from dialogue.keys import CONFIG, KEYS
from dialogue.keys import ORDER as KEY_ORDER
from dialogue.machine import Turn
from dialogue.readers import INFERRED
from dialogue.reply import Choice, Notice, Source
from dialogue.slots import SLOTS, question, serving, valid
from dialogue.understand import config, models, names, negation
from dialogue.understand.opening import Found, extract
from dialogue.understand.text import fold, has_digit, words
from dialogue.wording import catalog
from engine import units
from engine.units import LANGS
from engine.wording import Message, msg


@dataclass
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


def pair(key: str, value: AnswerValue) -> Message:
    k = KEYS[key]
    return msg("dialogue.notice.pair", label=k.label, value=k.show(value))


def put(conv: Conversation, slot: SlotName, reading: dict[str, AnswerValue],
        source: Source) -> None:
    """An answer to one question: its keys set, the question's other keys dropped (a new
    load replaces the old one, whatever its shape), its proposal answered. Re-answering an
    assumed answer with the same value confirms it. What it leaves void is dropped and asked
    again, what it settles elsewhere is set there (``Slot.voids``, ``Slot.settles``)."""
    s = SLOTS[slot]
    reading = dict(reading)
    inferred = set(str(reading.pop(INFERRED, "") or "").split(","))
    together = set(s.together) if reading and set(reading) <= set(s.together) and any(
        k in conv.answers for k in s.together) else set()  # a batch's part: the rest stays
    if reading and set(reading) <= set(s.keeps):  # a first-token bound alone: no new speed
        together = set(s.keys)
    if not s.merge:
        for k in s.keys:
            if k not in reading and k not in s.keeps and k not in s.parts and k not in together:
                conv.drop(k)
    for k, v in reading.items():
        same = conv.answers.get(k, object()) == v and conv.sources.get(k) == "assumed"
        conv.put(k, v, "assumed" if k in inferred else
                 "confirmed" if same and source == "said" else source)
    if valid(slot, conv.answers):  # answered: only the parts its answer says stay
        for k in s.parts:
            if k not in reading:
                conv.drop(k)
    conv.proposals.pop(slot, None)
    conv.answered(s.keys)
    for k in s.voids(conv.answers):
        conv.drop(k)
        conv.refused([k])
    for other, settled in s.settles(conv.answers).items():
        put(conv, other, settled, source)


def keep(conv: Conversation, found: Found, out: Outcome, notice: str) -> None:
    """Put what a sentence gave into the answers, and say it: said, then assumed; what needs
    a confirmation becomes its question's proposal."""
    for key in KEY_ORDER:
        if key in found.answers:
            conv.put(key, found.answers[key], "assumed" if key in found.inferred else "said")
            conv.proposals.pop(KEYS[key].slot, None)
            conv.answered(SLOTS[KEYS[key].slot].keys)
    conv.refused(found.refused)  # after: 'H100, 17 GPUs per node' asks the GPUs again
    for slot, unsure in found.unsure.items():
        if not valid(slot, conv.answers) or slot == conv.state:  # 'change model to llama 70b'
            conv.proposals[slot] = Proposal(text=unsure.message, options=unsure.options)
    said = [pair(k, found.answers[k]) for k in KEY_ORDER
            if k in found.answers and k not in found.inferred and KEYS[k].shown
            and not _whole(k, found.answers)]
    assumed = [share(found.answers) if k == "concurrency" and "users_total" in found.answers
               else pair(k, found.answers[k]) for k in KEY_ORDER
               if k in found.answers and k in found.inferred]
    if said:
        out.notices.append(Notice(kind="understood", text=msg(notice, answers=said)))
    stored = found.answers.get("model_config")
    if isinstance(stored, str):
        out.notices.append(Notice(kind="understood", text=described(stored, found.answers)))
    if assumed:
        out.notices.append(Notice(kind="assumed", text=msg("dialogue.notice.assumed",
                                                            answers=assumed)))
    if found.fetch is not None and "model" not in found.answers:
        out.fetch = found.fetch


def _whole(key: str, answers: Mapping[str, AnswerValue]) -> bool:
    """A headcount taken whole at once is said once, as the requests at once it is."""
    return key == "users_total" and answers.get("concurrency") == answers.get("users_total")


def share(answers: Mapping[str, AnswerValue]) -> Message:
    """'20 of the 200 people at once (10 %)': a headcount's assumed concurrency."""
    n, people = answers.get("concurrency"), answers.get("users_total")
    assert isinstance(n, int) and isinstance(people, int)
    return msg("dialogue.notice.share", n=n, people=people, share=n / people)


def described(stored: str, answers: Mapping[str, AnswerValue]) -> Message:
    """What the engine read in a config.json: its parameters, total and active."""
    name = str(answers.get("model", ""))
    return config.understood(config.loads(stored), name.removeprefix(CONFIG))


def assume_rest(conv: Conversation, out: Outcome, refused: Container[str] = frozenset()
                ) -> None:
    """An opening that names the model, the workload, the load and the context gets the card
    at once: a comfortable per-user reading speed is assumed for the rest, shown as assumed
    with a one-click change (a card at once, never one sized on a hidden guess); never
    over a speed it asks about ('20 tok/s': per user or in total?) nor over one it just
    refused (``refused``: '0.5 tok/s')."""
    a = conv.answers
    if not serving(a) or "workload" not in a:
        return
    assumed: list[str] = []
    if not ("model" in a or "model" in conv.proposals):
        return
    if not (valid("concurrency", a) and valid("context", a)):
        return
    speed = SLOTS["target_tokens_per_s"].keys
    if (not valid("target_tokens_per_s", a) and "target_tokens_per_s" not in conv.proposals
            and not any(k in refused for k in speed)):
        default = SLOTS["target_tokens_per_s"].default(a)
        assert default is not None
        for k, v in default.answers.items():
            conv.put(k, v, "assumed")
            assumed.append(k)
    if assumed:
        out.notices.append(Notice(kind="assumed", text=msg(
            "dialogue.notice.assumed", answers=[pair(k, a[k]) for k in assumed])))


def propose(conv: Conversation, unsure: Unsure) -> None:
    conv.proposals[unsure.slot] = Proposal(text=unsure.message, options=unsure.options)


def refuse(out: Outcome, exc: ParseError) -> None:
    out.error = exc.message
    if exc.retry:
        out.choices = [Choice(value=v, label=msg("dialogue.choice.typed", text=v))
                       for v in exc.retry]


# -- proposals -------------------------------------------------------------------------------


def option_for(conv: Conversation, said: str) -> Option | None:
    """The pending proposal's option a text picks: its value, or its label typed in either
    language ('Llama 3.1 70B', 'Aucun de ceux-là'), or the words of one label no other has
    ('per user' of '30 tok/s per user' beside '30 tok/s in total')."""
    proposal = conv.proposals.get(conv.state)
    if proposal is None:
        return None
    want = fold(said)
    for o in proposal.options:
        if said.strip() == o.value or want == fold(o.value) or want in label_forms(o.label):
            return o
    typed = f" {words(want)} "  # 'full' holds in 'Full: every weight updated'
    holding = [o for o in proposal.options if typed.strip() and any(
        typed in f" {words(form)} " for form in label_forms(o.label))]
    return holding[0] if len(holding) == 1 else None


def choose(option: Option, turn: Turn, out: Outcome) -> bool:
    """A proposal's option picked: its answers, marked confirmed. 'None of these' reopens
    the question with the ways to describe a model. False when nothing was set."""
    conv = turn.conv
    slot = question(conv.state)
    conv.proposals.pop(slot, None)
    if not option.answers:
        out.notices.append(Notice(kind="info", text=msg(f"dialogue.notice.none_{slot}"
                                                         if slot == "model" else
                                                         "dialogue.notice.none")))
        out.changed = True
        return False
    here = {k: v for k, v in option.answers.items() if KEYS[k].slot == slot}
    if here:  # together: an MoE's total and active count are one answer
        put(conv, slot, here, "confirmed")
    for key, value in option.answers.items():
        if key not in here:
            conv.put(key, value, "confirmed")
    out.notices.append(Notice(kind="understood", text=msg(
        "dialogue.notice.confirmed", answers=[pair(k, v) for k, v in option.answers.items()])))
    return True


@lru_cache(maxsize=1024)
def label_forms(label: Message) -> frozenset[str]:
    """A label as it reads in every language, folded (labels are few: cached)."""
    return frozenset(fold(catalog().render(label, lang)) for lang in LANGS)


def choice_value(said: str, choices: list[Choice]) -> str | None:
    """The value of the choice whose label was typed, in either language ('NVIDIA L40S
    (48 GB)' -> 'l40s', 'Pas d'objectif' -> 'no target'): a label read on screen and typed
    does what clicking it does."""
    want = fold(said)
    for c in choices:
        if want in label_forms(c.label):
            return c.value
    return None


# -- an answer at a question -------------------------------------------------------------------


def read(said: str, turn: Turn, out: Outcome, today: date | None) -> bool:
    """Read a typed answer (or a choice's value) at the current question. True when an
    answer was set (the turn then moves on); a proposal stored is a change that stays."""
    conv = turn.conv
    state, lang = question(conv.state), conv.language
    slot = SLOTS[state]
    try:
        if state == "model":
            return _model(choice_value(said, slot.choices(conv.answers)) or said, turn, out,
                          today)
        unsure = names.unsure(said)
        default = slot.default(conv.answers) if unsure else None
        if unsure and default is None and slot.numeric:  # a number to estimate: how
            raise ParseError(msg("dialogue.error.unsure", help=slot.help))
        if default is not None:  # 'not sure', 'je ne sais pas': the default, said as assumed
            put(conv, state, default.answers, "assumed")
            out.notices.append(Notice(kind="assumed", text=msg(
                "dialogue.notice.assumed", answers=[pair(k, v)
                                                    for k, v in default.answers.items()])))
            return True
        readings = negation.corrected(said) if state != "int4" else [said]
        last: ParseError | None = None
        for text_ in readings:
            try:
                got = slot.read(text_, conv.answers, lang, today)
                put(conv, state, got, "said")
                _say_assumed(conv, str(got.get(INFERRED) or ""), out)
                also(text_, turn, out, today)
                return True
            except Unsure:
                raise
            except ParseError as exc:
                last = last or exc
        value = choice_value(said, slot.choices(conv.answers))
        if value is not None:
            put(conv, state, slot.read(value, conv.answers, lang, today), "said")
            return True
        if with_more(said, turn, out, today):
            return valid(state, conv.answers)
        assert last is not None
        raise last
    except Unsure as exc:
        propose(conv, exc)
        out.changed = True
        return False
    except ParseError as exc:
        refuse(out, exc)
        return False


def _say_assumed(conv: Conversation, keys: str, out: Outcome) -> None:
    """What an answer at a question made the bot assume ('200 employees': the share at
    once), said as assumed, as an opening's is."""
    inferred = [k for k in keys.split(",") if k in conv.answers]
    if inferred:
        out.notices.append(Notice(kind="assumed", text=msg("dialogue.notice.assumed", answers=[
            share(conv.answers) if k == "concurrency" and "users_total" in conv.answers
            else pair(k, conv.answers[k]) for k in inferred])))


def _model(said: str, turn: Turn, out: Outcome, today: date | None) -> bool:
    """The model question reads a sentence as an opening does: every answer it gives. A
    model to confirm (or to fetch from the Hub) keeps the rest and stays at the question;
    a name nothing comes near is refused, and nothing is kept (the text is asked again)."""
    conv = turn.conv
    found = (Found() if config.looks_like(said)  # a config.json is the model, not a sentence
             else extract(said, conv.language, today=today))
    if "model" not in found.answers and "model" not in found.unsure and found.fetch is None:
        if found.hint is not None:
            raise found.hint
        try:  # the specific answer or refusal for the whole text (counts, config, describe)
            reading = models.model(said, conv.language)
        except models.Fetch as exc:
            found.fetch = exc.repo
        else:
            found = Found(answers=dict(reading))
    keep(conv, found, out, "dialogue.notice.noted")
    if "model" not in found.answers:
        out.changed = True
        return False
    assume_rest(conv, out, found.refused)
    return True


def also(said: str, turn: Turn, out: Outcome, today: date | None) -> None:
    """The answers to later questions typed with this one ('64 users, 32k context'): noted
    when their question is still open; one that would change a given answer is said, with
    how to change it (a given answer is changed only by 'change'), never dropped silently;
    one refused ('0.5 tok/s') is said with its refusal."""
    conv = turn.conv
    # at a word question (the workload, the GPU) a sentence may name another model, which
    # these answers would then be sized on without it: only the number questions take more
    if not SLOTS[question(conv.state)].numeric or not has_digit(said) or len(said.split()) < 2:
        return
    found = extract(said, conv.language, find_model=False, today=today)
    other = {k: v for k, v in found.answers.items()
             if KEYS[k].slot not in (conv.state, "model", "workload")
             and SLOTS[KEYS[k].slot].applies(conv.answers)}
    fresh = {k: v for k, v in other.items() if not valid(KEYS[k].slot, conv.answers)}
    if "context" in fresh and not valid("context", {**conv.answers, **fresh}):
        tokens = fresh.pop("context")  # beyond this model's window: said, asked at its question
        out.notices.append(Notice(kind="warning", text=msg(
            "dialogue.error.context_beyond", model=readers.model_name(conv.answers),
            limit=readers.context_limit(conv.answers) or 0, tokens=tokens,
            text=units.context(float(tokens or 0), conv.language))))
    if fresh:
        keep(conv, Found(answers=fresh, inferred=found.inferred & set(fresh)), out,
             "dialogue.notice.noted")
    said_no = {id(e): e for k, e in found.refused.items()
               if KEYS[k].slot not in (conv.state, "model", "workload")}
    for refused in said_no.values():  # '64 users, 0.5 tok/s': the speed refused, and said
        out.notices.append(Notice(kind="warning", text=refused.message))
    conv.refused(k for k in found.refused if KEYS[k].slot not in (conv.state, "model",
                                                                  "workload"))
    told: set[str] = set()
    for k, v in other.items():
        if k not in fresh and k in conv.answers and conv.answers[k] != v and KEYS[k].shown \
                and not _whole(k, other) and KEYS[k].slot not in told:  # once per question
            told.add(KEYS[k].slot)
            out.notices.append(Notice(kind="info", text=msg(
                "dialogue.notice.kept", answer=pair(k, conv.answers[k]), said=pair(k, v),
                word=msg(f"dialogue.slot.{KEYS[k].slot}.word"))))


def with_more(said: str, turn: Turn, out: Outcome, today: date | None) -> bool:
    """'64 users, 32k context' typed at the load question: the answer and the next ones,
    read as an opening is; or only another question's answer ('8k context' at the load
    question): noted if that question is still open, proposed if it was answered ('change
    it?'). Never a new model or workload (those change which questions exist: 'change
    model')."""
    conv = turn.conv
    if not has_digit(said):  # the other questions' answers are numbers
        return False
    found = extract(said, conv.language, find_model=False, today=today)
    found.answers.pop("model", None)
    found.answers.pop("workload", None)
    found.unsure.pop("model", None)
    found.unsure.pop("workload", None)
    if not found.answers:
        return False
    here = {k for k in found.answers if KEYS[k].slot == conv.state}
    if here:  # the question's own reader saw them and refused them (a context beyond the
        return False  # model's, a data set's length past what is sized): its error stands
    merged = {**conv.answers, **found.answers}
    fresh = {k: v for k, v in found.answers.items()
             if SLOTS[KEYS[k].slot].applies(merged) and not valid(KEYS[k].slot, conv.answers)}
    # given before, and changed only by 'change' (a question that does not apply, such as a
    # weight format for a training run, has nothing to keep)
    answered = {k: v for k, v in found.answers.items() if k not in fresh and k in conv.answers}
    if not fresh and answered:
        key, value = next(iter(answered.items()))
        slot = KEYS[key].slot
        raise Unsure(msg("dialogue.confirm.change", answer=pair(key, value)), [
            Option(value=f"change {SLOTS[slot].aliases[0]} to {said}",
                   label=msg("dialogue.choice.change_to", answer=pair(key, value)),
                   answers={key: value}),
            Option(value="keep", label=msg("dialogue.choice.keep",
                                           answer=pair(key, conv.answers.get(key))))],
            question(conv.state))
    if not fresh:
        return False
    found.answers, found.inferred = fresh, found.inferred & set(fresh)
    keep(conv, found, out, "dialogue.notice.noted")
    out.changed = True
    return True
