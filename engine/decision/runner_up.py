"""The runner-up layout: the next-best layout on the same hardware, shown beside the verdict.

C13 names two layouts for a 405B over two nodes (TP=8 x PP=2 and TP=4 x PP=4): the verdict
takes the best, and the runner-up shows the other with its own numbers. It comes from the
same memoized search as the verdict (engine/decision/facts.py), so it costs nothing extra.
"""

from __future__ import annotations

from engine.decision import terms
from engine.decision.facts import Facts
from engine.decision.figures import inference_numbers, rounded
from engine.decision.outcome import Deployment
from engine.decision.picture import held_per_gpu
from engine.physics.inference import InferencePlan
from engine.physics.training import TrainingPlan
from engine.result import Alternative, Layout, Numbers
from engine.wording import msg, text

__all__ = ["runner_up"]


def _serving(facts: Facts, chosen: InferencePlan) -> list[Alternative]:
    """The next-best layout of the same search; for an answer sized on fewer GPUs than the
    node, the whole node's best layout instead (what the rest of the node would add)."""
    if chosen.gpus_per_node < facts.gpn and chosen.nodes == 1:
        node, _ = facts.search.inference(chosen.precision, 1, chosen.concurrency)
        others = [node] if node is not None else []
    else:
        _, plans = facts.search.inference(chosen.precision, chosen.nodes, chosen.concurrency,
                                   gpus_per_node=chosen.gpus_per_node)
        # the same rules as the search (engine/physics/search.py): the layouts it left
        # untimed are timed only if they could come second
        second = facts.search.next_best(chosen, plans)
        others = [second] if second is not None else []
    if not others:
        return []
    alt = others[0]
    share = alt.tokens_per_s / chosen.tokens_per_s if chosen.tokens_per_s else 0.0
    summary = msg("alternative.layout_summary", tokens_per_s=alt.tokens_per_s,
                  share=share, chosen=chosen.label, per_user=alt.per_user_tokens_per_s,
                  max_concurrency=alt.max_concurrency, context=facts.request.context)
    gpus = alt.nodes * alt.gpus_per_node
    return [Alternative.of(
        kind="layout", label=msg("alternative.layout", layout=text(alt.label), gpus=gpus),
        verdict=None, gpu=facts.gpu.id, nodes=alt.nodes, precision=alt.precision,
        layout=Layout.of(tp=alt.tp, pp=alt.pp, dp=alt.dp, attention_dp=alt.attention_dp),
        summary=summary,
        numbers=inference_numbers(facts, alt),
    )]


def _training(facts: Facts, chosen: TrainingPlan) -> list[Alternative]:
    _, plans = facts.search.training(chosen.nodes)
    others = sorted((p for p in plans if p.fits and
                     (p.tp, p.pp, p.dp, p.strategy) !=
                     (chosen.tp, chosen.pp, chosen.dp, chosen.strategy)),
                    key=lambda p: -p.efficiency)
    if not others:
        return []
    alt = others[0]
    days = alt.days(facts.train_tokens)  # what more GPUs buy: the run time, said first
    summary = msg("alternative.training_layout_summary", days=days,
                  chosen_days=chosen.days(facts.train_tokens), efficiency=alt.efficiency,
                  chosen_efficiency=chosen.efficiency, chosen=terms.training_layout(chosen),
                  per_gpu=held_per_gpu(alt))
    return [Alternative.of(
        kind="layout", label=msg("alternative.layout", layout=terms.training_layout(alt),
                                 gpus=alt.gpus),
        verdict=None, gpu=facts.gpu.id, nodes=alt.nodes, precision="bf16",
        layout=Layout.of(tp=alt.tp, pp=alt.pp, dp=alt.dp), summary=summary,
        numbers=Numbers.of(scaling_efficiency=round(alt.efficiency, 3), days=rounded(days)),
    )]


def runner_up(facts: Facts, d: Deployment) -> list[Alternative]:
    """The next-best fitting layout of the search that chose ``d``'s plan, if any.

    Replicas of a training node are not searched (the node's layout is copied), and a
    frontier answer is an estimate: neither has a runner-up.
    """
    if isinstance(d.plan, InferencePlan):
        return _serving(facts, d.plan)
    if isinstance(d.plan, TrainingPlan) and d.verdict in ("single_node", "multi_node"):
        return _training(facts, d.plan)
    return []
