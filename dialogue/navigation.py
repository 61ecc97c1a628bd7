"""Moving a conversation: on to the next question, back to an earlier one, to a question
the person names ('change context to 32k'), or staying with help.

Each move is a transition of the one machine (``dialogue/machine.py``) fired on the turn, and
returns what it did as a :class:`~dialogue.outcome.Step`; where the next question is comes
from the flow (``dialogue/flow.py``) through the turn's :class:`~dialogue.flow.Plan`.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date

from dialogue import answer as reading
from dialogue.conversation import Conversation, SlotName
from dialogue.flow import EngineFailed, Plan
from dialogue.keys import KEYS, pair
from dialogue.machine import DONE, Turn, fire
from dialogue.outcome import Step, tell
from dialogue.reply import Notice
from dialogue.slots import ORDER, SLOTS, is_question, valid
from dialogue.understand import actions
from dialogue.understand.commands import Command
from engine.wording import Message, msg


def changeable(plan: Plan) -> list[SlotName]:
    """The slots a 'change' may reopen: those the flow would still ask for these answers."""
    return [n for n in ORDER if plan.still_asked(n)]


def plan_of(conv: Conversation) -> Plan:
    return Plan.of(conv)


def words(slots: list[SlotName]) -> list[Message]:
    return [msg(f"dialogue.slot.{s}.word") for s in slots]


def navigate(cmd: Command, turn: Turn, today: date | None) -> Step:
    if cmd.kind == "help":
        return help_of(turn, turn.conv.state)
    if cmd.kind == "cancel":
        return Step(changed=fire("cancel", turn))
    if cmd.kind == "restart":
        turn.conv.proposals.clear()
        return Step(changed=fire("restart", turn))
    if cmd.kind == "back":
        target = back_target(turn)
        if target is None:
            return Step(error=msg("dialogue.error.first_question"))
        return Step(changed=fire("back", turn, target))
    return change(cmd, turn, today)


def help_of(turn: Turn, slot_name: str) -> Step:
    fire("help", turn)
    if is_question(slot_name):
        return tell(Notice(kind="info", text=msg("dialogue.help.question",
                                                 help=SLOTS[slot_name].help)))
    return tell(Notice(kind="info", text=msg(
        "dialogue.help.done", names=words(changeable(plan_of(turn.conv))))))


def change(cmd: Command, turn: Turn, today: date | None) -> Step:
    conv = turn.conv
    names_ = changeable(plan_of(conv))
    can = words(names_)
    instead = SLOTS[cmd.slot].instead(conv.answers) if cmd.slot is not None else None
    if instead is not None:  # a batch job's deadline: its load
        cmd = Command("change", instead, raw=cmd.raw, value=cmd.value)
    moot = SLOTS[cmd.slot].moot if cmd.slot is not None else None
    if cmd.slot is None:  # 'change an answer' names none: which, then
        named = cmd.raw and actions.card_action(f"change {cmd.raw}") != "change"
        return Step(error=msg("dialogue.error.change_what", text=cmd.raw, names=can)
                    if named else msg("dialogue.error.change_which", names=can))
    if cmd.slot not in names_ and moot is not None and SLOTS[cmd.slot].applies(conv.answers):
        return Step(error=msg(moot, names=can))
    if cmd.slot not in names_:
        return Step(error=msg("dialogue.error.change_not_here", answer=SLOTS[cmd.slot].label,
                              workload=SLOTS["workload"].show(conv.answers), names=can))
    if cmd.value is None:
        return Step(changed=fire("change", turn, cmd.slot))
    # 'change context to 32k': the question and its answer in one turn
    fire("change", turn, cmd.slot)
    step = reading.read(cmd.value, turn, today)
    if step.answered:
        now = [pair(k, turn.conv.answers[k]) for k in SLOTS[cmd.slot].keys
               if k in turn.conv.answers and KEYS[k].shown]
        if now:  # said, as the question the flow returns to would not say it
            step += tell(Notice(kind="understood", text=msg("dialogue.notice.changed",
                                                            answers=now)))
    return then(turn, step)


def back_target(turn: Turn) -> SlotName | None:
    """The question to return to: the last one asked that still applies, else the previous
    answered one in tree order (so 'back' works after a pre-filled opening too).

    'Still applies' includes what the engine decides: after a change of model, the INT4
    question is not returned to if INT4 no longer changes the answer (it would claim the
    model does not fit), nor the link if the answer no longer crosses nodes. And 'back'
    goes back: never from a question to a later one in the tree."""
    answers = turn.conv.answers
    plan = plan_of(turn.conv)
    here = ORDER.index(turn.state) if turn.state in ORDER else len(ORDER)
    while turn.history:
        s = turn.history.pop()
        if s != turn.state and s in ORDER and ORDER.index(s) < here and plan.still_asked(s):
            return s
    earlier = [s for s in ORDER[:here] if valid(s, answers) and plan.still_asked(s)]
    return earlier[-1] if earlier else None


def then(turn: Turn, step: Step) -> Step:
    """After an answer's step: on to the next question when it answered this one; the same
    question, saved, when it changed the conversation without answering (a proposal), unless
    the change made it moot ('what if it's by tomorrow?' typed at the 4-bit question, when
    4-bit weights no longer change the answer): then on, as an answer would."""
    if step.answered:
        return moved(turn, step)
    if not step.changed:
        return step
    state = turn.state
    if is_question(state) and not plan_of(turn.conv).still_asked(state):
        return moved(turn, step)
    return step + stay(turn)


def moved(turn: Turn, step: Step) -> Step:
    """An answer was read: move on (an engine refusal refuses the answer, and what was said
    of it). Once the model, the work, the load and the context are known, the per-user
    speed nobody said, proposed or refused is assumed and shown with its one-click change,
    exactly as an opening that gives them all gets it: the same answers give the same card
    whether typed at once or one question at a time (the speed question is still there,
    through 'change speed' or the card's button; what it reads is read after the card)."""
    step += reading.assume_rest(turn.conv, frozenset(turn.conv.reask))
    try:
        moved = advance(turn)
    except EngineFailed as exc:
        return replace(step, error=msg("dialogue.error.engine_answer", why=exc.message),
                       notices=(), changed=False)
    return step + moved


def stay(turn: Turn) -> Step:
    """A proposal was stored (or an answer to another question noted): the same question."""
    return Step(plan=plan_of(turn.conv), changed=True)


def advance(turn: Turn) -> Step:
    """Move to the first open question, or to the result (the machine's ``advance``, which
    asks the engine before the card): a change to save, with the plan it follows. A request
    the engine refuses is refused here, where the turn says why and keeps the conversation
    as it was."""
    plan = plan_of(turn.conv)
    was = turn.state
    fire("advance", turn, plan=plan)
    return Step(changed=True, plan=plan, finished=turn.state == DONE and was != DONE)
