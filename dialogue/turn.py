"""One turn, pure: a conversation and a text in, the conversation after it and what to say.

No store, no clock, no face: :func:`take` (an answer, a click, a command) and :func:`begin`
(the opening sentence of a new sizing) work on a copy and return an :class:`Outcome`. A
refused text returns the conversation as it was (``changed`` is False, ``error`` says why):
nothing moves, nothing is lost. The service (``dialogue/service.py``) saves what changed.

The opening and the model question read a sentence the same way (every face gets what
Slack gets): every answer it gives is kept, what was inferred is said as assumed, and what
was not used is said too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from dialogue.conversation import AnswerValue, Conversation
from dialogue.errors import ParseError
from dialogue.flow import EngineFailed, Plan
from dialogue.machine import CANCELLED, DONE, Turn, fire
from dialogue.reply import Choice, Notice, Source
from dialogue.slots import ALIASES, ORDER, SLOTS, model_choices, valid
from dialogue.understand import commands, language, names
from dialogue.understand.commands import Command
from dialogue.understand.opening import Found, extract
from dialogue.understand.text import fold, has_digit
from dialogue.wording import catalog
from engine.units import LANGS
from engine.wording import Message, msg

MAX_ANSWER_CHARS = 500  # no answer is longer; a pasted page is refused, not searched
MAX_OPENING_CHARS = 1000  # an opening may describe the project; only its start is read


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


def command(text: str) -> Command | None:
    """The navigation command ``text`` is (back, help, change, restart, cancel, language)."""
    return commands.read(text, ALIASES)


def changeable(plan: Plan) -> list[str]:
    """The slots a 'change' may reopen: those the flow would still ask for these answers."""
    return [n for n in ORDER if plan.still_asked(n)]


def pair(slot: str, value: AnswerValue) -> Message:
    return msg("dialogue.notice.pair", label=SLOTS[slot].label, value=SLOTS[slot].show(value))


# -- the opening ---------------------------------------------------------------------------------


def begin(conv: Conversation, opening: str) -> Outcome:
    """A new conversation's first turn: its language, the answers the opening gives."""
    work = conv.fork()
    out = Outcome(work, changed=True)
    if len(opening) > MAX_OPENING_CHARS:
        opening = opening[:MAX_OPENING_CHARS]
        out.notices.append(Notice(kind="warning", text=msg("dialogue.notice.long_opening",
                                                            n=MAX_OPENING_CHARS)))
    asked = language.chosen(opening)
    if asked is not None:
        work.language, work.language_source = asked[0], "chosen"
        opening = asked[1]
    else:
        _detect(work, opening)
    if opening.strip():
        found = extract(opening, work.language)
        _keep(work, found, out, "dialogue.notice.understood")
        if found.hint is not None and "model" not in found.answers:
            _refuse(out, found.hint)
        elif found.leftovers:
            out.notices.append(Notice(kind="ignored", text=msg("dialogue.notice.ignored",
                                                                words=found.leftovers)))
    try:
        _advance(Turn(work), out)
    except EngineFailed as exc:  # keep the answers, ask for the model again
        out.error = msg("dialogue.error.engine", why=exc.message)
        work.state = "model"
    work.history.clear()  # nothing was shown yet: 'back' follows the tree from here
    return out


def _detect(conv: Conversation, text: str) -> bool:
    """A language nobody chose follows the words typed, once they say one; True when that
    changed the language (the turn is then saved, to keep speaking it)."""
    if conv.language_source != "default":
        return False
    found = language.detect(text)
    if found is None:
        return False
    changed = found != conv.language
    conv.language, conv.language_source = found, "detected"
    return changed


def _keep(conv: Conversation, found: Found, out: Outcome, notice: str) -> None:
    """Put what a sentence gave into the answers, and say it: said, then assumed."""
    for slot in ORDER:
        if slot in found.answers:
            source: Source = "assumed" if slot in found.inferred else "said"
            conv.put(slot, found.answers[slot], source)
    said = [pair(s, found.answers[s]) for s in ORDER
            if s in found.answers and s not in found.inferred]
    assumed = [pair(s, found.answers[s]) for s in ORDER
               if s in found.answers and s in found.inferred]
    if said:
        out.notices.append(Notice(kind="understood", text=msg(notice, answers=said)))
    if assumed:
        out.notices.append(Notice(kind="assumed", text=msg("dialogue.notice.assumed",
                                                            answers=assumed)))


def _refuse(out: Outcome, exc: ParseError) -> None:
    out.error = exc.message
    if exc.suggestions:
        out.choices = model_choices(exc.suggestions)
    elif exc.retry:
        out.choices = [Choice(value=v, label=msg("dialogue.choice.typed", text=v))
                       for v in exc.retry]


# -- a turn ----------------------------------------------------------------------------------


def take(conv: Conversation, text: str) -> Outcome:
    """Apply a typed answer, a button value (the same path) or a command to a copy."""
    work = conv.fork()
    out = Outcome(work)
    cmd = command(text)
    if cmd is not None and cmd.kind == "language" and cmd.language is not None:
        changed = work.language != cmd.language or work.language_source != "chosen"
        work.language, work.language_source = cmd.language, "chosen"
        if cmd.value:  # 'in French: 64 users': the rest is an answer, in the new language
            rest = take(work, cmd.value)
            rest.changed = rest.error is None  # a refusal is said in it, and saves nothing
            return rest
        out.changed = changed
        out.notices.append(Notice(kind="info", text=msg("dialogue.notice.language")))
        return out
    # a button's value is English whatever the language: only typed words say one
    detected = not _clicked(work, text) and _detect(work, text)
    turn = Turn(work)
    if work.state == CANCELLED and (cmd is None or cmd.kind != "restart"):
        out.error = msg("dialogue.error.cancelled")
    elif cmd is not None:
        _navigate(cmd, turn, out)
    elif len(text) > MAX_ANSWER_CHARS:
        out.error = msg("dialogue.error.too_long", n=len(text))
    elif work.state == DONE:
        out.error = msg("dialogue.error.done")
    elif not text.strip():
        _empty(turn, out)
    else:
        _answer(text, turn, out)
    if out.error is not None and not out.changed:
        # refused: the conversation as it was (only the language of the reply may follow)
        kept = conv.fork()
        kept.language, kept.language_source = work.language, work.language_source
        out.conv, out.plan = kept, None
    elif detected:  # 'aide': help, and from now on in French
        out.changed = True
    return out


_NAV_VALUES = frozenset({"back", "help", "restart", "cancel",
                         *(f"change {s.aliases[0]}" for s in SLOTS.values())})


def _clicked(conv: Conversation, text: str) -> bool:
    """Whether ``text`` is a button's value (a choice of the question, or navigation)."""
    if text in _NAV_VALUES:
        return True
    slot = SLOTS.get(conv.state)
    return slot is not None and text in {c.value for c in slot.choices(conv.answers)}


def _empty(turn: Turn, out: Outcome) -> None:
    """An empty answer takes the question's shown default (and says so), or is refused."""
    slot = SLOTS[turn.state]
    default = slot.default(turn.conv.answers)
    if default is None:
        out.error = msg("dialogue.error.empty")
        return
    turn.conv.put(slot.name, default.value, "default")
    out.notices.append(Notice(kind="assumed", text=msg("dialogue.notice.default_taken",
                                                        answer=pair(slot.name, default.value))))
    _moved(turn, out)


def _navigate(cmd: Command, turn: Turn, out: Outcome) -> None:
    conv = turn.conv
    if cmd.kind == "help":
        fire("help", turn)
        slot = SLOTS.get(conv.state)
        if slot is not None:
            out.notices.append(Notice(kind="info", text=msg("dialogue.help.question",
                                                            help=slot.help)))
        else:
            out.notices.append(Notice(kind="info", text=msg(
                "dialogue.help.done", names=_words(changeable(Plan(conv.answers))))))
    elif cmd.kind == "cancel":
        out.changed = fire("cancel", turn)
    elif cmd.kind == "restart":
        out.changed = fire("restart", turn)
    elif cmd.kind == "back":
        target = _back_target(turn)
        if target is None:
            out.error = msg("dialogue.error.first_question")
        else:
            out.changed = fire("back", turn, target)
    else:
        _change(cmd, turn, out)


def _words(slots: list[str]) -> list[Message]:
    return [msg(f"dialogue.slot.{s}.word") for s in slots]


def _change(cmd: Command, turn: Turn, out: Outcome) -> None:
    conv = turn.conv
    names_ = changeable(Plan(conv.answers))
    can = _words(names_)
    if cmd.slot is None:
        out.error = (msg("dialogue.error.change_what", text=cmd.raw, names=can) if cmd.raw
                     else msg("dialogue.error.change_which", names=can))
    elif cmd.slot not in names_ and SLOTS[cmd.slot].applies(conv.answers):
        moot = "link" if cmd.slot == "interconnect" else "int4"
        out.error = msg(f"dialogue.error.change_moot_{moot}", names=can)
    elif cmd.slot not in names_:
        out.error = msg("dialogue.error.change_not_here", answer=SLOTS[cmd.slot].label,
                        workload=SLOTS["workload"].show(conv.answers.get("workload")),
                        names=can)
    elif cmd.value is None:
        out.changed = fire("change", turn, cmd.slot)
    else:  # 'change context to 32k': the question and its answer in one turn
        fire("change", turn, cmd.slot)
        _answer(cmd.value, turn, out)


def _answer(text: str, turn: Turn, out: Outcome) -> None:
    conv = turn.conv
    state, lang = conv.state, conv.language
    slot = SLOTS[state]
    try:
        if state == "model":
            _model(_choice_value(text, slot.choices(conv.answers)) or text, turn, out)
            return
        if state == "interconnect" and names.unsure(text):
            default = slot.default(conv.answers)
            assert default is not None  # the link always has one (engine.request's)
            conv.put(state, default.value, "assumed")
            out.notices.append(Notice(kind="assumed", text=msg(
                "dialogue.notice.assumed", answers=[pair(state, default.value)])))
        else:
            try:
                conv.put(state, slot.read(text, conv.answers, lang), "said")
            except ParseError:
                # a choice's label typed ('NVIDIA L40S (48 GB)'), or several answers at once
                value = _choice_value(text, slot.choices(conv.answers))
                if value is not None:
                    conv.put(state, slot.read(value, conv.answers, lang), "said")
                elif not _with_more(text, turn, out):
                    raise
    except ParseError as exc:
        _refuse(out, exc)
        return
    _moved(turn, out)


def _model(text: str, turn: Turn, out: Outcome) -> None:
    """The model question reads a sentence as an opening does: every answer it gives."""
    found = extract(text, turn.conv.language)
    if "model" not in found.answers:  # the specific refusal for the whole text
        found = Found(answers={"model": SLOTS["model"].read(text, {}, turn.conv.language)})
    _keep(turn.conv, found, out, "dialogue.notice.noted")
    _moved(turn, out)


def _with_more(text: str, turn: Turn, out: Outcome) -> bool:
    """'64 users, 32k context' typed at the concurrency question: the answer and the next
    ones, read as an opening is. Only when the question's own answer is among them, and
    never a new model or workload (those change which questions exist: 'change model')."""
    conv = turn.conv
    if not SLOTS[conv.state].numeric or not has_digit(text):  # the others are numbers
        return False
    found = extract(text, conv.language, find_model=False)
    found.answers.pop("model", None)
    found.answers.pop("workload", None)
    if conv.state not in found.answers:
        return False
    merged = {**conv.answers, **found.answers}
    if "context" in found.answers and not valid("context", merged):  # beyond this model
        return False
    # another question's answer fills it only if it is still open: replacing one is what
    # 'change <answer>' is for, and a stray '1k' must not overwrite a context given earlier
    found.answers = {s: v for s, v in found.answers.items()
                     if SLOTS[s].applies(merged) and (s == conv.state or s not in conv.answers)}
    _keep(conv, found, out, "dialogue.notice.noted")
    return True


def _moved(turn: Turn, out: Outcome) -> None:
    """An answer was read: move on (an engine refusal refuses the answer)."""
    try:
        _advance(turn, out)
    except EngineFailed as exc:
        out.error = msg("dialogue.error.engine_answer", why=exc.message)
        out.notices, out.changed = [], False
        return
    out.changed = True


def _advance(turn: Turn, out: Outcome) -> None:
    """Move to the first open question (asking the engine if a step decides it)."""
    plan = Plan(turn.conv.answers)
    target = plan.next_slot()
    was = turn.state
    fire("advance", turn, target)
    out.plan = plan
    out.finished = target == DONE and was != DONE


def _choice_value(text: str, choices: list[Choice]) -> str | None:
    """The value of the choice whose label was typed, in either language ('NVIDIA L40S
    (48 GB)' -> 'l40s', 'Pas d'objectif' -> 'no target'): a label read on screen and typed
    does what clicking it does."""
    want = fold(text)
    for c in choices:
        if want in _label_forms(c.label):
            return c.value
    return None


@lru_cache(maxsize=1024)
def _label_forms(label: Message) -> frozenset[str]:
    """A label as it reads in every language, folded (labels are few: cached)."""
    return frozenset(fold(catalog().render(label, lang)) for lang in LANGS)


def _back_target(turn: Turn) -> str | None:
    """The question to return to: the last one asked that still applies, else the previous
    answered one in tree order (so 'back' works after a pre-filled opening too).

    'Still applies' includes what the engine decides: after a change of model, the INT4
    question is not returned to if INT4 no longer changes the answer (it would claim the
    model does not fit), nor the link if the answer no longer crosses nodes. And 'back'
    goes back: never from a question to a later one in the tree."""
    answers = turn.conv.answers
    plan = Plan(answers)
    here = ORDER.index(turn.state) if turn.state in ORDER else len(ORDER)
    while turn.history:
        s = turn.history.pop()
        if s != turn.state and s in ORDER and ORDER.index(s) < here and plan.still_asked(s):
            return s
    earlier = [s for s in ORDER[:here] if s in answers and plan.still_asked(s)]
    return earlier[-1] if earlier else None
