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
* **Label values come from closed sets only** (``bot/ops/labelsets.py``):
  anything else is counted under ``other``. A header a client controls
  (``X-Slack-Retry-Reason``: 30 distinct values once made 30 series) can never grow the number
  of series. And **every series of those sets exists from the start, at 0**:
  a ``rate()`` of an outcome that has not happened yet is 0, not an empty result that makes a
  dashboard say "no data" and an alert never fire.
* **Latency of what a turn waits on**: every Slack Web API call (``bot/slack/api.py`` times
  each through :func:`slack_call`) and every Redis command of the store, the queue and the
  health probe, scripts by name (``bot/ops/redistiming.py``, installed when the metrics are
  built, i.e. in every process that records them and never in the gunicorn master).
* ``gpubot_build_info`` (always 1) says which version runs: the package's version, the commit
  (``GPUBOT_COMMIT``, set by the image build) and Python's version.
* Gauges (Redis reachable, its persistence, the build) are per worker process; in
  multiprocess mode they are shown as the most recent (or largest) value written by a live
  worker, so a dead worker's stale value never lingers.
"""

from __future__ import annotations

import functools
import importlib.metadata
import logging
import os
import platform
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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

from bot.ops import labelsets as ls

__all__ = [
    "conversation_finished",
    "conversation_started",
    "multiprocess_dir",
    "observe_redis",
    "observe_turn",
    "recommendation",
    "redis_error",
    "redis_health",
    "refused",
    "render",
    "slack_api_error",
    "slack_call",
    "slack_retry",
]

_log = logging.getLogger(__name__)

PREFIX = "gpubot"
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
COMMIT_ENV = "GPUBOT_COMMIT"
PACKAGE = "gpu-sizing-bot"
OTHER = ls.OTHER
_label = ls.closed


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
    redis_seconds: Histogram
    slack_seconds: Histogram
    build_info: Gauge
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

    def histogram(name: str, doc: str, label: str, buckets: tuple[float, ...]) -> Histogram:
        return Histogram(f"{PREFIX}_{name}", doc, (label,), buckets=buckets, registry=registry)

    m = _Metrics(
        registry=registry,
        turns=counter(
            "turns", "Turns handled, by kind (command/action/message/...) and outcome.",
            ("kind", "outcome"),
        ),
        turn_seconds=histogram(
            "turn_duration_seconds",
            "Wall time of one turn, from request to the Slack call that shows the answer.",
            "kind", ls.TURN_BUCKETS,
        ),
        slack_api_errors=counter(
            "slack_api_errors", "Slack Web API calls that failed, by method.", ("method",)
        ),
        slack_retries=counter(
            "slack_retries",
            "Retried deliveries from Slack (X-Slack-Retry-Reason) or rate-limit retries.",
            ("reason",),
        ),
        redis_errors=counter("redis_errors", "Turns that could not reach Redis."),
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
        redis_seconds=histogram(
            "redis_command_duration_seconds",
            "Redis commands of the store, the queue and the health probe, scripts by name"
            " (script:cas, ...), from send to reply (retries and failures included).",
            "command", ls.REDIS_BUCKETS,
        ),
        slack_seconds=histogram(
            "slack_api_duration_seconds",
            "Slack Web API calls by method, from request to response (slack_sdk's retries"
            " and failures included).",
            "method", ls.SLACK_BUCKETS,
        ),
        build_info=Gauge(
            f"{PREFIX}_build_info", "Always 1: the version, commit and Python that run.",
            ("version", "commit", "python"), registry=registry, multiprocess_mode="livemax",
        ),
        multiprocess=mp,
    )
    _zero(m)
    m.build_info.labels(version=_version(), commit=_commit(),
                        python=platform.python_version()).set(1)
    from bot.ops import redistiming  # here: only where metrics are recorded (module docstring)

    redistiming.install()
    return m


def _zero(m: _Metrics) -> None:
    """Create every series of every closed label set at 0 (``rate()`` is then 0, not empty)."""
    for kind in ls.every(ls.KINDS):
        m.turn_seconds.labels(kind=kind)
        for outcome in ls.every(ls.OUTCOMES):
            m.turns.labels(kind=kind, outcome=outcome)
    for method in ls.every(ls.METHODS):
        m.slack_api_errors.labels(method=method)
        m.slack_seconds.labels(method=method)
    for reason in ls.every(ls.RETRY_REASONS):
        m.slack_retries.labels(reason=reason)
    for verdict in ls.every(ls.VERDICTS):
        m.recommendations.labels(verdict=verdict)
    for refusal in ls.every(ls.REFUSALS):
        m.refused.labels(reason=refusal)
    for command in ls.every(ls.REDIS_COMMANDS):
        m.redis_seconds.labels(command=command)


def _version() -> str:
    try:
        return importlib.metadata.version(PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def _commit() -> str:
    """``GPUBOT_COMMIT`` when it looks like a git commit id, else empty (the label is absent)."""
    value = os.environ.get(COMMIT_ENV, "").strip().lower()
    return value if re.fullmatch(r"[0-9a-f]{7,40}", value) else ""


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
    m.turns.labels(kind=_label(kind, ls.KINDS), outcome=_label(outcome, ls.OUTCOMES)).inc()
    m.turn_seconds.labels(kind=_label(kind, ls.KINDS)).observe(seconds)


@_safe
def slack_api_error(method: str) -> None:
    """A Slack Web API call failed (after the SDK's own retries)."""
    _get().slack_api_errors.labels(method=_label(method, ls.METHODS)).inc()


@contextmanager
def slack_call(method: str) -> Iterator[None]:
    """Time one Slack Web API call (``with metrics.slack_call("chat.update"): ...``), whether
    it returns or raises; an exception goes on untouched."""
    started = time.perf_counter()
    try:
        yield
    finally:
        _observe_slack(method, time.perf_counter() - started)


@_safe
def _observe_slack(method: str, seconds: float) -> None:
    _get().slack_seconds.labels(method=_label(method, ls.METHODS)).observe(max(0.0, seconds))


@_safe
def observe_redis(command: str, seconds: float) -> None:
    """One Redis command's latency (``bot/ops/redistiming.py`` calls it for every command)."""
    _get().redis_seconds.labels(command=_label(command, ls.REDIS_COMMANDS)).observe(
        max(0.0, seconds))


@_safe
def slack_retry(reason: str) -> None:
    """Slack redelivered a request (or we retried a rate-limited call).

    ``reason`` is X-Slack-Retry-Reason as the client sent it: mapped to Slack's documented
    values, anything else counted as ``other``."""
    _get().slack_retries.labels(
        reason=_label(str(reason).strip().lower(), ls.RETRY_REASONS)).inc()


@_safe
def redis_error() -> None:
    """A turn could not reach Redis; a rising rate means the store is the problem, not Slack."""
    _get().redis_errors.inc()


@_safe
def recommendation(verdict: str) -> None:
    """A recommendation card was produced with this verdict."""
    _get().recommendations.labels(verdict=_label(verdict, ls.VERDICTS)).inc()


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
    _get().refused.labels(reason=_label(reason, ls.REFUSALS)).inc()


@_safe
def redis_health(up: bool, persistence: str) -> None:
    """This worker's latest Redis probe: reachable, and the persistence it reported."""
    m = _get()
    m.redis_up.set(1 if up else 0)
    mode = persistence if persistence in ls.PERSISTENCE_MODES else "unknown"
    for name in ls.PERSISTENCE_MODES:
        m.redis_persistence.labels(mode=name).set(1 if name == mode else 0)


def render() -> tuple[bytes, str]:
    """The Prometheus exposition of every metric, summed over all workers in multiprocess mode."""
    m = _get()
    if m.multiprocess and multiprocess_dir() is not None:
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(m.registry), CONTENT_TYPE_LATEST
