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
* Label values come from code (kinds, outcomes, verdicts, Slack method names), never from a
  user; they are still clipped so a bug cannot explode the series count.
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
    "render",
    "slack_api_error",
    "slack_retry",
]

_log = logging.getLogger(__name__)

PREFIX = "gpubot"
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
_LABEL_MAX = 64

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


def _label(value: str) -> str:
    text = str(value) if value else "unknown"
    return text[:_LABEL_MAX]


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
    m.turns.labels(kind=_label(kind), outcome=_label(outcome)).inc()
    m.turn_seconds.labels(kind=_label(kind)).observe(max(0.0, float(seconds)))


@_safe
def slack_api_error(method: str) -> None:
    """A Slack Web API call failed (after the SDK's own retries)."""
    _get().slack_api_errors.labels(method=_label(method)).inc()


@_safe
def slack_retry(reason: str) -> None:
    """Slack redelivered a request (or we retried a rate-limited call)."""
    _get().slack_retries.labels(reason=_label(reason)).inc()


@_safe
def redis_error() -> None:
    """A Redis operation failed; a rising rate means the store is the problem, not Slack."""
    _get().redis_errors.inc()


@_safe
def recommendation(verdict: str) -> None:
    """A recommendation card was produced with this verdict."""
    _get().recommendations.labels(verdict=_label(verdict)).inc()


@_safe
def conversation_started() -> None:
    """A new conversation began."""
    _get().conversations_started.inc()


@_safe
def conversation_finished() -> None:
    """A conversation reached its end (card shown or closed)."""
    _get().conversations_finished.inc()


def render() -> tuple[bytes, str]:
    """The Prometheus exposition of every metric, summed over all workers in multiprocess mode."""
    m = _get()
    if m.multiprocess and multiprocess_dir() is not None:
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(m.registry), CONTENT_TYPE_LATEST
