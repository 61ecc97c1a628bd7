"""Is the store there, and would it keep what it was told if its process were killed?

Why: ``StoreUnavailable`` tells a person "nothing was lost, try again". That is only true if the
Redis that comes back still has their conversation: with append-only persistence (AOF) a Redis
killed with ``kill -9`` restarts with every acknowledged write; with snapshots only it loses the
writes since the last snapshot; with neither it loses everything. So the
server checks at start-up and on every health tick (``bot/ops/health.py``), reports what it
found in its readiness body and a metric, and warns once; the face can read
:attr:`Persistence.durable` before promising anything.

``CONFIG GET`` may be refused (managed Redis often renames or forbids it): that is ``unknown``,
never a failure. In a cluster every primary is asked and the weakest answer is the cluster's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import redis
from redis.cluster import RedisCluster

from dialogue.store.connect import Client

Mode = Literal["aof", "rdb", "none", "unknown"]
MODES: tuple[Mode, ...] = ("aof", "rdb", "none", "unknown")
_RANK: dict[Mode, int] = {"none": 0, "unknown": 1, "rdb": 2, "aof": 3}


@dataclass(frozen=True)
class Persistence:
    """What a Redis keeps across a crash of its process."""

    mode: Mode
    detail: str  # e.g. "appendfsync everysec", "save 3600 1 300 100", "CONFIG refused"

    @property
    def durable(self) -> bool:
        """True when a Redis killed -9 and restarted still has every acknowledged write."""
        return self.mode == "aof"


@dataclass(frozen=True)
class Health:
    """One probe: reachable or not (with the error type), and its persistence."""

    up: bool
    error: str
    persistence: Persistence


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _one(node: redis.Redis) -> Persistence:
    try:
        conf = node.config_get("appendonly")
        conf.update(node.config_get("save"))
        conf.update(node.config_get("appendfsync"))
    except redis.exceptions.ResponseError:
        return Persistence("unknown", "CONFIG GET refused by the server")
    values = {_text(k): _text(v) for k, v in conf.items()}
    if values.get("appendonly") == "yes":
        return Persistence("aof", f"appendfsync {values.get('appendfsync', '?')}")
    save = values.get("save", "").strip()
    if save:
        return Persistence("rdb", f"save {save}")
    return Persistence("none", "appendonly no, save \"\"")


def persistence(client: Client) -> Persistence:
    """The persistence of the primary (or, in a cluster, the weakest primary's)."""
    if isinstance(client, RedisCluster):
        found = [_one(client.get_redis_connection(node)) for node in client.get_primaries()]  # type: ignore[no-untyped-call]
        if not found:
            return Persistence("unknown", "no primary in the cluster")
        return min(found, key=lambda p: _RANK[p.mode])
    return _one(client)


def probe(client: Client) -> Health:
    """PING and CONFIG GET, with the client's own (short) timeouts; never raises."""
    try:
        ok = bool(client.ping())
        if not ok:
            return Health(False, "no PONG", Persistence("unknown", "unreachable"))
        return Health(True, "", persistence(client))
    except redis.exceptions.RedisError as exc:  # every outage of connect.UNAVAILABLE too
        return Health(False, type(exc).__name__, Persistence("unknown", "unreachable"))
