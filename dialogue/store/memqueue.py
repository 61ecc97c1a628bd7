"""The turn queue in process memory, for the console and Socket Mode in development.

Same semantics as :class:`dialogue.store.queue.RedisTurnQueue` (see its module docstring):
an atomic, retry-safe submit with a dedupe marker that exists iff the entry was added; each
entry handed as new once; pending entries per consumer, reclaimed after ``min_idle_ms``;
bounded by refusing (``QueueFull``), never by dropping. It is durable only as long as the
process lives, which is all one process can promise; the tests run the same scenarios
against both implementations.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from dialogue.store.queue import DEDUPE_TTL_S, MAXLEN, MIN_IDLE_MS, Entry, QueueFull, Submitted


@dataclass
class _Pending:
    consumer: str
    since: float  # last delivery, seconds (the clock's)


class MemoryTurnQueue:
    """Entries in an ordered dict, one group, guarded by one condition."""

    def __init__(self, *, maxlen: int = MAXLEN,
                 clock: Callable[[], float] = time.time) -> None:
        self.maxlen = maxlen
        self._clock = clock
        self._cond = threading.Condition()
        self._entries: OrderedDict[str, tuple[str, str]] = OrderedDict()  # id -> (delivery, p)
        self._undelivered: list[str] = []  # ids not yet handed as new, in order
        self._pending: dict[str, _Pending] = {}
        self._markers: dict[str, tuple[str, float]] = {}  # delivery -> (entry id, expires)
        self._seq = itertools.count()
        self._last_ms = 0

    def _next_id(self) -> str:
        ms = max(int(self._clock() * 1000), self._last_ms)
        self._last_ms = ms
        return f"{ms}-{next(self._seq)}"

    def submit(self, delivery_id: str, payload: str) -> Submitted:
        if not delivery_id:
            raise ValueError("a delivery needs an id")
        with self._cond:
            now = self._clock()
            got = self._markers.get(delivery_id)
            if got is not None and got[1] > now:
                return Submitted(got[0], fresh=False)
            if len(self._undelivered) + len(self._pending) >= self.maxlen:
                raise QueueFull(f"backlog at {self.maxlen}")
            entry_id = self._next_id()
            self._entries[entry_id] = (delivery_id, payload)
            self._undelivered.append(entry_id)
            self._markers[delivery_id] = (entry_id, now + DEDUPE_TTL_S)
            self._cond.notify_all()
            return Submitted(entry_id, fresh=True)

    def _entry(self, entry_id: str, redelivered: bool) -> Entry:
        delivery_id, payload = self._entries[entry_id]
        return Entry(entry_id, delivery_id, payload, redelivered)

    def take(self, consumer: str, count: int = 10, block_ms: int = 1000) -> list[Entry]:
        deadline = time.monotonic() + max(0, block_ms) / 1000
        with self._cond:
            while not self._undelivered:
                left = deadline - time.monotonic()
                if left <= 0:
                    return []
                self._cond.wait(left)
            ids, self._undelivered = self._undelivered[:count], self._undelivered[count:]
            now = self._clock()
            for entry_id in ids:
                self._pending[entry_id] = _Pending(consumer, now)
            return [self._entry(i, False) for i in ids]

    def pending(self, consumer: str, count: int = 100) -> list[Entry]:
        with self._cond:
            now = self._clock()
            ids = [i for i, p in self._pending.items() if p.consumer == consumer][:count]
            for entry_id in ids:
                self._pending[entry_id].since = now
            return [self._entry(i, True) for i in ids]

    def reclaim(self, consumer: str, min_idle_ms: int = MIN_IDLE_MS,
                count: int = 100) -> list[Entry]:
        with self._cond:
            now = self._clock()
            ids = [i for i, p in self._pending.items()
                   if (now - p.since) * 1000 >= min_idle_ms][:count]
            for entry_id in ids:
                self._pending[entry_id] = _Pending(consumer, now)
            return [self._entry(i, True) for i in ids]

    def ack(self, entry_id: str) -> bool:
        with self._cond:
            if self._pending.pop(entry_id, None) is None:
                return False
            self._entries.pop(entry_id, None)  # nothing else needs it: trimmed at once
            if len(self._markers) > 2 * self.maxlen:  # expired markers, pruned now and then
                now = self._clock()
                self._markers = {d: m for d, m in self._markers.items() if m[1] > now}
            return True

    def backlog(self) -> int:
        with self._cond:
            return len(self._undelivered) + len(self._pending)
