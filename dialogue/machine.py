"""The one state machine: the moves between questions, built once at import from the flow.

States are the questions (named for their slot), ``done`` (the result is shown) and
``cancelled``. The machine is shared by every conversation and never changes after import
(no ``add_state`` at runtime, no queued mode: a shared queue runs one thread's callbacks
on another's; see docs/dialogue-notes.md, "Pitfalls"). A conversation is plain data; each
turn wraps it in a :class:`Turn` and fires ``MACHINE.events[name].trigger(turn)`` without
registering it (pattern C in the notes: ~6 us, nothing to leak, nothing to remove).

``advance`` is the flow itself: from every question, one transition per row of
``dialogue.flow.FLOW``, in the flow's order, each guarded by its row's predicate over the
turn's :class:`~dialogue.flow.Plan`, and last the result, whose ``before`` callback asks the
engine (a request it refuses raises ``EngineFailed`` before the state changes). transitions
takes the first transition whose guard holds, which is the flow's rule: the first open
question, else the result. ``back`` and ``change`` go where the person said (a guard on the
turn's ``target``); ``help`` stays; ``cancel`` and ``restart`` end or begin again. An event
with no legal transition from the current state raises ``MachineError``; guards that all
fail return False. Either way the state is unchanged, and the turn says why.
"""

from __future__ import annotations

from typing import Any

from transitions import EventData, Machine

from dialogue.conversation import CANCELLED, DONE, HISTORY_LIMIT, Conversation, SlotName, State
from dialogue.flow import FLOW, Ask, Plan
from dialogue.slots import ORDER as QUESTIONS

INITIAL: SlotName = QUESTIONS[0]
STATES: tuple[State, ...] = (*QUESTIONS, DONE, CANCELLED)
LIVE: tuple[State, ...] = (*QUESTIONS, DONE)

__all__ = ["CANCELLED", "DONE", "INITIAL", "LIVE", "MACHINE", "STATES", "Turn", "fire"]


class Turn:
    """The lightweight model a transition runs on: one conversation, for one turn."""

    __slots__ = ("conv", "plan", "target")

    def __init__(self, conv: Conversation) -> None:
        self.conv = conv
        self.target: State | None = None
        self.plan: Plan | None = None

    @property
    def state(self) -> State:
        return self.conv.state

    @state.setter
    def state(self, value: State) -> None:  # transitions sets the model's ``state``
        self.conv.state = value

    @property
    def history(self) -> list[SlotName]:
        return self.conv.history

    # -- callbacks named in the transition table (send_event=True: they get the event) --
    def remember(self, event: EventData) -> None:
        """Push the question being left, so 'back' can return to it."""
        t = event.transition
        src = t.source if t is not None else self.state
        dest = t.dest if t is not None else None
        if src in QUESTIONS and src != dest and (not self.history or self.history[-1] != src):
            self.history.append(src)
            del self.history[:-HISTORY_LIMIT]

    def sized(self, event: EventData) -> None:
        """Before the result: the engine's answer (memoized: the card reuses it). A request
        it refuses raises here, and the conversation stays where it was."""
        assert self.plan is not None
        self.plan.recommendation()

    def forget(self, event: EventData) -> None:
        """Restart: nothing of the old sizing survives but the conversation's identity (and
        the language it speaks)."""
        self.conv.answers.clear()
        self.conv.sources.clear()
        self.conv.history.clear()
        self.conv.reask.clear()


class To:
    """Guard: the transition fires only if its destination is the turn's chosen target."""

    __slots__ = ("dest",)

    def __init__(self, dest: State) -> None:
        self.dest = dest

    def __call__(self, event: EventData) -> bool:
        model: Any = event.model
        return bool(model.target == self.dest)

    def __repr__(self) -> str:
        return f"the person named {self.dest}"


class Holds:
    """Guard: a row of the flow holds for the turn's plan."""

    __slots__ = ("row",)

    def __init__(self, row: Ask) -> None:
        self.row = row

    def __call__(self, event: EventData) -> bool:
        model: Any = event.model
        return bool(self.row.when(model.plan))

    def __repr__(self) -> str:
        return self.row.why


def _table() -> list[dict[str, Any]]:
    t: list[dict[str, Any]] = []
    # advance: an answer was accepted; the flow's first row that holds, else the result.
    for row in FLOW:
        t.append({"trigger": "advance", "source": list(QUESTIONS), "dest": row.slot,
                  "conditions": [Holds(row)], "before": "remember"})
    t.append({"trigger": "advance", "source": list(QUESTIONS), "dest": DONE,
              "before": ["sized", "remember"]})
    # back: return to the previous question (its answer is kept and shown, editable).
    for dest in QUESTIONS:
        t.append({"trigger": "back", "source": list(LIVE), "dest": dest, "conditions": [To(dest)]})
    # change: jump to a named question from anywhere, the result included.
    for dest in QUESTIONS:
        t.append({"trigger": "change", "source": list(LIVE), "dest": dest,
                  "conditions": [To(dest)], "before": "remember"})
    t.append({"trigger": "cancel", "source": list(LIVE), "dest": CANCELLED})
    t.append({"trigger": "restart", "source": list(STATES), "dest": INITIAL, "before": "forget"})
    # help explains the question and stays on it: an internal transition, no exit, no entry.
    t.append({"trigger": "help", "source": list(LIVE), "dest": None})
    return t


MACHINE = Machine(
    model=None,
    states=list(STATES),
    transitions=_table(),
    initial=INITIAL,
    auto_transitions=False,
    send_event=True,
    queued=False,
    ignore_invalid_triggers=False,
)


def fire(event: str, turn: Turn, target: State | None = None, plan: Plan | None = None) -> bool:
    """Run one event on a turn; True if a transition was taken (the state may be the same).
    ``advance`` is given the plan of the answers it moves on; ``back`` and ``change`` a
    target."""
    turn.target, turn.plan = target, plan
    return bool(MACHINE.events[event].trigger(turn))
