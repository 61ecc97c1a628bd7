"""Each worker's view of Redis: reachable, and persistent; reported, never used to drop traffic.

Why: readiness means "this process can answer". When Redis is
down the bot still answers Slack (with its "nothing was lost, try again" note, or by queueing),
which is far better than every pod leaving the Service and Slack getting 5xx from the ingress.
So Redis health is *reported*: in the readiness body, as ``gpubot_redis_up`` and
``gpubot_redis_persistence{mode}``, and, for persistence, in one WARNING line at start-up
(:func:`startup_check`, run once by the server's master process) when a Redis killed -9 would
lose conversations.

A probe is a blocking PING (and ``CONFIG GET``) with 0.5 s timeouts: it runs on a daemon thread
of its own every :data:`INTERVAL_S`, never on the event loop and never on a request's thread,
so a hung Redis cannot slow ``/readyz`` or ``/healthz``. Each probe also tells
:func:`bot.ops.outage.redis_seen` what it found, so an outage is logged at WARNING once (and its
end at INFO) even when no turn is running.

The same thread applies the audit trail's retention every :data:`RETENTION_INTERVAL_S`
(``dialogue/store/redisaudit.py``): a worker that runs for months without a restart still
drops the records older than ``AUDIT_RETENTION_DAYS``, including the finished sizings that the
conversation's own script appends without trimming.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from bot.ops import metrics, outage
from dialogue.store.connect import Link, Target, connect, parse
from dialogue.store.health import Health, Persistence, probe
from dialogue.store.redis import RedisStore

if TYPE_CHECKING:
    from bot.ops.settings import Settings

__all__ = ["RedisMonitor", "redis_target", "startup_check"]

_log = logging.getLogger(__name__)

INTERVAL_S = 1.0
PROBE_TIMEOUT_S = 0.5
RETENTION_INTERVAL_S = 3600.0


def redis_target(settings: Settings) -> Target | None:
    """Where Redis is, from REDIS_URL with REDIS_SENTINELS / REDIS_CLUSTER (None if unset).

    The one reading of those settings: the store, the queue and this monitor connect with
    ``dialogue.store.connect.connect(redis_target(settings))``."""
    if not settings.redis_url:
        return None
    return parse(settings.redis_url, sentinels=list(getattr(settings, "redis_sentinels", [])),
                 cluster=bool(getattr(settings, "redis_cluster", False)))


class RedisMonitor:
    """Probes Redis every :data:`INTERVAL_S` on a daemon thread; :meth:`report` reads the last."""

    def __init__(self, target: Target | None, *, interval_s: float = INTERVAL_S,
                 retention_interval_s: float = RETENTION_INTERVAL_S) -> None:
        self._target = target
        self._interval = interval_s
        self._retention_interval = retention_interval_s
        self._retention_due = time.monotonic() + retention_interval_s
        self._lock = threading.Lock()
        self._last: Health | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._link: Link | None = None

    def start(self) -> None:
        if self._target is None or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="redis-health", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2 * PROBE_TIMEOUT_S + 1)
        if self._link is not None:
            self._link.close()

    def check_now(self, *, record: bool = True) -> Health | None:
        """One probe, on the calling thread; ``record``: set the gauges (never in the master,
        which must not build metric objects before the workers fork: ``bot/ops/metrics.py``)."""
        if self._target is None:
            return None
        try:
            if self._link is None:
                self._link = connect(self._target, socket_timeout=PROBE_TIMEOUT_S, retries=0)
            health = probe(self._link.client)
        except Exception as exc:  # a cluster that cannot be reached at all, a bad URL
            health = Health(False, type(exc).__name__, Persistence("unknown", "unreachable"))
        with self._lock:
            self._last = health
        if record:
            metrics.redis_health(health.up, health.persistence.mode)
            outage.redis_seen(health.up, health.error, self._target.describe())
        return health

    def _run(self) -> None:
        while not self._stop.is_set():
            health = self.check_now()
            if health is not None and health.up and time.monotonic() >= self._retention_due:
                self.apply_retention()
            self._stop.wait(self._interval)

    def apply_retention(self) -> int | None:
        """Trim the audit trail to its retention now; how much went (None: it failed)."""
        self._retention_due = time.monotonic() + self._retention_interval
        if self._link is None:
            return None
        try:
            removed = RedisStore(self._link).apply_retention()
        except Exception as exc:  # an outage is logged by the probe; never kill the thread
            _log.info("audit retention not applied now", extra={"json_fields": {
                "event": "audit_retention", "error": type(exc).__name__}})
            return None
        if removed:
            _log.info("audit retention applied", extra={"json_fields": {
                "event": "audit_retention", "removed": removed}})
        return removed

    def report(self) -> dict[str, Any]:
        """What the readiness body says about Redis."""
        if self._target is None:
            return {"configured": False}
        with self._lock:
            last = self._last
        if last is None:
            return {"configured": True, "up": None, "where": self._target.describe()}
        return {
            "configured": True,
            "where": self._target.describe(),
            "up": last.up,
            "error": last.error or None,
            "persistence": {**asdict(last.persistence), "durable": last.persistence.durable},
        }


def startup_check(target: Target | None) -> Persistence | None:
    """Once per server, before the workers start: log what Redis would keep across a crash.

    One line: INFO when Redis has AOF; WARNING otherwise, saying what users would lose."""
    if target is None:
        return None
    monitor = RedisMonitor(target)
    health = monitor.check_now(record=False)
    monitor.stop()
    assert health is not None
    fields = {"event": "redis_persistence", "where": target.describe(),
              "mode": health.persistence.mode, "detail": health.persistence.detail}
    if not health.up:
        _log.warning("redis unreachable at start-up; its persistence is not known yet",
                     extra={"json_fields": {**fields, "error": health.error}})
    elif health.persistence.durable:
        _log.info("redis persistence: append-only file", extra={"json_fields": fields})
    else:
        _log.warning(
            "redis has no append-only file: if it is killed, conversations since its last"
            " snapshot (or all of them) are lost; set appendonly yes",
            extra={"json_fields": fields})
    return health.persistence
