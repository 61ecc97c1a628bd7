"""What the Slack face may truthfully say about its store: where it is, whether it is there,
and what it keeps across a crash.

Why: "nothing was lost" is only true when the store would still have the
conversation after ``kill -9``: Redis with an append-only file (``dialogue/store/health.py``
:attr:`Persistence.durable`). With snapshots only, with no persistence, or when the server
refuses to say (``CONFIG GET`` renamed on managed Redis), the bot says what is true instead;
without Redis (Socket Mode in development) conversations live in the process's memory. The
persistence is asked once at start (short timeouts) and again at most every
:data:`REFRESH_S`, on the asking thread, never on the ack path; a probe that fails keeps the
last known answer, so a Redis that just went down is still described by what it was.
"""

from __future__ import annotations

import threading
import time
from typing import Literal

from dialogue.store.connect import Link, Target, connect
from dialogue.store.health import Persistence, probe

Kind = Literal["aof", "rdb", "none", "unknown", "memory"]
REFRESH_S = 60.0
PROBE_TIMEOUT_S = 0.3


class StoreFacts:
    """The store's persistence as last seen (``target`` None: the process's memory)."""

    def __init__(self, target: Target | None) -> None:
        self.target = target
        self._lock = threading.Lock()
        self._link: Link | None = None
        self._known: Persistence | None = None
        self._up: bool | None = None
        self._checked = float("-inf")

    def check(self) -> tuple[bool | None, Kind]:
        """Probe now (when the last probe is older than a moment): (reachable, persistence)."""
        if self.target is None:
            return True, "memory"
        with self._lock:
            if time.monotonic() - self._checked >= 1.0:
                self._checked = time.monotonic()
                try:
                    if self._link is None:
                        self._link = connect(self.target, socket_timeout=PROBE_TIMEOUT_S,
                                             retries=0)
                    health = probe(self._link.client)
                except Exception:  # a cluster that cannot be reached at all
                    self._up = False
                else:
                    self._up = health.up
                    if health.up:
                        self._known = health.persistence
            return self._up, self._known.mode if self._known is not None else "unknown"

    def persistence(self) -> Kind:
        """What the store keeps across a crash, as last known (probing if that is stale)."""
        if self.target is None:
            return "memory"
        if time.monotonic() - self._checked >= REFRESH_S:
            return self.check()[1]
        with self._lock:
            return self._known.mode if self._known is not None else "unknown"

    @property
    def durable(self) -> bool:
        """A store killed -9 and restarted still has every acknowledged write."""
        return self.persistence() == "aof"

    def close(self) -> None:
        if self._link is not None:
            self._link.close()
