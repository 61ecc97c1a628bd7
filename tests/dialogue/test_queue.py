"""The durable turn queue (dialogue/store/queue.py, memqueue.py) against a real redis-server.

The semantic tests run against both implementations; the fault tests pause Redis (SIGSTOP)
for 1 to 8 s and kill it (-9) and restart it from its AOF while deliveries are submitted and
consumed, then check the two promises: no delivery that was reported queued is lost, and none
is handed to a consumer as new twice.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
import redis

from dialogue.errors import StoreUnavailable
from dialogue.store.memqueue import MemoryTurnQueue
from dialogue.store.queue import Entry, QueueFull, RedisTurnQueue, TurnQueue
from tests.redisproc import RedisProcess

Factory = Callable[..., TurnQueue]


@pytest.fixture(params=["redis", "memory"])
def make(request: pytest.FixtureRequest, redis_url: str) -> Factory:
    if request.param == "memory":
        return lambda **kw: MemoryTurnQueue(**kw)
    return lambda **kw: RedisTurnQueue(redis_url, **kw)


def test_a_retried_submit_is_recognised_and_adds_nothing(make: Factory) -> None:
    q = make()
    first = q.submit("Ev1", '{"n": 1}')
    again = q.submit("Ev1", '{"n": 1}')
    assert first.fresh and not again.fresh and again.entry_id == first.entry_id
    got = q.take("c1", count=10, block_ms=100)
    assert [(e.delivery_id, e.payload, e.redelivered) for e in got] == [("Ev1", '{"n": 1}', False)]
    assert q.take("c1", block_ms=50) == []
    assert not q.submit("Ev1", "x").fresh, "acked or not, a delivery is queued once"


def test_each_entry_is_handed_as_new_once_across_consumers(make: Factory) -> None:
    q = make()
    for i in range(300):
        q.submit(f"d{i}", str(i))
    seen: list[Entry] = []
    lock = threading.Lock()

    def consume(name: str) -> None:
        while True:
            batch = q.take(name, count=7, block_ms=100)
            if not batch:
                return
            with lock:
                seen.extend(batch)
            for e in batch:
                q.ack(e.entry_id)

    threads = [threading.Thread(target=consume, args=(f"c{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(int(e.payload) for e in seen) == list(range(300))
    assert not any(e.redelivered for e in seen)
    assert q.backlog() == 0


def test_a_dead_consumers_entries_are_reclaimed_not_lost(make: Factory) -> None:
    q = make()
    for i in range(5):
        q.submit(f"d{i}", str(i))
    taken = q.take("dead", count=3, block_ms=100)  # then the worker is killed: never acked
    assert len(taken) == 3
    assert q.reclaim("alive", min_idle_ms=60_000) == []  # a live, slow consumer keeps its own
    time.sleep(0.05)
    back = q.reclaim("alive", min_idle_ms=10)
    assert [e.entry_id for e in back] == [e.entry_id for e in taken]
    assert all(e.redelivered for e in back)
    assert q.pending("dead") == [] and len(q.pending("alive")) == 3
    rest = q.take("alive", count=10, block_ms=100)
    assert [e.delivery_id for e in rest] == ["d3", "d4"] and not rest[0].redelivered
    for e in back + rest:
        assert q.ack(e.entry_id)
    assert q.backlog() == 0


def test_the_backlog_is_bounded_by_refusing_never_by_dropping(make: Factory) -> None:
    q = make(maxlen=20)
    for i in range(20):
        q.submit(f"d{i}", str(i))
    with pytest.raises(QueueFull):
        q.submit("d20", "20")
    taken = q.take("c", count=12, block_ms=100)
    for e in taken[:10]:
        q.ack(e.entry_id)  # two stay pending: they must survive every trim
    for i in range(20, 30):
        q.submit(f"d{i}", str(i))
    with pytest.raises(QueueFull):
        q.submit("d30", "30")
    left = q.pending("c") + q.take("c", count=100, block_ms=100)
    assert sorted(int(e.payload) for e in left) == list(range(10, 30))


def test_the_stream_stays_short_when_consumers_keep_up(redis_url: str) -> None:
    q = RedisTurnQueue(redis_url, maxlen=50)
    for i in range(500):
        q.submit(f"d{i}", "x")
        for e in q.take("c", count=10, block_ms=0):
            q.ack(e.entry_id)
    assert redis.Redis.from_url(redis_url).xlen(q.stream) <= 50


def test_what_a_person_typed_is_gone_once_the_turn_is_applied(redis_url: str) -> None:
    """The queue is no archive of typed text: an applied turn's entry is deleted with its
    acknowledgement, an unapplied one is kept."""
    q = RedisTurnQueue(redis_url)
    q.submit("typed-1", "we want llama 3.1 70b for ACME")
    q.submit("typed-2", "still to do")
    first, second = q.take("c", count=2, block_ms=100)
    assert q.ack(first.entry_id)
    client = redis.Redis.from_url(redis_url)
    assert client.xrange(q.stream, first.entry_id, first.entry_id) == []
    assert b"ACME" not in b"".join(v for _, f in client.xrange(q.stream) for v in f.values())
    assert [e.entry_id for e in q.pending("c")] == [second.entry_id]  # still needed: kept


# -- faults ------------------------------------------------------------------------------------


@dataclass
class Run:
    """A submitter retrying each delivery until it is reported queued (as Slack retries a
    delivery that got no 200), and consumers acknowledging what they take."""

    q: RedisTurnQueue
    submitted: list[str] = field(default_factory=list)  # delivery ids reported queued
    fresh: Counter[str] = field(default_factory=Counter)
    new: Counter[str] = field(default_factory=Counter)  # handed as new (not redelivered)
    handled: set[str] = field(default_factory=set)
    entry_ids: dict[str, set[str]] = field(default_factory=dict)  # delivery -> entries seen
    stop: threading.Event = field(default_factory=threading.Event)
    errors: Counter[str] = field(default_factory=Counter)
    slowest: float = 0.0  # the longest submit, retries included: proof the fault was felt

    def submit_loop(self, count: int) -> None:
        for i in range(count):
            started = time.monotonic()
            while not self.stop.is_set():
                try:
                    got = self.q.submit(f"d{i}", f"payload {i}")
                    self.slowest = max(self.slowest, time.monotonic() - started)
                    self.fresh[f"d{i}"] += got.fresh
                    self.submitted.append(f"d{i}")
                    break
                except StoreUnavailable as exc:
                    self.errors[exc.detail] += 1
                    time.sleep(0.05)
            time.sleep(0.005)

    def consume_loop(self, name: str) -> None:
        check_own = True
        swept = time.monotonic()
        while not self.stop.is_set():
            try:
                # its own pending entries after an error and every half second, as the
                # worker's consumer sweeps them: a read whose reply was lost hands entries to
                # this consumer that it never saw
                check_own = check_own or time.monotonic() - swept > 0.5
                batch = self.q.pending(name) if check_own else self.q.take(name, 5, 200)
                if check_own:
                    swept = time.monotonic()
                check_own = False
                for e in batch:
                    if not e.redelivered:
                        self.new[e.delivery_id] += 1
                    self.handled.add(e.delivery_id)
                    self.entry_ids.setdefault(e.delivery_id, set()).add(e.entry_id)
                    self.q.ack(e.entry_id)
            except StoreUnavailable as exc:
                self.errors[exc.detail] += 1
                check_own = True
                time.sleep(0.05)

    def run(self, count: int, fault: Callable[[], None]) -> None:
        threads = [threading.Thread(target=self.submit_loop, args=(count,))]
        threads += [threading.Thread(target=self.consume_loop, args=(f"c{i}",))
                    for i in range(2)]
        for t in threads:
            t.start()
        try:
            time.sleep(0.3)
            fault()
            threads[0].join(60)
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and (len(self.handled) < len(set(self.submitted))
                                                    or self._left()):
                time.sleep(0.05)  # an ack whose reply was lost is made again by its consumer
        finally:
            self.stop.set()
            for t in threads:
                t.join(10)

    def _left(self) -> int:
        """Entries still in the stream (a store error counts as some)."""
        try:
            return int(self.q.client.xlen(self.q.stream))
        except redis.exceptions.RedisError:
            return 1

    def check(self, count: int) -> None:
        assert sorted(set(self.submitted)) == sorted(f"d{i}" for i in range(count))
        # A submit whose first attempt landed unseen is told "already queued" (fresh False):
        # right. What must never be is a second entry for one delivery.
        assert all(n <= 1 for n in self.fresh.values())
        doubled = [d for d, ids in self.entry_ids.items() if len(ids) > 1]
        assert not doubled, f"two entries for one delivery: {doubled[:5]}"
        left: Any = self.q.client.xrange(self.q.stream)  # acknowledged entries are deleted
        assert left == [], f"{len(left)} entries left after every delivery was handled"
        missing = set(self.submitted) - self.handled
        assert not missing, f"reported queued, never consumed: {sorted(missing)[:5]}"
        twice = [d for d, n in self.new.items() if n > 1]
        assert not twice, f"handed as new twice: {twice[:5]}"


@pytest.mark.slow
@pytest.mark.parametrize("seconds", [1, 3, 8])
def test_redis_paused_during_submit_and_consume(aof_redis: RedisProcess, seconds: int) -> None:
    run = Run(RedisTurnQueue(aof_redis.url, socket_timeout=0.5, block_ms=200))
    def pause() -> None:  # the submitter and the consumers keep going meanwhile
        aof_redis.pause()
        time.sleep(seconds)
        aof_redis.resume()

    run.run(150, pause)
    run.check(150)
    assert run.slowest >= seconds / 2, "the pause was not felt: the test proves nothing"


@pytest.mark.slow
def test_redis_killed_and_restarted_from_its_aof(aof_redis: RedisProcess) -> None:
    def crash() -> None:
        aof_redis.kill9()
        time.sleep(1.0)
        aof_redis.start()

    run = Run(RedisTurnQueue(aof_redis.url, socket_timeout=0.5, block_ms=200))
    run.run(150, crash)
    run.check(150)
    assert run.errors or run.slowest >= 0.5, "the crash was not felt: the test proves nothing"
