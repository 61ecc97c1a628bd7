"""Redis outages in the logs: one WARNING when Redis goes away, one INFO when it is back.

Why an edge detector: during an outage every turn fails the same way, and a WARNING per failed
command (or per turn: each is already an INFO turn line with ``store_unavailable``) would bury
the one line an operator needs, while INFO turn lines alone would hide that an outage began.
So the process remembers whether Redis was last seen up or down, and
logs only a change: down (``event: redis_outage``, ``state: down``, the error's type) at
WARNING, up again (with how long it was down) at INFO.

Where an outage is met, :func:`redis_seen` is called: by the health probe thread of each
worker (``bot/ops/health.py``, every second) and by every Redis command the store and the queue
send (``bot/ops/redistiming.py``: the command that fails is the one whose error becomes
``StoreUnavailable``, ``dialogue/store/connect.py``), so the WARNING is written by whichever
sees the outage first, and once. The state is per process: each worker of each pod writes its
own pair of lines.
"""

from __future__ import annotations

import logging
import threading
import time

__all__ = ["redis_seen", "state"]

_log = logging.getLogger("bot.redis")
_lock = threading.Lock()
_up: bool | None = None  # None: not seen yet in this process
_since = 0.0


def redis_seen(up: bool, error: str = "", where: str = "") -> None:
    """Redis answered (``up``) or failed as an outage does (``error``: the exception's type).

    Cheap when nothing changes (every Redis command calls it); never raises."""
    global _up, _since
    if up and _up is True:  # the common case, without the lock
        return
    try:
        with _lock:
            if up == _up:
                return
            before, now = _up, time.monotonic()
            _up, down_for = up, now - _since
            _since = now
        fields: dict[str, object] = {"event": "redis_outage", "state": "up" if up else "down"}
        if where:
            fields["where"] = where
        if not up:
            fields["error"] = error or "unknown"
            _log.warning("redis unreachable: turns are answered with 'try again, nothing was"
                         " lost' until it is back (logged once per outage)",
                         extra={"json_fields": fields})
        elif before is False:
            fields["down_s"] = round(down_for, 1)
            _log.info("redis reachable again", extra={"json_fields": fields})
    except Exception:  # logging must never break the command that reported
        return


def state() -> bool | None:
    """Whether Redis was last seen up (None: not yet in this process)."""
    return _up


def _reset_for_tests() -> None:
    global _up, _since
    with _lock:
        _up, _since = None, 0.0
