"""Throughput and latency of HTTP mode, beside the floor of a bare Bolt app that only acks.

    .venv/bin/python bench/serve.py [--conversations 40] [--clients 4] [--seconds 60]

What it does, all in one run, loopback only, bounded in count and time:

1. Starts a throwaway redis-server and the local fake Slack Web API (``tests/fakeslack.py``).
2. **Floor**: starts the same server (``bot/ops/serve.py``: gunicorn, 2 uvicorn workers, the
   ASGI front, 4 dispatch threads each) around a bare Bolt app whose listeners only ``ack()``
   (``tests/ops/miniapp.py``), and sends it the same signed requests the bot gets (a slash
   command, then button clicks), from ``--clients`` threads of *this* process (the servers are
   subprocesses). Latency = request to HTTP response.
3. **Bot**: starts ``python -m bot`` (2 workers) against the same Redis and fake Slack, and
   drives ``--conversations`` whole sizings (``tests/ops/drive.py``: command, then the first
   answer of every question until the card), ``--clients`` conversations at a time. Two
   latencies per turn: *ack* (request to HTTP response, what Slack's 3-second limit is about)
   and *turn* (request to the moment the fake Slack received the message that answers it: the
   Redis read/compare-and-set, the engine and the Slack call, which Bolt runs after the ack).
4. Prints turns per second and p50/p99 for each, and the ratios to the floor.

Why this shape: a bare Bolt ack through the same server is the cost no bot can avoid (HTTP,
signature check, Bolt dispatch), so the ratio says what our own work (dialogue, Redis, engine,
Block Kit, Slack calls) costs on top; absolute numbers depend on the machine, the ratio much
less. The fake Slack answers instantly; real Slack adds ~100 ms per call, off the ack path.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shutil
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SECRET = "bench-signing-secret"
TEAM = "TINT0001"
WORKERS = 2


# -- measuring ---------------------------------------------------------------------------------

def pct(values: list[float], q: float) -> float:
    """The q-quantile (0..1), nearest-rank: p99 of 200 samples is the 198th."""
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1))
    return ordered[k]


def row(name: str, latencies: list[float], seconds: float) -> dict[str, Any]:
    return {
        "name": name,
        "requests": len(latencies),
        "per_s": len(latencies) / seconds if seconds > 0 else 0.0,
        "p50_ms": 1000 * statistics.median(latencies),
        "p99_ms": 1000 * pct(latencies, 0.99),
    }


def _drain(one: Any, counter: Any, lock: threading.Lock, clients: int,
           deadline: float) -> None:
    """Run ``one(i)`` for each i of ``counter`` from ``clients`` threads, until ``deadline``."""

    def worker() -> None:
        while time.monotonic() < deadline:
            with lock:
                i = next(counter, None)
            if i is None:
                return
            one(i)

    with ThreadPoolExecutor(clients) as pool:
        for f in [pool.submit(worker) for _ in range(clients)]:
            f.result()


def bench_floor(port: int, requests: int, clients: int, deadline: float) -> dict[str, Any]:
    from tests.ops.server import FreshConn
    from tests.slackreq import block_actions, command_form

    conn = FreshConn(port)
    lock = threading.Lock()
    latencies: list[float] = []
    counter = iter(range(requests))

    def one(i: int) -> None:
        if i % 8 == 0:
            form = command_form("/gpu-sizing", "", user="UREP0001", channel=f"CF{i:06d}",
                                team=TEAM)
        else:
            payload = block_actions(user="UREP0001", user_team=TEAM, channel=f"CF{i:06d}",
                                    message_ts="1700000001.000100", action_id="gs_answer_0",
                                    block_id=f"gs1|{i}|1|{TEAM}:CF:1700000001.000100:UREP0001",
                                    value="llama-3.1-70b", thread_ts="1700000000.000100")
            form = {"payload": json.dumps(payload)}
        sent = time.monotonic()
        status, _, _ = conn.post_signed(SECRET, form)
        took = time.monotonic() - sent
        if status != 200:
            raise RuntimeError(f"floor answered {status}")
        with lock:
            latencies.append(took)


    for i in range(5):  # warm-up: first requests import lazily
        one(10_000_000 + i)
    latencies.clear()
    started = time.monotonic()
    _drain(one, counter, lock, clients, deadline)
    return row("floor: bare Bolt ack", latencies, time.monotonic() - started)


def bench_bot(port: int, fake: Any, conversations: int, clients: int,
              deadline: float) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    from tests.ops.drive import drive
    from tests.ops.server import FreshConn

    conn = FreshConn(port)
    lock = threading.Lock()
    acks: list[float] = []
    turns: list[float] = []
    pids: set[str] = set()
    counter = iter(range(conversations))
    done = [0]

    def one(i: int) -> None:
        run = drive(fake, [conn], SECRET, user=f"UB{i:06d}", team=TEAM, channel=f"CB{i:06d}")
        with lock:
            done[0] += 1
            for t in run.turns:
                acks.append(t.ack_s)
                turns.append(t.turn_s)
                pids.add(t.pid)


    one(9_000_000)  # warm-up conversation
    acks.clear()
    turns.clear()
    pids.clear()
    done[0] = 0
    started = time.monotonic()
    _drain(one, counter, lock, clients, deadline)
    seconds = time.monotonic() - started
    meta = {"conversations": done[0], "turns_per_conversation": len(turns) / max(1, done[0]),
            "workers_seen": len(pids)}
    return (row("bot: ack (HTTP response)", acks, seconds),
            row("bot: turn (Slack got the answer)", turns, seconds), meta)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--conversations", type=int, default=60)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=60.0,
                        help="time bound for each of the two measurements")
    parser.add_argument("--log-level", default="INFO",
                        help="the servers' LOG_LEVEL (INFO, as in production: a line per turn)")
    parser.add_argument("--keep-logs", action="store_true", help="say where the logs are")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    conversations = max(1, min(args.conversations, 500))
    clients = max(1, min(args.clients, 32))
    seconds = max(1.0, min(args.seconds, 300.0))

    # The fake Slack is a ThreadingHTTPServer with the stdlib's listen backlog of 5; slack_sdk
    # opens a connection per call, so with a dozen turns in flight SYNs overflow it and wait
    # out the kernel's 1 s retransmit: a fake-Slack artifact, not the bot's. Real Slack has
    # no such backlog; give the fake one (this process only).
    import http.server

    from tests.fakeslack import FakeSlack
    from tests.ops.server import ServerProcess, bot_env, mini_app, python_m_bot
    from tests.redisproc import RedisProcess, free_port

    http.server.ThreadingHTTPServer.request_queue_size = 256
    redis = RedisProcess()
    redis.start()
    fake = FakeSlack().start()
    logs = Path(tempfile.mkdtemp(prefix="bench-serve-"))
    try:
        # The bot, then the floor: never both at once on a small machine.
        port = free_port()
        env = bot_env(slack_url=fake.url, redis_url=redis.url, port=port, secret=SECRET,
                      token=fake.bot_token, workers=WORKERS, LOG_LEVEL=args.log_level,
                      INTERNAL_TEAM_IDS=TEAM)
        bot = ServerProcess(python_m_bot(), env, port, logs / "bot.log").start()
        try:
            ack_row, turn_row, meta = bench_bot(port, fake, conversations, clients,
                                                time.monotonic() + seconds)
        finally:
            code = bot.stop()
        if code != 0:
            print(bot.log_text()[-2000:], file=sys.stderr)
        if args.keep_logs:
            print(f"server logs kept in {logs}", file=sys.stderr)
        port = free_port()
        env = bot_env(slack_url=fake.url, redis_url=redis.url, port=port, secret=SECRET,
                      token=fake.bot_token, workers=WORKERS, LOG_LEVEL=args.log_level)
        floor = ServerProcess(mini_app(), env, port, logs / "floor.log").start()
        try:
            # Exactly as many requests as the bot was sent.
            floor_row = bench_floor(port, ack_row["requests"], clients,
                                    time.monotonic() + seconds)
        finally:
            floor.stop()
    finally:
        fake.stop()
        redis.cleanup()
        if not args.keep_logs:
            shutil.rmtree(logs, ignore_errors=True)

    ratios = {
        "throughput_floor_over_bot": floor_row["per_s"] / turn_row["per_s"],
        "p50_turn_over_floor": turn_row["p50_ms"] / floor_row["p50_ms"],
        "p99_turn_over_floor": turn_row["p99_ms"] / floor_row["p99_ms"],
        "p50_ack_over_floor": ack_row["p50_ms"] / floor_row["p50_ms"],
    }
    setup = {"workers": WORKERS, "threads": 4, "clients": clients,
             "cpus": os.cpu_count(), "python": platform.python_version(), **meta}
    if args.json:
        print(json.dumps({"setup": setup, "rows": [floor_row, ack_row, turn_row],
                          "ratios": ratios}, indent=2))
        return 0
    print(f"HTTP mode, {WORKERS} uvicorn workers x 4 threads, {clients} concurrent clients, "
          f"loopback, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    print(f"bot: {meta['conversations']} whole sizings, "
          f"{meta['turns_per_conversation']:.1f} turns each, served by "
          f"{meta['workers_seen']} workers")
    print(f"{'':34} {'requests':>8} {'turns/s':>9} {'p50 ms':>8} {'p99 ms':>8}")
    for r in (floor_row, ack_row, turn_row):
        print(f"{r['name']:34} {r['requests']:>8} {r['per_s']:>9.1f} {r['p50_ms']:>8.2f} "
              f"{r['p99_ms']:>8.2f}")
    print(f"floor/bot throughput: {ratios['throughput_floor_over_bot']:.2f}x; "
          f"bot turn p50 = {ratios['p50_turn_over_floor']:.2f}x floor p50, "
          f"p99 = {ratios['p99_turn_over_floor']:.2f}x floor p99; "
          f"bot ack p50 = {ratios['p50_ack_over_floor']:.2f}x floor p50")
    return 0


if __name__ == "__main__":
    sys.exit(main())
