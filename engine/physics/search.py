"""Which layout serves best, and which comes next, timing as few layouts as the answer allows.

A search weighs every layout that fits (engine/physics/inference.py) and most of them lose.
Timing one in full costs three steps (a decode step, a prefill, a mixed step); its
*ceiling* (engine/physics/serving.py ``ceiling``: the decode step and the mixed step's GEMMs)
costs about one, and is a true upper bound on what full timing can find. Two rules decide
what is timed:

* **Without bounds** (the most tokens/s): layouts are taken from the highest memory ceiling
  down (``InferencePlan.bound``), the search ending at the first whose memory ceiling the
  best found already reaches, as it always has; a layout before that point whose ceiling
  the best already reaches is passed over, since it cannot become the best. The memory
  ceiling is a heuristic (pipelined layouts can beat it: the decode step reads a stage's
  weights per micro-batch), so the point where the search ends is kept exactly as it was:
  the layouts it looks at, and its answer, are the ones timing every looked-at layout
  gives.
* **With bounds** (the most tokens/s among the layouts that meet them, else among all):
  every layout's ceiling is taken first, and layouts are timed best ceiling first; one that
  cannot meet the bounds (its per-user ceiling or first-token floor says so) stops counting
  once one meets them, and any layout stops counting once its ceiling is below the best.
  The answer is the one timing every layout gives.

:func:`next_best` finds the runner-up of a search by the same rules: the best of the other
layouts the search looked at, and, past the point where it ended, any layout whose memory
ceiling is above the best of those, as the runner-up always has.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from engine.physics.plans import Bounds, InferencePlan
from engine.physics.serving import Ceiling

__all__ = ["best_of", "next_best"]

Time = Callable[[InferencePlan], InferencePlan]
#: Works out a plan's ceilings, setting its ``ceiling``.
Cap = Callable[[InferencePlan], Ceiling]


def _bound(p: InferencePlan, cap: Cap) -> float:
    """An upper bound on ``p``'s tokens/s: its ceiling (its tokens/s once timed)."""
    if p.serving is not None:
        return p.tokens_per_s
    if p.caps is None:
        cap(p)
    return p.ceiling


def _time_above(plans: list[InferencePlan], time: Time, cap: Cap, *, strict: bool) -> float:
    """Time, highest ceiling first, every plan that could still have the most tokens/s of
    ``plans`` (a ceiling at least the best timed; above it when ``strict``); the best."""
    top = max((p.tokens_per_s for p in plans if p.serving is not None), default=-math.inf)
    while True:
        maybe = [p for p in plans if p.serving is None
                 and ((b := _bound(p, cap)) > top or (not strict and b >= top))]
        if not maybe:
            return top
        top = max(top, time(max(maybe, key=lambda p: p.ceiling)).tokens_per_s)


def _better(p: InferencePlan, best: InferencePlan | None) -> bool:
    """More tokens/s, then the shallower pipeline."""
    return best is None or (p.tokens_per_s, -p.pp) > (best.tokens_per_s, -best.pp)


def _by_memory(fitting: list[InferencePlan]) -> list[InferencePlan]:
    return sorted(fitting, key=lambda p: -p.bound)


def _looked_at(fitting: list[InferencePlan], time: Time, cap: Cap
               ) -> tuple[InferencePlan, list[InferencePlan], list[InferencePlan]]:
    """The search without bounds: (best, the layouts it looked at, those past its end).

    The layouts looked at are those before the first whose memory ceiling the best of the
    ones before it reaches. Whether the best reaches it is settled on ceilings where they
    suffice (every ceiling below it: no), timing the most promising layouts only when they
    do not; the best of those looked at is then the one that could beat every other."""
    order = _by_memory(fitting)

    def reaches(seen: list[InferencePlan], level: float) -> bool:
        """Whether the best of ``seen`` has at least ``level`` tokens/s."""
        while True:
            if any(p.serving is not None and p.tokens_per_s >= level for p in seen):
                return True
            maybe = [p for p in seen if p.serving is None and _bound(p, cap) >= level]
            if not maybe:
                return False
            time(max(maybe, key=lambda p: p.ceiling))

    k = len(order)
    for i in range(1, len(order)):
        if reaches(order[:i], order[i].bound):
            k = i
            break
    seen = order[:k]
    _time_above(seen, time, cap, strict=False)
    best: InferencePlan | None = None
    for p in seen:
        if p.serving is not None and _better(p, best):
            best = p
    assert best is not None
    return best, seen, order[k:]


def _bounded(fitting: list[InferencePlan], bounds: Bounds, time: Time, cap: Cap
             ) -> InferencePlan:
    """The search with bounds: best ceiling first, over every layout's ceiling."""
    capped = {id(p): cap(p) for p in fitting if p.serving is None}

    def may_meet(p: InferencePlan) -> bool:
        if p.serving is not None:
            return bounds.met(p.serving)
        c = capped[id(p)]
        if bounds.tokens_per_s is not None and c.per_user_tokens_per_s < bounds.tokens_per_s:
            return False
        return bounds.ttft_s is None or c.ttft_s is None or c.ttft_s <= bounds.ttft_s

    def top(p: InferencePlan) -> float:
        return p.tokens_per_s if p.serving is not None else p.ceiling

    best: InferencePlan | None = None  # of those timed
    meeting: InferencePlan | None = None  # of those timed that meet the bounds
    pending = [p for p in fitting if p.serving is None]
    for p in fitting:
        if p.serving is not None:
            best = p if _better(p, best) else best
            if bounds.met(p.serving) and _better(p, meeting):
                meeting = p

    def counts(p: InferencePlan) -> bool:
        """Whether timing ``p`` can still change the answer."""
        if meeting is not None:
            return may_meet(p) and top(p) > meeting.tokens_per_s
        return may_meet(p) or best is None or top(p) > best.tokens_per_s

    while True:
        pending = [p for p in pending if counts(p)]
        if not pending:
            break
        p = max(pending, key=top)
        time(p)
        pending.remove(p)
        assert p.serving is not None  # a fitting plan is always timed
        if _better(p, best):
            best = p
        if bounds.met(p.serving) and _better(p, meeting):
            meeting = p
    if meeting is not None:
        return meeting
    assert best is not None
    return best


def best_of(fitting: list[InferencePlan], bounds: Bounds, time: Time, cap: Cap
            ) -> InferencePlan:
    """The best of the fitting layouts ``fitting`` (non-empty), timing them with ``time``
    and bounding them with ``cap`` (which sets ``InferencePlan.ceiling``)."""
    if bounds.any:
        return _bounded(fitting, bounds, time, cap)
    return _looked_at(fitting, time, cap)[0]


def next_best(chosen: InferencePlan, fitting: list[InferencePlan], bounds: Bounds,
              time: Time, cap: Cap) -> InferencePlan | None:
    """The runner-up of the search over ``fitting`` that chose ``chosen``: the layout with
    the most tokens/s among the others the search looked at (every layout, with bounds),
    and those past its end whose memory ceiling is above the best of them."""
    past: list[InferencePlan] = []
    if bounds.any:
        seen = fitting
    else:
        _, seen, past = _looked_at(fitting, time, cap)
    others = [p for p in seen if p is not chosen]
    # the best of the others looked at: timed, or passed over with a ceiling below it
    top = max(_time_above(others, time, cap, strict=True), 0.0)
    ranked = [p for p in _by_memory(others) if p.serving is not None]
    for p in past:
        if p is not chosen and p.bound > top:
            time(p)
            top = max(top, p.tokens_per_s)
            ranked.append(p)
    if not ranked:
        return None
    ranked = _by_memory(ranked)
    return max(ranked, key=lambda p: p.tokens_per_s)
