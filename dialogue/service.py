"""One turn of the dialogue: load, apply, compare-and-set save, reply.

``Dialogue`` is what a face calls. It holds no conversation in memory (any worker may get
the next click): each call reads the conversation from the store, applies the text to a
copy through the shared machine, and writes it back only if the stored version is still
the one it read. The loser of a race gets ``Conflict`` and nothing it did is kept.

Answers that do not change anything (help, an invalid answer, a stale click) are not
written: the version stays, so the buttons on screen stay valid.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from dialogue import parse, render
from dialogue.commands import Command, command
from dialogue.conversation import SCHEMA_VERSION, AnswerValue, Conversation
from dialogue.errors import Duplicate, NotFinished, NotOwner
from dialogue.machine import CANCELLED, DONE, INITIAL, Turn, fire
from dialogue.opening import extract
from dialogue.reply import Choice, Reply
from dialogue.sizing import EngineFailed, Plan, int4_tradeoff, needs_link, step_notice
from dialogue.slots import (
    ORDER,
    QUESTIONS,
    SLOTS,
    in_sentence,
    labelled,
    max_context,
    relevant,
    show_model,
)
from dialogue.store import Store, Stored, Write
from engine.catalog import catalog
from engine.result import Recommendation

DEFAULT_TTL_SECONDS = 7 * 24 * 3600
MAX_ANSWER_CHARS = 500  # no answer is longer; a pasted page is refused, not searched
MAX_OPENING_CHARS = 1000  # an opening may describe the project; only its start is read


@dataclass
class _Outcome:
    """What applying one text did: whether to save, and what to tell the person."""

    changed: bool = False
    notices: list[str] = field(default_factory=list)
    error: str | None = None
    choices: list[Choice] | None = None
    plan: Plan | None = None
    finished: bool = False


class Dialogue:
    """The guided sizing conversation, over a ``Store``. Thread-safe; holds no conversation."""

    def __init__(
        self,
        store: Store,
        *,
        ttl_seconds: int = DEFAULT_TTL_SECONDS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.ttl_seconds = ttl_seconds
        self.clock = clock

    # -- public API ------------------------------------------------------------------------

    def start(
        self,
        key: str,
        opening: str = "",
        *,
        owner: str | None = None,
        delivery_id: str | None = None,
        meta: dict[str, str] | None = None,
    ) -> Reply:
        """A new sizing at ``key`` (replacing whatever was there), pre-filled from ``opening``."""
        stored = self.store.read(key, delivery_id)
        if stored is not None and stored.applied:
            raise Duplicate(delivery_id or "")
        old_version = stored.version if stored is not None else None
        now = self.clock()
        conv = Conversation(
            id=uuid.uuid4().hex[:12], key=key, state=INITIAL, owner=owner,
            meta=dict(meta or {}), version=(old_version or 0) + 1,
            created_at=now, updated_at=now, expires_at=now + self.ttl_seconds,
        )
        out = _Outcome(changed=True)
        if len(opening) > MAX_OPENING_CHARS:
            opening = opening[:MAX_OPENING_CHARS]
            out.notices.append(f"Your message is long: I read its first {MAX_OPENING_CHARS:,} "
                               "characters.")
        if opening.strip():
            found, leftovers, hint = extract(opening)
            if found:
                conv.answers.update(found)
                shown = "; ".join(f"{in_sentence(SLOTS[s].label)} {SLOTS[s].show(found[s])}"
                                  for s in ORDER if s in found)
                out.notices.append(f"From your message: {shown}.")
            if hint is not None and "model" not in found:
                out.error = hint.message
                out.choices = self._model_choices(hint.suggestions)
            elif leftovers:
                out.notices.append("I did not use: " + ", ".join(f"'{w}'" for w in leftovers) + ".")
        try:
            self._advance(Turn(conv.state, conv.answers, conv.history), conv, out)
        except EngineFailed as exc:
            # keep the pre-filled answers, but ask for the model again: the engine could not size it
            out.error = f"I could not size that: {exc}."
            conv.state = INITIAL
        conv.history.clear()  # nothing was shown yet: 'back' follows the tree from here
        self.store.write(key, Write(
            doc=conv.to_json(), version=conv.version, expected=old_version,
            ttl_seconds=self.ttl_seconds, replace=True, meta=conv.meta, delivery_id=delivery_id,
            **self._finish_records(conv, out, now),
        ))
        return self._render(conv, out, kind="question" if out.error else None)

    def handle(
        self,
        key: str,
        text: str,
        *,
        version: int | None = None,
        delivery_id: str | None = None,
        actor: str | None = None,
    ) -> Reply:
        """Apply a typed answer or a button value (the same path) to the sizing at ``key``."""
        stored = self.store.read(key, delivery_id)
        if stored is not None and stored.applied:
            raise Duplicate(delivery_id or "")
        conv = self._decode(stored)
        if conv is None:
            cmd = command(text)
            if cmd is not None and cmd.kind == "restart":
                return self.start(key, owner=actor)
            return render.missing(key, expired=stored is not None)
        if actor is not None and conv.owner is not None and actor != conv.owner:
            raise NotOwner(conv.owner, actor)
        cmd = command(text)
        timeless = cmd is not None and cmd.kind in ("restart", "cancel", "help")
        if version is not None and version != conv.version and not timeless:
            # an answer clicked on an old message; 'start over', 'cancel' and 'help' mean the
            # same whenever they are clicked, so they are not refused
            return self._render(conv, _Outcome(
                error="That question was already answered; here is where the sizing is now."))
        expected = conv.version
        out = self._apply(conv, text)
        now = self.clock()
        if out.changed:
            conv.version += 1
            conv.updated_at = now
            conv.expires_at = now + self.ttl_seconds
            self.store.write(key, Write(
                doc=conv.to_json(), version=conv.version, expected=expected,
                ttl_seconds=self.ttl_seconds, delivery_id=delivery_id,
                **self._finish_records(conv, out, now),
            ))
        return self._render(conv, out)

    def current(self, key: str) -> Reply | None:
        """The current question or result, re-rendered (None when there is no sizing)."""
        conv = self.load(key)
        return None if conv is None else self._render(conv, _Outcome())

    def load(self, key: str) -> Conversation | None:
        return self._decode(self.store.read(key))

    def update_meta(self, key: str, meta: dict[str, str]) -> None:
        """Attach face data (a Slack message ts) without changing the version."""
        self.store.set_meta(key, meta)

    def record_quote(self, key: str, requester: str, note: str = "") -> dict[str, Any]:
        """Append a quote request (inputs, numbers, requester) to the audit trail."""
        conv = self.load(key)
        if conv is None or conv.state != DONE:
            raise NotFinished(key, "missing" if conv is None else conv.state)
        rec = Plan(conv.answers).recommendation()
        record = self._record(conv, rec, self.clock())
        record.update(kind="quote", requester=requester, note=note)
        record["id"] = self.store.append_audit(record)
        return record

    def recent(self, owner: str, limit: int = 5) -> list[dict[str, Any]]:
        """The person's latest finished sizings, one per sizing, newest first.

        One per *conversation id*: a sizing whose result was recomputed ("change ...") is
        shown once, and successive sizings that share a key (a DM's) are each shown.
        """
        out: list[dict[str, Any]] = []
        seen: set[str] = set()
        for row in self.store.recent(owner, limit * 4):
            ident = str(row.get("conversation_id") or row.get("key"))
            if ident not in seen:
                seen.add(ident)
                out.append(row)
        return out[:limit]

    # -- one turn --------------------------------------------------------------------------

    def _apply(self, conv: Conversation, text: str) -> _Outcome:
        out = _Outcome()
        turn = Turn(conv.state, conv.answers, conv.history)
        cmd = command(text)
        if conv.state == CANCELLED and (cmd is None or cmd.kind != "restart"):
            out.error = "This sizing was cancelled. Say 'restart' to begin a new one."
            return out
        if cmd is not None:
            self._navigate(cmd, turn, conv, out)
        elif len(text) > MAX_ANSWER_CHARS:
            out.error = (f"That is {len(text):,} characters; an answer is a few words. "
                         "Type it again, shorter, or pick a choice.")
        elif not text.strip() and conv.state != DONE:
            out.error = "I got an empty answer. Type one, or pick a choice."
        elif conv.state == DONE:
            out.error = ("The sizing is done. Type 'change <answer>' (e.g. 'change context', or "
                         "'change gpu to H100') to recompute, or 'restart'.")
        else:
            self._answer(text, turn, conv, out)
        conv.state = turn.state
        return out

    def _navigate(self, cmd: Command, turn: Turn, conv: Conversation, out: _Outcome) -> None:
        if cmd.kind == "help":
            fire("help", turn)
            slot = SLOTS.get(conv.state)
            if slot is not None:
                out.notices.append(
                    slot.help + " Type 'back', 'change <answer>' (or 'change gpu to H100'), "
                    "'restart' or 'cancel' at any time.")
            else:
                out.notices.append(
                    "The sizing is done. Change an answer to recompute it: "
                    f"{', '.join(_changeable(turn.answers))} (e.g. 'change context' or 'change "
                    "gpu to H100'); 'back' returns to the last question; 'restart' starts over.")
        elif cmd.kind == "cancel":
            out.changed = fire("cancel", turn)
        elif cmd.kind == "restart":
            out.changed = fire("restart", turn)
        elif cmd.kind == "back":
            target = _back_target(turn)
            if target is None:
                out.error = "This is the first question; there is nothing to go back to."
            else:
                out.changed = fire("back", turn, target)
        else:  # change
            names = _changeable(turn.answers)
            if cmd.slot is None:
                out.error = (f"Change what? '{cmd.raw}' is not an answer I keep. "
                             f"I can change: {', '.join(names)}.") if cmd.raw else (
                             f"Change what? I can change: {', '.join(names)}.")
            elif cmd.slot not in names and relevant(cmd.slot, turn.answers):
                out.error = ("The answer does not cross nodes, so the network between them does "
                             "not matter." if cmd.slot == "interconnect" else
                             "INT4 does not change this sizing: FP8 weights are the answer.")
                out.error += f" I can change: {', '.join(names)}."
            elif cmd.slot not in names:
                work = SLOTS["workload"].show(turn.answers.get("workload"))
                out.error = (f"{SLOTS[cmd.slot].label} does not apply to {work}. "
                             f"I can change: {', '.join(names)}.")
            elif cmd.value is None:
                out.changed = fire("change", turn, cmd.slot)
            else:  # 'change context to 32k': the question and its answer in one turn
                saved = (turn.state, dict(turn.answers), list(turn.history))
                fire("change", turn, cmd.slot)
                self._answer(cmd.value, turn, conv, out)
                if out.error is not None:  # refused: nothing moves, the error says why
                    turn.state = saved[0]
                    turn.answers.clear()
                    turn.answers.update(saved[1])
                    turn.history[:] = saved[2]
                    out.choices = None

    def _answer(self, text: str, turn: Turn, conv: Conversation, out: _Outcome) -> None:
        state = turn.state
        before = dict(turn.answers)
        try:
            if state == "model":
                text = _choice_value(text, SLOTS[state].choices(turn.answers)) or text
                found, _, _ = extract(text)
                if "model" not in found:  # the specific "did you mean" for the whole text
                    found = {"model": parse.model(text)}
                turn.answers.update(found)
            else:
                try:
                    turn.answers[state] = SLOTS[state].read(text, turn.answers)
                except parse.ParseError:
                    # a choice's label typed ('NVIDIA L40S (48 GB)'), or several answers
                    value = _choice_value(text, SLOTS[state].choices(turn.answers))
                    if value is not None:
                        turn.answers[state] = SLOTS[state].read(value, turn.answers)
                        return self._after_answer(turn, conv, out, state, before)
                    more = _with_more(text, state, turn.answers)
                    if more is None:
                        raise
                    turn.answers.update(more)
                    out.notices.append("Noted: " + "; ".join(
                        f"{in_sentence(SLOTS[s].label)} {SLOTS[s].show(v)}" for s, v in more.items()
                    ) + ".")
        except parse.ParseError as exc:
            out.error = exc.message
            if exc.suggestions and state == "model":
                out.choices = self._model_choices(exc.suggestions)
            return
        self._after_answer(turn, conv, out, state, before)

    def _after_answer(self, turn: Turn, conv: Conversation, out: _Outcome, state: str,
                      before: dict[str, AnswerValue]) -> None:
        """An answer was read: move on, or undo it if the engine cannot size the result."""
        try:
            self._advance(turn, conv, out)
        except EngineFailed as exc:
            turn.answers.clear()
            turn.answers.update(before)
            turn.state = state
            out.error = f"I could not size that: {exc}. Try another answer."
            out.plan = None
            return
        out.changed = True

    def _advance(self, turn: Turn, conv: Conversation, out: _Outcome) -> None:
        """Move to the first open question (asking the engine if a step decides it)."""
        plan = Plan(turn.answers)
        target = plan.next_state()
        was = turn.state
        fire("advance", turn, target)
        conv.state = turn.state
        out.plan = plan
        if target == "int4":
            out.notices += [step_notice(q) for q in plan.recommendation(allow_int4=True).questions
                            if q.step == 1]
            out.notices.append(int4_tradeoff(plan))
        elif target == "interconnect":
            # only what holds whatever the link: the steps inside one node (1 and 2); the
            # steps across nodes are told with the result, on the link the person names
            out.notices += [step_notice(q) for q in plan.steps(upto=2)]
        elif target == DONE:
            out.notices += [step_notice(q) for q in plan.steps()]
        out.finished = target == DONE and was != DONE

    # -- helpers ---------------------------------------------------------------------------

    def _render(self, conv: Conversation, out: _Outcome, kind: str | None = None) -> Reply:
        if conv.state == CANCELLED:
            return render.cancelled(conv, error=out.error)
        if conv.state == DONE:
            plan = out.plan or Plan(conv.answers)
            try:
                rec = plan.recommendation()
            except EngineFailed as exc:
                return _engine_error(conv, str(exc))
            return render.result(conv, rec, notices=out.notices, error=out.error,
                                 changeable=_changeable(conv.answers))
        reply = render.question(conv, notices=out.notices, error=out.error, choices=out.choices)
        if kind is not None and reply.kind != kind:
            reply = reply.model_copy(update={"kind": kind})
        return reply

    def _decode(self, stored: Stored | None) -> Conversation | None:
        """The stored conversation, or None if it is expired or from another schema (a
        deploy that changed the format says "start again" rather than guessing)."""
        if stored is None:
            return None
        try:
            conv = Conversation.from_json(stored.doc, stored.meta)
        except ValidationError:
            return None
        if conv.schema_version != SCHEMA_VERSION or conv.expires_at <= self.clock():
            return None
        return conv

    @staticmethod
    def _model_choices(ids: list[str]) -> list[Choice]:
        models = catalog().models
        return [Choice(value=m, label=models[m].name) for m in ids if m in models]

    def _finish_records(self, conv: Conversation, out: _Outcome, now: float) -> dict[str, Any]:
        if not out.finished or out.plan is None:
            return {}
        rec = out.plan.recommendation()
        return {
            "audit": {**self._record(conv, rec, now), "kind": "sizing"},
            "owner": conv.owner,
            "recent": {
                "key": conv.key, "conversation_id": conv.id,
                "model": show_model(conv.answers.get("model")),
                "workload": str(conv.answers.get("workload", "")),
                "verdict": rec.verdict, "headline": rec.headline, "finished_at": now,
            },
        }

    @staticmethod
    def _record(conv: Conversation, rec: Recommendation, now: float) -> dict[str, Any]:
        inputs: dict[str, AnswerValue] = {
            k: v for k, v in conv.answers.items() if relevant(k, conv.answers)
        }
        return {
            "key": conv.key, "conversation_id": conv.id, "owner": conv.owner, "at": now,
            "inputs": inputs, "answers": labelled(conv.answers),
            "verdict": rec.verdict, "step": rec.step, "headline": rec.headline,
            "nodes": rec.nodes, "gpus_per_node": rec.gpus_per_node, "gpu": rec.gpu,
            "precision": rec.precision, "replicas": rec.replicas,
            "interconnect": rec.interconnect,
            "numbers": rec.numbers.model_dump(exclude_none=True),
        }


def _with_more(
    text: str, state: str, answers: dict[str, AnswerValue]
) -> dict[str, AnswerValue] | None:
    """'64 users, 32k context' typed at the concurrency question: the answer and the next
    ones, read as an opening is. Only when the question's own answer is among them, and
    never a new model or workload (those change which questions exist: 'change model')."""
    if not any(c.isdigit() for c in text):  # every other answer has a number in it
        return None
    found, _, _ = extract(text, find_model=False)
    found.pop("model", None)
    found.pop("workload", None)
    if state not in found:
        return None
    ctx = found.get("context")
    if isinstance(ctx, int) and ctx > max_context(answers):  # beyond this model's window
        return None
    # another question's answer fills it only if it is still open: replacing one is what
    # 'change <answer>' is for, and a stray '1k' must not overwrite a context given earlier
    return {s: v for s, v in found.items()
            if relevant(s, {**answers, **found}) and (s == state or s not in answers)}


def _changeable(answers: dict[str, AnswerValue]) -> list[str]:
    """The answers a 'change' may reopen: those the workload uses and the engine asks."""
    return [n for n in ORDER if relevant(n, answers) and _still_asked(n, answers)]


def _still_asked(slot: str, answers: dict[str, AnswerValue]) -> bool:
    """Whether the engine would still ask this question with these answers."""
    if slot not in ("int4", "interconnect"):
        return True
    try:
        plan = Plan(answers)
        if slot == "int4":
            return plan.recommendation(allow_int4=True).precision == "int4"
        return needs_link(plan.recommendation())
    except EngineFailed:
        return False


def _choice_value(text: str, choices: list[Choice]) -> str | None:
    """The value of the choice whose label was typed ('NVIDIA L40S (48 GB)' -> 'l40s'), so a
    label read on screen and typed does what clicking it does."""
    want = " ".join(text.lower().split())
    for c in choices:
        if want == " ".join(c.label.lower().split()):
            return c.value
    return None


def _back_target(turn: Turn) -> str | None:
    """The question to return to: the last one asked that still applies, else the previous
    answered one in tree order (so 'back' works after a pre-filled opening too).

    'Still applies' includes what the engine decides: after a change of model, the INT4
    question is not returned to if INT4 no longer changes the answer (it would claim the
    model does not fit), nor the link if the answer no longer crosses nodes. And 'back'
    goes back: never from a question to a later one in the tree."""
    here = ORDER.index(turn.state) if turn.state in ORDER else len(ORDER)
    while turn.history:
        s = turn.history.pop()
        if (s != turn.state and s in QUESTIONS and relevant(s, turn.answers)
                and ORDER.index(s) < here and _still_asked(s, turn.answers)):
            return s
    upto = ORDER.index(turn.state) if turn.state in ORDER else len(ORDER)
    earlier = [s for s in ORDER[:upto] if s in turn.answers and relevant(s, turn.answers)
               and _still_asked(s, turn.answers)]
    return earlier[-1] if earlier else None


def _engine_error(conv: Conversation, why: str) -> Reply:
    return Reply(
        kind="error", conversation_id=conv.id, version=conv.version, state=conv.state,
        text="The engine could not size these answers.",
        error=f"I could not size that: {why}. Change an answer or restart.",
        nav=render.result_nav(conv), answers=labelled(conv.answers),
    )
