"""Question 2: for serving only, does it fit one node with 4-bit weights, with the same headroom?

The article's step 2 says INT4; the 4-bit format the engine takes is the one the GPU runs
best: NVFP4 where it has FP4 tensor cores (Blackwell: 4.5 bits with block scales, computed
at the FP4 rate), INT4 weight-only (AWQ/GPTQ, 4.156 bits) elsewhere. It halves FP8's weights
(C4: a 405B fits one node for inference), at a quality cost the answer states. Training
never takes this step: 4-bit weights cannot compute gradients (C6). When the person ruled
4-bit out (``allow_int4``), or step 1 already sized 4-bit weights (asked, or a checkpoint
that ships in MXFP4, such as gpt-oss, which carries no quantization caveat), the answer is no.
"""

from __future__ import annotations

from engine.decision import evidence, terms
from engine.decision.facts import Facts
from engine.decision.figures import fewest_serving_gpus, serving
from engine.decision.outcome import StepOutcome
from engine.request import SizingRequest
from engine.result import Precision, StepAnswer
from engine.wording import Message, msg

__all__ = ["FOUR_BIT", "answer", "four_bit", "quality_caveat", "question"]

#: The 4-bit weight formats (the article's "INT4" step).
FOUR_BIT: tuple[Precision, ...] = ("int4", "nvfp4", "mxfp4")


def four_bit(facts: Facts) -> Precision:
    """The 4-bit format this GPU serves best: NVFP4 on FP4 tensor cores, else INT4."""
    return "nvfp4" if facts.gpu.fp4_tflops else "int4"


def quality_caveat(facts: Facts, precision: Precision) -> tuple[Message, ...]:
    """What a 4-bit answer says about quality: nothing for a model's own checkpoint format;
    otherwise the format's note (post-training quantization, validate on your evaluations)."""
    if precision == facts.model.native_precision:
        return ()
    if precision == "nvfp4":
        return (msg("caveat.nvfp4"),)
    if precision == "int4":
        return (msg("caveat.int4"),)
    return ()


def question(request: SizingRequest, facts: Facts) -> Message:
    if facts.brief:
        return evidence.BRIEF
    fmt = terms.precision(four_bit(facts))
    asks = evidence.asks(facts)
    if asks is not None and not request.is_training:
        return msg("question.step2_target", format=fmt, target=asks)
    return msg("question.step2", format=fmt)


def answer(request: SizingRequest, facts: Facts) -> StepOutcome:
    """Step 2 of the tree; yes -> ``single_node_int4``."""
    q = question(request, facts)
    if request.is_training:
        return StepOutcome(StepAnswer.of(step=2, question=q, answer="not applicable",
                                      because=msg("evidence.train_int4")))
    if facts.precision in FOUR_BIT:
        native = facts.precision == facts.model.native_precision
        because = msg("evidence.native_4bit", precision=terms.precision(facts.precision)) \
            if native else msg("evidence.int4_already",
                               precision=terms.precision(facts.precision))
        return StepOutcome(StepAnswer.of(step=2, question=q, answer="no", because=because))
    fmt = four_bit(facts)
    if not request.allow_int4:
        return StepOutcome(StepAnswer.of(step=2, question=q, answer="no", because=msg(
            "evidence.int4_refused", format=terms.precision(fmt))))
    if facts.needs_speed:
        plan, plans = facts.search.inference(fmt, 1)
        meets = facts.search.meets(plan)
    else:  # memory decides: no kernel is timed until the deployment is sized
        plans = facts.search.layouts(fmt, 1)
        plan = next((p for p in plans if p.fits), None)
        meets = plan is not None
    if plan is None:
        because = evidence.miss(facts, plans, fmt)
        return StepOutcome(StepAnswer.of(step=2, question=q, answer="no", because=because))
    deployed = fewest_serving_gpus(facts, fmt) if meets else plan
    assert deployed is not None
    because = evidence.rate(facts, deployed, evidence.fit(facts, deployed))
    ans = StepAnswer.of(step=2, question=q, answer="yes" if meets else "no", because=because)
    if not meets:
        return StepOutcome(ans)
    used = deployed.nodes * deployed.gpus_per_node
    caveats = quality_caveat(facts, fmt)
    if used < facts.gpn:
        caveats = (*caveats, msg("caveat.fewer_gpus", min_gpus=used, gpus=facts.gpn))
    return StepOutcome(ans, serving(facts, "single_node_int4", deployed, min_gpus=used),
                       caveats=caveats)
