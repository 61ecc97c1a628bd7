"""The next question, as predicates over the answers, and what the engine says of them.

Like an errbot flow, :data:`FLOW` is rows of (question, predicate): the first row whose
predicate holds is the next question, else the result. ``dialogue/machine.py`` builds its
``advance`` transitions from these rows, in order, so the machine that moves a conversation
and the flow that decides where are one table (docs/dialogue.md is generated from it).
Model, workload and the load (inference: concurrency, context, a speed; training: token
budget and deadline) are asked while they are open; two questions depend on the engine's
answer (:data:`WEIGHED`):

- INT4 consent, for inference, only when the answer with INT4 weights allowed differs from
  the answer without (what the consent decides is said first: :func:`int4_tradeoff`);
- the link between nodes, only when the answer spans nodes and the link changes it (a
  multi-node cluster, a frontier run, or training replicas whose all-reduce crosses it;
  inference replicas run behind a load balancer on any Ethernet).

One :class:`Plan` lives for one turn and asks the engine at most once per distinct request
(the engine memoizes too), so a turn stays cheap and no recommendation is ever stored.

What the sizing rests on is confirmed before the card when it was only inferred: a workload
read from "50 users" (serving) or an INT4 consent read from an "-AWQ" checkpoint name is
asked again, with the inferred value shown, before the result (:func:`_assumed`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from dialogue.conversation import DONE, AnswerValue, Conversation, SlotName, State
from dialogue.keys import KEYS, avoided
from dialogue.reply import Source
from dialogue.slots import SLOTS, holds, is_question, is_training, serving, valid
from engine import EngineError, recommend
from engine.request import DEFAULT_GPU, DEFAULT_INTERCONNECT, TARGETS, SizingRequest
from engine.result import Recommendation, StepAnswer
from engine.wording import Message, msg, text

_NEEDS_LINK = ("multi_node", "frontier")
Answers = Mapping[str, AnswerValue]
Sources = Mapping[str, Source]
#: What the engine is always sent, said or not: shown as defaults.
ALWAYS = (("gpu", DEFAULT_GPU),
          ("gpus_per_node", SizingRequest.model_fields["gpus_per_node"].default),
          ("interconnect", DEFAULT_INTERCONNECT))


class EngineFailed(Exception):
    """The engine refused these answers; ``message`` says why (the engine's own words)."""

    def __init__(self, message: Message) -> None:
        self.message = message
        super().__init__(message.id)


# -- the request the engine is sent ------------------------------------------------------------


_WEAK: tuple[Source, ...] = ("assumed", "default", "confirmed")


def _weakest(*sources: Source) -> Source:
    """A value derived from several answers is as sure as the least sure of them."""
    return next((s for s in _WEAK if s in sources), "said")


def request(answers: Answers, sources: Sources) -> tuple[dict[str, Any], dict[str, Source]]:
    """The answers as the engine CLI names them (``model``/``params_b``, ``workload``, ...,
    ``per_user_tokens_per_s``, ``int4``), each with its source; a batch job's documents and
    deadline become the request rate and prompt length they mean; what nobody answered and
    the engine takes anyway (the GPU, GPUs per node, the link) is included as a
    ``default``, so it is always shown."""
    req: dict[str, Any] = {}
    src: dict[str, Source] = {}
    for name, key in KEYS.items():
        if holds(name, answers):
            for k, v in key.to_request(answers[name], answers).items():
                req[k], src[k] = v, sources.get(name, "said")
    batch = batch_load(answers) if serving(answers) else None  # a trained model has no batch
    if batch is not None and "requests_per_s" not in req:
        weakest = _weakest(*(sources.get(k, "said") for k in (
            "documents", "document_tokens", "batch_days")))
        for k, v in batch.items():
            if k not in req:
                req[k], src[k] = v, weakest
    for always, value in ALWAYS:
        if always not in req:
            req[always], src[always] = value, "default"
    assumed = [t for t in TARGETS if t in req and src.get(t) in ("assumed", "default")]
    if assumed:  # the engine weighs them as preferences, never as requirements
        req["assumed"] = assumed
    return req, src


def batch_load(answers: Answers) -> dict[str, Any] | None:
    """A batch job as the engine takes it: its documents and the days it has, each document
    the prompt (its length as said, or the prompt length said beside it): the engine works
    out the throughput the deadline needs, and the days it takes."""
    docs, days = answers.get("documents"), answers.get("batch_days")
    each = answers.get("document_tokens") or answers.get("prompt_tokens")
    if not all(isinstance(v, int | float) and not isinstance(v, bool) and v > 0
               for v in (docs, each, days)):
        return None
    assert isinstance(docs, int | float) and isinstance(each, int) and isinstance(days,
                                                                                   int | float)
    return {"documents": float(docs), "deadline_days": float(days), "prompt_tokens": each,
            "work": answers.get("task") or "batch"}


def sizing_request(req: Mapping[str, Any], *, allow_int4: bool) -> SizingRequest:
    """The engine's request: the keys it has a field for (a headcount, a batch's documents
    are shown to the person and sent as what they mean, see :func:`request`)."""
    fields = SizingRequest.model_fields
    out = {k: v for k, v in req.items() if k in fields and k != "int4" and v is not None}
    return SizingRequest.model_validate({**out, "allow_int4": allow_int4})


def int4_consent(said: object, decides: Callable[[], bool]) -> bool:
    """Whether the engine may size 4-bit weights: the person's yes or no when they gave one;
    when they were never asked (``decides()`` is false: 4-bit weights do not change the
    answer), yes, so the article's step 2 says why they do not help (the weights fit but the
    KV cache does not, ...) instead of "INT4 quality is not acceptable", which nobody said."""
    return said is True or (said is None and not decides())


def engine_request(req: Mapping[str, Any]) -> SizingRequest:
    """The engine's request behind a reply's result (``Reply.request``), INT4 consent as
    :class:`Plan` gives it (a face redrawing the result, engine/charts)."""
    def decides() -> bool:
        return recommend(sizing_request(req, allow_int4=True)).precision != recommend(
            sizing_request(req, allow_int4=False)).precision
    return sizing_request(req, allow_int4=int4_consent(req.get("int4"), decides))


def _refused(exc: ValidationError) -> Message:
    """A bound the request refuses, in the conversation's words: the answer's label and the
    limit ('Concurrent requests: at most 100,000'), never pydantic's English."""
    err = exc.errors()[0]
    name = str(err["loc"][0]) if err.get("loc") else ""
    label: Message = KEYS[name].label if name in KEYS else text(name)
    limits: dict[str, Any] = err.get("ctx") or {}
    for bound, side in (("le", "most"), ("lt", "most"), ("ge", "least"), ("gt", "least")):
        limit = limits.get(bound)
        if isinstance(limit, int | float) and not isinstance(limit, bool):
            return msg(f"dialogue.error.engine_at_{side}", field=label, limit=float(limit))
    return msg("dialogue.error.engine_refused", field=label)


class Plan:
    """One turn's view of the answers: the engine's answers, and what the flow asks of them."""

    def __init__(self, answers: Answers, sources: Sources | None = None,
                 reask: Collection[str] = ()) -> None:
        self.answers = answers
        self.sources: Sources = sources or {}
        self.reask = reask
        self._req = request(answers, self.sources)[0]
        self._memo: dict[bool, Recommendation] = {}

    @classmethod
    def of(cls, conv: Conversation) -> Plan:
        """The plan of a conversation's answers."""
        return cls(conv.answers, conv.sources, conv.reask)

    def recommendation(self, *, allow_int4: bool | None = None) -> Recommendation:
        """The engine's answer, INT4 consent as :func:`int4_consent` gives it unless told."""
        if allow_int4 is None:
            allow_int4 = int4_consent(self.answers.get("int4"), self.int4_decides)
        if allow_int4 not in self._memo:
            try:
                self._memo[allow_int4] = recommend(sizing_request(self._req,
                                                                  allow_int4=allow_int4))
            except EngineError as exc:
                raise EngineFailed(exc.message) from exc
            except ValidationError as exc:  # a value the request refuses (a bound)
                raise EngineFailed(_refused(exc)) from exc
            except ArithmeticError as exc:  # an extreme parameter count overflowing a formula
                raise EngineFailed(msg("dialogue.error.engine_overflow")) from exc
        return self._memo[allow_int4]

    def int4_decides(self) -> bool:
        """Whether consenting to INT4 weights changes the answer (inference only)."""
        if not serving(self.answers):
            return False
        return self.recommendation(allow_int4=True).precision != self.recommendation(
            allow_int4=False).precision

    def link_decides(self) -> bool:
        return needs_link(self.recommendation())

    def still_asked(self, slot: SlotName) -> bool:
        """Whether the flow would ask this slot for these answers, answered or not (what a
        'change' may reopen; 'back' never returns to a question that no longer applies)."""
        if not SLOTS[slot].applies(self.answers):
            return False
        weighed = WEIGHED.get(slot)
        try:
            return weighed is None or weighed.matters(self)
        except EngineFailed:
            return False

    def steps(self, state: State) -> list[StepAnswer]:
        """The decision steps already decided when ``state`` is shown (:data:`WEIGHED`);
        with the result, every step the engine walked."""
        if state == DONE:
            return list(self.recommendation().questions)
        weighed = WEIGHED.get(state) if is_question(state) else None
        return [] if weighed is None else weighed.steps(self)

    def notices(self, state: State) -> list[Message]:
        """What is said before a question the engine decides (what the INT4 answer trades)."""
        weighed = WEIGHED.get(state) if is_question(state) else None
        return [] if weighed is None or weighed.notice is None else [weighed.notice(self)]


def needs_link(rec: Recommendation) -> bool:
    return rec.verdict in _NEEDS_LINK or (rec.verdict == "replicas" and rec.workload != "inference")


# -- the questions the engine decides ----------------------------------------------------------


@dataclass(frozen=True)
class Weighed:
    """A question only the engine's answer makes worth asking: when it ``matters``, the
    decision ``steps`` already settled shown before it (what holds whatever the answer), and
    a ``notice`` of what the answer trades."""

    matters: Callable[[Plan], bool]
    steps: Callable[[Plan], list[StepAnswer]]
    notice: Callable[[Plan], Message] | None = None


WEIGHED: Mapping[SlotName, Weighed] = {
    # step 1 said no (the weights and their KV cache do not fit) before 4-bit is weighed
    "int4": Weighed(Plan.int4_decides,
                    lambda p: [q for q in p.recommendation(allow_int4=True).questions
                               if q.step == 1],
                    notice=lambda p: int4_tradeoff(p)),
    # steps 1-2 hold whatever the link: it only decides how well nodes scale
    "interconnect": Weighed(Plan.link_decides,
                            lambda p: [q for q in p.recommendation().questions if q.step <= 2]),
}


# -- the flow: the next question, as predicates over the plan ---------------------------------


@dataclass(frozen=True)
class Ask:
    """One row of the flow: ``slot`` is asked when ``when`` holds; the first row that holds,
    in order, is the next question (``dialogue/machine.py`` makes each row a guarded
    transition). ``why`` is the row as docs/dialogue.md says it."""

    slot: SlotName
    when: Callable[[Plan], bool]
    why: str


_SCOPES: Mapping[Callable[[Answers], bool], str] = {serving: " (inference)",
                                                    is_training: " (training)"}


def _open(slot: SlotName) -> Ask:
    """An answer the work needs and does not have yet (or no longer validly)."""
    return Ask(slot, lambda p: SLOTS[slot].applies(p.answers) and not valid(slot, p.answers),
               "not answered yet" + _SCOPES.get(SLOTS[slot].applies, ""))


def _assumed(slot: SlotName) -> Callable[[Plan], bool]:
    """What the sizing rests on (the workload, INT4 consent) is confirmed before the card
    when it was only inferred ('50 users' is serving; an '-AWQ' name is INT4 consent)."""
    return lambda p: slot in p.answers and p.sources.get(slot) == "assumed"


def _reasked(slot: SlotName) -> Ask:
    """A question with a default (the GPU, the link) whose answer was refused where it was
    said ('17 GPUs per node'): asked, where it still matters, rather than sized on the
    default the person tried to replace."""
    keys = SLOTS[slot].keys
    return Ask(slot, lambda p: any(k in p.reask for k in keys) and p.still_asked(slot),
               "its answer was refused where it was said, and it still matters")


def _matters(slot: SlotName) -> Callable[[Plan], bool]:
    return lambda p: WEIGHED[slot].matters(p)


FLOW: tuple[Ask, ...] = (
    _open("model"),
    _open("workload"),
    # what the work is comes first: inferred ('25 users', 'a 32k context' say inference),
    # it is confirmed before the questions it decides are asked
    Ask("workload", _assumed("workload"), "it was inferred, not said: confirmed first"),
    *(_open(s) for s in ("concurrency", "context", "target_tokens_per_s", "train_tokens",
                         "deadline_days")),
    # the questions behind what the engine is always sent (the GPU, the link)
    *(_reasked(s) for s in dict.fromkeys(KEYS[k].slot for k, _ in ALWAYS)),
    Ask("gpu", lambda p: "gpu" not in p.answers and DEFAULT_GPU in avoided(
        p.answers.get("avoid_gpus")), "the default GPU was refused and no other named"),
    Ask("precision", lambda p: "precision" in p.answers and not valid("precision", p.answers),
        "a weight format was named that this GPU cannot run (NVFP4 off Blackwell)"),
    Ask("int4", lambda p: ("int4" not in p.answers or _assumed("int4")(p))
        and _matters("int4")(p),
        "not answered (or read from a checkpoint's name), and 4-bit weights change the answer"),
    Ask("interconnect", lambda p: "interconnect" not in p.answers and _matters(
        "interconnect")(p), "not answered, and the answer spans nodes the link decides"),
)
# -- what the INT4 answer trades -----------------------------------------------------------------


def shape(rec: Recommendation) -> Message:
    """The answer's size: one node, an N-node cluster, or copies of either (with the total)."""
    copies = rec.replicas or 1
    per = max(rec.nodes // copies, 1)
    gpus = rec.gpus_per_node  # said: the research-lab trap may answer on a bigger node
    if copies == 1:
        return msg("dialogue.shape.node", gpus=gpus) if per == 1 else msg(
            "dialogue.shape.cluster", nodes=per, gpus=gpus)
    # one message per unit: French elides its article ("copies d'un nœud")
    return msg("dialogue.shape.copies_node" if per == 1 else "dialogue.shape.copies_cluster",
               copies=copies, per=per, gpus=gpus, nodes=rec.nodes)


def _as_seen(side: Message, rec: Recommendation, ttft: bool) -> Message:
    """A side of the trade-off with each user's speed (and first token, when one was asked)."""
    n = rec.numbers
    if not n.per_user_tokens_per_s:
        return side
    if ttft and n.ttft_s:
        return msg("dialogue.shape.at_speed_ttft", shape=side, rate=n.per_user_tokens_per_s,
                   s=n.ttft_s)
    return msg("dialogue.shape.at_speed", shape=side, rate=n.per_user_tokens_per_s)


def _misses(rec: Recommendation, answers: Answers) -> bool:
    """Whether an answer serves each user slower, or the first token later, than asked."""
    n, speed, ttft = rec.numbers, answers.get("per_user_tokens_per_s"), answers.get("ttft_s")
    return bool((isinstance(speed, int | float) and n.per_user_tokens_per_s is not None
                 and n.per_user_tokens_per_s < speed)
                or (isinstance(ttft, int | float) and n.ttft_s is not None and n.ttft_s > ttft))


def int4_tradeoff(plan: Plan) -> Message:
    """'With INT4 weights, one node; keeping FP8, 2 copies of one node (2 nodes).' Said
    before the question, so the person knows what they are trading; on the same hardware
    both ways, or when one side misses what was asked (fewer nodes that serve each user
    too slowly are no saving), what each user sees on each side (the speed, and the first
    token when a bound on it was asked)."""
    four, kept = plan.recommendation(allow_int4=True), plan.recommendation(allow_int4=False)
    sides = [shape(four), shape(kept)]
    if sides[0] == sides[1] or any(_misses(r, plan.answers) for r in (four, kept)):
        sides = [_as_seen(s, r, "ttft_s" in plan.answers) for s, r in zip(sides, (four, kept),
                                                                           strict=True)]
    return msg("dialogue.notice.int4_tradeoff", int4=sides[0], fp8=sides[1],
               kept=msg(f"precision.{kept.precision}"),
               format=msg(f"precision.{four.precision}"))
