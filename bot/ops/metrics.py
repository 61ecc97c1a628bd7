"""Prometheus metrics for the Slack face: what an operator watches to sleep at night.

Why it is built this way:

* Under gunicorn each worker is its own process, and a scrape of ``/metrics`` lands on
  whichever worker the kernel hands the connection to. Per-process counters would then jump
  back and forth between scrapes. prometheus_client's *multiprocess mode* fixes that: every
  process writes its values to mmap files in ``PROMETHEUS_MULTIPROC_DIR`` and ``render()``
  sums all of them. ``bot.ops.serve`` prepares (and cleans) that directory in the gunicorn master
  before any worker forks.
* Without that variable (Socket Mode, the console, tests) a plain per-process registry is used.
* prometheus_client decides between the two when *it* is imported (``values.ValueClass``), which
  may happen in the master before ``bot.ops.serve`` has set the variable. So the metric objects are
  built lazily, on first use, and at that moment the value class is re-chosen from the
  environment. The master never records a metric, so every value lives in a worker's own file.
* Metrics are instrumentation, never a reason for a turn to fail: every recorder swallows and
  logs its own errors.
* **Label values come from closed sets only** (issue 13, item 9): each label has its set of
  values below, and anything else is counted under ``other``. A header a client controls
  (``X-Slack-Retry-Reason``: 30 distinct values once made 30 series) or a new kind a face
  starts using can therefore never grow the number of series; a face that adds a kind or an
  outcome adds it to the set here.
* Gauges (Redis reachable, its persistence) are per worker process; in multiprocess mode they
  are shown as the most recent value written by a live worker (``livemostrecent``), so a dead
  worker's stale value never lingers.
"""

from __future__ import annotations

import functools
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import ParamSpec

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
    multiprocess,
    values,
)

__all__ = [
    "conversation_finished",
    "conversation_started",
    "multiprocess_dir",
    "observe_turn",
    "recommendation",
    "redis_error",
    "redis_health",
    "refused",
    "render",
    "slack_api_error",
    "slack_retry",
]

_log = logging.getLogger(__name__)

PREFIX = "gpubot"
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
OTHER = "other"

# The closed sets. Kinds of turn and outcomes are the Slack face's (bot/slack/turns.py);
# verdicts the engine's (engine/result.py: Verdict); methods the Web API calls the bot makes;
# retry reasons Slack's documented X-Slack-Retry-Reason values plus our own rate-limit retry.
KINDS = frozenset({"command", "action", "message", "mention", "event", "home", "view",
                   "shortcut", "dm"})
OUTCOMES = frozenset({"ok", "question", "result", "ended", "error", "conflict", "duplicate",
                      "forbidden", "ignored", "not_owner", "store_unavailable", "queued",
                      "refused", "stale"})
VERDICTS = frozenset({"single_node", "single_node_int4", "replicas", "multi_node", "frontier"})
METHODS = frozenset({"auth.test", "chat.postMessage", "chat.update", "chat.delete",
                     "chat.postEphemeral", "chat.getPermalink", "conversations.info",
                     "conversations.open", "conversations.history", "conversations.replies",
                     "users.info", "team.info", "views.publish", "views.open", "views.update",
                     "response_url"})
RETRY_REASONS = frozenset({"http_timeout", "too_many_redirects", "connection_failed",
                           "ssl_error", "http_error", "unknown_error", "ratelimited"})
# Why the front refused a request before Bolt saw it (bot/ops/asgi.py).
REFUSALS = frozenset({"unsigned", "bad_signature", "stale_timestamp", "malformed",
                      "too_large", "body_timeout", "header_timeout", "method"})
PERSISTENCE_MODES = ("aof", "rdb", "none", "unknown")  # dialogue/store/health.py

# Seconds. Slack gives 3 s to acknowledge; the buckets around 1-3 s show how close we get.
TURN_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0)


def multiprocess_dir() -> str | None:
    """The multiprocess directory if multiprocess mode is configured and usable, else None."""
    path = os.environ.get(MULTIPROC_ENV)
    if path and os.path.isdir(path):
        return path
    return None


@dataclass(frozen=True)
class _Metrics:
    registry: CollectorRegistry
    turns: Counter
    turn_seconds: Histogram
    slack_api_errors: Counter
    slack_retries: Counter
    redis_errors: Counter
    recommendations: Counter
    conversations_started: Counter
    conversations_finished: Counter
    refused: Counter
    redis_up: Gauge
    redis_persistence: Gauge
    multiprocess: bool


_lock = threading.Lock()
_metrics: _Metrics | None = None


def _build() -> _Metrics:
    mp = multiprocess_dir() is not None
    if mp and values.ValueClass is values.MutexValue:
        # prometheus_client was imported before PROMETHEUS_MULTIPROC_DIR was set (see module doc).
        values.ValueClass = values.get_value_class()  # type: ignore[no-untyped-call]
    elif not mp and values.ValueClass is not values.MutexValue:
        values.ValueClass = values.MutexValue
    # *_created series are per-process timestamps that multiprocess mode never shows; keep the
    # two modes alike.
    disable_created_metrics()  # type: ignore[no-untyped-call]
    registry = CollectorRegistry(auto_describe=True)

    def counter(name: str, doc: str, labels: tuple[str, ...] = ()) -> Counter:
        return Counter(f"{PREFIX}_{name}", doc, labels, registry=registry)

    return _Metrics(
        registry=registry,
        turns=counter(
            "turns", "Turns handled, by kind (command/action/message/...) and outcome.",
            ("kind", "outcome"),
        ),
        turn_seconds=Histogram(
            f"{PREFIX}_turn_duration_seconds",
            "Wall time of one turn, from request to the Slack call that shows the answer.",
            ("kind",),
            buckets=TURN_BUCKETS,
            registry=registry,
        ),
        slack_api_errors=counter(
            "slack_api_errors", "Slack Web API calls that failed, by method.", ("method",)
        ),
        slack_retries=counter(
            "slack_retries",
            "Retried deliveries from Slack (X-Slack-Retry-Reason) or rate-limit retries.",
            ("reason",),
        ),
        redis_errors=counter("redis_errors", "Redis operations that failed."),
        recommendations=counter(
            "recommendations", "Recommendation cards produced, by verdict.", ("verdict",)
        ),
        conversations_started=counter("conversations_started", "Conversations started."),
        conversations_finished=counter(
            "conversations_finished", "Conversations that reached their card (or were closed)."
        ),
        refused=counter(
            "requests_refused", "Requests refused by the front before Bolt, by reason.",
            ("reason",),
        ),
        redis_up=Gauge(
            f"{PREFIX}_redis_up", "1 when this worker's last Redis probe answered, else 0.",
            registry=registry, multiprocess_mode="livemostrecent",
        ),
        redis_persistence=Gauge(
            f"{PREFIX}_redis_persistence",
            "1 for the persistence Redis reported (aof: survives kill -9; rdb: snapshots; "
            "none; unknown: CONFIG refused or unreachable), 0 for the others.",
            ("mode",), registry=registry, multiprocess_mode="livemostrecent",
        ),
        multiprocess=mp,
    )


def _get() -> _Metrics:
    global _metrics
    m = _metrics
    if m is not None:
        return m
    with _lock:
        if _metrics is None:
            _metrics = _build()
        return _metrics


def _reset_for_tests() -> None:
    """Forget the metric objects so the next use re-reads the environment (tests only)."""
    global _metrics
    with _lock:
        _metrics = None


def _label(value: object, allowed: frozenset[str]) -> str:
    """``value`` if it is one of ``allowed``, else ``other``: a label never grows the series."""
    text = str(value) if value else ""
    return text if text in allowed else OTHER


P = ParamSpec("P")


def _safe(fn: Callable[P, None]) -> Callable[P, None]:
    """Never let a metrics problem break the turn that records it."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> None:
        try:
            fn(*args, **kwargs)
        except Exception:
            _log.warning("metrics: %s failed", fn.__name__, exc_info=True)

    return wrapper


@_safe
def observe_turn(kind: str, outcome: str, seconds: float) -> None:
    """Count one turn by kind and outcome, and record its latency under its kind."""
    m = _get()
    seconds = max(0.0, float(seconds))  # before counting: a bad value records nothing
    m.turns.labels(kind=_label(kind, KINDS), outcome=_label(outcome, OUTCOMES)).inc()
    m.turn_seconds.labels(kind=_label(kind, KINDS)).observe(seconds)


@_safe
def slack_api_error(method: str) -> None:
    """A Slack Web API call failed (after the SDK's own retries)."""
    _get().slack_api_errors.labels(method=_label(method, METHODS)).inc()


@_safe
def slack_retry(reason: str) -> None:
    """Slack redelivered a request (or we retried a rate-limited call).

    ``reason`` is X-Slack-Retry-Reason as the client sent it: mapped to Slack's documented
    values, anything else counted as ``other``."""
    _get().slack_retries.labels(reason=_label(str(reason).strip().lower(), RETRY_REASONS)).inc()


@_safe
def redis_error() -> None:
    """A Redis operation failed; a rising rate means the store is the problem, not Slack."""
    _get().redis_errors.inc()


@_safe
def recommendation(verdict: str) -> None:
    """A recommendation card was produced with this verdict."""
    _get().recommendations.labels(verdict=_label(verdict, VERDICTS)).inc()


@_safe
def conversation_started() -> None:
    """A new conversation began."""
    _get().conversations_started.inc()


@_safe
def conversation_finished() -> None:
    """A conversation reached its end (card shown or closed)."""
    _get().conversations_finished.inc()


@_safe
def refused(reason: str) -> None:
    """The front refused a request (unsigned, malformed, too large, too slow...)."""
    _get().refused.labels(reason=_label(reason, REFUSALS)).inc()


@_safe
def redis_health(up: bool, persistence: str) -> None:
    """This worker's latest Redis probe: reachable, and the persistence it reported."""
    m = _get()
    m.redis_up.set(1 if up else 0)
    mode = persistence if persistence in PERSISTENCE_MODES else "unknown"
    for name in PERSISTENCE_MODES:
        m.redis_persistence.labels(mode=name).set(1 if name == mode else 0)


def render() -> tuple[bytes, str]:
    """The Prometheus exposition of every metric, summed over all workers in multiprocess mode."""
    m = _get()
    if m.multiprocess and multiprocess_dir() is not None:
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(m.registry), CONTENT_TYPE_LATEST
