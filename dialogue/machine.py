"""The one state machine: which moves between questions are legal, built once at import.

States are the questions (named for their slot), ``done`` (the result is shown) and
``cancelled``. The machine is shared by every conversation and never changes after import
(no ``add_state`` at runtime, no queued mode: a shared queue runs one thread's callbacks
on another's; see docs/dialogue-notes.md, "Pitfalls"). A conversation is plain data; each
turn wraps it in a ``Turn`` and fires ``MACHINE.events[name].trigger(turn)`` without
registering it (pattern C in the notes: ~6 us, nothing to leak, nothing to remove).

Where the next question is, is decided by ``dialogue.flow.Plan`` (it may need the engine);
the turn writes that into ``turn.target`` and the machine's ordered, guarded transitions
take the one whose destination matches. An event with no legal transition from the current
state raises ``MachineError``; a guard that matches nothing returns False. Either way the
state is unchanged, and the turn says why.
"""

from __future__ import annotations

from typing import Any, cast

from transitions import EventData, Machine

from dialogue.conversation import HISTORY_LIMIT, Conversation, SlotName, State
from dialogue.slots import ORDER as QUESTIONS

DONE = "done"
CANCELLED = "cancelled"
INITIAL = QUESTIONS[0]
STATES: tuple[str, ...] = (*QUESTIONS, DONE, CANCELLED)
LIVE: tuple[str, ...] = (*QUESTIONS, DONE)


class Turn:
    """The lightweight model a transition runs on: one conversation, for one turn."""

    __slots__ = ("conv", "target")

    def __init__(self, conv: Conversation) -> None:
        self.conv = conv
        self.target = ""

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
        """Push the state being left, so 'back' can return to it."""
        t = event.transition
        src = t.source if t is not None else self.state
        dest = t.dest if t is not None else None
        if src in QUESTIONS and src != dest and (
            not self.history or self.history[-1] != src
        ):
            self.history.append(cast(SlotName, src))
            del self.history[:-HISTORY_LIMIT]

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

    def __init__(self, dest: str) -> None:
        self.dest = dest

    def __call__(self, event: EventData) -> bool:
        model: Any = event.model
        return bool(model.target == self.dest)

    def __repr__(self) -> str:
        return f"target is {self.dest}"


def _table() -> list[dict[str, Any]]:
    t: list[dict[str, Any]] = []
    # advance: an answer was accepted; go to the first open question, or to the result.
    for dest in (*QUESTIONS, DONE):
        t.append({"trigger": "advance", "source": list(QUESTIONS), "dest": dest,
                  "conditions": [To(dest)], "before": "remember"})
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


def fire(event: str, turn: Turn, target: str = "") -> bool:
    """Run one event on a turn; True if a transition was taken (the state may be the same)."""
    turn.target = target
    return bool(MACHINE.events[event].trigger(turn))
