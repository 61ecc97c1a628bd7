"""The turn consumers (bot/ops/consumer.py) on a real redis-server: a worker process killed -9
while it holds turns loses none of them; a poisonous delivery cannot loop forever; the front
starts the consumers with the worker and lets them finish at shutdown."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from bot.ops import asgi
from bot.ops.consumer import MAX_ATTEMPTS, TurnConsumer
from bot.ops.settings import Settings
from dialogue.store.queue import Entry, RedisTurnQueue

ROOT = Path(__file__).resolve().parents[2]

# A worker that takes turns and dies (SIGKILL from the test) while it holds them.
_DOOMED = textwrap.dedent("""
    import sys, threading, time
    from bot.ops.consumer import TurnConsumer
    from dialogue.store.queue import RedisTurnQueue
    q = RedisTurnQueue(sys.argv[1])
    said = threading.Lock()  # one whole line per turn: the threads print at once
    def handle(entry):
        with said:
            sys.stdout.write(entry.delivery_id + "\\n")
            sys.stdout.flush()
        time.sleep(3600)  # mid-turn, forever
    TurnConsumer(q, handle, name="doomed", threads=3).start()
    time.sleep(3600)
""")


def _wait(cond: Any, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_a_worker_killed_mid_turn_loses_no_turn(redis_url: str) -> None:
    q = RedisTurnQueue(redis_url)
    q.ensure_group()
    for i in range(10):
        q.submit(f"d{i}", f"turn {i}")
    doomed = subprocess.Popen([sys.executable, "-c", _DOOMED, redis_url], cwd=ROOT,
                              env={**os.environ, "PYTHONPATH": str(ROOT)},
                              stdout=subprocess.PIPE, text=True)
    try:
        assert doomed.stdout is not None
        held = {doomed.stdout.readline().strip() for _ in range(3)}  # three turns in hand
    finally:
        doomed.send_signal(signal.SIGKILL)
        doomed.wait(10)
    done: list[Entry] = []
    lock = threading.Lock()

    def handle(entry: Entry) -> None:
        with lock:
            done.append(entry)

    survivor = TurnConsumer(q, handle, name="survivor", threads=2, min_idle_ms=300,
                            sweep_s=0.2, block_ms=100)
    survivor.start()
    try:
        _wait(lambda: len({e.delivery_id for e in done}) == 10)
    finally:
        survivor.stop(5)
    by_id = {e.delivery_id: e for e in done}
    assert set(by_id) == {f"d{i}" for i in range(10)}
    assert {d for d, e in by_id.items() if e.redelivered} == held
    assert q.backlog() == 0


def test_a_poisonous_delivery_is_dropped_after_a_few_tries(
    redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    q = RedisTurnQueue(redis_url)
    q.submit("bad", "x")
    q.submit("good", "y")
    tries: list[str] = []

    def handle(entry: Entry) -> None:
        tries.append(entry.delivery_id)
        if entry.delivery_id == "bad":
            raise KeyError("a bug meets a payload")

    caplog.set_level(logging.ERROR, logger="bot.ops.consumer")
    consumer = TurnConsumer(q, handle, name="c", threads=1, sweep_s=0.05, block_ms=50)
    consumer.start()
    try:
        _wait(lambda: q.backlog() == 0)
    finally:
        consumer.stop(5)
    assert tries.count("bad") == MAX_ATTEMPTS and tries.count("good") == 1
    lines = [r for r in caplog.records if r.name == "bot.ops.consumer"]
    assert len(lines) == MAX_ATTEMPTS and all(r.exc_info is None for r in lines)


def test_the_front_runs_the_consumers_and_drains_them(redis_url: str) -> None:
    from tests.fakeslack import FakeSlack
    from tests.ops.test_asgi import SECRET

    q = RedisTurnQueue(redis_url)
    started = threading.Event()
    finished: list[str] = []

    def handle(entry: Entry) -> None:
        started.set()
        time.sleep(0.5)  # a turn still running when the shutdown begins
        finished.append(entry.delivery_id)

    with FakeSlack() as fake:
        from slack_bolt import App
        from slack_sdk import WebClient

        def bolt(s: Settings) -> App:
            return App(client=WebClient(token="xoxb-test-token", base_url=fake.url),
                       signing_secret=SECRET, token_verification_enabled=False)

        front = asgi.Front(
            Settings(slack_bot_token="xoxb-test", slack_signing_secret=SECRET), bolt, steps=[],
            consumers=lambda app, s: TurnConsumer(q, handle, name="w", threads=1,
                                                  block_ms=100))
        assert front.warm() and front.consumer is not None
        events = [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}]
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            if len(events) == 1:  # shutdown once the turn is in hand
                await asyncio.to_thread(started.wait, 10)
            return events.pop(0)

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        q.submit("turn-1", "x")
        asyncio.run(front({"type": "lifespan"}, receive, send))
    assert finished == ["turn-1"], "the turn in flight was cut off"
    assert [m["type"] for m in sent] == ["lifespan.startup.complete",
                                         "lifespan.shutdown.complete"]
    assert q.backlog() == 0


def test_an_entry_put_off_is_retried_later_while_new_ones_go_on(redis_url: str) -> None:
    """``Later`` (Slack or the store failing for a while) keeps the entry pending and retries
    it after a back-off; the same thread meanwhile takes the entries behind it."""
    from bot.ops.consumer import Later

    q = RedisTurnQueue(redis_url)
    q.submit("waits", "x")
    q.submit("next", "y")
    tries: list[tuple[str, float]] = []

    def handle(entry: Entry) -> None:
        tries.append((entry.delivery_id, time.monotonic()))
        if entry.delivery_id == "waits" and sum(d == "waits" for d, _ in tries) < 3:
            raise Later("slack is down")

    consumer = TurnConsumer(q, handle, name="c", threads=1, sweep_s=5.0, block_ms=50)
    consumer.start()
    try:
        _wait(lambda: q.backlog() == 0)
    finally:
        consumer.stop(5)
    order = [d for d, _ in tries]
    assert order.count("waits") == 3 and order.count("next") == 1
    assert order.index("next") < len(order) - 1  # not stuck behind the entry put off
    waits = [t for d, t in tries if d == "waits"]
    assert waits[2] - waits[1] >= waits[1] - waits[0] > 0.1  # backing off


def test_a_live_workers_long_turn_is_not_taken_over(redis_url: str) -> None:
    """A turn longer than ``min_idle_ms`` stays with its (live) consumer: the heartbeat keeps
    its pending entry fresh, so another worker's sweep does not take it (two workers on one
    turn could both post). Only a dead worker's entries grow idle (the test above)."""
    q = RedisTurnQueue(redis_url)
    q.submit("long", "x")
    seen: list[str] = []
    lock = threading.Lock()

    def slow(entry: Entry) -> None:
        with lock:
            seen.append(f"a:{entry.delivery_id}")
        time.sleep(2.0)  # four times min_idle

    def other(entry: Entry) -> None:
        with lock:
            seen.append(f"b:{entry.delivery_id}")

    a = TurnConsumer(q, slow, name="a", threads=1, min_idle_ms=500, sweep_s=0.1,
                     block_ms=50, heartbeat_s=0.1)
    a.start()
    _wait(lambda: seen == ["a:long"])
    b = TurnConsumer(q, other, name="b", threads=1, min_idle_ms=500, sweep_s=0.1,
                     block_ms=50, heartbeat_s=0.1)
    b.start()
    try:
        _wait(lambda: q.backlog() == 0, timeout=10)
    finally:
        a.stop(5)
        b.stop(5)
    assert seen == ["a:long"]
