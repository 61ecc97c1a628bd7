"""How the store reaches Redis: one server, a Sentinel-watched primary, or a Cluster.

Why one module: the conversation store (``dialogue/store/redis.py``) and the turn queue
(``dialogue/store/queue.py``) must agree on where Redis is and how a failure looks, and the
server's health check (``bot/ops/health.py``) must ask the same Redis. Everything about a
topology lives here; the rest only sees a redis-py client and :class:`Link`.

Accepted forms (``docs/operations.md`` lists them for operators)::

    redis://[[user]:password@]host:port/db              one server (also rediss://, unix://)
    redis+sentinel://[[user]:password@]host:port,host:port/<master>/<db>     (rediss+sentinel)
    redis+cluster://[[user]:password@]host:port,host:port                    (rediss+cluster)

or a plain ``redis://`` URL plus ``sentinels=[...]`` (the URL's host is then the master's
name) or ``cluster=True`` (the URL is any node): what the server's settings pass
(``REDIS_SENTINELS``, ``REDIS_CLUSTER``). The query ``?replica_acks=N`` sets how many replicas
must confirm a write before it is reported done (below).

* **Sentinel.** redis-py's ``Sentinel.master_for`` asks the Sentinels for the primary on every
  new connection; a killed primary makes the next command fail, the client's retry reconnects,
  and the Sentinels name the promoted replica. A demoted primary answering ``READONLY`` is
  treated the same way. Replication is asynchronous, so a write acknowledged just before the
  primary dies may not be on the replica: with Sentinel, writes are followed by ``WAIT
  replica_acks timeout`` (default one replica, 250 ms), Redis's own primitive for that window.
* **Cluster.** ``RedisCluster`` routes each command by hash slot; a script may only touch keys of
  one slot, which the key layouts of the store and the queue respect (their docstrings say how).
* **Failing fast.** A face must answer within Slack's 3 s: short socket timeouts and two quick
  retries (exponential back-off capped at 0.2 s), so an outage shows as ``StoreUnavailable``
  within about a second and a half, never as a hung request.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import parse_qs, unquote, urlsplit

import redis
from redis.backoff import ExponentialBackoff
from redis.cluster import ClusterNode, RedisCluster
from redis.exceptions import NoScriptError
from redis.retry import Retry
from redis.sentinel import Sentinel

from dialogue.errors import StoreUnavailable

_log = logging.getLogger(__name__)

Kind = Literal["single", "sentinel", "cluster"]
Client = redis.Redis | RedisCluster

WAIT_TIMEOUT_MS = 250
WAIT_BACKOFF_S = 10.0
_SENTINEL_PORT = 26379

# What "Redis is not there right now" looks like, whatever the topology; each becomes
# StoreUnavailable. ClusterDownError / TryAgainError are raised while slots move or a primary
# of the cluster is being replaced.
UNAVAILABLE: tuple[type[Exception], ...] = (
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    redis.exceptions.ReadOnlyError,
    redis.exceptions.BusyLoadingError,
    redis.exceptions.ClusterDownError,
    redis.exceptions.TryAgainError,
    redis.exceptions.MasterDownError,
    redis.exceptions.OutOfMemoryError,  # a full Redis under noeviction refuses writes
    redis.exceptions.SlotNotCoveredError,
)


@contextmanager
def guard() -> Iterator[None]:
    """Turn an outage of any topology into :class:`~dialogue.errors.StoreUnavailable`."""
    try:
        yield
    except UNAVAILABLE as exc:
        raise StoreUnavailable(type(exc).__name__) from exc
    except redis.exceptions.ResponseError as exc:
        # Out of memory under noeviction, or a Sentinel that names no primary yet: no write
        # happened, try again later. Any other error reply is a bug and propagates.
        text = str(exc)
        if text.startswith(("OOM", "NOREPLICAS", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN")):
            raise StoreUnavailable(text.split(" ", 1)[0]) from exc
        raise


@dataclass(frozen=True)
class Target:
    """Where Redis is, parsed from a URL (never holds a client)."""

    kind: Kind
    url: str  # the single-server URL as given (kind == "single")
    hosts: tuple[tuple[str, int], ...] = ()  # Sentinels, or cluster seed nodes
    master: str = ""  # the Sentinel service name
    db: int = 0
    username: str | None = None
    password: str | None = None
    tls: bool = False
    replica_acks: int = 0

    def describe(self) -> str:
        """Where, without credentials (for logs and the readiness body)."""
        if self.kind == "single":
            parts = urlsplit(self.url)
            return f"{parts.scheme}://{parts.hostname or ''}:{parts.port or ''}/{self.db}"
        nodes = ",".join(f"{h}:{p}" for h, p in self.hosts)
        return f"{self.kind} {nodes}" + (f" master {self.master}" if self.master else "")


def _hosts(netloc: str, default_port: int) -> tuple[tuple[str, int], ...]:
    out = []
    for item in netloc.split(","):
        item = item.strip()
        if not item:
            continue
        host, _, port = item.rpartition(":") if ":" in item else (item, "", "")
        out.append((host or item, int(port) if port else default_port))
    if not out:
        raise ValueError("no host in the Redis URL")
    return tuple(out)


def parse(url: str, *, sentinels: Sequence[str] = (), cluster: bool = False) -> Target:
    """Read a Redis URL (see the module docstring); raise ValueError naming what is wrong."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise ValueError("a Redis URL starts with redis://, rediss://, unix://, "
                         "redis+sentinel:// or redis+cluster://")
    query = parse_qs(urlsplit(url).query)
    acks = int(query.get("replica_acks", ["-1"])[0])
    base, _, mode = scheme.partition("+")
    tls = base == "rediss"
    if base not in ("redis", "rediss", "unix") or mode not in ("", "sentinel", "cluster"):
        raise ValueError(f"unknown Redis URL scheme {scheme!r}")
    if mode == "" and sentinels:
        mode = "sentinel"
        parts = urlsplit(url)
        rest = ",".join(sentinels) + "/" + (parts.hostname or "") + (parts.path or "/0")
        userinfo = parts.netloc.rpartition("@")[0]
        rest = (userinfo + "@" if userinfo else "") + rest
    elif mode == "" and cluster:
        mode = "cluster"
    if mode == "":
        db = int((urlsplit(url).path or "/0").strip("/") or 0) if base != "unix" else 0
        return Target("single", url, db=db, replica_acks=max(0, acks))
    userinfo, _, hostpart = rest.rpartition("@")
    username, _, password = userinfo.partition(":")
    netloc, _, path = hostpart.partition("/")
    path = path.split("?", 1)[0]
    if mode == "sentinel":
        segments = [s for s in path.split("/") if s]
        if not segments:
            raise ValueError("a Sentinel URL names its master: redis+sentinel://h:p,h:p/<master>/0")
        db = int(segments[1]) if len(segments) > 1 else 0
        return Target("sentinel", url, _hosts(netloc, _SENTINEL_PORT), master=segments[0], db=db,
                      username=unquote(username) or None, password=unquote(password) or None,
                      tls=tls, replica_acks=1 if acks < 0 else acks)
    if path.strip("/") not in ("", "0"):
        raise ValueError("Redis Cluster has only database 0")
    return Target("cluster", url, _hosts(netloc, 6379), username=unquote(username) or None,
                  password=unquote(password) or None, tls=tls, replica_acks=max(0, acks))


class Link:
    """A connected client and what the store needs to know about its topology."""

    def __init__(self, client: Client, target: Target) -> None:
        self.client = client
        self.target = target
        self._skip_wait_until = 0.0

    @property
    def cluster(self) -> bool:
        return self.target.kind == "cluster"

    def wait_replicas(self) -> int:
        """After a write: ``WAIT`` for the configured replicas; how many confirmed.

        Not for the cluster (its client sends WAIT to a random node). When the replicas did
        not all confirm (none connected, e.g. right after a failover), one WARNING is logged
        and WAIT is skipped for :data:`WAIT_BACKOFF_S`, so a primary left alone does not
        add 250 ms to every write."""
        if self.target.replica_acks <= 0 or self.cluster:
            return 0
        now = time.monotonic()
        if now < self._skip_wait_until:
            return 0
        assert isinstance(self.client, redis.Redis)
        with guard():
            waited = self.client.execute_command(  # type: ignore[no-untyped-call]
                "WAIT", self.target.replica_acks, WAIT_TIMEOUT_MS)
        acked = int(waited)
        if acked < self.target.replica_acks:
            self._skip_wait_until = now + WAIT_BACKOFF_S
            _log.warning(
                "writes are not confirmed by a replica; a failover now could lose the latest",
                extra={"json_fields": {"event": "replica_lag", "acked": acked,
                                       "wanted": self.target.replica_acks}})
        return acked

    def close(self) -> None:
        self.client.close()


def _retry(retries: int) -> Retry:
    return Retry(ExponentialBackoff(cap=0.2, base=0.02), retries)


def connect(
    target: Target | str,
    *,
    socket_timeout: float = 2.0,
    retries: int = 2,
    decode_responses: bool = False,
) -> Link:
    """A client for ``target``. Connections open on first use, except the cluster's: its
    client reads the slot map here, and raises ``StoreUnavailable`` if no node answers."""
    if isinstance(target, str):
        target = parse(target)
    common: dict[str, Any] = {
        "socket_timeout": socket_timeout,
        "socket_connect_timeout": socket_timeout,
        "retry": _retry(retries),
        "decode_responses": decode_responses,
    }
    if target.kind == "single":
        client: Client = redis.Redis.from_url(target.url.split("?", 1)[0],
                                              health_check_interval=0, **common)
        return Link(client, target)
    auth: dict[str, Any] = {"username": target.username, "password": target.password}
    if target.kind == "sentinel":
        sentinel = Sentinel(  # type: ignore[no-untyped-call]
            list(target.hosts),
            sentinel_kwargs={"socket_timeout": socket_timeout,
                             "socket_connect_timeout": socket_timeout, "ssl": target.tls},
            ssl=target.tls,
        )
        client = sentinel.master_for(  # type: ignore[no-untyped-call]
            target.master, db=target.db, **auth, **common)
        return Link(client, target)
    nodes = [ClusterNode(host, port)  # type: ignore[no-untyped-call]
             for host, port in target.hosts]
    try:  # unlike the others, the cluster client asks for the slot map at once
        cluster = RedisCluster(startup_nodes=nodes, ssl=target.tls, **auth, **common)
    except (redis.exceptions.RedisError, redis.exceptions.RedisClusterException) as exc:
        raise StoreUnavailable(type(exc).__name__) from exc
    return Link(cluster, target)


class Lua:
    """A Lua script, run by its SHA and sent whole (``EVAL``) where the server lacks it.

    Why not redis-py's ``register_script``: on a missing script it sends ``SCRIPT LOAD`` to
    every primary of a Cluster, so while one node hangs, every write whose own node restarted
    (an empty script cache) fails too. ``EVAL`` runs on the key's node alone and leaves the
    script in its cache, so the next call is an ``EVALSHA`` again."""

    def __init__(self, client: Client, source: str) -> None:
        self.client = client
        self.source = source
        self.sha = hashlib.sha1(source.encode("utf-8")).hexdigest()

    def __call__(self, keys: Sequence[str], args: Sequence[str | int | float]) -> Any:
        try:
            return self.client.evalsha(self.sha, len(keys), *keys, *args)
        except NoScriptError:
            return self.client.eval(self.source, len(keys), *keys, *args)
