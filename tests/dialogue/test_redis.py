"""The Redis store against a real redis-server: races, expiry, outages, redelivery, cost."""

from __future__ import annotations

import multiprocessing
import threading
import time
from typing import Any

import pytest
import redis

from dialogue import Conflict, Dialogue, Duplicate, RedisStore, StoreUnavailable
from dialogue.store import Stored, Write
from tests.redisproc import RedisProcess, counting_connection

KEY = "T1:C1:1700000000.000100:U1"


class SlowReadStore(RedisStore):
    """Every reader dawdles after reading, so concurrent turns all read the same version and
    the race is decided by the compare-and-set, not by who happened to read first."""

    def read(self, key: str, delivery_id: str | None = None) -> Stored | None:
        stored = super().read(key, delivery_id)
        time.sleep(0.05)
        return stored


def _race(d: Dialogue, text: str, version: int | None, n: int) -> list[tuple[str, Any]]:
    barrier = threading.Barrier(n)
    results: list[tuple[str, Any]] = []
    lock = threading.Lock()

    def one(i: int) -> None:
        barrier.wait()
        try:
            r = d.handle(KEY, text.format(i=i), version=version)
            outcome: tuple[str, Any] = ("stale" if r.kind == "error" else "won", r)
        except Conflict as exc:
            outcome = ("conflict", exc)
        with lock:
            results.append(outcome)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return results


def test_cas_one_winner_per_version_with_many_threads(redis_url: str) -> None:
    d = Dialogue(SlowReadStore(redis_url))
    r = d.start(KEY, "llama 3.1 70b inference")
    for step, text in enumerate(("{i}", "{i}k")):  # concurrency, then context
        version = r.version
        results = _race(d, text, version, 12)
        winners = [res for kind, res in results if kind == "won"]
        assert len(winners) == 1, [k for k, _ in results]
        assert sum(1 for k, _ in results if k == "conflict") >= 1  # the CAS did the deciding
        r = winners[0]
        conv = d.load(KEY)
        assert conv is not None and conv.version == version + 1
        slot = ("concurrency", "context")[step]
        assert slot in conv.answers  # the winner's answer, and only it, was stored
        assert [a.slot for a in r.answers].count(slot) == 1


def test_cas_typed_answers_never_share_a_version(redis_url: str) -> None:
    """Typed text carries no version: several may land, one after another, never two at once."""
    d = Dialogue(RedisStore(redis_url))
    r0 = d.start(KEY, "llama 3.1 70b inference")
    results = _race(d, "change concurrency", None, 16)
    won = [res.version for kind, res in results if kind == "won"]
    assert len(won) == len(set(won)), "two writes won the same version"
    conv = d.load(KEY)
    assert conv is not None and conv.version == r0.version + len(won)


def test_store_cas_exactly_one_write_per_version(redis_url: str) -> None:
    store = RedisStore(redis_url)
    store.write("raw", Write(doc="{}", version=1, expected=None, ttl_seconds=60))
    barrier = threading.Barrier(20)
    wins: list[int] = []

    def one(i: int) -> None:
        barrier.wait()
        try:
            store.write("raw", Write(doc=f'{{"i":{i}}}', version=2, expected=1, ttl_seconds=60))
            wins.append(i)
        except Conflict:
            pass

    threads = [threading.Thread(target=one, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(wins) == 1
    stored = store.read("raw")
    assert stored is not None and stored.doc == f'{{"i":{wins[0]}}}'


def _process_turn(url: str, value: str, version: int, barrier: Any, out: Any) -> None:
    d = Dialogue(SlowReadStore(url))
    barrier.wait()
    try:
        r = d.handle(KEY, value, version=version)
        out.put(("stale" if r.kind == "error" else "won", value))
    except Conflict:
        out.put(("conflict", value))
    except Exception as exc:  # surfaced in the parent's assertion
        out.put(("crash", repr(exc)))


def test_cas_one_winner_across_processes(redis_url: str) -> None:
    d = Dialogue(RedisStore(redis_url))
    r = d.start(KEY, "llama 3.1 70b inference")
    ctx = multiprocessing.get_context("fork")
    n = 4
    barrier, out = ctx.Barrier(n), ctx.Queue()
    procs = [ctx.Process(target=_process_turn,
                         args=(redis_url, str(10 + i), r.version, barrier, out))
             for i in range(n)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    results = [out.get(timeout=5) for _ in range(n)]
    assert [k for k, _ in results].count("won") == 1, results
    assert "crash" not in [k for k, _ in results], results
    winner = next(v for k, v in results if k == "won")
    conv = d.load(KEY)
    assert conv is not None and conv.version == r.version + 1
    assert conv.answers["concurrency"] == int(winner)


def test_ttl_expiry_gives_the_expired_message(redis_url: str) -> None:
    d = Dialogue(RedisStore(redis_url), ttl_seconds=1)
    d.start(KEY, "llama 3.1 70b")
    client = redis.Redis.from_url(redis_url)
    assert 0 < client.pttl(f"gpusizing:conv:{KEY}") <= 1000
    time.sleep(1.2)
    assert not client.exists(f"gpusizing:conv:{KEY}")
    r = d.handle(KEY, "inference")
    assert r.kind == "ended" and r.text.id in ("dialogue.reply.expired", "dialogue.reply.missing")
    assert [c.value for c in r.choices] == ["restart"]


def test_redis_down_is_a_typed_error_and_the_conversation_survives(own_redis: RedisProcess) -> None:
    d = Dialogue(RedisStore(own_redis.url, socket_timeout=0.5))
    d.start(KEY, "llama 3.1 70b inference")
    r = d.handle(KEY, "64")
    redis.Redis.from_url(own_redis.url).save()  # a Redis with persistence, killed
    own_redis.stop()
    with pytest.raises(StoreUnavailable) as exc:
        d.handle(KEY, "8k")
    assert "nothing was lost" in str(exc.value)
    with pytest.raises(StoreUnavailable):
        d.current(KEY)
    own_redis.start()
    r2 = d.handle(KEY, "8k", version=r.version)  # the same click, retried
    assert r2.kind == "result" and r2.state == "done"  # the speed assumed: the card
    assert r2.request["concurrency"] == 64 and r2.request["context"] == 8192


class DiesBeforeWrite(RedisStore):
    """Redis goes away between a turn's read and its write."""

    def __init__(self, proc: RedisProcess) -> None:
        super().__init__(proc.url, socket_timeout=0.5)
        self.proc = proc

    def write(self, key: str, w: Write) -> None:
        self.client.save()
        self.proc.stop()
        super().write(key, w)


OPENING = "llama 3.1 70b inference 64 users"


def _path_to_card() -> list[str]:
    """The inputs of one whole sizing (the opening, then each question's default or first
    choice until the card), found on a scratch in-memory dialogue: the flow decides which
    questions remain, not this test."""
    from dialogue import MemoryStore

    d = Dialogue(MemoryStore())
    r = d.start(KEY, OPENING)
    path = [OPENING]
    while r.kind == "question" and len(path) < 15:
        pick = r.default or r.choices[0]
        path.append(pick.value)
        r = d.handle(KEY, pick.value, version=r.version)
    assert r.kind == "result", r
    return path


def test_no_partial_write_when_redis_dies_mid_turn(own_redis: RedisProcess) -> None:
    """Redis dies between the read and the write of the turn that finishes a sizing: neither
    the conversation nor the audit stream keeps half of it."""
    *before, last = _path_to_card()
    d = Dialogue(RedisStore(own_redis.url))
    r = d.start(KEY, before[0])
    for text in before[1:]:
        r = d.handle(KEY, text, version=r.version)
    with pytest.raises(StoreUnavailable):
        Dialogue(DiesBeforeWrite(own_redis)).handle(KEY, last, version=r.version)
    own_redis.start()
    conv = d.load(KEY)
    assert conv is not None and conv.version == r.version and conv.state == r.state
    assert r.asking is not None and r.asking not in conv.answers
    client = redis.Redis.from_url(own_redis.url)
    assert client.xlen("gpusizing:audit") == 0  # the finished sizing was not half-recorded


def test_duplicate_delivery_ids_are_ignored(redis_url: str) -> None:
    d = Dialogue(RedisStore(redis_url))
    d.start(KEY, "llama 3.1 70b inference", delivery_id="Ev1")
    with pytest.raises(Duplicate):
        d.start(KEY, "llama 3.1 405b", delivery_id="Ev1")
    r = d.handle(KEY, "64", delivery_id="Ev2")
    with pytest.raises(Duplicate):
        d.handle(KEY, "32", delivery_id="Ev2")
    conv = d.load(KEY)
    assert conv is not None and conv.answers["concurrency"] == 64 and conv.version == r.version
    assert conv.answers["model"] == "llama-3.1-70b"


CountingConnection = counting_connection()


def test_at_most_two_round_trips_per_turn(redis_url: str) -> None:
    pool = redis.ConnectionPool.from_url(redis_url, connection_class=CountingConnection)
    client = redis.Redis(connection_pool=pool)
    d = Dialogue(RedisStore(client))
    d.start(KEY, "llama 3.1 70b", delivery_id="warm")  # loads the script once
    costs = []
    for i, text in enumerate(("inference", "64", "help", "8k", "no target", "change context")):
        CountingConnection.sent = 0
        d.handle(KEY, text, delivery_id=f"e{i}")
        costs.append(CountingConnection.sent)
    assert costs == [2, 2, 1, 2, 2, 2]  # help writes nothing: one round trip


def test_audit_stream_recent_list_and_meta(redis_url: str) -> None:
    store = RedisStore(redis_url)
    d = Dialogue(store)
    opening, *answers = _path_to_card()
    r = d.start(KEY, opening, owner="U1", meta={"channel": "C1"})
    d.update_meta(KEY, {"ts": "1700000000.000200"})
    for text in answers:
        r = d.handle(KEY, text, version=r.version)  # meta did not move the version
    assert r.kind == "result"
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    assert client.xlen("gpusizing:audit") == 1
    record = store.audit_log()[0]
    assert record["kind"] == "sizing" and record["verdict"] == r.recommendation.verdict
    assert record["inputs"]["concurrency"] == 64 and record["numbers"]["vram_total_gb"] > 0
    assert d.recent("U1")[0]["verdict"] == r.recommendation.verdict
    quote = d.record_quote(KEY, "U2", "please quote")
    assert store.audit_log()[0]["requester"] == "U2" and quote["id"]
    conv = d.load(KEY)
    assert conv is not None and conv.meta == {"channel": "C1", "ts": "1700000000.000200"}
    stored_bytes = sum(len(k) + len(v) for k, v in
                       client.hgetall(f"gpusizing:conv:{KEY}").items())
    assert stored_bytes < 4096


def test_a_retried_write_is_not_a_lost_race(redis_url: str) -> None:
    store = RedisStore(redis_url)
    w = Write(doc='{"a":1}', version=1, expected=None, ttl_seconds=60)
    store.write("k", w)
    store.write("k", w)  # the reply was lost and the client sent it again
    with pytest.raises(Conflict):
        store.write("k", Write(doc='{"a":2}', version=1, expected=None, ttl_seconds=60))
