"""Question 1: does it fit one node, with the work's headroom, and meet the target or deadline?

Serving: the request's weights (FP8 by default) at most 70 % of the node's VRAM and weights +
KV cache + reserve inside it (C2, C3), in the layout with the most tokens/s, which must meet
the throughput target when there is one. Training: the training state, sharded over the
node's GPUs, fits, and the run finishes before the deadline (C9, C11).
"""

from __future__ import annotations

from engine.decision import evidence, terms
from engine.decision.facts import Facts
from engine.decision.figures import serving, trained
from engine.decision.outcome import StepOutcome
from engine.decision.picture import picture, training_picture
from engine.request import SizingRequest
from engine.result import StepAnswer
from engine.wording import Message, Param, msg

__all__ = ["answer", "question"]


def question(request: SizingRequest, facts: Facts) -> Message:
    """The question as the article asks it, with the policy's headroom and the target."""
    if request.is_training:
        return msg("question.step1_training")
    pol = facts.policy
    headroom: dict[str, Param] = dict(precision=terms.precision(request.precision),
                    headroom_low=1 - pol.max_weights_share,
                    headroom_high=1 - pol.comfortable_weights_share)
    target = request.target_tokens_per_s
    if target:
        return msg("question.step1_target", target=target, **headroom)
    return msg("question.step1", **headroom)


def _serving(request: SizingRequest, facts: Facts) -> StepOutcome:
    plan, plans = facts.inference(request.precision, 1)
    target = request.target_tokens_per_s
    meets = plan is not None and (target is None or plan.tokens_per_s >= target)
    if plan is None:
        because = evidence.miss(facts, plans, request.precision)
    else:
        because = evidence.rate(facts, plan, evidence.fit(facts, plan))
    answer = StepAnswer(step=1, question=question(request, facts),
                        answer="yes" if meets else "no", because=because)
    if not meets or plan is None:
        return StepOutcome(answer)
    return StepOutcome(answer, serving(facts, "single_node", plan))


def _training(request: SizingRequest, facts: Facts) -> StepOutcome:
    state, gpn = facts.state, facts.gpn
    plan, _ = facts.training(1)
    q = question(request, facts)
    if plan is None:
        # What the state and activations need even fully sharded over the node (FSDP).
        if gpn > 1:
            ref = facts.project(nodes=1, tp=1, pp=1, dp=gpn, strategy="zero3")
            acts = ref.activations_per_gpu * gpn
            need = training_picture(ref, gpn).per_copy
        else:
            acts = 0.0
            need = picture(vram=facts.node_bytes, weights=state.weights,
                           work=state.total - state.weights, work_kind="training_state",
                           reserve=facts.reserve_bytes, scope_nodes=1).per_copy
        because = msg("evidence.train_no_fit", state=state.total, activations=acts,
                      need=need.used_gb, vram=need.vram_gb, hardware=terms.hardware(facts))
        return StepOutcome(StepAnswer(step=1, question=q, answer="no", because=because))
    days = plan.days(facts.train_tokens)
    ok = days <= facts.deadline_days
    per_gpu = training_picture(plan, 1).per_copy
    because = msg("evidence.train_fit" if ok else "evidence.train_fit_late",
                  state=state.total, activations=plan.activations_per_gpu * gpn,
                  layout=terms.training_layout(plan), used=per_gpu.used_gb,
                  per_gpu=per_gpu.vram_gb, tokens=facts.train_tokens, days=days,
                  efficiency=plan.efficiency, deadline=facts.deadline_days)
    answer = StepAnswer(step=1, question=q, answer="yes" if ok else "no", because=because)
    if not ok:
        return StepOutcome(answer)
    deployment = trained(facts, "single_node", plan)
    fewer = deployment.numbers.min_gpus
    caveats = (msg("caveat.fewer_gpus", min_gpus=fewer, gpus=gpn),) \
        if fewer is not None and fewer < gpn else ()
    return StepOutcome(answer, deployment, caveats=caveats)


def answer(request: SizingRequest, facts: Facts) -> StepOutcome:
    """Step 1 of the tree; yes -> ``single_node``."""
    return _training(request, facts) if request.is_training else _serving(request, facts)
