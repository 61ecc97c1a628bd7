"""Question 2: for serving only, does it fit one node with INT4 weights, with the same headroom?

INT4 halves FP8's weights (C4: a 405B fits one node for inference), at a quality cost the
answer states. Training never takes this step: INT4 weights cannot compute gradients (C6).
When the person ruled INT4 out, or already asked for it at step 1, the answer is no.
"""

from __future__ import annotations

from engine.decision import evidence
from engine.decision.facts import Facts
from engine.decision.figures import serving
from engine.decision.outcome import StepOutcome
from engine.request import SizingRequest
from engine.result import StepAnswer
from engine.wording import Message, msg

__all__ = ["INT4_CAVEAT", "answer", "question"]

#: Said wherever an answer uses INT4 weights the person did not ask for.
INT4_CAVEAT = msg("caveat.int4")


def question(request: SizingRequest) -> Message:
    target = request.target_tokens_per_s
    if target and not request.is_training:
        return msg("question.step2_target", target=target)
    return msg("question.step2")


def answer(request: SizingRequest, facts: Facts) -> StepOutcome:
    """Step 2 of the tree; yes -> ``single_node_int4``."""
    q = question(request)
    if request.is_training:
        return StepOutcome(StepAnswer(step=2, question=q, answer="not applicable",
                                      because=msg("evidence.train_int4")))
    if request.precision == "int4":
        return StepOutcome(StepAnswer(step=2, question=q, answer="no",
                                      because=msg("evidence.int4_already")))
    if not request.allow_int4:
        return StepOutcome(StepAnswer(step=2, question=q, answer="no",
                                      because=msg("evidence.int4_refused")))
    plan, plans = facts.inference("int4", 1)
    target = request.target_tokens_per_s
    meets = plan is not None and (target is None or plan.tokens_per_s >= target)
    if plan is None:
        because = evidence.miss(facts, plans, "int4")
    else:
        because = evidence.rate(facts, plan, evidence.fit(facts, plan))
    ans = StepAnswer(step=2, question=q, answer="yes" if meets else "no", because=because)
    if not meets or plan is None:
        return StepOutcome(ans)
    return StepOutcome(ans, serving(facts, "single_node_int4", plan), caveats=(INT4_CAVEAT,))
