"""Reading an answer at a question, purely: what the text sets, with its source, or why not.

Split from ``dialogue/turn.py`` (which routes a text: a command, a click, an answer) because
this is where meaning is decided, beyond any one pattern: a text corrected ("64, sorry 128")
is read from its last correction; a value that fits another question ("32k" at the load
question) is proposed there; several answers typed at once are noted; a proposal's option
picked (by click or typed) is *confirmed*; an answer inferred rather than said is *assumed*
and said so.

Each function applies what it read to the conversation it is given (the turn's copy) and
returns a :class:`~dialogue.outcome.Step`: what it did, as a value (the notices to show, the
error, the choices beside it, a Hub id to fetch, whether the question was answered or the
conversation changed without an answer). The turn adds the steps up into the one
``Outcome`` it returns. Nothing here touches a store or the network: a Hub id to fetch is a
step's ``fetch``, for the service to resolve.
"""

from __future__ import annotations

from collections.abc import Container, Mapping
from dataclasses import replace
from datetime import date
from functools import lru_cache

from dialogue import readers
from dialogue.conversation import AnswerValue, Conversation, Option, Proposal, SlotName
from dialogue.headcount import as_counted, assumed_pairs, headcount
from dialogue.keys import CONFIG, KEYS, for_batch, pair
from dialogue.keys import ORDER as KEY_ORDER
from dialogue.machine import Turn
from dialogue.outcome import NOTHING, Step, tell
from dialogue.readings import Fetch, Read, Reading, Refusal
from dialogue.reply import Choice, Notice, Source
from dialogue.slots import SLOTS, assumed, question, serving, valid
from dialogue.understand import config, models, names, negation
from dialogue.understand.load import BATCH_WHEN
from dialogue.understand.numbers import approximate, digits_in
from dialogue.understand.opening import Found, extract, serving_said
from dialogue.understand.text import fold, has_digit, words
from dialogue.wording import catalog
from engine import units
from engine.units import LANGS
from engine.wording import Message, msg


def put(conv: Conversation, slot: SlotName, answers: Mapping[str, AnswerValue], source: Source,
        inferred: Container[str] = frozenset()) -> None:
    """An answer to one question: its keys set (those ``inferred``, as assumed), the
    question's other keys dropped (a new load replaces the old one, whatever its shape), its
    proposal answered. Re-answering an assumed answer with the same value confirms it. What
    it leaves void is dropped and asked again, what it settles elsewhere is set there
    (``Slot.voids``, ``Slot.settles``)."""
    s = SLOTS[slot]
    together = set(s.together) if answers and set(answers) <= set(s.together) and any(
        k in conv.answers for k in s.together) else set()  # a batch's part: the rest stays
    if answers and set(answers) <= set(s.keeps):  # a first-token bound alone: no new speed
        together = set(s.keys)
    if not s.merge:
        for k in s.keys:
            if k not in answers and k not in s.keeps and k not in s.parts and k not in together:
                conv.drop(k)
    for k, v in answers.items():
        same = conv.answers.get(k, object()) == v and conv.sources.get(k) == "assumed"
        conv.put(k, v, "assumed" if k in inferred else
                 "confirmed" if same and source == "said" else source)
    if valid(slot, conv.answers):  # answered: only the parts its answer says stay
        for k in s.parts:  # (a batch's deadline alone keeps its documents: ``together``)
            if k not in answers and k not in together:
                conv.drop(k)
    conv.proposals.pop(slot, None)
    conv.answered(s.keys)
    for k in s.voids(conv.answers):
        conv.drop(k)
        conv.refused([k])
    for other, settled in s.settles(conv.answers).items():
        put(conv, other, settled, source)


def keep(conv: Conversation, found: Found, notice: str) -> Step:
    """Put what a sentence gave into the answers, and say it: said, then assumed; what needs
    a confirmation becomes its question's proposal; what means nothing without an answer
    nobody gave (a documents' length, no documents) is not kept, and said so."""
    before = dict(conv.answers)
    moot = {k: v for k, v in found.answers.items()
            if any(n not in found.answers and n not in conv.answers for n in KEYS[k].needs)}
    for k in moot:
        del found.answers[k]
    for key in KEY_ORDER:
        if key in found.answers:
            conv.put(key, found.answers[key], "assumed" if key in found.inferred else "said")
            conv.proposals.pop(KEYS[key].slot, None)
            conv.answered(SLOTS[KEYS[key].slot].keys)
    if conv.sources.get("workload") == "assumed" and serving_said(conv.answers):
        # a batch job now whole (its documents and their deadline) is only ever served:
        # the serving an opening inferred is said, as the opening says it when it is whole
        conv.put("workload", conv.answers["workload"], "said")
    conv.refused(found.refused)  # after: 'H100, 17 GPUs per node' asks the GPUs again
    for slot, proposal in found.unsure.items():
        if not valid(slot, conv.answers) or slot == conv.state:  # 'change model to llama 70b'
            conv.proposals[slot] = proposal
    shown = [pair(k, found.answers[k], before) for k in KEY_ORDER
             if k in found.answers and k not in found.inferred and KEYS[k].shown]
    assumed = assumed_pairs(found.answers, [k for k in KEY_ORDER if k in found.inferred])
    notices: list[Notice] = []
    if shown:
        notices.append(Notice(kind="understood", text=msg(notice, answers=shown)))
    stored = found.answers.get("model_config")
    if isinstance(stored, str):
        notices.append(Notice(kind="understood", text=described(stored, found.answers)))
    if assumed:
        notices.append(Notice(kind="assumed", text=msg("dialogue.notice.assumed",
                                                        answers=assumed)))
    whole = headcount(found.answers) if "concurrency" in found.inferred else None
    if whole is not None:
        notices.append(whole)
    if moot:
        notices.append(Notice(kind="ignored", text=msg(
            "dialogue.notice.not_used", answers=[pair(k, v) for k, v in moot.items()],
            needs=[KEYS[n].label for k in moot for n in KEYS[k].needs])))
    return Step(notices=tuple(notices), fetch=found.fetch if "model" not in found.answers
                else None)


def described(stored: str, answers: Mapping[str, AnswerValue]) -> Message:
    """What the engine read in a config.json: its parameters, total and active."""
    name = str(answers.get("model", ""))
    return config.understood(config.loads(stored), name.removeprefix(CONFIG))


def assume_rest(conv: Conversation, refused: Container[str] = frozenset()) -> Step:
    """An opening that names the model, the workload, the load and the context gets the card
    at once: a comfortable per-user reading speed is assumed for the rest, shown as assumed
    with a one-click change (a card at once, never one sized on a hidden guess); never
    over a speed it asks about ('20 tok/s': per user or in total?) nor over one it just
    refused (``refused``: '0.5 tok/s')."""
    a = conv.answers
    if not serving(a) or "workload" not in a:
        return NOTHING
    assumed: list[str] = []
    if not ("model" in a or "model" in conv.proposals):
        return NOTHING
    if not (valid("concurrency", a) and valid("context", a)):
        return NOTHING
    speed = SLOTS["target_tokens_per_s"].keys
    if (not valid("target_tokens_per_s", a) and "target_tokens_per_s" not in conv.proposals
            and not any(k in refused for k in speed)):
        default = SLOTS["target_tokens_per_s"].default(a)
        assert default is not None
        for k, v in default.answers.items():
            conv.put(k, v, "assumed")
            assumed.append(k)
    if not assumed:
        return NOTHING
    return tell(Notice(kind="assumed", text=msg("dialogue.notice.assumed",
                                                answers=[pair(k, a[k]) for k in assumed])))


def propose(conv: Conversation, slot: SlotName, proposal: Proposal) -> Step:
    """A proposal stored as its question's: the conversation changed, nothing answered."""
    conv.proposals[slot] = proposal
    return Step(changed=True)


def refuse(refusal: Refusal) -> Step:
    """A refusal said, with the typed values it would accept as buttons."""
    return Step(error=refusal.message, choices=tuple(
        Choice(value=v, label=msg("dialogue.choice.typed", text=v)) for v in refusal.retry)
        if refusal.retry else None)


def taken(conv: Conversation, slot: SlotName, read: Read) -> Step:
    """What a reader's value does at its question: its answers set, its proposal stored, its
    Hub id to fetch, or its refusal said."""
    if isinstance(read, Reading):
        put(conv, slot, read.answers, "said", read.inferred)
        return Step(answered=True)
    if isinstance(read, Proposal):
        return propose(conv, slot, read)
    if isinstance(read, Fetch):
        return Step(fetch=read.repo, changed=True)
    return refuse(read)


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


def yes_or_no(turn: Turn, yes: bool) -> Step | None:
    """A yes or a no that the question's own reader refused ('Yes, that one.', 'oui c'est
    ça'): at a yes-or-no proposal, its first or last option; at a question whose answer
    was assumed ('I assumed: inference. Is that right?'), a yes keeps it as Enter does, a no
    drops it and asks the question plainly. None where a yes or a no answers nothing."""
    conv = turn.conv
    proposal = conv.proposals.get(conv.state)
    if proposal is not None:
        return choose(proposal.options[0 if yes else -1], turn) if proposal.confirms else None
    slot = SLOTS[question(conv.state)]
    if not assumed(conv, slot.name):
        return None
    if yes:
        keys = [k for k in slot.keys if k in conv.answers]
        for k in keys:
            conv.put(k, conv.answers[k], "confirmed")
        return Step(notices=(Notice(kind="understood", text=msg(
            "dialogue.notice.confirmed", answers=[pair(k, conv.answers[k]) for k in keys])),),
            answered=True)
    for k in slot.keys:
        conv.drop(k)
    return Step(changed=True)


def choose(option: Option, turn: Turn) -> Step:
    """A proposal's option picked: its answers, marked confirmed. 'None of these' reopens
    the question with the ways to describe a model (nothing answered, the same question)."""
    conv = turn.conv
    slot = question(conv.state)
    conv.proposals.pop(slot, None)
    if not option.answers:
        return Step(notices=(Notice(kind="info", text=msg(
            SLOTS[slot].none)),),
            changed=True)
    here = {k: v for k, v in option.answers.items() if KEYS[k].slot == slot}
    if here:  # together: an MoE's total and active count are one answer
        put(conv, slot, here, "confirmed")
    for key, value in option.answers.items():
        if key not in here:
            conv.put(key, value, "confirmed")
    return Step(notices=(Notice(kind="understood", text=msg(
        "dialogue.notice.confirmed", answers=[pair(k, v) for k, v in option.answers.items()])),),
        answered=True)


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


def read(said: str, turn: Turn, today: date | None) -> Step:
    """Read a typed answer (or a choice's value) at the current question: answered (the
    turn then moves on), a proposal stored (a change that stays), or refused."""
    conv = turn.conv
    state, lang = question(conv.state), conv.language
    slot = SLOTS[state]
    if slot.sentence:
        return _model(choice_value(said, slot.choices(conv.answers)) or said, turn, today)
    unsure = names.unsure(said) or (slot.open_ended and names.open_ended(said))
    default = slot.default(conv.answers) if unsure else None
    if unsure and default is None and slot.numeric:  # a number to estimate: how
        return refuse(Refusal(msg("dialogue.error.unsure", help=slot.help)))
    if default is not None:  # 'not sure', 'je ne sais pas': the default, said as assumed
        put(conv, state, default.answers, "assumed")
        return Step(notices=(Notice(kind="assumed", text=msg(
            "dialogue.notice.assumed", answers=[pair(k, v)
                                                for k, v in default.answers.items()])),),
            answered=True)
    readings = negation.corrected(said) if slot.corrected else [said]
    first: Refusal | None = None
    for text_ in readings:  # the first correction read wins; a proposal is asked at once
        got = slot.read(text_, conv.answers, lang, today)
        if isinstance(got, Refusal):
            first = first or got
        elif isinstance(got, Reading):
            return (taken(conv, state, got) + _say_assumed(conv, got.inferred)
                    + also(text_, turn, today))
        else:
            return taken(conv, state, got)
    value = choice_value(said, slot.choices(conv.answers))
    if value is not None:
        return taken(conv, state, slot.read(value, conv.answers, lang, today))
    more = with_more(said, turn, today)
    if more is not None:
        return more
    assert first is not None
    return refuse(first)


def _say_assumed(conv: Conversation, inferred: frozenset[str]) -> Step:
    """What an answer at a question made the bot assume ('200 employees': the share at
    once), said as assumed, as an opening's is."""
    said = assumed_pairs(conv.answers, sorted(inferred))
    whole = headcount(conv.answers) if "concurrency" in inferred else None
    return ((tell(Notice(kind="assumed", text=msg("dialogue.notice.assumed", answers=said)))
             if said else NOTHING) + (tell(whole) if whole else NOTHING))


def _model(text: str, turn: Turn, today: date | None) -> Step:
    """The model question reads a sentence as an opening does: every answer it gives. A
    model to confirm (or to fetch from the Hub) keeps the rest and stays at the question;
    a name nothing comes near is refused, and nothing is kept (the text is asked again)."""
    conv = turn.conv
    found = (Found() if config.looks_like(text)  # a config.json is the model, not a sentence
             else extract(text, conv.language, today=today))
    if "model" not in found.answers and "model" not in found.unsure and found.fetch is None:
        if found.hint is not None:
            return refuse(found.hint)
        # the specific answer or refusal for the whole text (counts, config, describe)
        got = models.model(text, conv.language)
        if isinstance(got, Fetch):
            found.fetch = got.repo
        elif isinstance(got, Reading):
            found = Found(answers=dict(got.answers))
        else:
            return taken(conv, "model", got)
    step = keep(conv, found, "dialogue.notice.noted")
    if "model" not in found.answers:
        return step + Step(changed=True)
    return step + assume_rest(conv, found.refused) + Step(answered=True)


def _other(slot: SlotName, conv: Conversation) -> bool:
    """Another question's answer, said beside this one, that may be noted: never one that
    decides which questions exist (a model or workload changes only by 'change')."""
    return slot != conv.state and not SLOTS[slot].shapes


def also(text: str, turn: Turn, today: date | None) -> Step:
    """The answers to later questions typed with this one ('64 users, 32k context'): noted
    when their question is still open; one that would change a given answer is said, with
    how to change it (a given answer is changed only by 'change'), never dropped silently;
    one refused ('0.5 tok/s') is said with its refusal."""
    conv = turn.conv
    if not has_digit(approximate(digits_in(fold(text)))) or len(text.split()) < 2:
        return NOTHING
    # at a word question (the workload, the GPU) a sentence may name another model, which
    # these answers would then be sized on without it: they are taken only where it names
    # none ('40 people would use it at the same time' at the workload question)
    if not SLOTS[question(conv.state)].numeric and _names_model(text, turn):
        return NOTHING
    found = extract(text, conv.language, find_model=False, today=today)
    other = {k: v for k, v in found.answers.items()
             if _other(KEYS[k].slot, conv) and SLOTS[KEYS[k].slot].applies(conv.answers)}
    fresh = {k: v for k, v in other.items() if not valid(KEYS[k].slot, conv.answers)}
    step = NOTHING
    if "context" in fresh and not valid("context", {**conv.answers, **fresh}):
        tokens = fresh.pop("context")  # beyond this model's window: said, asked at its question
        step += tell(Notice(kind="warning", text=msg(
            "dialogue.error.context_beyond", model=readers.model_name(conv.answers),
            limit=readers.context_limit(conv.answers) or 0, tokens=tokens,
            text=units.context(float(tokens or 0), conv.language))))
    if fresh:
        step += keep(conv, Found(answers=fresh, inferred=found.inferred & set(fresh)),
                     "dialogue.notice.noted")
    said_no = {id(e): e for k, e in found.refused.items() if _other(KEYS[k].slot, conv)}
    # '64 users, 0.5 tok/s': the speed refused, and said
    step += tell(*(Notice(kind="warning", text=r.message) for r in said_no.values()))
    conv.refused(k for k in found.refused if _other(KEYS[k].slot, conv))
    told: set[str] = set()
    for k, v in other.items():
        if k not in fresh and k in conv.answers and conv.answers[k] != v and KEYS[k].shown \
                and KEYS[k].slot not in told:  # once per question
            told.add(KEYS[k].slot)
            step += tell(Notice(kind="info", text=msg(
                "dialogue.notice.kept", answer=pair(k, conv.answers[k]), said=pair(k, v),
                word=msg(f"dialogue.slot.{KEYS[k].slot}.word"))))
    return step


def _names_model(text: str, turn: Turn) -> bool:
    """Whether a text names a model, certain or to confirm, or a Hub id."""
    found = extract(text, turn.conv.language)
    return "model" in found.answers or "model" in found.unsure or found.fetch is not None


def _completes(key: str, answers: Mapping[str, AnswerValue]) -> bool:
    """Whether ``key`` is a part the answers lack of an answer they hold (a batch's document
    length beside its documents)."""
    needs = KEYS[key].needs
    return bool(needs) and key not in answers and all(n in answers for n in needs)


def with_more(text: str, turn: Turn, today: date | None) -> Step | None:
    """'64 users, 32k context' typed at the load question: the answer and the next ones,
    read as an opening is; or only another question's answer ('8k context' at the load
    question): noted if that question is still open, proposed if it was answered ('change
    it?'). Never a new model or workload (those change which questions exist: 'change
    model'). None when the text gives no other question's answer."""
    conv = turn.conv
    # the other questions' answers are numbers, a share of the people counted, or a batch
    # job's date ("d'ici jeudi" typed while the workload is confirmed)
    batch = "documents" in conv.answers and serving(conv.answers)
    found = extract(text, conv.language, find_model=False, today=today) if has_digit(
        text) or (batch and BATCH_WHEN.search(fold(text))) else Found()
    if batch:  # the same words are the batch's own ('by Thursday' is its deadline)
        found.answers = for_batch(found.answers)
    for k in [k for k in found.answers if SLOTS[KEYS[k].slot].shapes]:
        del found.answers[k]
    for s in [s for s in found.unsure if SLOTS[s].shapes]:
        del found.unsure[s]
    answers, inferred = as_counted(conv, found.answers, found.inferred, text)
    found.answers, found.inferred = answers, set(inferred)
    if not found.answers and (share := readers.share_of_people(text, conv.answers)):
        return _share_at_question(share, turn)
    if not found.answers:
        return None
    here = {k for k in found.answers if KEYS[k].slot == conv.state}
    if here:  # the question's own reader saw them and refused them (a context beyond the
        return None  # model's, a data set's length past what is sized): its error stands
    merged = {**conv.answers, **found.answers}
    # new for a question still open, or completing an answer it needs ('5 000 tokens chacun'
    # after a batch's documents and deadline: never a change of them)
    fresh = {k: v for k, v in found.answers.items()
             if SLOTS[KEYS[k].slot].applies(merged) and (
                 not valid(KEYS[k].slot, conv.answers) or _completes(k, conv.answers))}
    # given before, and changed only by 'change' (a question that does not apply, such as a
    # weight format for a training run, has nothing to keep)
    answered = {k: v for k, v in found.answers.items() if k not in fresh and k in conv.answers}
    # a correction or a what-if is a change said, not another question's answer to confirm
    # ('actually 250 users', 'et avec 32k de contexte ?')
    if not fresh and answered and (negation.CORRECTION.search(f" {fold(text)}")
                                   or negation.suggests(fold(text))):
        found.answers, found.inferred = answered, found.inferred & set(answered)
        step = keep(conv, found, "dialogue.notice.changed")
        return replace(step, changed=True, answered=valid(question(conv.state), conv.answers))
    if not fresh and answered:
        key, value = next(iter(answered.items()))
        slot = KEYS[key].slot
        return propose(conv, question(conv.state), Proposal(
            text=msg("dialogue.confirm.change", answer=pair(key, value)), options=[
                Option(value=f"change {SLOTS[slot].aliases[0]} to {text}",
                       label=msg("dialogue.choice.change_to", answer=pair(key, value)),
                       answers={key: value}),
                Option(value="keep", label=msg("dialogue.choice.keep",
                                               answer=pair(key, conv.answers.get(key))))],
            confirms=True))
    if not fresh:
        return None
    found.answers, found.inferred = fresh, found.inferred & set(fresh)
    step = keep(conv, found, "dialogue.notice.noted")
    return replace(step, changed=True, answered=valid(question(conv.state), conv.answers))


def _share_at_question(share: Mapping[str, AnswerValue], turn: Turn) -> Step:
    """'en fait un tiers connectés en même temps' at another question: how many of the people
    counted are on at once, a refinement of the headcount, never a conflict with it: taken
    and said. A load at once says serving, so a workload only inferred is now said."""
    conv = turn.conv
    step = keep(conv, Found(answers=dict(share)), "dialogue.notice.changed")
    if conv.sources.get("workload") == "assumed" and serving_said(conv.answers):
        conv.put("workload", conv.answers["workload"], "said")
    return replace(step, changed=True, answered=valid(question(conv.state), conv.answers))
