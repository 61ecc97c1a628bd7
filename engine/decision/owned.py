"""Hardware the customer already has: what it does, before what more it would take.

A person who says "we already have 2 servers of 8x L40S" or "can I run it on a single RTX
4090" asks first what that hardware does. The answer says it before anything else: the
load it serves within the stated targets (else the floors of the work), the speed each user
sees at their load, or that the model does not fit and what it would need; the tree's answer
(what the whole load takes) follows, with how many more nodes that is.

The owned nodes serve as copies of one node each (a load balancer in front, no cluster
tax) or, when one node cannot hold the model, as one cluster over all of them.
"""

from __future__ import annotations

import math

from engine.decision import terms
from engine.decision.cluster import precisions
from engine.decision.facts import Facts
from engine.physics.inference import InferencePlan
from engine.physics.memory import weights_bytes
from engine.result import Owned, Recommendation
from engine.wording import Message, msg

__all__ = ["owned", "owned_headline"]


def _serving(facts: Facts, nodes: int, conc: int) -> InferencePlan | None:
    """The best plan of the owned nodes at ``conc`` requests in all: one node per copy when
    a node holds the model, else one cluster over every owned node."""
    for prec in precisions(facts):
        plan, _ = facts.search.inference(prec, 1, concurrency=math.ceil(conc / nodes))
        if plan is not None and plan.serving is not None:
            return plan
        if nodes > 1:
            plan, _ = facts.search.inference(prec, nodes, concurrency=conc)
            if plan is not None and plan.serving is not None:
                return plan
    return None


def _within(facts: Facts, plan: InferencePlan | None) -> bool:
    return plan is not None and plan.serving is not None and facts.bounds.met(plan.serving)


def _served(facts: Facts, nodes: int) -> tuple[int, InferencePlan] | None:
    """(requests served at once, plan): the most requests, up to the load asked, the owned
    nodes serve within the bounds the sizing holds to (a bisection: the speed falls as
    requests are added), or None when not even one is."""
    conc = facts.concurrency
    top = _serving(facts, nodes, conc)
    if top is not None and _within(facts, top):
        return conc, top
    lo, hi, best = 0, conc, None  # lo is served, hi is not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        found = _serving(facts, nodes, mid)
        if _within(facts, found):
            lo, best = mid, found
        else:
            hi = mid
    return (lo, best) if best is not None else None


def owned(facts: Facts) -> Owned | None:
    """What the nodes the customer has do with this request (None when they named none)."""
    nodes = facts.request.nodes_owned
    if nodes is None or facts.request.is_training:
        return None
    hw = terms.hardware(facts, nodes)
    bounded = facts.sized_for(facts.load.floored) or facts
    found = _served(bounded, nodes)
    if found is None:
        plain = _serving(facts, nodes, 1)
        if plain is None:
            fmt = precisions(facts)[-1]
            need = weights_bytes(facts.params, fmt, facts.policy, facts.model)
            room = nodes * facts.gpn * facts.gpu_bytes * facts.policy.max_weights_share
            said = msg("owned.no_fit", hardware=hw, model=terms.model_name(facts),
                       precision=terms.precision(fmt), weights=need, room=room,
                       share=facts.policy.max_weights_share)
            return Owned.of(nodes=nodes, gpus_per_node=facts.gpn, gpu=facts.gpu.id,
                            precision=None, served=0, concurrency=facts.concurrency,
                            per_user_tokens_per_s=None, ttft_s=None, said=said)
        plan = plain
        said = msg("owned.too_slow", hardware=hw, per_user=plan.per_user_tokens_per_s,
                   ttft=plan.ttft_s, precision=terms.precision(plan.precision))
        return Owned.of(nodes=nodes, gpus_per_node=facts.gpn, gpu=facts.gpu.id,
                        precision=plan.precision, served=0, concurrency=facts.concurrency,
                        per_user_tokens_per_s=round(plan.per_user_tokens_per_s, 2),
                        ttft_s=round(plan.ttft_s, 3), said=said)
    served, plan = found
    key = "owned.serves_all" if served >= facts.concurrency else "owned.serves_some"
    said = msg(key, hardware=hw, served=served, concurrency=facts.concurrency,
               per_user=plan.per_user_tokens_per_s, ttft=plan.ttft_s,
               precision=terms.precision(plan.precision),
               layout=terms.inference_layout(plan, nodes))
    return Owned.of(nodes=nodes, gpus_per_node=facts.gpn, gpu=facts.gpu.id,
                    precision=plan.precision, served=served, concurrency=facts.concurrency,
                    per_user_tokens_per_s=round(plan.per_user_tokens_per_s, 2),
                    ttft_s=round(plan.ttft_s, 3), said=said)


def owned_headline(o: Owned, rec: Recommendation) -> Message:
    """The headline with what the owned nodes do first, then what the whole load takes and
    the nodes that adds ("3 more" of the same node), or that what they have is enough. When
    the answer serves the whole load below what the work accepts and its alternatives say
    what meets that, the whole load is said at that figure: the owned nodes were weighed
    against it."""
    if o.served >= o.concurrency:
        if rec.gpus_per_node == o.gpus_per_node and rec.nodes < o.nodes:  # fewer would do
            return msg("headline.owned_spare", owned=o.said, headline=rec.headline,
                       spare=o.nodes - rec.nodes)
        return msg("headline.owned_enough", owned=o.said)
    whole: Message = rec.headline
    nodes, gpn = rec.nodes, rec.gpus_per_node
    floor = next((a for a in rec.alternatives if a.label.id == "alternative.floor"), None)
    if floor is not None:
        whole = msg("owned.whole_at", label=floor.label, summary=floor.summary)
        nodes = floor.nodes
    if gpn == o.gpus_per_node and nodes > o.nodes:
        return msg("headline.owned_more", owned=o.said, headline=whole, more=nodes - o.nodes)
    return msg("headline.owned", owned=o.said, headline=whole)
