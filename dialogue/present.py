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

from dialogue.assumptions import assumptions
from dialogue.conversation import Conversation, SlotName
from dialogue.flow import ALWAYS, EngineFailed, Plan, request
from dialogue.headcount import headcount
from dialogue.keys import KEYS
from dialogue.machine import CANCELLED, DONE
from dialogue.navigation import changeable
from dialogue.outcome import Outcome
from dialogue.reply import AnswerView, Choice, Nav, Notice, Reply, Source
from dialogue.slots import ORDER, SLOTS, assumed, current_default, holds, question, valid
from dialogue.understand.load import at_once
from engine.result import Recommendation
from engine.wording import Message, msg


def reply(out: Outcome) -> Reply:
    """The reply for the conversation after ``out``'s turn."""
    conv = out.conv
    if conv.state == CANCELLED:
        return _reply(conv, kind="ended", text=msg("dialogue.reply.cancelled"),
                      error=out.error, choices=[_new_sizing()])
    plan = out.plan or Plan.of(conv)
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
    """The answers that shape the sizing, in question order, each with its source; what the
    engine is sent without an answer (the GPU, GPUs per node) is shown as a default."""
    out: list[AnswerView] = []
    a = conv.answers
    for name, key in KEYS.items():
        if key.shown and holds(name, a):
            out.append(AnswerView(slot=name, label=key.label, shown=key.show(a[name]),
                                  source=conv.sources.get(name, "said")))
    for name, value in ALWAYS:
        if name != "interconnect" and name not in a:
            out.append(AnswerView(slot=name, label=KEYS[name].label,
                                  shown=KEYS[name].show(value), source="default"))
    order = {k: i for i, k in enumerate(KEYS)}
    return sorted(out, key=lambda v: order[v.slot])


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
    slot = SLOTS[question(conv.state)]
    proposal = conv.proposals.get(conv.state)
    text: Message = slot.ask(conv.answers)
    if proposal is not None:
        text = proposal.text
    elif assumed(conv, slot.name):  # inferred, not said: confirm it (Enter keeps it)
        text = msg("dialogue.question.assumed", question=text, now=slot.show(conv.answers))
    elif not slot.worded_for(conv.answers) and any(k in conv.answers for k in slot.keys
                                                   if k not in (*slot.keeps, *slot.parts)):
        shown = slot.show(conv.answers)
        # a new model with a shorter window: the old answer is shown as what no longer fits
        text = (msg("dialogue.question.now", question=text, now=shown)
                if valid(slot.name, conv.answers)
                else msg(slot.was, question=text, was=shown))
    notices = list(out.notices)
    steps = []
    try:
        steps = plan.steps(conv.state)
        notices += [Notice(kind="tradeoff", text=t) for t in plan.notices(conv.state)]
    except EngineFailed:  # the steps are context; the question stands without them
        steps = []
    default = None if proposal is not None else current_default(conv)
    choices = ([Choice(value=o.value, label=o.label, style=o.style) for o in proposal.options]
               if proposal is not None else slot.choices(conv.answers))
    return _reply(
        conv, kind="question", asking=conv.state, text=text, help=slot.help, notices=notices,
        steps=steps, error=out.error, choices=out.choices or choices,
        default=None if default is None else Choice(value=default.typed, label=default.label),
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
    notices = list(out.notices)
    owned = _owned(conv, rec)
    if owned is not None:
        notices.append(owned)
    whole = _all_at_once(conv)
    if whole is not None and whole[0] not in notices:  # said once, when this turn said it
        notices.append(whole[0])
    return _reply(conv, kind="result", text=rec.headline, help=msg("dialogue.help.result"),
                  notices=notices, steps=list(rec.questions), error=out.error,
                  nav=_result_nav(conv, names, whole[1] if whole else None),
                  recommendation=rec, action=out.action)


def _all_at_once(conv: Conversation) -> tuple[Notice, Nav] | None:
    """A headcount taken as all of them at once (:func:`answer.headcount`), said on every
    card, with one click to the share of them a headcount usually has at once."""
    notice = headcount(conv.answers)
    if notice is None:
        return None
    people, share = conv.answers["users_total"], assumptions().peak_share
    assert isinstance(people, int)
    nav = Nav(kind="change", slot="concurrency", label=msg(
        "dialogue.nav.some_at_once", n=at_once(people, share), share=share, people=people),
        value=f"{people} people, {share * 100:g}% at once")
    return notice, nav


def _owned(conv: Conversation, rec: Recommendation) -> Notice | None:
    """'You said 2 nodes: this answer takes 6 of 4x NVIDIA L40S, 4 more': the servers they
    said they have beside the nodes the answer takes (a bigger node, when the research-lab
    trap moved it, is named)."""
    owned = conv.answers.get("nodes_owned")
    if not isinstance(owned, int) or isinstance(owned, bool) or rec.owned is not None:
        return None  # the engine's headline already says what they do
    hardware = msg("hardware.node", gpus=rec.gpus_per_node, gpu=rec.gpu_name)
    if rec.nodes <= owned:
        return Notice(kind="info", text=msg("dialogue.notice.owned_enough", owned=owned,
                                            nodes=rec.nodes, hardware=hardware))
    return Notice(kind="warning", text=msg("dialogue.notice.owned_short", owned=owned,
                                           nodes=rec.nodes, hardware=hardware,
                                           more=rec.nodes - owned))


# -- navigation ------------------------------------------------------------------------------


@lru_cache(maxsize=256)
def _nav(kind: str, value: str, slot: str | None = None,
         style: str | None = None) -> Nav:
    label = msg(f"dialogue.slot.{slot}.change") if slot else msg(f"dialogue.nav.{kind}")
    return Nav.model_validate({"kind": kind, "slot": slot, "label": label, "value": value,
                               "style": style})


def _assumed_slots(conv: Conversation) -> list[SlotName]:
    """The questions whose answer the bot assumed: one click away from a change."""
    weak: tuple[Source, ...] = ("assumed",)
    slots = {KEYS[k].slot for k, s in conv.sources.items() if s in weak and k in KEYS}
    return [s for s in ORDER if s in slots and s != conv.state]


def _question_nav(conv: Conversation) -> list[Nav]:
    nav: list[Nav] = []
    if conv.history or conv.answers:
        nav.append(_nav("back", "back"))
    nav.append(_nav("help", "help"))
    nav += [_nav("change", f"change {SLOTS[s].aliases[0]}", s) for s in _assumed_slots(conv)
            if not SLOTS[s].offered]
    nav += [_nav("change", f"change {s.aliases[0]}", s.name) for s in SLOTS.values()
            if s.offered and s.name != conv.state]
    nav.append(_nav("restart", "restart"))
    nav.append(_nav("cancel", "cancel", style="danger"))
    return nav


def _result_nav(conv: Conversation, names: list[SlotName], more: Nav | None = None) -> list[Nav]:
    """'Change <answer>' for each answer that still shapes the result (what was assumed
    first: one click to correct it), then back and a new sizing. The value is the command
    typed, in the words every language understands."""
    assumed = [n for n in _assumed_slots(conv) if n in names]
    rest = [n for n in ORDER if n in names and n not in assumed
            and (any(k in conv.answers for k in SLOTS[n].keys) or SLOTS[n].offered)]
    nav = [_nav("change", f"change {SLOTS[n].aliases[0]}", n) for n in [*assumed, *rest]]
    if more is not None:  # a change offered with its value ('500 people, 10% at once')
        nav.append(more)
    nav.append(_nav("back", "back"))
    nav.append(_nav("restart", "restart"))
    return nav


def _new_sizing() -> Choice:
    return Choice(value="restart", label=msg("dialogue.nav.new_sizing"))
