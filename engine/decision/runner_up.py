"""The runner-up layout: the next-best layout on the same hardware, shown beside the verdict.

C13 names two layouts for a 405B over two nodes (TP=8 x PP=2 and TP=4 x PP=4): the verdict
takes the best, and the runner-up shows the other with its own numbers. It comes from the
same memoized search as the verdict (engine/decision/facts.py), so it costs nothing extra.
"""

from __future__ import annotations

from engine.decision import terms
from engine.decision.facts import Facts
from engine.decision.figures import round_gb
from engine.decision.outcome import Deployment
from engine.decision.picture import held_per_gpu, inference_picture
from engine.physics.inference import InferencePlan
from engine.physics.training import TrainingPlan
from engine.result import Alternative, Layout, Numbers
from engine.wording import msg, text

__all__ = ["runner_up"]


def _serving(facts: Facts, chosen: InferencePlan) -> list[Alternative]:
    _, plans = facts.inference(chosen.precision, chosen.nodes, chosen.concurrency)
    others = sorted((p for p in plans if p.fits and (p.tp, p.pp, p.dp) !=
                     (chosen.tp, chosen.pp, chosen.dp)), key=lambda p: -p.tokens_per_s)
    if not others:
        return []
    alt = others[0]
    pic = inference_picture(alt)
    summary = msg("alternative.layout_summary", tokens_per_s=alt.tokens_per_s,
                  share=alt.tokens_per_s / chosen.tokens_per_s, chosen=chosen.label,
                  max_concurrency=alt.max_concurrency, context=facts.request.context)
    return [Alternative(
        kind="layout", label=msg("alternative.layout", layout=text(alt.label)), verdict=None,
        gpu=facts.gpu.id, nodes=alt.nodes, precision=alt.precision,
        layout=Layout(tp=alt.tp, pp=alt.pp, dp=alt.dp), summary=summary,
        numbers=Numbers(memory=pic, node_tokens_per_s=round(alt.tokens_per_s),
                        max_concurrency=alt.max_concurrency,
                        kv_cache_gb=round_gb(alt.kv_bytes),
                        free_share=round(pic.per_copy.free_share, 4)),
    )]


def _training(facts: Facts, chosen: TrainingPlan) -> list[Alternative]:
    _, plans = facts.training(chosen.nodes)
    others = sorted((p for p in plans if p.fits and
                     (p.tp, p.pp, p.dp, p.strategy) !=
                     (chosen.tp, chosen.pp, chosen.dp, chosen.strategy)),
                    key=lambda p: -p.efficiency)
    if not others:
        return []
    alt = others[0]
    summary = msg("alternative.training_layout_summary", efficiency=alt.efficiency,
                  chosen_efficiency=chosen.efficiency, chosen=terms.training_layout(chosen),
                  per_gpu=held_per_gpu(alt))
    return [Alternative(
        kind="layout", label=msg("alternative.layout", layout=terms.training_layout(alt)),
        verdict=None, gpu=facts.gpu.id, nodes=alt.nodes, precision="bf16",
        layout=Layout(tp=alt.tp, pp=alt.pp, dp=alt.dp), summary=summary,
        numbers=Numbers(scaling_efficiency=round(alt.efficiency, 3)),
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
