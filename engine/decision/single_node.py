"""Question 1: does it fit one node, with the work's headroom, and meet the target or deadline?

Serving: the request's weights (FP8 by default, a model's native 4-bit checkpoint as shipped)
at most 70 % of the node's VRAM and weights + KV cache + reserve inside it (C2, C3), in the
layout with the most tokens/s, which must carry the throughput target and serve each user
within the per-user speed and first-token bounds when there are any (engine/physics/
serving.py). Training: the training state, sharded over the node's GPUs, fits, and the run
finishes before the deadline (C9, C11). A yes is sized on the fewest GPUs of the node that
do the work ("small work on the fewest GPUs"), the rest left for growth or other jobs.
"""

from __future__ import annotations

from engine.decision import evidence, terms
from engine.decision.facts import Facts
from engine.decision.figures import (
    comfortable_training,
    fewest_serving_gpus,
    min_gpus,
    serving,
    trained,
)
from engine.decision.outcome import StepOutcome
from engine.decision.picture import picture, training_picture
from engine.request import SizingRequest
from engine.result import StepAnswer
from engine.wording import Message, Param, msg

__all__ = ["answer", "question"]


def question(request: SizingRequest, facts: Facts) -> Message:
    """The question as the article asks it, with the policy's headroom and the targets."""
    if facts.brief:
        return evidence.BRIEF
    if request.is_training:
        return msg("question.step1_training")
    pol = facts.policy
    headroom: dict[str, Param] = dict(precision=terms.precision(facts.precision),
                                      headroom_low=1 - pol.max_weights_share,
                                      headroom_high=1 - pol.comfortable_weights_share)
    asks = evidence.asks(facts)
    if asks is not None:
        return msg("question.step1_target", target=asks, **headroom)
    return msg("question.step1", **headroom)


def _serving(request: SizingRequest, facts: Facts) -> StepOutcome:
    prec = facts.precision
    if facts.needs_speed:
        plan, plans = facts.search.inference(prec, 1)
        meets = facts.search.meets(plan)
    else:  # memory decides: no kernel is timed until the deployment is sized
        plans = facts.search.layouts(prec, 1)
        plan = next((p for p in plans if p.fits), None)
        meets = plan is not None
    if plan is None:
        because = evidence.miss(facts, plans, prec)
        return StepOutcome(StepAnswer.of(step=1, question=question(request, facts), answer="no",
                                      because=because))
    deployed = fewest_serving_gpus(facts, prec) if meets else plan
    assert deployed is not None
    because = evidence.rate(facts, deployed if meets else plan,
                            evidence.fit(facts, deployed if meets else plan))
    answer = StepAnswer.of(step=1, question=question(request, facts),
                        answer="yes" if meets else "no", because=because)
    if not meets:
        return StepOutcome(answer)
    used = deployed.nodes * deployed.gpus_per_node
    caveats = (msg("caveat.fewer_gpus", min_gpus=used, gpus=facts.gpn),) \
        if used < facts.gpn else ()
    return StepOutcome(answer, serving(facts, "single_node", deployed, min_gpus=used),
                       caveats=caveats)


def _training(request: SizingRequest, facts: Facts) -> StepOutcome:
    state, gpn = facts.state, facts.gpn
    node_plan, _ = facts.search.training(1)
    q = question(request, facts)
    if node_plan is None:
        # What the state and activations need even fully sharded over the node (FSDP).
        if gpn > 1:
            ref = facts.search.project(nodes=1, tp=1, pp=1, dp=gpn, strategy="zero3")
            acts = ref.activations_per_gpu * gpn
            need = training_picture(ref, gpn).per_copy
        else:
            acts = 0.0
            need = picture(vram=facts.node_bytes, weights=state.weights,
                           work=state.total - state.weights, work_kind="training_state",
                           reserve=facts.reserve_bytes, scope_nodes=1).per_copy
        because = msg("evidence.train_no_fit", state=state.total, activations=acts,
                      need=need.used_gb, vram=need.vram_gb, hardware=terms.hardware(facts))
        return StepOutcome(StepAnswer.of(step=1, question=q, answer="no", because=because))
    ok = node_plan.days(facts.train_tokens) <= facts.deadline_days
    fewest = min_gpus(facts) if ok else None
    plan = node_plan
    if fewest is not None and fewest < gpn:
        plan = comfortable_training(facts, fewest) or node_plan
    days = plan.days(facts.train_tokens)
    per_gpu = training_picture(plan, 1).per_copy
    because = msg("evidence.train_fit" if ok else "evidence.train_fit_late",
                  state=state.total, activations=plan.activations_per_gpu * plan.gpus,
                  layout=terms.training_layout(plan), used=per_gpu.used_gb,
                  per_gpu=per_gpu.vram_gb, tokens=facts.train_tokens, days=days,
                  efficiency=plan.efficiency, deadline=facts.deadline_days)
    answer = StepAnswer.of(step=1, question=q, answer="yes" if ok else "no", because=because)
    if not ok:
        return StepOutcome(answer)
    deployment = trained(facts, "single_node", plan)
    caveats = (msg("caveat.fewer_gpus", min_gpus=plan.gpus, gpus=gpn),) \
        if plan.gpus < gpn else ()
    return StepOutcome(answer, deployment, caveats=caveats)


def answer(request: SizingRequest, facts: Facts) -> StepOutcome:
    """Step 1 of the tree; yes -> ``single_node``."""
    return _training(request, facts) if request.is_training else _serving(request, facts)
