"""A worker's consumers of the durable turn queue: take, apply, acknowledge; reclaim the dead's.

Why (``docs/architecture.md``, "How one turn flows", step 2; ``dialogue/store/queue.py``): the
listener only records a delivery and acks Slack; the turn itself is applied here, by any worker,
and acknowledged (``XACK``) only once applied. So a worker killed mid-turn loses nothing: its
entry stays pending and a consumer of another worker reclaims it after ``min_idle_ms``.

Each thread is its own consumer of the group (``<name>-<i>``), handling one entry at a time:

* new entries come from ``take`` (``XREADGROUP >``, blocking half a second at most);
* after any store error, and every ``sweep_s``, it first re-reads its *own* pending entries (a
  read whose reply was lost hands entries to this consumer that it never saw), then reclaims
  those of consumers idle for ``min_idle_ms`` (``XAUTOCLAIM``);
* an entry is acknowledged after ``handle`` returns. If ``handle`` raises ``StoreUnavailable``
  the entry stays pending (the store is down: it will be retried); any other exception is
  logged in one line and the entry is retried up to :data:`MAX_ATTEMPTS` times by this process,
  then acknowledged and logged as dropped, so one poisonous delivery cannot loop forever.

``handle`` must be idempotent (a replayed entry is normal); the dialogue's delivery ids make it
so (``dialogue/store/base.py``). :meth:`TurnConsumer.stop` stops taking and lets each thread
finish the entry it holds, for the graceful shutdown of ``bot/ops/asgi.py``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from dialogue.errors import StoreUnavailable
from dialogue.store.queue import MIN_IDLE_MS, Entry, TurnQueue

__all__ = ["MAX_ATTEMPTS", "TurnConsumer"]

_log = logging.getLogger(__name__)

MAX_ATTEMPTS = 3
BACKOFF_S = 0.2


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
    ) -> None:
        self.queue = queue
        self.handle = handle
        self.name = name
        self.min_idle_ms = min_idle_ms
        self.sweep_s = sweep_s
        self.block_ms = block_ms
        self._count = threads
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._attempts: dict[str, int] = {}
        self._lock = threading.Lock()

    def start(self) -> None:
        """Start the threads (once: a second call does nothing)."""
        with self._lock:
            if self._threads:
                return
            self._start()

    def _start(self) -> None:
        for i in range(self._count):
            thread = threading.Thread(target=self._loop, args=(f"{self.name}-{i}",),
                                      name=f"turns-{i}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self, timeout: float = 30.0) -> None:
        """Take nothing more; wait for the entries being handled (bounded by ``timeout``)."""
        self._stop.set()
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))

    def _loop(self, consumer: str) -> None:
        check_own = True
        last_sweep = time.monotonic()
        while not self._stop.is_set():
            try:
                if check_own or time.monotonic() - last_sweep >= self.sweep_s:
                    entries = self.queue.pending(consumer)
                    entries += self.queue.reclaim(consumer, self.min_idle_ms)
                    check_own = False
                    last_sweep = time.monotonic()
                else:
                    entries = self.queue.take(consumer, count=1, block_ms=self.block_ms)
                for entry in entries:
                    if self._stop.is_set():
                        break  # left pending: reclaimed by another worker, or by our successor
                    if not self._run(entry):
                        check_own = True
                        break
            except StoreUnavailable:
                check_own = True
                self._stop.wait(BACKOFF_S)
            except Exception as exc:  # a bug of ours must not end the consumer
                _log.error("turn consumer failed", extra={"json_fields": {
                    "event": "consumer_error", "error": type(exc).__name__}})
                check_own = True
                self._stop.wait(BACKOFF_S)

    def _run(self, entry: Entry) -> bool:
        """Handle and acknowledge one entry; False when the store failed (retry later)."""
        try:
            self.handle(entry)
        except StoreUnavailable:
            return False
        except Exception as exc:
            with self._lock:
                tries = self._attempts[entry.entry_id] = self._attempts.get(entry.entry_id, 0) + 1
            fields = {"event": "turn_failed", "entry": entry.entry_id,
                      "delivery_id": entry.delivery_id, "attempt": tries,
                      "error": type(exc).__name__}
            if tries < MAX_ATTEMPTS:
                _log.error("turn failed; it will be retried", extra={"json_fields": fields})
                return True  # left pending; this consumer's next sweep retries it
            _log.error("turn failed too often; dropped", extra={"json_fields": fields})
        with self._lock:
            self._attempts.pop(entry.entry_id, None)
        try:
            self.queue.ack(entry.entry_id)
        except StoreUnavailable:
            return False  # seen again as pending; the handler's idempotence makes it a no-op
        return True
