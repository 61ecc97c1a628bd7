"""Turn a conversation into the ``Reply`` a face shows: a question, the result, or an end.

Plain data only (no Block Kit, no terminal codes). Every choice's value is the text a
person could type for the same effect, so a button click and typed text share one path.
"""

from __future__ import annotations

from dialogue.conversation import Conversation
from dialogue.machine import CANCELLED, DONE
from dialogue.reply import Choice, Reply
from dialogue.slots import ORDER, SLOTS, in_sentence, labelled, relevant, valid
from engine.result import Recommendation

RESTART = Choice(value="restart", label="Start a new sizing")


def question_nav(conv: Conversation) -> list[Choice]:
    nav: list[Choice] = []
    if conv.history or conv.answers:
        nav.append(Choice(value="back", label="Back"))
    nav.append(Choice(value="help", label="Help"))
    if conv.state != "gpu":
        nav.append(Choice(value="change gpu", label="Change GPU"))
    nav.append(Choice(value="restart", label="Restart"))
    nav.append(Choice(value="cancel", label="Cancel", style="danger"))
    return nav


def result_nav(conv: Conversation, changeable: list[str] | None = None) -> list[Choice]:
    """'Change <answer>' for each answer that still shapes the result (``changeable``: what
    the service says the engine still asks), then back and a new sizing."""
    nav = [Choice(value=f"change {name}", label=f"Change {in_sentence(SLOTS[name].label)}")
           for name in ORDER
           if ((name in conv.answers and relevant(name, conv.answers)) or name == "gpu")
           and (changeable is None or name in changeable)]
    nav.append(Choice(value="back", label="Back"))
    nav.append(RESTART)
    return nav


def question(
    conv: Conversation,
    *,
    notices: list[str] | None = None,
    error: str | None = None,
    choices: list[Choice] | None = None,
) -> Reply:
    slot = SLOTS[conv.state]
    text = slot.ask(conv.answers)
    if conv.state in conv.answers and not valid(conv.state, conv.answers):
        # a new model with a shorter window: the old answer is shown as what no longer fits
        text += f" (was {slot.show(conv.answers[conv.state])}: more than it takes)"
    elif conv.state in conv.answers:  # reached by back/change: the answer is editable
        text += f" (now: {slot.show(conv.answers[conv.state])})"
    return Reply(
        kind="error" if error else "question",
        conversation_id=conv.id,
        version=conv.version,
        state=conv.state,
        text=text,
        help=slot.help,
        notices=notices or [],
        error=error,
        choices=choices if choices else slot.choices(conv.answers),
        nav=question_nav(conv),
        answers=labelled(conv.answers),
    )


def result(
    conv: Conversation,
    rec: Recommendation,
    *,
    notices: list[str] | None = None,
    error: str | None = None,
    changeable: list[str] | None = None,
) -> Reply:
    return Reply(
        kind="error" if error else "result",
        conversation_id=conv.id,
        version=conv.version,
        state=DONE,
        text=rec.headline,
        help="The sizing is done. Change any answer to recompute, or start a new sizing.",
        notices=notices or [],
        error=error,
        choices=[],
        nav=result_nav(conv, changeable),
        answers=labelled(conv.answers),
        recommendation=rec,
    )


def cancelled(conv: Conversation, *, error: str | None = None) -> Reply:
    return Reply(
        kind="ended",
        conversation_id=conv.id,
        version=conv.version,
        state=CANCELLED,
        text="Sizing cancelled. Start a new one whenever you like.",
        error=error,
        choices=[RESTART],
    )


def missing(key: str, *, expired: bool = False) -> Reply:
    why = ("This sizing has expired" if expired
           else "I can't find a sizing here: it has expired or was never started")
    return Reply(
        kind="ended",
        conversation_id="",
        version=0,
        state="expired" if expired else "missing",
        text=f"{why}. Start a new one?",
        choices=[RESTART],
    )
