"""A conversation (and what its last turn did) as the :class:`Reply` a face renders.

What a reply shows depends on the state, not on the turn that led there: a question
carries its text, help, choices, default and navigation, the steps the engine has already
decided (step 1 before the INT4 question, with what the answer trades; steps 1-2 before the
link), the answers so far with their source, and the request the engine is sent. The turn
only adds its notices and its error. So a reply re-rendered later (``Dialogue.current``)
is the same reply, and every face shows the same thing.
"""

from __future__ import annotations

from functools import lru_cache

from dialogue.conversation import AnswerValue, Conversation
from dialogue.flow import EngineFailed, Plan, int4_tradeoff, request
from dialogue.machine import CANCELLED, DONE
from dialogue.reply import AnswerView, Choice, Nav, Notice, Reply
from dialogue.slots import ORDER, SLOTS, valid
from dialogue.turn import Outcome, changeable
from engine.request import DEFAULT_GPU
from engine.units import tokens
from engine.wording import Message, msg


def reply(out: Outcome) -> Reply:
    """The reply for the conversation after ``out``'s turn."""
    conv = out.conv
    if conv.state == CANCELLED:
        return _reply(conv, kind="ended", text=msg("dialogue.reply.cancelled"),
                      error=out.error, choices=[_new_sizing()])
    plan = out.plan or Plan(conv.answers)
    if conv.state == DONE:
        return _result(conv, plan, out)
    return _question(conv, plan, out)


def missing(key: str, *, expired: bool = False) -> Reply:
    """No sizing at ``key`` (never started, expired, or of an older schema)."""
    return Reply(kind="ended", conversation_id="", version=0,
                 state="expired" if expired else "missing",
                 text=msg("dialogue.reply.expired" if expired else "dialogue.reply.missing"),
                 choices=[_new_sizing()])


def answers(conv: Conversation) -> list[AnswerView]:
    """The answers that shape the sizing, in question order (the GPU always: it is sent)."""
    out: list[AnswerView] = []
    for name in ORDER:
        slot = SLOTS[name]
        if name in conv.answers and slot.applies(conv.answers) and valid(name, conv.answers):
            out.append(AnswerView(slot=name, label=slot.label, shown=slot.show(conv.answers[name]),
                                  source=conv.sources.get(name, "said")))
        elif name == "gpu":
            out.append(AnswerView(slot=name, label=slot.label, shown=slot.show(DEFAULT_GPU),
                                  source="default"))
    return out


# -- the three shapes ------------------------------------------------------------------------


def _reply(conv: Conversation, **fields: object) -> Reply:
    req, src = request(conv.answers, conv.sources)
    base: dict[str, object] = {
        "conversation_id": conv.id, "version": conv.version, "state": conv.state,
        "language": conv.language, "answers": answers(conv), "request": req, "sources": src,
    }
    if fields.get("error") is not None and fields.get("kind") != "ended":
        fields["kind"] = "error"
    return Reply.model_validate({**base, **fields})


def _question(conv: Conversation, plan: Plan, out: Outcome) -> Reply:
    slot = SLOTS[conv.state]
    text: Message = slot.ask(conv.answers)
    if conv.state in conv.answers:
        shown = slot.show(conv.answers[conv.state])
        # a new model with a shorter window: the old answer is shown as what no longer fits
        text = (msg("dialogue.question.now", question=text, now=shown)
                if valid(conv.state, conv.answers)
                else msg("dialogue.question.was", question=text, was=shown))
    notices = list(out.notices)
    steps = []
    try:
        steps = plan.steps(conv.state)
        if conv.state == "int4":
            notices.append(Notice(kind="tradeoff", text=int4_tradeoff(plan)))
    except EngineFailed:  # the steps are context; the question stands without them
        steps = []
    default = slot.default(conv.answers)
    return _reply(
        conv, kind="question", asking=conv.state, text=text, help=slot.help, notices=notices,
        steps=steps, error=out.error, choices=out.choices or slot.choices(conv.answers),
        default=None if default is None else Choice(value=_typed(slot.name, default.value),
                                                    label=slot.show(default.value)),
        nav=_question_nav(conv),
    )


def _result(conv: Conversation, plan: Plan, out: Outcome) -> Reply:
    try:
        rec = plan.recommendation()
        names = changeable(plan)
    except EngineFailed as exc:
        return _reply(conv, kind="error", text=msg("dialogue.reply.engine_failed"),
                      error=msg("dialogue.error.engine", why=exc.message),
                      nav=_result_nav(conv, list(ORDER)))
    return _reply(conv, kind="result", text=rec.headline, help=msg("dialogue.help.result"),
                  notices=out.notices, steps=list(rec.questions), error=out.error,
                  nav=_result_nav(conv, names), recommendation=rec)


# -- navigation ------------------------------------------------------------------------------


@lru_cache(maxsize=256)
def _nav(kind: str, value: str, slot: str | None = None,
         style: str | None = None) -> Nav:
    label = msg(f"dialogue.slot.{slot}.change") if slot else msg(f"dialogue.nav.{kind}")
    return Nav.model_validate({"kind": kind, "slot": slot, "label": label, "value": value,
                               "style": style})


def _question_nav(conv: Conversation) -> list[Nav]:
    nav: list[Nav] = []
    if conv.history or conv.answers:
        nav.append(_nav("back", "back"))
    nav.append(_nav("help", "help"))
    if conv.state != "gpu":
        nav.append(_nav("change", "change gpu", "gpu"))
    nav.append(_nav("restart", "restart"))
    nav.append(_nav("cancel", "cancel", style="danger"))
    return nav


def _result_nav(conv: Conversation, names: list[str]) -> list[Nav]:
    """'Change <answer>' for each answer that still shapes the result, then back and a new
    sizing. The value is the command typed, in the words every language understands."""
    nav = [_nav("change", f"change {SLOTS[n].aliases[0]}", n) for n in ORDER
           if n in names and (n in conv.answers or n == "gpu")]
    nav.append(_nav("back", "back"))
    nav.append(_nav("restart", "restart"))
    return nav


def _new_sizing() -> Choice:
    return Choice(value="restart", label=msg("dialogue.nav.new_sizing"))


def _typed(slot: str, value: AnswerValue) -> str:
    """What a person would type for a default (a button value takes the same path)."""
    if value is None:
        return "no target"
    if slot == "train_tokens" and isinstance(value, int | float):
        return f"{tokens(value)} tokens"
    if slot == "deadline_days" and isinstance(value, int | float):
        return f"{value:g} days"
    return str(value)
