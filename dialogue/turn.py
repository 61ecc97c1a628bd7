"""One turn, pure: a conversation and a text in, the conversation after it and what to say.

No store, no clock, no network: :func:`take` (an answer, a click, a command) and
:func:`begin` (the opening sentence of a new sizing) work on a copy and return an
:class:`Outcome`; ``today`` (for "by Friday") is passed in. A refused text returns the
conversation as it was (``changed`` is False, ``error`` says why): nothing moves, nothing is
lost. A text that names a Hugging Face model the catalog lacks returns ``fetch``; the service
fetches its config.json and calls :func:`fetched`. The service (``dialogue/service.py``)
saves what changed.

What a text means is ``dialogue/answer.py``'s: this module routes it. A command first
(navigation, a language), then a pending proposal's option (a click on a candidate:
*confirmed*), then a question about the question (help, nothing changes), an empty answer
(the shown default), and an answer. The opening and the model question read a sentence the
same way (every face gets what Slack gets). Each route returns the
:class:`~dialogue.outcome.Step` it took (what to tell, whether it answered or changed
anything); :meth:`Outcome.of` makes the turn's one outcome of their sum, where it returns.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date

from dialogue import answer as reading
from dialogue import readers
from dialogue.answer import pair
from dialogue.conversation import AnswerValue, Conversation, SlotName
from dialogue.errors import ParseError
from dialogue.flow import EngineFailed, Plan
from dialogue.intent import asks, clicked, topic
from dialogue.keys import KEYS, for_batch
from dialogue.machine import CANCELLED, DONE, Turn, fire
from dialogue.outcome import Outcome, Step, tell
from dialogue.readings import Reading
from dialogue.reply import CardAction, Notice
from dialogue.slots import (
    ALIASES,
    ORDER,
    SLOTS,
    assumed,
    current_default,
    is_question,
    is_training,
    question,
    serving,
    valid,
)
from dialogue.understand import actions, commands, config, language, negation
from dialogue.understand.commands import Command
from dialogue.understand.opening import Found, extract
from dialogue.understand.tidy import tidy
from engine.wording import Message, msg

__all__ = ["MAX_ANSWER_CHARS", "MAX_OPENING_CHARS", "Outcome", "begin", "changeable",
           "command", "fetched", "pair", "take"]

MAX_ANSWER_CHARS = 500  # no answer is longer; a pasted page is refused, not searched
MAX_OPENING_CHARS = 1000  # an opening may describe the project; only its start is read


def command(text: str) -> Command | None:
    """The navigation command ``text`` is (back, help, change, restart, cancel, language)."""
    return commands.read(text, ALIASES)


def changeable(plan: Plan) -> list[SlotName]:
    """The slots a 'change' may reopen: those the flow would still ask for these answers."""
    return [n for n in ORDER if plan.still_asked(n)]


# -- the opening ---------------------------------------------------------------------------------


def begin(conv: Conversation, opening: str, today: date | None = None) -> Outcome:
    """A new conversation's first turn: its language, the answers the opening gives."""
    work = conv.fork()
    step = Step(changed=True)
    if config.looks_like(opening):
        return Outcome.of(work, step + _pasted_model(work, opening))
    opening = tidy(opening) or opening
    if len(opening) > MAX_OPENING_CHARS:
        opening = opening[:MAX_OPENING_CHARS]
        step += tell(Notice(kind="warning", text=msg("dialogue.notice.long_opening",
                                                     n=MAX_OPENING_CHARS)))
    asked = language.chosen(opening)
    if asked is not None:
        work.language, work.language_source = asked[0], "chosen"
        opening = asked[1]
    else:
        _detect(work, opening)
    if opening.strip():
        found = extract(opening, work.language, today=today)
        step += reading.keep(work, found, "dialogue.notice.understood")
        step += reading.assume_rest(work, found.refused)
        if found.refusals:  # a minus sign, a batch without its deadline: said, the rest kept
            step += reading.refuse(found.refusals[0])
        elif (found.hint is not None and "model" not in found.answers
              and "model" not in work.proposals and step.fetch is None):
            step += reading.refuse(found.hint)
        if found.leftovers:
            step += tell(Notice(kind="ignored", text=msg("dialogue.notice.ignored",
                                                         words=found.leftovers)))
    return Outcome.of(work, step + _settle(Turn(work)))


def _pasted_model(work: Conversation, text: str) -> Step:
    """An opening that is a config.json (a Slack file, a pasted snippet): the model."""
    got = SLOTS["model"].read(text, {}, work.language, None)
    step = reading.taken(work, "model", got)
    if isinstance(got, Reading) and isinstance(stored := got.answers.get("model_config"), str):
        step += tell(Notice(kind="understood", text=reading.described(stored, got.answers)))
    return step + _settle(Turn(work))


def _settle(turn: Turn) -> Step:
    """The opening's first question (the engine refusing the answers: the model again)."""
    work = turn.conv
    try:
        step = _advance(turn)
    except EngineFailed as exc:  # keep the answers, ask for the model again
        step = Step(error=msg("dialogue.error.engine", why=exc.message))
        work.state = "model"
    work.history.clear()  # nothing was shown yet: 'back' follows the tree from here
    return step


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


# -- a turn ----------------------------------------------------------------------------------


def take(conv: Conversation, text: str, today: date | None = None) -> Outcome:
    """Apply a typed answer, a button value (the same path) or a command to a copy."""
    work = conv.fork()
    if not clicked(work, text) and not config.looks_like(text):
        text = tidy(text) or text  # a button's value is read as it is; markup alone, as typed
    cmd = command(text)
    if cmd is not None and cmd.kind == "language" and cmd.language is not None:
        changed = work.language != cmd.language or work.language_source != "chosen"
        work.language, work.language_source = cmd.language, "chosen"
        if cmd.value:  # 'in French: 64 users': the rest is an answer, in the new language
            rest = take(work, cmd.value, today)
            return replace(rest, changed=rest.error is None)  # a refusal is said in it, and
            # saves nothing
        return Outcome.of(work, Step(changed=changed, notices=(
            Notice(kind="info", text=msg("dialogue.notice.language")),)))
    pasted = config.looks_like(text)
    if pasted and work.state != "model" and cmd is None:
        cmd = Command("change", "model", raw="model", value=text)  # a config.json: the model
    # a button's value is English whatever the language: only typed words say one
    detected = not clicked(work, text) and not pasted and _detect(work, text)
    turn = Turn(work)
    if work.state == CANCELLED and (cmd is None or cmd.kind != "restart"):
        step = Step(error=msg("dialogue.error.cancelled"))
    elif cmd is not None:
        step = _navigate(cmd, turn, today)
    elif len(text) > (config.MAX_CONFIG_CHARS if pasted else MAX_ANSWER_CHARS):
        step = Step(error=msg("dialogue.error.too_long", n=len(text)))
    elif work.state == DONE:
        step = _at_result(text, turn, today)
    else:
        step = _at_question(text, turn, today)
    if step.error is not None and not step.changed:
        # refused: the conversation as it was (only the language of the reply may follow)
        kept = conv.fork()
        kept.language, kept.language_source = work.language, work.language_source
        return Outcome.of(kept, replace(step, plan=None))
    if detected:  # 'aide': help, and from now on in French
        step = replace(step, changed=True)
    return Outcome.of(work, step)


def _at_result(text: str, turn: Turn, today: date | None) -> Step:
    """After the card, answers typed without 'change' ('in fact 40 users', 'what about 32k
    and 128 users?', 'et sur H100 ?') change those answers, as 'change' would, and the card
    follows; a question of no answer ('why 2 nodes?') is the result's help. A new model or
    workload is read as its 'change' ('and for llama 3.1 8b?'): the questions it brings are
    asked."""
    conv = turn.conv
    action = actions.card_action(text)
    if action == "math" or (action is None and negation.asks_why(text)):
        return _explain(turn, math=action == "math")
    found = Found() if negation.asks_about(text) or action is not None else extract(
        text, conv.language, today=today, training=is_training(conv.answers))
    said = {k: v for k, v in found.answers.items() if k not in found.inferred}
    if not said and not found.unsure and not found.refusals:  # 'what if half are online?'
        said = dict(readers.share_of_people(text, conv.answers) or {})
    if "documents" in conv.answers and serving(conv.answers):  # 'what if it's by tomorrow'
        said = for_batch(said)
    can = changeable(_plan(conv))
    slots = list(dict.fromkeys(KEYS[k].slot for k in said))
    first = next((s for s in ORDER if SLOTS[s].shapes and (s in slots or s in found.unsure)),
                 None)
    unsure = next((s for s in found.unsure if s in can), None)
    if first is not None:  # 'and for llama 3.1 8b?': asked as its 'change'
        return _change(Command("change", first, raw=first, value=text), turn, today)
    if unsure is not None:  # 'what about 30 tok/s?': per user or in total, asked there
        fire("change", turn, unsure)
        return reading.propose(conv, unsure, found.unsure[unsure]) + _stay(turn)
    if found.refusals:  # 'what about 500000 users?': said why, nothing changes
        return reading.refuse(found.refusals[0])
    if slots and all(s in can for s in slots):
        for slot in slots:
            fire("change", turn, slot)
            got = _completed(slot, text, {k: v for k, v in said.items()
                                          if KEYS[k].slot == slot}, conv, today)
            reading.put(conv, slot, got.answers, "said", got.inferred)
        return _moved(turn, tell(Notice(kind="understood", text=msg(
            "dialogue.notice.changed", answers=[pair(k, v) for k, v in said.items()
                                                if KEYS[k].shown]))))
    if slots:  # 'what about 4-bit?' on a card 4-bit would not change: said why, nothing moves
        stuck = next(s for s in slots if s not in can)
        return _change(Command("change", stuck, raw=stuck), turn, today)
    if action is not None:
        return _act(action, turn, today)
    if negation.is_question(text):  # 'why 2 nodes?': the help of the result
        return tell(Notice(kind="info", text=msg("dialogue.help.done", names=_words(can))))
    return Step(error=msg("dialogue.error.done"))


def _act(action: CardAction, turn: Turn, today: date | None) -> Step:
    """A card action typed: another GPU to compare opens the GPU question (its choices
    are the GPUs to compare with); 'change an answer' says which may change; the charts,
    the quote form and the brief are the face's to make (nothing in the sizing changes)."""
    if action == "compare":
        gpu = next(s for s in SLOTS.values() if s.offered)
        return _change(Command("change", gpu.name, raw=gpu.name), turn, today)
    if action == "change":
        return tell(Notice(kind="info", text=msg(
            "dialogue.help.done", names=_words(changeable(_plan(turn.conv))))))
    return Step(action=action)


def _explain(turn: Turn, *, math: bool) -> Step:
    """'why 2 nodes?': the step that decided the card, with its question, its answer and the
    numbers behind it (the engine's own evidence); 'show the math': the card's math. Nothing
    changes."""
    try:
        rec = _plan(turn.conv).recommendation()
    except EngineFailed as exc:
        return Step(error=msg("dialogue.error.engine", why=exc.message))
    if math:
        return tell(Notice(kind="info", text=msg("dialogue.notice.math")),
                    *(Notice(kind="info", text=m) for m in rec.math))
    closing = next((q for q in rec.questions if q.step == rec.step), rec.questions[-1])
    return tell(Notice(kind="info", text=msg(
        "dialogue.notice.why", step=closing.step, question=closing.question,
        answer=msg(f"answer.{closing.answer.replace(' ', '_')}"), because=closing.because)))


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


def _at_question(text: str, turn: Turn, today: date | None) -> Step:
    conv = turn.conv
    option = reading.option_for(conv, text)
    if option is not None:
        return _then(turn, reading.choose(option, turn))
    if asks(text, conv.state) and not clicked(conv, text):
        return _help(turn, topic(text) or conv.state)
    if not text.strip():
        return _empty(turn)
    return _then(turn, reading.read(text, turn, today))


def _then(turn: Turn, step: Step) -> Step:
    """After an answer's step: on to the next question when it answered this one; the same
    question, saved, when it changed the conversation without answering (a proposal)."""
    if step.answered:
        return _moved(turn, step)
    return step + _stay(turn) if step.changed else step


def _empty(turn: Turn) -> Step:
    """An empty answer takes the question's shown default (and says so), or is refused."""
    slot = SLOTS[question(turn.state)]
    was_assumed = assumed(turn.conv, slot.name)
    default = current_default(turn.conv)
    if default is None or turn.state in turn.conv.proposals:
        return Step(error=msg("dialogue.error.empty"))
    reading.put(turn.conv, slot.name, dict(default.answers),
                "confirmed" if was_assumed else "default")
    pairs = [pair(k, v) for k, v in default.answers.items()]
    return _moved(turn, tell(Notice(kind="understood", text=msg("dialogue.notice.confirmed",
                                                                answers=pairs))
                             if was_assumed else Notice(kind="assumed", text=msg(
                                 "dialogue.notice.default_taken", answer=pairs[0]))))


def _help(turn: Turn, slot_name: str) -> Step:
    fire("help", turn)
    if is_question(slot_name):
        return tell(Notice(kind="info", text=msg("dialogue.help.question",
                                                 help=SLOTS[slot_name].help)))
    return tell(Notice(kind="info", text=msg(
        "dialogue.help.done", names=_words(changeable(_plan(turn.conv))))))


def _plan(conv: Conversation) -> Plan:
    return Plan.of(conv)


def _navigate(cmd: Command, turn: Turn, today: date | None) -> Step:
    if cmd.kind == "help":
        return _help(turn, turn.conv.state)
    if cmd.kind == "cancel":
        return Step(changed=fire("cancel", turn))
    if cmd.kind == "restart":
        turn.conv.proposals.clear()
        return Step(changed=fire("restart", turn))
    if cmd.kind == "back":
        target = _back_target(turn)
        if target is None:
            return Step(error=msg("dialogue.error.first_question"))
        return Step(changed=fire("back", turn, target))
    return _change(cmd, turn, today)


def _words(slots: list[SlotName]) -> list[Message]:
    return [msg(f"dialogue.slot.{s}.word") for s in slots]


def _change(cmd: Command, turn: Turn, today: date | None) -> Step:
    conv = turn.conv
    names_ = changeable(_plan(conv))
    can = _words(names_)
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
    return _then(turn, step)


def _moved(turn: Turn, step: Step) -> Step:
    """An answer was read: move on (an engine refusal refuses the answer, and what was said
    of it)."""
    try:
        moved = _advance(turn)
    except EngineFailed as exc:
        return replace(step, error=msg("dialogue.error.engine_answer", why=exc.message),
                       notices=(), changed=False)
    return step + moved


def _stay(turn: Turn) -> Step:
    """A proposal was stored (or an answer to another question noted): the same question."""
    return Step(plan=_plan(turn.conv), changed=True)


def _advance(turn: Turn) -> Step:
    """Move to the first open question, or to the result (the machine's ``advance``, which
    asks the engine before the card): a change to save, with the plan it follows. A request
    the engine refuses is refused here, where the turn says why and keeps the conversation
    as it was."""
    plan = _plan(turn.conv)
    was = turn.state
    fire("advance", turn, plan=plan)
    return Step(changed=True, plan=plan, finished=turn.state == DONE and was != DONE)


def fetched(before: Conversation, out: Outcome, config_text: str | None,
            failure: Message | None, *, opening: bool) -> Outcome:
    """The Hub's answer for ``out.fetch``: the config.json read as the model (said), or the
    failure said with the two other ways to describe the model. An opening keeps what it
    gave; an answer refused keeps the conversation as it was."""
    repo = out.fetch or ""
    work = out.conv
    step = replace(out.step, fetch=None)
    turn = Turn(work)
    if config_text is not None:
        try:
            cfg = config.read(config_text)
        except ParseError as exc:
            failure = msg("dialogue.error.hub_config", repo=repo, why=exc.message)
        else:
            answers = {"model": f"config:{repo}", "model_config": config.dumps(cfg)}
            reading.put(work, "model", answers, "said")
            step += tell(Notice(kind="understood", text=msg("dialogue.notice.fetched",
                                                            repo=repo)),
                         Notice(kind="understood", text=reading.described(
                             answers["model_config"], answers)))
            step += reading.assume_rest(work)
            return Outcome.of(work, _moved(turn, step) if not opening
                              else step + _settle(turn))
    error = failure or msg("dialogue.error.hub_offline", repo=repo)
    if opening:
        work.state = "model"
        return Outcome.of(work, step + Step(error=error))
    kept = before.fork()
    kept.language, kept.language_source = work.language, work.language_source
    return Outcome(kept, error=error)


def _back_target(turn: Turn) -> SlotName | None:
    """The question to return to: the last one asked that still applies, else the previous
    answered one in tree order (so 'back' works after a pre-filled opening too).

    'Still applies' includes what the engine decides: after a change of model, the INT4
    question is not returned to if INT4 no longer changes the answer (it would claim the
    model does not fit), nor the link if the answer no longer crosses nodes. And 'back'
    goes back: never from a question to a later one in the tree."""
    answers = turn.conv.answers
    plan = _plan(turn.conv)
    here = ORDER.index(turn.state) if turn.state in ORDER else len(ORDER)
    while turn.history:
        s = turn.history.pop()
        if s != turn.state and s in ORDER and ORDER.index(s) < here and plan.still_asked(s):
            return s
    earlier = [s for s in ORDER[:here] if valid(s, answers) and plan.still_asked(s)]
    return earlier[-1] if earlier else None
