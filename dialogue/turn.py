"""One turn, pure: a conversation and a text in, the conversation after it and what to say.

No store, no clock, no network: :func:`take` (an answer, a click, a command) and
:func:`begin` (the opening sentence of a new sizing) work on a copy and return an
:class:`Outcome`; ``today`` (for "by Friday") is passed in. A refused text returns the
conversation as it was (``changed`` is False, ``error`` says why): nothing moves, nothing is
lost. A text that names a Hugging Face model the catalog lacks returns ``fetch``; the service
fetches its config.json and calls :func:`fetched`. The service (``dialogue/service.py``)
saves what changed.

What a text means is ``dialogue/answer.py``'s: this module routes it. A command first
(a language, or a move: ``dialogue/navigation.py``), then, after the card, a follow-up
(``dialogue/after.py``); at a question, a pending proposal's option (a click on a
candidate: *confirmed*), then a question about the question (help, nothing changes), an
empty answer (the shown default), and an answer. The opening and the model question read a
sentence the same way (every face gets what Slack gets). Each route returns the
:class:`~dialogue.outcome.Step` it took (what to tell, whether it answered or changed
anything); :meth:`Outcome.of` makes the turn's one outcome of their sum, where it returns.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date

from dialogue import answer as reading
from dialogue.after import asks_why, at_result, why_asked
from dialogue.conversation import Conversation
from dialogue.errors import ParseError
from dialogue.flow import EngineFailed
from dialogue.intent import asks, clicked, topic
from dialogue.keys import pair
from dialogue.machine import CANCELLED, DONE, Turn
from dialogue.navigation import advance, help_of, moved, navigate, then
from dialogue.outcome import Outcome, Step, tell
from dialogue.readings import Reading
from dialogue.reply import Notice
from dialogue.slots import (
    ALIASES,
    SLOTS,
    assumed,
    current_default,
    question,
)
from dialogue.understand import commands, config, language, negation
from dialogue.understand.commands import Command
from dialogue.understand.opening import extract
from dialogue.understand.tidy import as_typed, tidy
from engine.wording import Message, msg

__all__ = ["MAX_ANSWER_CHARS", "MAX_OPENING_CHARS", "Outcome", "begin",
           "command", "fetched", "pair", "take"]

MAX_ANSWER_CHARS = 500  # no answer is longer; a pasted page is refused, not searched
MAX_OPENING_CHARS = 1000  # an opening may describe the project; only its start is read


def command(text: str) -> Command | None:
    """The navigation command ``text`` is (back, help, change, restart, cancel, language)."""
    return commands.read(text, ALIASES)


# -- the opening ---------------------------------------------------------------------------------


def begin(conv: Conversation, opening: str, today: date | None = None) -> Outcome:
    """A new conversation's first turn: its language, the answers the opening gives."""
    work = conv.fork()
    step = Step(changed=True)
    if config.looks_like(opening):
        return Outcome.of(work, step + _pasted_model(work, opening))
    typed = opening  # its language is the words as typed ('ctx' is no English word)
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
        _detect(work, typed)
    if opening.strip():
        found = extract(opening, work.language, today=today)
        step += reading.keep(work, found, "dialogue.notice.understood")
        step += reading.assume_rest(work, found.refused)
        if found.refusals:  # a minus sign, a batch without its deadline: said, the rest kept
            step += reading.refuse(found.refusals[0])
        elif (found.hint is not None and "model" not in found.answers
              and "model" not in work.proposals and step.fetch is None):
            step += reading.refuse(found.hint)
        unused = as_typed(found.leftovers, typed)
        if unused:
            step += tell(Notice(kind="ignored", text=msg("dialogue.notice.ignored",
                                                         words=unused)))
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
        step = advance(turn)
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
    typed = text  # its language is the words as typed ('ctx' is no English word)
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
    detected = not clicked(work, text) and not pasted and _detect(work, typed)
    turn = Turn(work)
    if work.state == CANCELLED and (cmd is None or cmd.kind != "restart"):
        step = Step(error=msg("dialogue.error.cancelled"))
    elif cmd is not None and not (work.state == DONE and cmd.kind == "help"
                                  and negation.asks_why(text)):  # 'why?': the card's reason
        step = _said_after_verb(cmd, turn, today) or navigate(cmd, turn, today)
    elif len(text) > (config.MAX_CONFIG_CHARS if pasted else MAX_ANSWER_CHARS):
        step = Step(error=msg("dialogue.error.too_long", n=len(text)))
    elif work.state == DONE:
        step = at_result(text, turn, today)
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


def _said_after_verb(cmd: Command, turn: Turn, today: date | None) -> Step | None:
    """After the card, 'update: the deadline is the end of the month', 'change: 40 users':
    a change verb before a sentence that names no answer is read as that sentence, when it
    says a change; otherwise (None) the verb asks which answer to change."""
    rest = cmd.raw.lstrip(":- ").strip()
    if turn.conv.state != DONE or cmd.kind != "change" or cmd.slot is not None or not rest:
        return None
    trial = Turn(turn.conv.fork())
    step = at_result(rest, trial, today)
    if step.error is not None or not step.changed:
        return None
    return at_result(rest, turn, today)


def _at_question(text: str, turn: Turn, today: date | None) -> Step:
    conv = turn.conv
    option = reading.option_for(conv, text)
    if option is not None:
        return then(turn, reading.choose(option, turn))
    if asks(text, conv.state) and not clicked(conv, text):
        why = why_asked(turn) if asks_why(text) else None
        return why or help_of(turn, topic(text) or conv.state)
    if not text.strip():
        return _empty(turn)
    yes = negation.polarity(text)
    if yes is not None:  # its reader first ('no, LoRA'); then a yes or a no to what is asked
        trial = Turn(conv.fork())
        step = reading.read(text, trial, today)
        if step.error is None or step.changed:
            return then(turn, reading.read(text, turn, today))
        answered = reading.yes_or_no(turn, yes)
        if answered is not None:
            return then(turn, answered)
        return step
    return then(turn, reading.read(text, turn, today))


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
    return moved(turn, tell(Notice(kind="understood", text=msg("dialogue.notice.confirmed",
                                                                answers=pairs))
                             if was_assumed else Notice(kind="assumed", text=msg(
                                 "dialogue.notice.default_taken", answer=pairs[0]))))


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
            return Outcome.of(work, moved(turn, step) if not opening
                              else step + _settle(turn))
    error = failure or msg("dialogue.error.hub_offline", repo=repo)
    if opening:
        work.state = "model"
        return Outcome.of(work, step + Step(error=error))
    kept = before.fork()
    kept.language, kept.language_source = work.language, work.language_source
    return Outcome(kept, error=error)


