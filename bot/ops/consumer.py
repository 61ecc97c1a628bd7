"""A worker's consumers of the durable turn queue: take, apply, acknowledge; reclaim the dead's.

Why (``docs/architecture.md``, "How one turn flows", step 2; ``dialogue/store/queue.py``): the
listener only records a delivery and acks Slack; the turn itself is applied here, by any worker,
and acknowledged (``XACK``) only once applied. So a worker killed mid-turn loses nothing: its
entry stays pending and a consumer of another worker reclaims it after ``min_idle_ms``.

Each thread is its own consumer of the group (``<name>-<i>``), handling one entry at a time:

* new entries come from ``take`` (``XREADGROUP >``, blocking half a second at most);
* after any store error, every ``sweep_s``, and when an entry it put off is due, it re-reads its
  *own* pending entries (a read whose reply was lost hands entries to this consumer that it
  never saw), then reclaims those of consumers idle for ``min_idle_ms`` (``XAUTOCLAIM``);
* an entry is acknowledged after ``handle`` returns. If ``handle`` raises :class:`Later` (or
  ``StoreUnavailable``: the store is down) the entry is *put off*: it stays pending and this
  thread retries it after a back-off (:data:`BACKOFF_S`, doubling up to :data:`MAX_BACKOFF_S`),
  taking new entries meanwhile. Any other exception is logged in one line and the entry is
  retried up to :data:`MAX_ATTEMPTS` times by this process, then acknowledged and logged as
  dropped, so one poisonous delivery cannot loop forever.

**A live worker keeps its entries.** ``XAUTOCLAIM`` takes an entry whose last delivery is older
than ``min_idle_ms``; a turn that waits on a slow Slack, or an entry put off, must not be taken
by another worker while its owner lives (two workers on one turn could both post). So a
heartbeat thread re-reads every consumer's own pending entries every ``heartbeat_s``
(``XREADGROUP ... 0`` resets their idle time: Redis's own primitive, no lease of ours), and only
a dead worker's entries grow idle. ``min_idle_ms`` can then be short (seconds): a killed worker's
turns are finished by another worker a few seconds later.

``handle`` must be idempotent (a replayed entry is normal); the dialogue's delivery ids make it
so (``dialogue/store/base.py``), and the Slack face looks for what it already posted
(``bot/slack/written.py``). :meth:`TurnConsumer.stop` stops taking and lets each thread finish
the entry it holds, for the graceful shutdown of ``bot/ops/asgi.py``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from dialogue.errors import StoreUnavailable
from dialogue.store.queue import MIN_IDLE_MS, Entry, TurnQueue

__all__ = ["BACKOFF_S", "MAX_ATTEMPTS", "MAX_BACKOFF_S", "Later", "TurnConsumer"]

_log = logging.getLogger(__name__)

MAX_ATTEMPTS = 3
BACKOFF_S = 0.2  # after a store error of the queue itself, and the first put-off of an entry
MAX_BACKOFF_S = 5.0


class Later(Exception):
    """Raised by a handler: the turn cannot finish now (a service it needs is failing); keep
    the entry pending and retry it after a back-off. Not counted as a failure."""


class TurnConsumer:
    """``threads`` consumer threads feeding ``handle`` from ``queue``."""

    def __init__(
        self,
        queue: TurnQueue,
        handle: Callable[[Entry], None],
        *,
        name: str,
        threads: int = 4,
        min_idle_ms: int = MIN_IDLE_MS,
        sweep_s: float = 5.0,
        block_ms: int = 500,
        heartbeat_s: float | None = None,
    ) -> None:
        self.queue = queue
        self.handle = handle
        self.name = name
        self.min_idle_ms = min_idle_ms
        self.sweep_s = sweep_s
        self.block_ms = block_ms
        self.heartbeat_s = heartbeat_s if heartbeat_s is not None else min_idle_ms / 3000
        self._count = threads
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._attempts: dict[str, int] = {}
        self._lock = threading.Lock()

    @property
    def consumers(self) -> list[str]:
        """The group consumer names of this worker's threads."""
        return [f"{self.name}-{i}" for i in range(self._count)]

    def start(self) -> None:
        """Start the threads (once: a second call does nothing)."""
        with self._lock:
            if self._threads:
                return
            for i, consumer in enumerate(self.consumers):
                thread = threading.Thread(target=self._loop, args=(consumer,),
                                          name=f"turns-{i}", daemon=True)
                thread.start()
                self._threads.append(thread)
            beat = threading.Thread(target=self._heartbeat, name="turns-heartbeat", daemon=True)
            beat.start()
            self._threads.append(beat)

    def stop(self, timeout: float = 30.0) -> None:
        """Take nothing more; wait for the entries being handled (bounded by ``timeout``)."""
        self._stop.set()
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))

    # -- the loops --------------------------------------------------------------------------

    def _heartbeat(self) -> None:
        """Keep this worker's pending entries fresh, so no live worker's turn is reclaimed."""
        while not self._stop.wait(max(0.05, self.heartbeat_s)):
            for consumer in self.consumers:
                try:
                    self.queue.pending(consumer)
                except Exception as exc:  # the store is down: the next beat tries again
                    _log.debug("heartbeat skipped", extra={"json_fields": {
                        "event": "consumer_heartbeat", "error": type(exc).__name__}})
                    break

    def _loop(self, consumer: str) -> None:
        check_own = True
        last_sweep = time.monotonic()
        due: dict[str, float] = {}  # entries put off -> when they may be retried (monotonic)
        put_off: dict[str, int] = {}  # entries put off -> how many times in a row
        while not self._stop.is_set():
            try:
                now = time.monotonic()
                if (check_own or now - last_sweep >= self.sweep_s
                        or any(when <= now for when in due.values())):
                    found = self.queue.pending(consumer)
                    found += self.queue.reclaim(consumer, self.min_idle_ms)
                    check_own = False
                    last_sweep = now
                    ids = {e.entry_id for e in found}
                    for gone in [i for i in due if i not in ids]:  # acknowledged or taken over
                        due.pop(gone, None)
                        put_off.pop(gone, None)
                    entries = [e for e in found if due.get(e.entry_id, 0.0) <= now]
                else:
                    wait_ms = self.block_ms
                    if due:
                        wait_ms = min(wait_ms, int(1000 * (min(due.values()) - now)) + 1)
                    entries = self.queue.take(consumer, count=1, block_ms=max(1, wait_ms))
                for entry in entries:
                    if self._stop.is_set():
                        break  # left pending: reclaimed by another worker, or by our successor
                    verdict = self._run(entry)
                    if verdict == "done":
                        due.pop(entry.entry_id, None)
                        put_off.pop(entry.entry_id, None)
                        continue
                    n = put_off[entry.entry_id] = put_off.get(entry.entry_id, 0) + 1
                    delay = BACKOFF_S if verdict == "retry" else min(
                        MAX_BACKOFF_S, BACKOFF_S * (2 ** n))
                    due[entry.entry_id] = time.monotonic() + delay
            except StoreUnavailable:
                check_own = True
                self._stop.wait(BACKOFF_S)
            except Exception as exc:  # a bug of ours must not end the consumer
                _log.error("turn consumer failed", extra={"json_fields": {
                    "event": "consumer_error", "error": type(exc).__name__}})
                check_own = True
                self._stop.wait(BACKOFF_S)

    def _run(self, entry: Entry) -> str:
        """Handle and acknowledge one entry: "done", "later" (put off) or "retry" (failed)."""
        try:
            self.handle(entry)
        except (Later, StoreUnavailable) as exc:
            _log.info("turn put off; it will be retried", extra={"json_fields": {
                "event": "turn_later", "entry": entry.entry_id, "delivery_id": entry.delivery_id,
                "why": type(exc).__name__}})
            return "later"
        except Exception as exc:
            with self._lock:
                tries = self._attempts[entry.entry_id] = self._attempts.get(entry.entry_id, 0) + 1
            fields = {"event": "turn_failed", "entry": entry.entry_id,
                      "delivery_id": entry.delivery_id, "attempt": tries,
                      "error": type(exc).__name__}
            if tries < MAX_ATTEMPTS:
                _log.error("turn failed; it will be retried", extra={"json_fields": fields})
                return "retry"  # left pending; this consumer retries it shortly
            _log.error("turn failed too often; dropped", extra={"json_fields": fields})
        with self._lock:
            self._attempts.pop(entry.entry_id, None)
        try:
            self.queue.ack(entry.entry_id)
        except StoreUnavailable:
            return "later"  # seen again as pending; the handler's idempotence makes it a no-op
        return "done"
