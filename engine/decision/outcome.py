"""What one question of the tree returns: its answer and evidence, and, for a yes, the plan.

Typed values only: the answer and its evidence are a :class:`engine.result.StepAnswer` (the
question and the evidence are messages with ids), and a "yes" carries the
:class:`Deployment` it recommends, with the caveats and assumptions that come with it. The
tree (engine/decision/tree.py) turns the first yes into the recommendation.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine.physics.inference import InferencePlan
from engine.physics.training import TrainingPlan
from engine.result import Layout, Numbers, Precision, StepAnswer, Verdict
from engine.wording import Message

__all__ = ["Deployment", "StepOutcome"]


@dataclass(frozen=True)
class Deployment:
    """What a "yes" deploys: the verdict, its hardware and layout, and its figures.

    ``nodes`` counts the nodes of one copy; ``replicas`` the copies (None when there is one,
    for a cluster; for replicas of one node, their number). ``plan`` is the serving or
    training layout it was sized on (None for a frontier estimate). ``crosses_nodes`` says
    whether the answer uses the inter-node link.
    """

    verdict: Verdict
    precision: Precision
    layout: Layout
    nodes: int
    replicas: int | None
    crosses_nodes: bool
    numbers: Numbers
    plan: InferencePlan | TrainingPlan | None = None

    def with_numbers(self, **update: object) -> Deployment:
        """The same deployment with some numbers filled in (e.g. the C16 comparison)."""
        return replace(self, numbers=self.numbers.model_copy(update=update))

    @property
    def total_nodes(self) -> int:
        """All nodes, every copy included."""
        if self.verdict == "replicas":
            return self.replicas or 1
        return self.nodes * (self.replicas or 1)


@dataclass(frozen=True)
class StepOutcome:
    """One question answered. ``deployment`` is set exactly when the answer is yes."""

    answer: StepAnswer
    deployment: Deployment | None = None
    caveats: tuple[Message, ...] = ()
    assumptions: tuple[Message, ...] = ()

    @property
    def closes(self) -> bool:
        return self.answer.answer == "yes"
