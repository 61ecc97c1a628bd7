"""One metric and one log line per delivery, whatever happens inside it.

Why a context manager around every flow: the turn's kind, outcome and duration are recorded
even when the flow returns early or fails; an unexpected exception (a defect, not bad input:
bad input is answered by the flows) is logged once with its traceback for the operators and
never raised further, so it cannot take a consumer thread down or be logged twice. A turn that
must wait (the store or Slack failing) is recorded as such and re-raised: the queue keeps its
delivery and retries it (``bot/ops/consumer.py``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from bot.ops import logs, metrics
from bot.ops.consumer import Later
from dialogue import Reply, StoreUnavailable

log = logging.getLogger(__name__)


@dataclass
class Turn:
    """What one delivery did, for the metric and the log line written when it ends."""

    kind: str
    outcome: str = "ignored"
    conversation_id: str = ""
    step: str = ""
    extra: dict[str, object] = field(default_factory=dict)
    told: bool = False  # the person was told this turn waits (once per attempt)

    def from_reply(self, reply: Reply) -> None:
        self.outcome = reply.kind
        self.conversation_id = reply.conversation_id
        self.step = reply.state

    def store_down(self) -> None:
        """The store could not be reached during this turn (counted once per turn)."""
        if self.outcome != "store_unavailable":
            metrics.redis_error()
        self.outcome = "store_unavailable"


@contextmanager
def recording(kind: str) -> Iterator[Turn]:
    """Time, count and log the turn; a defect is logged once and swallowed, while a turn that
    must wait (the store or Slack failing: ``StoreUnavailable``, ``Later``) is re-raised for
    the queue to retry it."""
    t = Turn(kind)
    started = time.perf_counter()
    try:
        yield t
    except StoreUnavailable:
        t.store_down()
        raise
    except Later:
        t.outcome = "waiting"
        raise
    except Exception:
        t.outcome = "error"
        log.error("turn failed", exc_info=True, extra={"json_fields": {"kind": kind}})
    finally:
        seconds = time.perf_counter() - started
        metrics.observe_turn(kind, t.outcome, seconds)
        logs.log_turn(conversation_id=t.conversation_id, step=t.step or "-", outcome=t.outcome,
                      duration_ms=seconds * 1000, kind=kind, **t.extra)
