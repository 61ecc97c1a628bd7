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
same way (every face gets what Slack gets).
"""

from __future__ import annotations

from datetime import date

from dialogue import answer as reading
from dialogue import readers
from dialogue.answer import Outcome, pair
from dialogue.conversation import AnswerValue, Conversation, SlotName
from dialogue.errors import ParseError
from dialogue.flow import EngineFailed, Plan
from dialogue.intent import asks, clicked, topic
from dialogue.keys import KEYS, for_batch
from dialogue.machine import CANCELLED, DONE, Turn, fire
from dialogue.reply import Notice
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
from dialogue.understand import commands, config, language, negation
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
    out = Outcome(work, changed=True)
    if config.looks_like(opening):
        return _pasted_model(work, opening, out)
    opening = tidy(opening) or opening
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
        found = extract(opening, work.language, today=today)
        reading.keep(work, found, out, "dialogue.notice.understood")
        reading.assume_rest(work, out, found.refused)
        if found.refusals:  # a minus sign, a batch without its deadline: said, the rest kept
            reading.refuse(out, found.refusals[0])
        elif (found.hint is not None and "model" not in found.answers
              and "model" not in work.proposals and out.fetch is None):
            reading.refuse(out, found.hint)
        if found.leftovers:
            out.notices.append(Notice(kind="ignored", text=msg("dialogue.notice.ignored",
                                                                words=found.leftovers)))
    _settle(Turn(work), out)
    return out


def _pasted_model(work: Conversation, text: str, out: Outcome) -> Outcome:
    """An opening that is a config.json (a Slack file, a pasted snippet): the model."""
    try:
        answers = SLOTS["model"].read(text, {}, work.language, None)
    except ParseError as exc:
        reading.refuse(out, exc)
    else:
        reading.put(work, "model", answers, "said")
        stored = answers.get("model_config")
        if isinstance(stored, str):
            out.notices.append(Notice(kind="understood", text=reading.described(stored,
                                                                                 answers)))
    _settle(Turn(work), out)
    return out


def _settle(turn: Turn, out: Outcome) -> None:
    """The opening's first question (the engine refusing the answers: the model again)."""
    work = turn.conv
    try:
        _advance(turn, out)
    except EngineFailed as exc:  # keep the answers, ask for the model again
        out.error = msg("dialogue.error.engine", why=exc.message)
        work.state = "model"
    work.history.clear()  # nothing was shown yet: 'back' follows the tree from here


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
    out = Outcome(work)
    if not clicked(work, text) and not config.looks_like(text):
        text = tidy(text) or text  # a button's value is read as it is; markup alone, as typed
    cmd = command(text)
    if cmd is not None and cmd.kind == "language" and cmd.language is not None:
        changed = work.language != cmd.language or work.language_source != "chosen"
        work.language, work.language_source = cmd.language, "chosen"
        if cmd.value:  # 'in French: 64 users': the rest is an answer, in the new language
            rest = take(work, cmd.value, today)
            rest.changed = rest.error is None  # a refusal is said in it, and saves nothing
            return rest
        out.changed = changed
        out.notices.append(Notice(kind="info", text=msg("dialogue.notice.language")))
        return out
    pasted = config.looks_like(text)
    if pasted and work.state != "model" and cmd is None:
        cmd = Command("change", "model", raw="model", value=text)  # a config.json: the model
    # a button's value is English whatever the language: only typed words say one
    detected = not clicked(work, text) and not pasted and _detect(work, text)
    turn = Turn(work)
    if work.state == CANCELLED and (cmd is None or cmd.kind != "restart"):
        out.error = msg("dialogue.error.cancelled")
    elif cmd is not None:
        _navigate(cmd, turn, out, today)
    elif len(text) > (config.MAX_CONFIG_CHARS if pasted else MAX_ANSWER_CHARS):
        out.error = msg("dialogue.error.too_long", n=len(text))
    elif work.state == DONE:
        _at_result(text, turn, out, today)
    else:
        _at_question(text, turn, out, today)
    if out.error is not None and not out.changed:
        # refused: the conversation as it was (only the language of the reply may follow)
        kept = conv.fork()
        kept.language, kept.language_source = work.language, work.language_source
        out.conv, out.plan = kept, None
    elif detected:  # 'aide': help, and from now on in French
        out.changed = True
    return out


def _at_result(text: str, turn: Turn, out: Outcome, today: date | None) -> None:
    """After the card, answers typed without 'change' ('in fact 40 users', 'what about 32k
    and 128 users?', 'et sur H100 ?') change those answers, as 'change' would, and the card
    follows; a question of no answer ('why 2 nodes?') is the result's help. A new model or
    workload is read as its 'change' ('and for llama 3.1 8b?'): the questions it brings are
    asked."""
    conv = turn.conv
    if negation.asks_math(text) or negation.asks_why(text):
        _explain(turn, out, math=negation.asks_math(text))
        return
    found = Found() if negation.asks_about(text) else extract(
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
        _change(Command("change", first, raw=first, value=text), turn, out, today)
    elif unsure is not None:  # 'what about 30 tok/s?': per user or in total, asked there
        fire("change", turn, unsure)
        reading.propose(conv, found.unsure[unsure])
        _stay(turn, out)
    elif found.refusals:  # 'what about 500000 users?': said why, nothing changes
        reading.refuse(out, found.refusals[0])
    elif slots and all(s in can for s in slots):
        for slot in slots:
            fire("change", turn, slot)
            reading.put(conv, slot, _completed(slot, text, {
                k: v for k, v in said.items() if KEYS[k].slot == slot}, conv, today), "said")
        out.notices.append(Notice(kind="understood", text=msg("dialogue.notice.changed",
                                                              answers=[pair(k, v) for k, v in
                                                                       said.items()
                                                                       if KEYS[k].shown])))
        _moved(turn, out)
    elif negation.is_question(text):  # 'why 2 nodes?': the help of the result
        out.notices.append(Notice(kind="info", text=msg(
            "dialogue.help.done", names=_words(can))))
    else:
        out.error = msg("dialogue.error.done")


def _explain(turn: Turn, out: Outcome, *, math: bool) -> None:
    """'why 2 nodes?': the step that decided the card, with its question, its answer and the
    numbers behind it (the engine's own evidence); 'show the math': the card's math. Nothing
    changes."""
    try:
        rec = _plan(turn.conv).recommendation()
    except EngineFailed as exc:
        out.error = msg("dialogue.error.engine", why=exc.message)
        return
    if math:
        out.notices.append(Notice(kind="info", text=msg("dialogue.notice.math")))
        out.notices.extend(Notice(kind="info", text=m) for m in rec.math)
        return
    closing = next((q for q in rec.questions if q.step == rec.step), rec.questions[-1])
    out.notices.append(Notice(kind="info", text=msg(
        "dialogue.notice.why", step=closing.step, question=closing.question,
        answer=msg(f"answer.{closing.answer.replace(' ', '_')}"), because=closing.because)))


def _completed(slot: SlotName, text: str, said: dict[str, AnswerValue], conv: Conversation,
               today: date | None) -> dict[str, AnswerValue]:
    """A new value for one part of an answer keeps the parts that still apply: '2 epochs'
    keeps the examples and their length, '20M documents' the batch's deadline and document
    length. The question's own reader completes it from what was kept, as it does at the
    question; when it reads something else, what the sentence said stands alone."""
    try:
        got = SLOTS[slot].read(text, conv.answers, conv.language, today)
    except ParseError:
        return said
    return dict(got) if all(got.get(k) == v for k, v in said.items()) else said


def _at_question(text: str, turn: Turn, out: Outcome, today: date | None) -> None:
    conv = turn.conv
    option = reading.option_for(conv, text)
    if option is not None:
        if reading.choose(option, turn, out):
            _moved(turn, out)
        else:
            _stay(turn, out)
    elif asks(text, conv.state) and not clicked(conv, text):
        _help(turn, out, topic(text) or conv.state)
    elif not text.strip():
        _empty(turn, out)
    elif reading.read(text, turn, out, today):
        _moved(turn, out)
    elif out.changed:
        _stay(turn, out)


def _empty(turn: Turn, out: Outcome) -> None:
    """An empty answer takes the question's shown default (and says so), or is refused."""
    slot = SLOTS[question(turn.state)]
    was_assumed = assumed(turn.conv, slot.name)
    default = current_default(turn.conv)
    if default is None or turn.state in turn.conv.proposals:
        out.error = msg("dialogue.error.empty")
        return
    reading.put(turn.conv, slot.name, dict(default.answers),
                "confirmed" if was_assumed else "default")
    pairs = [pair(k, v) for k, v in default.answers.items()]
    out.notices.append(Notice(kind="understood", text=msg("dialogue.notice.confirmed",
                                                          answers=pairs))
                       if was_assumed else Notice(kind="assumed", text=msg(
                           "dialogue.notice.default_taken", answer=pairs[0])))
    _moved(turn, out)


def _help(turn: Turn, out: Outcome, slot_name: str) -> None:
    fire("help", turn)
    if is_question(slot_name):
        slot = SLOTS[slot_name]
        out.notices.append(Notice(kind="info", text=msg("dialogue.help.question",
                                                        help=slot.help)))
    else:
        out.notices.append(Notice(kind="info", text=msg(
            "dialogue.help.done", names=_words(changeable(_plan(turn.conv))))))


def _plan(conv: Conversation) -> Plan:
    return Plan.of(conv)


def _navigate(cmd: Command, turn: Turn, out: Outcome, today: date | None) -> None:
    if cmd.kind == "help":
        _help(turn, out, turn.conv.state)
    elif cmd.kind == "cancel":
        out.changed = fire("cancel", turn)
    elif cmd.kind == "restart":
        turn.conv.proposals.clear()
        out.changed = fire("restart", turn)
    elif cmd.kind == "back":
        target = _back_target(turn)
        if target is None:
            out.error = msg("dialogue.error.first_question")
        else:
            out.changed = fire("back", turn, target)
    else:
        _change(cmd, turn, out, today)


def _words(slots: list[SlotName]) -> list[Message]:
    return [msg(f"dialogue.slot.{s}.word") for s in slots]


def _change(cmd: Command, turn: Turn, out: Outcome, today: date | None) -> None:
    conv = turn.conv
    names_ = changeable(_plan(conv))
    can = _words(names_)
    instead = SLOTS[cmd.slot].instead(conv.answers) if cmd.slot is not None else None
    if instead is not None:  # a batch job's deadline: its load
        cmd = Command("change", instead, raw=cmd.raw, value=cmd.value)
    moot = SLOTS[cmd.slot].moot if cmd.slot is not None else None
    if cmd.slot is None:
        out.error = (msg("dialogue.error.change_what", text=cmd.raw, names=can) if cmd.raw
                     else msg("dialogue.error.change_which", names=can))
    elif cmd.slot not in names_ and moot is not None and SLOTS[cmd.slot].applies(conv.answers):
        out.error = msg(moot, names=can)
    elif cmd.slot not in names_:
        out.error = msg("dialogue.error.change_not_here", answer=SLOTS[cmd.slot].label,
                        workload=SLOTS["workload"].show(conv.answers), names=can)
    elif cmd.value is None:
        out.changed = fire("change", turn, cmd.slot)
    else:  # 'change context to 32k': the question and its answer in one turn
        fire("change", turn, cmd.slot)
        if reading.read(cmd.value, turn, out, today):
            now = [pair(k, turn.conv.answers[k]) for k in SLOTS[cmd.slot].keys
                   if k in turn.conv.answers and KEYS[k].shown]
            if now:  # said, as the question the flow returns to would not say it
                out.notices.append(Notice(kind="understood", text=msg(
                    "dialogue.notice.changed", answers=now)))
            _moved(turn, out)
        elif out.changed:
            _stay(turn, out)


def _moved(turn: Turn, out: Outcome) -> None:
    """An answer was read: move on (an engine refusal refuses the answer)."""
    try:
        _advance(turn, out)
    except EngineFailed as exc:
        out.error = msg("dialogue.error.engine_answer", why=exc.message)
        out.notices, out.changed = [], False
        return
    out.changed = True


def _stay(turn: Turn, out: Outcome) -> None:
    """A proposal was stored (or an answer to another question noted): the same question."""
    out.plan = _plan(turn.conv)
    out.changed = True


def _advance(turn: Turn, out: Outcome) -> None:
    """Move to the first open question, or to the result (the machine's ``advance``, which
    asks the engine before the card: a request it refuses is refused here, where the turn
    says why and keeps the conversation as it was)."""
    plan = _plan(turn.conv)
    was = turn.state
    fire("advance", turn, plan=plan)
    out.plan = plan
    out.finished = turn.state == DONE and was != DONE


def fetched(before: Conversation, out: Outcome, config_text: str | None,
            failure: Message | None, *, opening: bool) -> Outcome:
    """The Hub's answer for ``out.fetch``: the config.json read as the model (said), or the
    failure said with the two other ways to describe the model. An opening keeps what it
    gave; an answer refused keeps the conversation as it was."""
    repo = out.fetch or ""
    work = out.conv
    out.fetch = None
    turn = Turn(work)
    if config_text is not None:
        try:
            cfg = config.read(config_text)
        except ParseError as exc:
            failure = msg("dialogue.error.hub_config", repo=repo, why=exc.message)
        else:
            answers = {"model": f"config:{repo}", "model_config": config.dumps(cfg)}
            reading.put(work, "model", dict(answers), "said")
            out.notices.append(Notice(kind="understood", text=msg(
                "dialogue.notice.fetched", repo=repo)))
            out.notices.append(Notice(kind="understood", text=reading.described(
                answers["model_config"], answers)))
            reading.assume_rest(work, out)
            _moved(turn, out) if not opening else _settle(turn, out)
            return out
    out.error = failure or msg("dialogue.error.hub_offline", repo=repo)
    if opening:
        work.state = "model"
        return out
    kept = before.fork()
    kept.language, kept.language_source = work.language, work.language_source
    return Outcome(kept, error=out.error)


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
