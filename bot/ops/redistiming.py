"""Every Redis command this process sends, timed by command (scripts by name) and watched for
outages, without the store or the queue knowing.

Why at the client, like OpenTelemetry's redis instrumentation: the dialogue never imports the
bot (``docs/architecture.md``: ``bot -> dialogue -> engine``), so the store and the queue cannot
call the bot's metrics; and one hook on redis-py's ``execute_command`` sees every round trip
of every topology (``redis.Redis`` for one server and behind Sentinel, ``RedisCluster`` for a
cluster), including the health probe's. :func:`install` wraps both classes' method once per
process; ``bot/ops/metrics.py`` calls it when it builds the metrics, so only processes that
record metrics are instrumented (never the gunicorn master, whose Redis check must not build
metric objects before the workers fork).

A script is sent as ``EVALSHA <sha>``; the sha of each script the store and the queue register
is computed here from their source (``dialogue/store/redis.py``, ``redisaudit.py``,
``queue.py``), so the label says ``script:cas`` or ``script:submit``, not ``evalsha``. Each
command's outcome also goes to :func:`bot.ops.outage.redis_seen`: an error of the kinds that
``dialogue/store/connect.py`` turns into ``StoreUnavailable`` is an outage, anything else
(a reply, even an error reply) means Redis is there. Topology discovery (``SENTINEL ...``,
``CLUSTER SLOTS``) is left out of that: the client asks the next Sentinel or seed node when
one is down, so one node's failure is not the store's.
"""

from __future__ import annotations

import functools
import hashlib
import threading
import time
from collections.abc import Callable
from typing import Any

import redis
from redis.cluster import RedisCluster

from bot.ops import metrics, outage

__all__ = ["command_label", "install", "installed", "is_outage", "where"]

_MARK = "_gpubot_timed"
_lock = threading.Lock()
_scripts: dict[str, str] = {}
# Error replies that mean "no write happened, Redis is not usable now" (dialogue/store/connect.py)
_OUTAGE_REPLIES = ("OOM", "NOREPLICAS", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN")
# What a multi-word command is called (redis-py sends "XGROUP CREATE" as one argument, or the
# subcommand as the next argument for CONFIG and CLUSTER).
_SUBCOMMANDS = frozenset({"config", "cluster", "xgroup", "xinfo", "script", "client"})
# Topology discovery asks each Sentinel or seed node in turn and moves on when one is down:
# timed, but one node's failure there is not an outage of the store.
_DISCOVERY = frozenset({"sentinel", "cluster_slots", "cluster_shards"})


def _script_names() -> dict[str, str]:
    """sha1 of each script source -> its label, as redis-py's ``Script`` computes the sha."""
    from dialogue.store import queue, redisaudit
    from dialogue.store import redis as store

    sources = {
        "script:cas": getattr(store, "_CAS", None),
        "script:set_meta": getattr(store, "_SET_META", None),
        "script:submit": getattr(queue, "_SUBMIT", None),
        "script:ack": getattr(queue, "_ACK", None),
        "script:audit_append": redisaudit.APPEND,
        "script:audit_trim": redisaudit.TRIM,
        "script:recent_put": redisaudit.RECENT_PUT,
    }
    return {hashlib.sha1(src.encode()).hexdigest(): name
            for name, src in sources.items() if isinstance(src, str)}


def command_label(args: tuple[Any, ...]) -> str:
    """The label of one command (``hgetall``, ``config_get``, ``script:cas``...)."""
    if not args:
        return "other"
    head = args[0].decode() if isinstance(args[0], bytes) else str(args[0])
    words = head.lower().split()
    if words and words[0] == "sentinel":
        return "sentinel"
    if words and words[0] in ("evalsha", "eval"):
        sha = args[1] if len(args) > 1 else ""
        sha = sha.decode() if isinstance(sha, bytes) else str(sha)
        if words[0] == "eval":
            sha = hashlib.sha1(sha.encode()).hexdigest()
        return _scripts.get(sha, "script:other")
    if len(words) == 1 and words[0] in _SUBCOMMANDS and len(args) > 1:
        sub = args[1].decode() if isinstance(args[1], bytes) else str(args[1])
        words.append(sub.lower())
    return "_".join(words[:2]) if words else "other"


def is_outage(exc: BaseException) -> bool:
    """The error means Redis cannot be used now (``connect.guard`` makes it StoreUnavailable)."""
    from dialogue.store.connect import UNAVAILABLE

    if isinstance(exc, UNAVAILABLE):
        return True
    return isinstance(exc, redis.exceptions.ResponseError) and str(exc).startswith(
        _OUTAGE_REPLIES)


def where(client: Any) -> str:
    """Where a client points, without credentials (as ``connect.Target.describe`` says it)."""
    if isinstance(client, RedisCluster):
        return "cluster"
    pool = getattr(client, "connection_pool", None)
    service = getattr(pool, "service_name", None)
    if service:
        return f"sentinel master {service}"
    kw = getattr(pool, "connection_kwargs", None) or {}
    if "path" in kw:
        return f"unix://{kw['path']}"
    return f"redis://{kw.get('host', '')}:{kw.get('port', '')}/{kw.get('db', 0)}"


def _record(client: Any, args: tuple[Any, ...], seconds: float,
            exc: BaseException | None) -> None:
    try:
        label = command_label(args)
        metrics.observe_redis(label, seconds)
        if label in _DISCOVERY:
            return
        if exc is not None and is_outage(exc):
            outage.redis_seen(False, type(exc).__name__, where(client))
        else:
            outage.redis_seen(True)
    except Exception:  # instrumentation never breaks a command
        return


def _timed(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def execute_command(self: Any, *args: Any, **options: Any) -> Any:
        started = time.perf_counter()
        try:
            result = original(self, *args, **options)
        except BaseException as exc:
            _record(self, args, time.perf_counter() - started, exc)
            raise
        _record(self, args, time.perf_counter() - started, None)
        return result

    setattr(execute_command, _MARK, True)
    return execute_command


def install() -> None:
    """Time every command of ``redis.Redis`` and ``RedisCluster`` in this process (idempotent)."""
    with _lock:
        if not _scripts:
            _scripts.update(_script_names())
        for cls in (redis.Redis, RedisCluster):
            current = cls.__dict__.get("execute_command")
            if current is not None and not getattr(current, _MARK, False):
                setattr(cls, "execute_command", _timed(current))  # noqa: B010


def installed() -> bool:
    """Whether this process's Redis clients are timed."""
    return all(getattr(cls.__dict__.get("execute_command"), _MARK, False)
               for cls in (redis.Redis, RedisCluster))
