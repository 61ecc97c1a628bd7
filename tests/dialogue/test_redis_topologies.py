"""The store and the queue beyond one Redis: Sentinel failover and a 3-primary Cluster, real
processes on free ports (tests/redisproc.py), and the persistence check of every topology."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from redis.cluster import RedisCluster

from dialogue.errors import StoreUnavailable
from dialogue.store.base import Write
from dialogue.store.connect import connect, parse
from dialogue.store.health import persistence, probe
from dialogue.store.queue import RedisTurnQueue
from dialogue.store.redis import RedisStore
from tests.redisproc import ClusterGroup, RedisProcess, SentinelGroup

pytestmark = pytest.mark.slow


def _finish(store: RedisStore, key: str, owner: str, n: int) -> None:
    """A turn that finishes a sizing: the conversation, its audit record, the owner's entry."""
    store.write(key, Write(doc=f'{{"n":{n}}}', version=1, expected=None, ttl_seconds=600,
                           delivery_id=f"ev-{key}", audit={"kind": "sizing", "n": n},
                           owner=owner, recent={"n": n}))


def _retrying(fn: object, timeout: float = 15.0) -> object:
    """Call ``fn`` until the store answers (a failover in progress raises StoreUnavailable)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return fn()  # type: ignore[operator]
        except StoreUnavailable:
            assert time.monotonic() < deadline, "the store did not come back after failover"
            time.sleep(0.1)


# -- Sentinel --------------------------------------------------------------------------------


@pytest.fixture
def sentinels() -> Iterator[SentinelGroup]:
    group = SentinelGroup().start()
    yield group
    group.cleanup()


def test_sentinel_failover_is_followed_and_loses_no_acknowledged_write(
    sentinels: SentinelGroup,
) -> None:
    store = RedisStore(connect(sentinels.url, socket_timeout=0.5))
    queue = RedisTurnQueue(sentinels.url, socket_timeout=0.5)
    for i in range(20):
        _finish(store, f"conv{i}", f"U{i % 3}", i)
        queue.submit(f"ev{i}", f"turn {i}")
    old = sentinels.primary.port
    assert sentinels.current_primary_port() == old
    sentinels.primary.kill9()
    new = sentinels.wait_failover(old)
    assert new == sentinels.replica.port

    # Everything acknowledged before the crash is on the promoted replica (WAIT 1).
    for i in range(20):
        stored = _retrying(lambda i=i: store.read(f"conv{i}"))
        assert stored is not None and stored.doc == f'{{"n":{i}}}'  # type: ignore[attr-defined]
    assert sorted(r["n"] for r in store.audit_log(100)) == list(range(20))
    queue.ensure_group()
    taken = _retrying(lambda: queue.take("c", count=50, block_ms=100))
    assert sorted(e.delivery_id for e in taken) == sorted(f"ev{i}" for i in range(20))  # type: ignore[attr-defined]

    # New writes go to the new primary, through the same client objects.
    store.write("after", Write(doc="{}", version=1, expected=None, ttl_seconds=60))
    assert queue.submit("ev-after", "x").fresh
    assert redis.Redis(port=new).exists("gpusizing:conv:after") == 1


def test_the_settings_form_of_a_sentinel_url_is_the_same_target() -> None:
    from_settings = parse("redis://:s3cret@mymaster/2", sentinels=["10.0.0.1:26379", "h2:1"])
    canonical = parse("redis+sentinel://:s3cret@10.0.0.1:26379,h2:1/mymaster/2")
    assert from_settings == canonical.__class__(**{**canonical.__dict__,
                                                   "url": from_settings.url})
    assert (canonical.kind, canonical.master, canonical.db, canonical.password,
            canonical.replica_acks) == ("sentinel", "mymaster", 2, "s3cret", 1)
    assert "s3cret" not in canonical.describe()
    cluster = parse("redis://node1:7000/0", cluster=True)
    assert (cluster.kind, cluster.hosts) == ("cluster", (("node1", 7000),))
    with pytest.raises(ValueError):
        parse("redis+cluster://a:1/3")
    with pytest.raises(ValueError):
        parse("memcached://a:1")


# -- Cluster ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cluster() -> Iterator[ClusterGroup]:
    group = ClusterGroup().start()
    yield group
    group.cleanup()


@pytest.fixture
def clean_cluster(cluster: ClusterGroup) -> ClusterGroup:
    """The cluster emptied, its script caches too: each test starts as after a restart, so
    a write's first script call finds no script (and must not need every node to load it)."""
    for node in cluster.nodes:
        server = redis.Redis(port=node.port)
        server.flushall()
        server.script_flush()
    return cluster


def _outbox(fields: Any) -> list[bytes]:
    """The outbox fields of a conversation hash (cluster only: dialogue/store/redis.py)."""
    return [f for f in fields if bytes(f).startswith(b"o:")]


def _slot(client: RedisCluster, key: str) -> int:
    return int(client.keyslot(key))  # type: ignore[no-untyped-call]


def _node_of(client: RedisCluster, key: str) -> str:
    node = client.get_node_from_key(key)  # type: ignore[no-untyped-call]
    assert node is not None
    return str(node.name)


def test_cluster_spreads_conversations_and_keeps_every_finished_sizing(
    clean_cluster: ClusterGroup,
) -> None:
    store = RedisStore(clean_cluster.url)
    assert store.link.cluster
    for i in range(30):
        _finish(store, f"T1:C{i}:17000000{i:02d}.000100:U{i % 4}", f"U{i % 4}", i)
    client = store.client
    assert isinstance(client, RedisCluster)
    nodes = {_node_of(client, store._conv(f"T1:C{i}:17000000{i:02d}.000100:U{i % 4}"))
             for i in range(30)}
    assert len(nodes) == 3, "conversations must not be forced into one slot"
    assert sorted(r["n"] for r in store.audit_log(100)) == list(range(30))
    for owner in range(4):
        assert sorted(e["n"] for e in store.recent(f"U{owner}", 20)) == list(range(owner, 30, 4))
    # Nothing left waiting in the conversations' hashes.
    for i in range(30):
        key = store._conv(f"T1:C{i}:17000000{i:02d}.000100:U{i % 4}")
        assert not _outbox(client.hkeys(key))
    # The stream and its markers share a slot (the scripts would fail otherwise).
    assert _slot(client, store.audit_key) == _slot(client, store._seen_key("x"))


def test_cluster_outbox_survives_a_node_that_hangs_after_the_turn(
    clean_cluster: ClusterGroup,
) -> None:
    """The node of the audit stream hangs right after a turn finished a sizing on another
    node: the turn is applied, its record waits in the conversation, and the next read copies
    it, once."""
    store = RedisStore(connect(clean_cluster.url, socket_timeout=0.3, retries=0))
    client = store.client
    assert isinstance(client, RedisCluster)
    audit_node = _node_of(client, store.audit_key)
    key = next(f"T1:C{i}:1.1:U1" for i in range(100)
               if _node_of(client, store._conv(f"T1:C{i}:1.1:U1")) != audit_node)
    proc = next(n for n in clean_cluster.nodes if audit_node.endswith(f":{n.port}"))
    with proc.paused():
        _finish(store, key, "U1", 7)  # the copy times out; the turn itself is applied
        stored = client.hgetall(store._conv(key))
        assert stored[b"doc"] == b'{"n":7}'
        assert _outbox(list(stored)), "the record waits in the conversation"
    time.sleep(0.2)
    assert store.read(key) is not None  # the read finishes the copy
    assert [r["n"] for r in store.audit_log(10)] == [7]
    assert [e["n"] for e in store.recent("U1", 5)] == [7]
    assert not _outbox(client.hkeys(store._conv(key)))
    store.read(key)
    assert len(store.audit_log(10)) == 1, "copied twice"


def test_cluster_queue_and_persistence(clean_cluster: ClusterGroup) -> None:
    queue = RedisTurnQueue(clean_cluster.url)
    client = queue.client
    assert isinstance(client, RedisCluster)
    assert _slot(client, queue.stream) == _slot(client, queue._marker("Ev1"))
    assert queue.submit("Ev1", "p").fresh and not queue.submit("Ev1", "p").fresh
    (entry,) = queue.take("c", block_ms=100)
    assert queue.ack(entry.entry_id)
    health = probe(client)
    assert health.up and health.persistence.mode == "aof"


# -- persistence of one server ------------------------------------------------------------------


@pytest.mark.parametrize(("options", "mode", "durable"), [
    ({}, "none", False),
    ({"save": "3600 1"}, "rdb", False),
    ({"appendonly": True}, "aof", True),
])
def test_persistence_is_read_from_the_server(options: dict[str, object], mode: str,
                                            durable: bool) -> None:
    proc = RedisProcess(**options)  # type: ignore[arg-type]
    proc.start()
    try:
        found = persistence(redis.Redis(port=proc.port))
        assert (found.mode, found.durable) == (mode, durable)
    finally:
        proc.cleanup()


def test_persistence_is_unknown_when_config_is_refused() -> None:
    proc = RedisProcess(extra=("--rename-command", "CONFIG", ""))
    proc.start()
    try:
        assert persistence(redis.Redis(port=proc.port)).mode == "unknown"
    finally:
        proc.cleanup()
