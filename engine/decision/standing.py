"""What the person asked against what the bot assumed: which one sizes the hardware.

A target the person stated is a requirement: the tree sizes for it (engine/decision/load.py).
Two other per-user figures are weighed without ever multiplying the hardware on their own:

* the **preference**, a comfortable reading speed the bot assumed where the person gave
  none: the answer is sized for it when that costs no more hardware (no more nodes, no later
  step of the tree: no 4-bit weights, no cluster) than the requirements alone;
* the **floors** of the kind of work (chat: 10 tok/s per user, a first token within 10 s;
  engine/data/work.toml): when the preference costs more, the answer is sized for them if
  that costs no more; otherwise the answer is the smallest that serves the load, its headline
  says what it misses (engine/decision/shortfall.py), and what meets the floors is the first
  alternative.

Whichever sizes it, the answer shows the knee ("at 14 tok/s per user one node serves all 64;
the 20 tok/s assumed would take 2") and the bigger deployment among its alternatives, so a
person who wants that speed says so in one click, and a face can ask (``Recommendation.knee``).

Why here and not in each question: the tree's questions stay as the article asks them, on one
set of bounds; this module walks the tree on the preference, and only when that answer is
bigger than one node at the first step, on the floors and on the requirements, and compares.
"""

from __future__ import annotations

from engine.decision import trap
from engine.decision.alternatives import summary
from engine.decision.facts import Facts
from engine.physics.inference import Bounds
from engine.result import Alternative, Knee, Recommendation, verdict_name
from engine.wording import Message, msg

__all__ = ["decided"]


def _gpus(rec: Recommendation) -> int:
    return rec.numbers.gpus_needed or rec.nodes * rec.gpus_per_node


def _meets(rec: Recommendation, bounds: Bounds) -> bool:
    """Whether an answer's figures meet the bounds it was sized for (as shown, rounded)."""
    n = rec.numbers
    speed, ttft = n.per_user_tokens_per_s, n.ttft_s
    if bounds.tokens_per_s is not None and (speed is None
                                            or speed < bounds.tokens_per_s * (1 - 1e-3)):
        return False
    return bounds.ttft_s is None or (ttft is not None and ttft <= bounds.ttft_s * (1 + 1e-3))


def _no_bigger(preferred: Recommendation, required: Recommendation, *,
               four_bit: bool = False) -> bool:
    """Whether the preferred answer takes no more hardware than the required one: no more
    nodes, and no later step (replicas, a cluster; 4-bit weights too, unless ``four_bit``:
    the floors of the work take 4-bit weights on the same node over a service too slow to
    use, as the article's step 2 does, when the person allows them)."""
    if preferred.nodes > required.nodes:
        return False
    if four_bit and preferred.nodes == required.nodes and {preferred.step, required.step} \
            <= {1, 2}:
        return True
    return preferred.step <= required.step


def _wasteful(rec: Recommendation, concurrency: int) -> bool:
    """Copies that each serve fewer requests than the GPUs they hold (100 nodes of 8 GPUs
    for 200 people): a speed this GPU reaches only by leaving most of each node idle. It is
    said (the knee), never offered: the alternatives' room goes to other GPUs, which may
    reach it whole."""
    copies = rec.replicas or 1
    return rec.verdict == "replicas" and concurrency < copies * rec.gpus_per_node


def _option(kind_label: Message, rec: Recommendation) -> Alternative:
    """A bigger answer, sized for a per-user figure the bot assumed, as an alternative."""
    return Alternative.of(
        kind="speed", label=kind_label, verdict=rec.verdict, gpu=rec.gpu, nodes=rec.nodes,
        precision=rec.precision, layout=rec.layout,
        summary=summary(rec.verdict, rec.nodes, rec.numbers, rec.gpus_per_node),
        numbers=rec.numbers)


def _knee(facts: Facts, rec: Recommendation, preferred: Recommendation,
          speed: float) -> tuple[Knee, Message]:
    got = rec.numbers.per_user_tokens_per_s or 0.0
    knee = Knee.of(assumed_tokens_per_s=speed, tokens_per_s=got, nodes=rec.nodes,
                   gpus=_gpus(rec), preferred_nodes=preferred.nodes,
                   preferred_gpus=_gpus(preferred))
    said = msg("caveat.knee", per_user=got, concurrency=facts.concurrency, nodes=rec.nodes,
               gpus=_gpus(rec), preferred=speed, preferred_nodes=preferred.nodes,
               preferred_gpus=_gpus(preferred),
               preferred_answer=verdict_name(preferred.verdict, preferred.gpus_per_node))
    return knee, said


def decided(facts: Facts) -> tuple[Facts, Recommendation]:
    """The recommendation for ``facts``: sized for the preference when it costs nothing
    more, else for the work's floors when they cost nothing more, else for what was asked;
    the knee and the bigger answers said. With the facts it was decided on."""
    hoped = facts.sized_for(facts.load.preferred, checked=False)
    asked: tuple[Facts, Recommendation] | None = None
    if hoped is not None:  # the common case first: one node meets the preference
        pf, prec = trap.decided(hoped)
        if prec.nodes == 1 and prec.step == 1 and _meets(prec, hoped.bounds):
            return pf, prec  # nothing smaller than one node at the first step
    else:  # nothing assumed: what was asked, then the floors taken whole
        asked = trap.decided(facts)
        floored = facts.load.floored
        if asked[1].nodes == 1 and asked[1].step == 1 and (
                floored is None or _meets(asked[1], floored)):
            return asked  # one node at the first step already serves as the work needs
        whole = facts.sized_for(floored, checked=False)
        if whole is not None:
            ff, frec = trap.decided(whole)
            if frec.nodes == 1 and frec.step == 1 and _meets(frec, whole.bounds):
                return ff, frec
    preferring = facts.sized_for(facts.load.preferred)
    if preferring is not None and preferring.bounds != (hoped.bounds if hoped else None):
        pf, prec = trap.decided(preferring)
        if prec.nodes == 1 and prec.step == 1:
            return pf, prec
    flooring = facts.sized_for(facts.load.floored)
    if preferring is None and flooring is None:
        return asked or trap.decided(facts)
    rf, rec = asked or trap.decided(facts)
    if preferring is not None and _no_bigger(prec, rec):
        return pf, prec
    chosen_facts, chosen = rf, rec
    extra: list[Alternative] = []
    if flooring is not None:
        ff, frec = trap.decided(flooring)
        if _no_bigger(frec, rec, four_bit=True):
            chosen_facts, chosen = ff, frec
        else:
            floor = facts.floors.tokens_per_s
            label = msg("alternative.floor", per_user=floor, work=msg(f"work.{facts.work.id}"))
            extra.append(_option(label, frec))
    caveats = list(chosen.caveats)
    knee: Knee | None = None
    speed = preferring.bounds.tokens_per_s if preferring is not None else None
    if speed is not None:  # the speed the bot assumed, and what it would take
        knee, said = _knee(facts, chosen, prec, speed)
        caveats.insert(0, said)
        if not _wasteful(prec, facts.concurrency):
            extra.append(_option(msg("alternative.speed", per_user=speed), prec))
    return chosen_facts, chosen.model_copy(update={
        "caveats": caveats, "knee": knee, "alternatives": [*chosen.alternatives, *extra]})
