"""Which attempt of which delivery the current thread is running: the turn's own context.

Why: a turn taken from the durable queue (``bot/ops/consumer.py``) may run more than once: after
its worker died, or after Slack or the store failed and the entry was put off. What a retry
must do differently is small and the same everywhere: the Web API looks for the messages an
earlier attempt may have posted before posting them (``bot/slack/written.py``), and a person is
told *once* that their answer waits, not at every attempt. So the consumer's handler
(``bot/slack/app.py``) sets a :class:`Work` for the thread while the pipeline runs, and the
few places that care read :func:`current`; flows keep their ``(face, turn, delivery)`` shape.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

__all__ = ["Work", "current", "running"]


@dataclass(frozen=True)
class Work:
    """One attempt at one delivery."""

    delivery_id: str | None = None
    replay: bool = False  # an earlier attempt may have written to Slack: look before posting
    attempt: int = 1  # 1: the first attempt this process makes
    queued_at: float = field(default_factory=time.time)  # when the delivery was recorded

    @property
    def first(self) -> bool:
        """The first attempt in this process: the one that tells a person their answer waits."""
        return self.attempt <= 1

    @property
    def age_s(self) -> float:
        """Seconds since the delivery was recorded (Slack's click or message, give or take)."""
        return max(0.0, time.time() - self.queued_at)


_local = threading.local()
_NONE = Work()


def current() -> Work:
    """The attempt running on this thread (a first attempt of nothing, outside a turn)."""
    work = getattr(_local, "work", None)
    return work if isinstance(work, Work) else _NONE


@contextmanager
def running(work: Work) -> Iterator[Work]:
    """Run the body as ``work`` (restoring what was there after)."""
    before = getattr(_local, "work", None)
    _local.work = work
    try:
        yield work
    finally:
        _local.work = before
