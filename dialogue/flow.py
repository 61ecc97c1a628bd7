"""The next question, as predicates over the answers, and what the engine says of them.

Like an errbot flow, each question is asked when its predicate holds: model, workload and
the load (inference: concurrency, context, a throughput target; training: token budget and
deadline) while they are open; two questions depend on the engine's answer:

- INT4 consent, for inference, only when the answer with INT4 weights allowed differs from
  the answer without (what the consent decides is said first: :func:`int4_tradeoff`);
- the link between nodes, only when the answer spans nodes and the link changes it (a
  multi-node cluster, a frontier run, or training replicas whose all-reduce crosses it;
  inference replicas run behind a load balancer on any Ethernet).

One :class:`Plan` lives for one turn and asks the engine at most once per distinct request
(the engine memoizes too), so a turn stays cheap and no recommendation is ever stored.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ValidationError

from dialogue.conversation import AnswerValue
from dialogue.machine import DONE
from dialogue.reply import Source
from dialogue.slots import ORDER, SLOTS, serving, valid
from engine import EngineError, recommend
from engine.request import DEFAULT_GPU, DEFAULT_INTERCONNECT, SizingRequest
from engine.result import Recommendation, StepAnswer
from engine.wording import Message, msg

_NEEDS_LINK = ("multi_node", "frontier")
Answers = Mapping[str, AnswerValue]


class EngineFailed(Exception):
    """The engine refused these answers; ``message`` says why (the engine's own words)."""

    def __init__(self, message: Message) -> None:
        self.message = message
        super().__init__(message.id)


# -- the request the engine is sent ------------------------------------------------------------


def request(answers: Answers, sources: Mapping[str, Source]) -> tuple[dict[str, Any],
                                                                      dict[str, Source]]:
    """The answers as the engine CLI names them (``model``/``params_b``, ``workload``, ...,
    ``int4``), each with its source; what nobody answered and the engine takes anyway (the
    GPU, GPUs per node, the link) is included as a ``default``, so it is always shown."""
    req: dict[str, Any] = {}
    src: dict[str, Source] = {}
    for name in ORDER:
        slot = SLOTS[name]
        if name in answers and slot.applies(answers) and valid(name, answers):
            for key, value in slot.to_request(answers[name]).items():
                req[key], src[key] = value, sources.get(name, "said")
    for key, value in (("gpu", DEFAULT_GPU),
                       ("gpus_per_node", SizingRequest.model_fields["gpus_per_node"].default),
                       ("interconnect", DEFAULT_INTERCONNECT)):
        if key not in req:
            req[key], src[key] = value, "default"
    return req, src


def sizing_request(req: Mapping[str, Any], *, allow_int4: bool) -> SizingRequest:
    fields = {k: v for k, v in req.items() if k != "int4" and v is not None}
    return SizingRequest.model_validate({**fields, "allow_int4": allow_int4})


class Plan:
    """One turn's view of the answers: the next question, and the engine's answers."""

    def __init__(self, answers: Answers) -> None:
        self.answers = answers
        self._req = request(answers, {})[0]
        self._memo: dict[bool, Recommendation] = {}

    def recommendation(self, *, allow_int4: bool | None = None) -> Recommendation:
        if allow_int4 is None:
            allow_int4 = self.answers.get("int4") is True
        if allow_int4 not in self._memo:
            try:
                self._memo[allow_int4] = recommend(sizing_request(self._req,
                                                                  allow_int4=allow_int4))
            except EngineError as exc:
                raise EngineFailed(exc.message) from exc
            except ValidationError as exc:  # a value the request refuses (a bound)
                raise EngineFailed(msg("dialogue.error.engine_refused",
                                       detail=exc.errors()[0]["msg"])) from exc
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

    def next_slot(self) -> str:
        """The first question whose predicate holds, in tree order, or ``done``."""
        for slot, ask in FLOW:
            if ask(self.answers, self):
                return slot
        return DONE

    def still_asked(self, slot: str) -> bool:
        """Whether the flow would ask this slot for these answers, answered or not (what a
        'change' may reopen; 'back' never returns to a question that no longer applies)."""
        if not SLOTS[slot].applies(self.answers):
            return False
        try:
            if slot == "int4":
                return self.int4_decides()
            if slot == "interconnect":
                return self.link_decides()
        except EngineFailed:
            return False
        return True

    def steps(self, state: str) -> list[StepAnswer]:
        """The decision steps already decided when ``state`` is shown: before the INT4
        question, step 1 (which said no); before the link, steps 1-2 (what holds whatever
        the link); with the result, every step the engine walked."""
        if state == "int4":
            return [q for q in self.recommendation(allow_int4=True).questions if q.step == 1]
        if state == "interconnect":
            return [q for q in self.recommendation().questions if q.step <= 2]
        if state == DONE:
            return list(self.recommendation().questions)
        return []


def needs_link(rec: Recommendation) -> bool:
    return rec.verdict in _NEEDS_LINK or (rec.verdict == "replicas" and rec.workload != "inference")


Predicate = Callable[[Answers, Plan], bool]


def _open(slot: str) -> Predicate:
    return lambda a, plan: SLOTS[slot].applies(a) and not valid(slot, a)


FLOW: tuple[tuple[str, Predicate], ...] = (
    *((s, _open(s)) for s in ("model", "workload", "concurrency", "context",
                              "target_tokens_per_s", "train_tokens", "deadline_days")),
    ("int4", lambda a, plan: "int4" not in a and plan.int4_decides()),
    ("interconnect", lambda a, plan: "interconnect" not in a and plan.link_decides()),
)


# -- what the INT4 answer trades -----------------------------------------------------------------


def shape(rec: Recommendation) -> Message:
    """The answer's size: one node, an N-node cluster, or copies of either (with the total)."""
    copies = rec.replicas or 1
    per = max(rec.nodes // copies, 1)
    unit = msg("dialogue.shape.node") if per == 1 else msg("dialogue.shape.cluster", nodes=per)
    if copies == 1:
        return unit
    return msg("dialogue.shape.copies", copies=copies, unit=unit, nodes=rec.nodes)


def int4_tradeoff(plan: Plan) -> Message:
    """'With INT4 weights, one node; keeping FP8, 2 copies of one node (2 nodes).' Said
    before the question, so the person knows what they are trading."""
    return msg("dialogue.notice.int4_tradeoff", int4=shape(plan.recommendation(allow_int4=True)),
               fp8=shape(plan.recommendation(allow_int4=False)))
