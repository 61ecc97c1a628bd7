"""What a text does after the card: a change said as a sentence ('in fact 40 users', 'et sur
H100 ?'), a question about the card ('why 2 nodes?'), or one of its actions typed ('show
the math', 'compare with another GPU', 'send me the brief').

Answers typed without 'change' change those answers as 'change' would, and the card
follows; a new model or workload is read as its 'change' (the questions it brings are
asked); an answer the card cannot change is said why; the math and the reason come from the
engine's own answer; the charts, the quote form and the brief are the face's to make.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date

from dialogue import answer as reading
from dialogue import readers
from dialogue.conversation import AnswerValue, Conversation, SlotName
from dialogue.flow import WEIGHED, EngineFailed
from dialogue.headcount import as_counted
from dialogue.keys import KEYS, for_batch, pair
from dialogue.machine import Turn, fire
from dialogue.navigation import change, changeable, moved, plan_of, stay, words
from dialogue.outcome import Step, tell
from dialogue.readings import Proposal, Reading, Refusal
from dialogue.reply import CardAction, Notice
from dialogue.slots import ORDER, SLOTS, is_training, question, serving
from dialogue.understand import actions, negation, relative
from dialogue.understand.commands import Command
from dialogue.understand.opening import Found, extract
from dialogue.understand.text import fold, has_digit
from engine.result import StepAnswer
from engine.wording import msg


def at_result(text: str, turn: Turn, today: date | None) -> Step:
    """After the card, answers typed without 'change' ('in fact 40 users', 'what about 32k
    and 128 users?', 'et sur H100 ?') change those answers, as 'change' would, and the card
    follows; a question of no answer ('why 2 nodes?') is the result's help. A new model or
    workload is read as its 'change' ('and for llama 3.1 8b?'): the questions it brings are
    asked."""
    conv = turn.conv
    text = _asked(text, conv, today)
    action = actions.card_action(text)
    if action == "math" or (action is None and asks_why(text)):
        return _explain(turn, math=action == "math")
    found = Found() if negation.asks_about(text) or action is not None else extract(
        text, conv.language, today=today, training=is_training(conv.answers))
    answers, inferred = as_counted(conv, found.answers, found.inferred, text)
    found.answers, found.inferred = answers, set(inferred)
    # what the card already holds is no change ('40 tok/s per user' says serving again)
    said = {k: v for k, v in found.answers.items()
            if k not in found.inferred and not (SLOTS[KEYS[k].slot].shapes
                                                and conv.answers.get(k) == v)}
    share = readers.share_of_people(text, conv.answers)  # 'what if half are online?'
    if share and set(said) <= {"users_total", "concurrency", "workload"} and (
            said or not (found.unsure or found.refusals)):  # 'one in ten': never 10 at once
        said = dict(share)
    times = relative.change(text, conv.answers)
    if times is not None:  # '2x the concurrency': the card's, doubled
        moved_slots = {KEYS[k].slot for k in times.values}
        said = {k: v for k, v in said.items() if KEYS[k].slot not in moved_slots}
        said.update(times.values)
        found.unsure = {s: p for s, p in found.unsure.items() if s not in moved_slots}
        moot = [r for k, r in found.refused.items() if k in KEYS and KEYS[k].slot in moved_slots]
        found.refusals = [r for r in found.refusals if r not in moot]  # 'deux fois': no length
    for slot, meant in _as_said(found.unsure, conv).items():  # 'et à 50 tok/s ?'
        said.update(meant)
        del found.unsure[slot]
    moving = {KEYS[k].slot for k, v in said.items() if conv.answers.get(k) != v}
    if moving:  # 'run it on RTX 5090s': the GPU moves, not the workload 'run' says again
        said = {k: v for k, v in said.items() if KEYS[k].slot in moving}
    if "documents" in conv.answers and serving(conv.answers):  # 'what if it's by tomorrow'
        said = for_batch(said)
    can = changeable(plan_of(conv))
    slots = list(dict.fromkeys(KEYS[k].slot for k in said))
    first = next((s for s in ORDER if SLOTS[s].shapes and (s in slots or s in found.unsure)),
                 None)
    unsure = next((s for s in found.unsure if s in can), None)
    if first is not None:  # 'and for llama 3.1 8b?': asked as its 'change'
        return change(Command("change", first, raw=first, value=text), turn, today)
    if unsure is not None:  # 'what about 30 tok/s?': per user or in total, asked there
        fire("change", turn, unsure)
        return reading.propose(conv, unsure, found.unsure[unsure]) + stay(turn)
    if found.refusals:  # 'what about 500000 users?': said why, nothing changes
        return reading.refuse(found.refusals[0])
    if slots and all(s in can for s in slots):
        before = dict(conv.answers)
        for slot in slots:
            fire("change", turn, slot)
            typed = times.said if times is not None and times.said else text
            got = _completed(slot, typed, {k: v for k, v in said.items()
                                          if KEYS[k].slot == slot}, conv, today)
            answers, inferred = as_counted(conv, got.answers, got.inferred, text)
            reading.put(conv, slot, answers, "said", inferred)
        return moved(turn, tell(Notice(kind="understood", text=msg(
            "dialogue.notice.changed", answers=[pair(k, v, before) for k, v in said.items()
                                                if KEYS[k].shown]))))
    if slots:  # 'what about 4-bit?' on a card 4-bit would not change: said why, nothing moves
        stuck = next(s for s in slots if s not in can)
        return change(Command("change", stuck, raw=stuck), turn, today)
    if action is not None:
        return _act(action, turn, today)
    assumed = _at_assumed(text, conv, can, today)
    if assumed is not None:  # 'as fast as ChatGPT', 'none': the assumed speed's change
        return change(Command("change", assumed, raw=assumed, value=text), turn, today)
    if negation.is_question(text):  # 'why 2 nodes?': the help of the result
        return tell(Notice(kind="info", text=msg("dialogue.help.done", names=words(can))))
    return Step(error=msg("dialogue.error.done"))


#: Where a long message's clauses part: after a full stop, a question or exclamation mark, a
#: colon, a semicolon or a comma, before a space (never inside '1,5' or '10:30').
_CLAUSE = re.compile(r"(?<=[.!?;:,])\s+")
#: A message of more clauses is read whole (each clause is read once to weigh it: bounded)
_MOST_CLAUSES = 8


def _asked(text: str, conv: Conversation, today: date | None) -> str:
    """What a long polite message asks, without the clauses around it that carry nothing:
    'Merci, c'est très clair ! Et si ... ?', 'pourquoi autant de GPU ? Je voudrais pouvoir
    l'expliquer au client.', 'Why this many GPUs? Le budget est serré'. A clause carries
    nothing when it holds no figure, no card action, no why, no share of people, no relative
    change and no answer; the rest is read as if typed alone (the whole text when every
    clause is idle, so that a bare 'merci' is still answered)."""
    pieces = _CLAUSE.split(text.strip())
    if not 2 <= len(pieces) <= _MOST_CLAUSES:
        return text
    kept = [p for p in pieces if not _idle(p, conv, today)]
    new = [p for p in kept if not _restated(p, conv, today)]
    kept = new or kept  # 'ils trouvent que 20 tok/s c'est lent : et avec 40 ?': the 40
    if not kept or len(kept) == len(pieces):
        return text
    joined = " ".join(kept)
    # a name in one clause and its value in the next ('Et le TTFT, si on veut max 1 s ?'):
    # what the whole reads beyond the clauses kept is kept whole
    return text if set(_said(text, conv, today)) - set(_said(joined, conv, today)) else joined


def _read(text: str, conv: Conversation, today: date | None) -> Found:
    return extract(text, conv.language, today=today, training=is_training(conv.answers))


def _said_in(found: Found) -> dict[str, AnswerValue]:
    """What a reading says, not what it inferred."""
    return {k: v for k, v in found.answers.items() if k not in found.inferred}


def _said(text: str, conv: Conversation, today: date | None) -> dict[str, AnswerValue]:
    return _said_in(_read(text, conv, today))


def _restated(piece: str, conv: Conversation, today: date | None) -> bool:
    """A clause that only says what the card already holds ('ils trouvent que 20 tokens par
    seconde, c'est lent'): the card restated before the change asked."""
    if not has_digit(piece):
        return False
    found = _read(piece, conv, today)
    said = _said_in(found)
    held = all(conv.answers.get(k) == v for k, v in said.items()) and all(
        any(o.answers and all(conv.answers.get(k) == v for k, v in o.answers.items())
            for o in p.options) for p in found.unsure.values())
    return bool(said or found.unsure) and held and not found.refusals


def _idle(piece: str, conv: Conversation, today: date | None) -> bool:
    """Whether one clause of a message carries nothing the card can use (see :func:`_asked`)."""
    if has_digit(piece) or actions.card_action(piece) is not None or negation.asks_why(piece):
        return False
    if negation.CORRECTION.search(fold(piece)):  # '128 concurrent? sorry, 96'
        return False
    if readers.share_of_people(piece, conv.answers) or relative.change(piece, conv.answers):
        return False
    found = extract(piece, conv.language, today=today, training=is_training(conv.answers))
    return not (found.answers or found.unsure or found.refusals)


def _as_said(unsure: Mapping[SlotName, Proposal], conv: Conversation
             ) -> dict[SlotName, dict[str, AnswerValue]]:
    """A figure that could mean two things, said after a card that holds one of them as the
    person said it ('30 tok/s per user' on the card, then 'and at 50 tok/s?'): the new figure
    is in the measure they gave, so it is taken in it rather than asked. A measure the card
    only assumed is still asked (the person never chose it)."""
    own = {k for k, s in conv.sources.items() if s in ("said", "confirmed")}
    out: dict[SlotName, dict[str, AnswerValue]] = {}
    for slot, proposal in unsure.items():
        fits = [o.answers for o in proposal.options if o.answers and set(o.answers) <= own]
        if len(fits) == 1:
            out[slot] = dict(fits[0])
    return out


def _at_assumed(text: str, conv: Conversation, can: list[SlotName],
                today: date | None) -> SlotName | None:
    """The question whose assumed answer a text no sentence reads would answer ('as fast as
    ChatGPT', 'none', 'pas d'objectif' after a card that assumed the speed): what the card
    offers to change in one click reads what its question reads, as 'change <it> to
    <text>' would. Never a yes or a no (no answer to a question the card did not ask), nor a
    bare number (users, a context or a speed: it says none), nor a question that shapes the
    others (a model or a workload changes only when said)."""
    if negation.polarity(text) is not None or not re.search(r"[^\W\d_]", text):
        return None
    weak = {KEYS[k].slot for k, s in conv.sources.items() if s == "assumed" and k in KEYS}
    for slot in ORDER:
        if slot in weak and slot in can and not SLOTS[slot].shapes and not isinstance(
                SLOTS[slot].read(text, conv.answers, conv.language, today), Refusal):
            return slot
    return None


def _act(action: CardAction, turn: Turn, today: date | None) -> Step:
    """A card action typed: another GPU to compare opens the GPU question (its choices
    are the GPUs to compare with); 'change an answer' says which may change; the charts,
    the quote form and the brief are the face's to make (nothing in the sizing changes)."""
    if action == "compare":
        gpu = next(s for s in SLOTS.values() if s.offered)
        return change(Command("change", gpu.name, raw=gpu.name), turn, today)
    if action == "change":
        return tell(Notice(kind="info", text=msg(
            "dialogue.help.done", names=words(changeable(plan_of(turn.conv))))))
    return Step(action=action)


def _explain(turn: Turn, *, math: bool) -> Step:
    """'why 2 nodes?': the step that decided the card, with its question, its answer and the
    numbers behind it (the engine's own evidence); 'show the math': the card's math. Nothing
    changes."""
    try:
        rec = plan_of(turn.conv).recommendation()
    except EngineFailed as exc:
        return Step(error=msg("dialogue.error.engine", why=exc.message))
    if math:
        return tell(Notice(kind="info", text=msg("dialogue.notice.math")),
                    *(Notice(kind="info", text=m) for m in rec.math))
    return _why(next((q for q in rec.questions if q.step == rec.step), rec.questions[-1]))


def asks_why(text: str) -> bool:
    """'why 2 nodes?', or a clause of a longer message that asks it ('Merci beaucoup. Le
    client va me demander : pourquoi autant de nœuds ?')."""
    return negation.asks_why(text) or any(negation.asks_why(c) for c in _CLAUSE.split(text))


def why_asked(turn: Turn) -> Step | None:
    """'pourquoi autant de nœuds ?' at a question only the engine's answer raised (4-bit, the
    link): the decision's last step settled so far, with its numbers, and the question stays.
    None at any other question ('why?' there asks what the question is for)."""
    weighed = WEIGHED.get(question(turn.conv.state))
    if weighed is None:
        return None
    try:
        settled = weighed.steps(plan_of(turn.conv))
    except EngineFailed as exc:
        return Step(error=msg("dialogue.error.engine", why=exc.message))
    return _why(settled[-1]) if settled else None


def _why(q: StepAnswer) -> Step:
    return tell(Notice(kind="info", text=msg(
        "dialogue.notice.why", step=q.step, question=q.question,
        answer=msg(f"answer.{q.answer.replace(' ', '_')}"), because=q.because)))


def _completed(slot: SlotName, text: str, said: dict[str, AnswerValue], conv: Conversation,
               today: date | None) -> Reading:
    """A new value for one part of an answer keeps the parts that still apply: '2 epochs'
    keeps the examples and their length, '20M documents' the batch's deadline and document
    length. The question's own reader completes it from what was kept, as it does at the
    question; when it reads something else, what the sentence said stands alone."""
    got = SLOTS[slot].read(text, conv.answers, conv.language, today)
    if isinstance(got, Reading) and all(got.answers.get(k) == v for k, v in said.items()):
        return got
    return Reading(said)
