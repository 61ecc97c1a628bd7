"""Where the dialogue meets the engine: which question comes next, and what each step said.

The dialogue asks a person only what the engine cannot compute. Model, workload and the
load (inference: concurrency, context, a throughput target; training: tokens, deadline)
are always needed for step 1. Two questions depend on the engine's answer:

- INT4 consent, asked only for inference when the engine's best answer uses INT4 weights
  (step 1 said no for memory and INT4 would fit); without consent the engine is asked again
  with INT4 forbidden.
- The link between nodes, asked only when the answer spans nodes and the link changes it
  (a multi-node cluster, a frontier run, or training replicas whose all-reduce crosses it;
  inference replicas run behind a load balancer on any Ethernet).

One ``Plan`` lives for one turn and calls the engine at most twice (once per distinct
request), so a turn stays cheap and no recommendation is ever stored.
"""

from __future__ import annotations

from collections.abc import Mapping

from dialogue.conversation import AnswerValue
from dialogue.slots import relevant, valid
from engine import recommend
from engine.request import DEFAULT_GPU, DEFAULT_INTERCONNECT, SizingRequest
from engine.result import Recommendation, StepAnswer

DONE = "done"
_NEEDS_LINK = ("multi_node", "frontier")


class EngineFailed(Exception):
    """The engine rejected the request (e.g. a parameter count it cannot size)."""


def request(answers: Mapping[str, AnswerValue], *, allow_int4: bool) -> SizingRequest:
    """The engine request for these answers; unanswered inputs take the engine's defaults."""
    fields: dict[str, object] = {"allow_int4": allow_int4}
    m = answers.get("model")
    if isinstance(m, str):
        fields["model"] = m
    elif isinstance(m, int | float) and not isinstance(m, bool):
        fields["params_b"] = float(m)
    for slot, name in (("workload", "workload"), ("concurrency", "concurrency"),
                       ("context", "context"), ("target", "target_tokens_per_s"),
                       ("tokens", "train_tokens"), ("deadline", "deadline_days")):
        if slot in answers and relevant(slot, answers) and answers[slot] is not None:
            fields[name] = answers[slot]
    fields["gpu"] = answers.get("gpu") or DEFAULT_GPU
    fields["interconnect"] = answers.get("interconnect") or DEFAULT_INTERCONNECT
    return SizingRequest.model_validate(fields)


class Plan:
    """One turn's view of the answers: the next question, and the engine's answer."""

    def __init__(self, answers: Mapping[str, AnswerValue]) -> None:
        self.answers = answers
        self._memo: dict[bool, Recommendation] = {}

    def recommendation(self, *, allow_int4: bool | None = None) -> Recommendation:
        if allow_int4 is None:
            allow_int4 = self.answers.get("int4") is True
        if allow_int4 not in self._memo:
            try:
                self._memo[allow_int4] = recommend(request(self.answers, allow_int4=allow_int4))
            # pydantic ValidationError is a ValueError; a catalog miss a LookupError; an
            # extreme parameter count may overflow a formula
            except (ValueError, LookupError, ArithmeticError) as exc:
                raise EngineFailed(str(exc).splitlines()[0]) from exc
        return self._memo[allow_int4]

    def next_state(self) -> str:
        """The first question still open, in tree order, or ``done``."""
        a = self.answers
        for slot in ("model", "workload", "concurrency", "context", "target", "tokens",
                     "deadline"):
            if relevant(slot, a) and not valid(slot, a):
                return slot
        if relevant("int4", a) and "int4" not in a:
            probe = self.recommendation(allow_int4=True)
            if probe.precision == "int4":
                return "int4"
            self._memo[False] = probe  # INT4 unused: the same answer either way
        rec = self.recommendation()
        if "interconnect" not in a and needs_link(rec):
            return "interconnect"
        return DONE

    def steps(self, upto: int = 5) -> list[StepAnswer]:
        return [q for q in self.recommendation().questions if q.step <= upto]


def needs_link(rec: Recommendation) -> bool:
    return rec.verdict in _NEEDS_LINK or (rec.verdict == "replicas" and rec.workload != "inference")


def step_notice(q: StepAnswer) -> str:
    """"Step 1: <evidence>: yes" -- the step's outcome with the numbers behind it."""
    because = q.because.rstrip(". ")
    return f"Step {q.step}: {because}: {q.answer}"


def _shape(rec: Recommendation) -> str:
    """The answer's size in a few words: 'one node', '11 copies of one node (11 nodes)'."""
    copies = rec.replicas or 1
    per = max(rec.nodes // copies, 1)
    unit = "one node" if per == 1 else f"a {per}-node cluster"
    if copies == 1:
        return unit
    return f"{copies} copies of {unit} ({rec.nodes} nodes)"


def int4_tradeoff(plan: Plan) -> str:
    """What the INT4 answer decides, in node counts: 'With INT4 weights: one node; keeping
    FP8: 3 nodes.' Said before the question, so the person knows what they are trading."""
    with_int4 = plan.recommendation(allow_int4=True)
    fp8 = plan.recommendation(allow_int4=False)
    return (f"What this decides: with INT4 weights, {_shape(with_int4)}; keeping FP8, "
            f"{_shape(fp8)}.")

