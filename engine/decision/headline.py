"""The headline: the answer in one sentence, as a card's title or the CLI's first line.

It names the hardware, the model and the work, and for serving the precision and the load;
a frontier answer names the GPUs it would take. Nothing in it is not elsewhere in the
answer: it is the verdict said plainly.
"""

from __future__ import annotations

from engine.decision import terms
from engine.decision.facts import Facts
from engine.decision.outcome import Deployment
from engine.wording import Message, msg

__all__ = ["headline"]


def headline(facts: Facts, d: Deployment) -> Message:
    """One sentence for ``d``, the deployment the tree's first yes recommends."""
    common = dict(model=terms.model_name(facts), workload=terms.workload(facts.request.workload))
    hw = terms.hardware(facts)
    if d.verdict in ("single_node", "single_node_int4"):
        if facts.request.is_training:
            return msg("headline.single_training", hardware=hw, **common)
        return msg("headline.single", hardware=hw, precision=terms.precision(d.precision),
                   load=terms.load(facts), **common)
    if d.verdict == "replicas":
        return msg("headline.replicas", copies=d.replicas or 1, hardware=hw, **common)
    if d.verdict == "multi_node":
        if d.replicas:
            return msg("headline.multi_node_copies", nodes=d.nodes, copies=d.replicas,
                       hardware=hw, link=facts.link.name, **common)
        return msg("headline.multi_node", nodes=d.nodes, hardware=hw, link=facts.link.name,
                   **common)
    return msg("headline.frontier", gpus=d.numbers.gpus_needed or 0, **common)
