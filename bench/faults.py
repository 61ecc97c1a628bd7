"""What users would notice under faults and hostile clients: the figures of issue 13.

    .venv/bin/python bench/faults.py [--conversations 12] [--clients 4] [--only NAME ...]

Starts, on loopback only, a real redis-server (AOF, appendfsync everysec, as deployed), the
local fake Slack (``tests/fakeslack.py``, the tests' one fake with its faults) and the real
server (``python -m bot``, 2 workers; ``tests.ops.miniapp``, the same front around a bare Bolt
app, when the bot cannot start), then runs each scenario and prints one line of figures per
scenario. Everything is bounded in count and time; nothing is asserted: this measures.

Cold start (first, before anything else reaches the server):

* ``first``: the first signed slash command each worker receives after start-up, a whole
  sizing in one line (its answer is the card), sent while ``--clients`` people start
  conversations beside it: its ack (request to HTTP 200) and its card (request to the card in
  the fake Slack).
* ``modal``: with people conversing beside it, a finished card's "Request a formal quote"
  clicked: click to ``views.open`` (Slack accepts the click's trigger for 3 s).

Hostile clients (any server):

* ``slow``: 64 slow connections (48 dribble a declared 100 kB body, 16 a request head) held
  open while 100 signed slash commands are timed: ack p50/p99/max, and how many got no 200.
* ``garbage``: unsigned and malformed requests (the corpus of issue 13, item 6, plus random
  bytes): answers by class, and tracebacks in the server's log.

Faults (the real bot; whole conversations by ``--clients`` concurrent people, each clicking the
first answer until the card, as ``tests/ops/drive.py`` does, with Slack's redelivery of an
unanswered request simulated: up to 3 retries, 1 s apart, with ``X-Slack-Retry-Num``):

* ``redis-pause-1s`` / ``-3s`` / ``-8s``: Redis SIGSTOPped mid-run; ``redis-kill``: killed -9
  and restarted from its AOF 1 s later; ``redis-full``: for 5 s Redis past its memory limit
  (``maxmemory`` set below what it holds, ``noeviction``: every write refused);
  ``worker-kill``: the worker holding the oldest pending turn killed -9 while turns are in
  flight (Slack made 1.5 s slow so they are), twice, at different points; ``slack-429`` /
  ``-500`` / ``-reset`` / ``-late``: for 5 s the fake Slack answers
  ``chat.postMessage``/``chat.update`` with 429s, 500s, a connection reset after doing the
  work, or the answer 11 s after doing the work.
* Per scenario (``bench/people.py`` says how a person is simulated): *acked* (a delivery Slack
  got a 200 for), *lost* (acked, but its answer never reached Slack), *late* (answered, but
  after 12 s), *not_taken* (slash commands the bot said it could not confirm, run again),
  *dup_posts* (messages posted beyond the two each conversation needs), *two_live* (threads
  showing more than one message with live buttons), *stuck* (conversations that never reached
  their card), *told* (ephemeral notes and response_url messages: the user was told
  something), *5xx* (answers Slack saw), answer latency p50/p99/max.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import signal
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.firsts import SECRET, TEAM, WORKERS, run_first, run_modal  # noqa: E402
from bench.people import SLACK_METHODS, Tally, converse, ok_calls  # noqa: E402
from tests.fakeslack import FakeSlack  # noqa: E402
from tests.ops.server import (  # noqa: E402
    FreshConn,
    ServerProcess,
    WorkerConn,
    bot_env,
    mini_app,
    python_m_bot,
)
from tests.redisproc import RedisProcess, free_port  # noqa: E402
from tests.slackreq import command_form  # noqa: E402

FAULT_WINDOW_S = 5.0


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, int(q * len(ordered) + 0.999999) - 1))]


# -- scenarios ----------------------------------------------------------------------------------


@dataclass
class Stack:
    redis: RedisProcess
    fake: FakeSlack
    server: ServerProcess
    bot: bool  # the real bot (else the bare front)


STREAM = "{gpusizing:turns}"


def _holder_pid(redis_url: str) -> int | None:
    """A live worker whose consumer holds a pending turn (a consumer's name ends in
    ``-<pid>-<n>-<thread>``, ``bot/slack/app.py``), oldest turn first."""
    import redis

    client = redis.Redis.from_url(redis_url)
    try:
        rows = client.xpending_range(STREAM, "turns", "-", "+", 50)
    except redis.exceptions.RedisError:
        return None
    finally:
        client.close()
    for row in rows:
        pid = int(row["consumer"].decode().rsplit("-", 3)[1])
        try:
            os.kill(pid, 0)
        except OSError:
            continue  # a worker killed already: its turns wait for another to take them
        return pid
    return None


def faults(stack: Stack) -> dict[str, Callable[[], None]]:
    r, fake = stack.redis, stack.fake

    def pause(seconds: float) -> Callable[[], None]:
        def run() -> None:
            r.pause()
            time.sleep(seconds)
            r.resume()
        return run

    def kill_redis() -> None:
        r.kill9()
        time.sleep(1.0)
        r.start()

    def kill_worker() -> None:
        fake.mode = "slow"  # Slack answers 1.5 s late (in time): turns stay in flight
        for wait in (0.6, 2.3):  # twice, at different points of the turns in flight
            time.sleep(wait)
            pid = None
            deadline = time.monotonic() + 5
            while pid is None and time.monotonic() < deadline:
                pid = _holder_pid(r.url)
                time.sleep(0.05)
            if pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        time.sleep(1.0)
        fake.mode = None

    def redis_full() -> None:
        import redis

        client = redis.Redis.from_url(r.url)
        try:  # past its limit: ``maxmemory`` below where it stands, every write refused
            used = int(client.info("memory")["used_memory"])
            client.config_set("maxmemory-policy", "noeviction")
            client.config_set("maxmemory", str(used // 2))
            time.sleep(FAULT_WINDOW_S)
            client.config_set("maxmemory", "0")
        finally:
            client.close()

    def slack(kind: str) -> Callable[[], None]:
        def run() -> None:
            big = 10**6
            for method in SLACK_METHODS:
                if kind == "429":
                    fake.rate_limit(method, times=big, retry_after=1)
                elif kind == "500":
                    fake.http_error(method, 500, times=big)
            fake.mode = kind if kind in ("reset", "late") else None
            time.sleep(FAULT_WINDOW_S)
            fake.clear_faults()
        return run

    return {
        "redis-pause-1s": pause(1), "redis-pause-3s": pause(3), "redis-pause-8s": pause(8),
        "redis-kill": kill_redis, "redis-full": redis_full, "worker-kill": kill_worker,
        "slack-429": slack("429"), "slack-500": slack("500"), "slack-reset": slack("reset"),
        "slack-late": slack("late"),
    }


def run_fault(stack: Stack, name: str, fault: Callable[[], None], conversations: int,
              clients: int, offset: int) -> dict[str, Any]:
    fake = stack.fake
    tally = Tally()
    channels = {f"CF{offset + i:05d}" for i in range(conversations)}
    told_before = len(fake.calls("chat.postEphemeral")) + len(fake.calls("response_url"))
    injector = threading.Timer(0.5, fault)
    injector.start()
    with ThreadPoolExecutor(clients) as pool:
        for f in [pool.submit(converse, fake, stack.server.port, SECRET, offset + i, tally)
                  for i in range(conversations)]:
            f.result()
    injector.join()
    fake.quiet(1.0)
    dup = 0
    for channel in channels:
        posts = ok_calls(fake, "chat.postMessage", lambda c, ch=channel: c.params.get(
            "channel") == ch)
        dup += max(0, posts - 2)
    told = len(fake.calls("chat.postEphemeral")) + len(fake.calls("response_url")) - told_before
    answers = tally.answers_s
    waiting = _queue_left(stack.redis.url)
    return {"scenario": name, "conversations": tally.conversations, "sent": tally.sent,
            "acked": tally.acked, "lost": tally.lost, "late": tally.late,
            "not_taken": tally.not_taken, "dup_posts": dup, "two_live": _two_live(fake, channels),
            "stuck": tally.stuck, "told": told, "http5xx": tally.http5xx,
            "queue_left": waiting,
            "ack_p99_ms": round(1000 * pct(tally.acks_s, 0.99), 1) if tally.acks_s else None,
            "answer_p50_s": round(statistics.median(answers), 2) if answers else None,
            "answer_p99_s": round(pct(answers, 0.99), 2) if answers else None,
            "answer_max_s": round(max(answers), 2) if answers else None}


def _queue_left(redis_url: str) -> int:
    """Turns still in the queue once the scenario is over (pending or never taken); each one
    is printed on stderr (its delivery, consumer and idle time) to look for in the log."""
    import redis

    client = redis.Redis.from_url(redis_url)
    try:
        rows = client.xpending_range(STREAM, "turns", "-", "+", 100)
        groups = client.xinfo_groups(STREAM)
        for row in rows:
            entry = client.xrange(STREAM, row["message_id"], row["message_id"])
            delivery = entry[0][1].get(b"d", b"?").decode() if entry else "?"
            print(f"left in the queue: {delivery} held by {row['consumer'].decode()}, idle"
                  f" {row['time_since_delivered']} ms", file=sys.stderr)
        lag = int(groups[0].get("lag") or 0) if groups else 0
        return len(rows) + lag
    except redis.exceptions.RedisError:
        return -1
    finally:
        client.close()


def _two_live(fake: FakeSlack, channels: set[str]) -> int:
    """Threads in which more than one message of the bot still has buttons."""
    out = 0
    with fake._lock:
        for channel in channels:
            live = [m for m in fake.messages.get(channel, {}).values() if m.get("thread_ts")
                    and any(b.get("type") == "actions" for b in m.get("blocks") or [])]
            out += len(live) > 1
    return out


def run_slow(stack: Stack) -> dict[str, Any]:
    from tests.ops.test_front import _slow_body, _slow_head

    port = stack.server.port
    stop = threading.Event()
    out: list[list[bytes]] = [[] for _ in range(64)]
    threads = [threading.Thread(target=_slow_body if i < 48 else _slow_head,
                                args=(port, out[i], stop), daemon=True) for i in range(64)]
    for t in threads:
        t.start()
    time.sleep(1.0)
    acks: list[float] = []
    failed = 0
    conn = FreshConn(port, timeout=5.0)
    for i in range(100):
        started = time.monotonic()
        try:
            status = conn.post_signed(SECRET, command_form("/gpu-sizing", "", user="USLOW",
                                                           channel=f"CS{i:04d}", team=TEAM))[0]
        except OSError:
            status = 0
        if status == 200:
            acks.append(time.monotonic() - started)
        else:
            failed += 1
    for t in threads:  # each ends when the server answers 408 or hangs up
        t.join(12)
    stop.set()
    return {"scenario": "slow (64 slow connections)", "signed": 100, "not_200": failed,
            "ack_p50_ms": round(1000 * statistics.median(acks), 1) if acks else None,
            "ack_p99_ms": round(1000 * pct(acks, 0.99), 1) if acks else None,
            "ack_max_ms": round(1000 * max(acks), 1) if acks else None,
            "slow_cut_off": sum(1 for o in out if o)}


def run_garbage(stack: Stack, count: int = 400) -> dict[str, Any]:
    from tests.ops.test_front import GARBAGE

    rng = random.Random(13)
    statuses: dict[str, int] = {}
    log_before = len(stack.server.log_text())
    for i in range(count):
        if i < len(GARBAGE) * 10:
            body, headers = GARBAGE[i % len(GARBAGE)]
        else:
            body = bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 300)))
            headers = {"Content-Type": rng.choice(["application/json",
                                                   "application/x-www-form-urlencoded"]),
                       "X-Slack-Request-Timestamp": rng.choice(["abc", "1", str(int(time.time()))]),
                       "X-Slack-Signature": "v0=" + rng.randbytes(32).hex()}
        try:
            conn = WorkerConn(stack.server.port, timeout=5.0, probe=False)
            status = conn.request("POST", "/slack/events", body, headers)[0]
            conn.close()
        except OSError:
            status = 0
        key = f"{status // 100}xx" if status else "no answer"
        statuses[key] = statuses.get(key, 0) + 1
    time.sleep(0.3)
    log = stack.server.log_text()[log_before:]
    return {"scenario": f"garbage ({count} unsigned/malformed)", **statuses,
            "tracebacks": log.count("Traceback"),
            "log_lines_with_exc": sum('"exc"' in line for line in log.splitlines())}


QUOTES = "CQUOTE01"


def start_stack(tmp: Path, want_bot: bool) -> Stack:
    import http.server

    http.server.ThreadingHTTPServer.request_queue_size = 256  # see bench/serve.py
    redis = RedisProcess(appendonly=True, appendfsync="everysec")
    redis.start()
    fake = FakeSlack()
    fake.start()
    fake.add_channel(QUOTES, is_ext_shared=False, is_shared=False)
    port = free_port()
    env = bot_env(slack_url=fake.url, redis_url=redis.url, port=port, secret=SECRET,
                  token=fake.bot_token, workers=WORKERS, INTERNAL_TEAM_IDS=TEAM,
                  QUOTE_CHANNEL_ID=QUOTES)
    if want_bot:
        try:
            server = ServerProcess(python_m_bot(), env, port, tmp / "bot.log").start(timeout=40)
            return Stack(redis, fake, server, True)
        except RuntimeError as exc:
            first = str(exc).strip().splitlines()
            why = next((x for x in reversed(first) if "Error" in x), first[-1] if first else "")
            print(f"the bot did not start ({why.strip()[:160]}); hostile scenarios run against"
                  " the bare front (tests/ops/miniapp.py), fault scenarios are skipped",
                  file=sys.stderr)
    try:
        server = ServerProcess(mini_app(), env, port, tmp / "front.log").start()
    except BaseException:
        fake.stop()
        redis.cleanup()
        raise
    return Stack(redis, fake, server, False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--conversations", type=int, default=12)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--only", nargs="*", help="scenario names (default: all)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    conversations = max(1, min(args.conversations, 100))
    clients = max(1, min(args.clients, 16))
    tmp = Path(tempfile.mkdtemp(prefix="bench-faults-"))
    stack = start_stack(tmp, want_bot=True)
    rows: list[dict[str, Any]] = []
    wanted = set(args.only or [])
    try:
        if stack.bot and (not wanted or "first" in wanted):
            rows.append(run_first(stack, clients))
        if stack.bot and (not wanted or "modal" in wanted):
            rows.append(run_modal(stack, clients))
        if not wanted or "slow" in wanted:
            rows.append(run_slow(stack))
        if not wanted or "garbage" in wanted:
            rows.append(run_garbage(stack))
        for i, (name, fault) in enumerate(faults(stack).items()):
            if wanted and name not in wanted:
                continue
            if not stack.bot:
                rows.append({"scenario": name, "skipped": "the bot did not start"})
                continue
            rows.append(run_fault(stack, name, fault, conversations, clients, 1000 * (i + 1)))
            if name == "worker-kill":
                time.sleep(3)  # the master replaces the worker
    finally:
        stack.server.stop()
        stack.fake.stop()
        stack.redis.cleanup()
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"bench/faults.py: {'the bot' if stack.bot else 'the bare front'}, {WORKERS} workers,"
          f" Redis with AOF (everysec), {os.cpu_count()} CPUs; logs in {tmp}")
    for row in rows:
        name = row.pop("scenario")
        print(f"{name:34} " + "  ".join(f"{k}={v}" for k, v in row.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
