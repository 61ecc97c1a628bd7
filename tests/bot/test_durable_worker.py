"""A worker of the real server (``python -m bot``: gunicorn, two workers) killed -9 while it
holds a turn (issue 13, item 5): its entry stays pending in the turn queue and another worker
takes it over; the sizing appears, its root and question once. A file of its own so the
suite's processes share this long test out (the Makefile's pytest-xdist, by file).
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import redis

from tests.bot.harness import INTERNAL_TEAM, REP, SALES, populate, until
from tests.fakeslack import FakeSlack
from tests.ops.server import ServerProcess, bot_env, python_m_bot
from tests.redisproc import RedisProcess, free_port
from tests.slackreq import SignedClient

STREAM = "{gpusizing:turns}"


def _consumer_pid(client: redis.Redis) -> int | None:
    rows = client.xpending_range(STREAM, "turns", "-", "+", 10)
    if not rows:
        return None
    name = rows[0]["consumer"].decode()
    return int(name.rsplit("-", 3)[1])


def test_a_worker_killed_while_it_holds_a_turn_loses_nothing(
    aof_redis: RedisProcess, tmp_path: Path
) -> None:
    secret = "durable-test-signing-secret"
    with FakeSlack() as fake:
        populate(fake)
        port = free_port()
        env = bot_env(slack_url=fake.url, redis_url=aof_redis.url, port=port, secret=secret,
                      token=fake.bot_token, workers=2, INTERNAL_TEAM_IDS=INTERNAL_TEAM)
        server = ServerProcess(python_m_bot(), env, port, tmp_path / "bot.log").start(timeout=40)
        try:
            fake.mode_methods = ("chat.postMessage",)
            fake.slow_s = 3.0
            fake.mode = "slow"  # Slack takes 3 s to post: the turn is in the worker's hands
            client = SignedClient(f"http://127.0.0.1:{port}/slack/events", secret)
            status, _ = client.post_command("/gpu-sizing", "llama 3.1 70b inference",
                                            user=REP, channel=SALES, team=INTERNAL_TEAM,
                                            response_url=fake.response_url("k"))
            assert status == 200
            r = redis.Redis.from_url(aof_redis.url)
            until(lambda: _consumer_pid(r) is not None, 10, "a consumer took the turn")
            time.sleep(0.5)  # its root post is on its way
            pid = _consumer_pid(r)
            assert pid is not None
            os.kill(pid, signal.SIGKILL)
            fake.mode = None
            # another worker takes the turn over; the root Slack posted meanwhile is found
            # again by its id, not posted twice
            until(lambda: len(fake.messages.get(SALES, {})) >= 2, 45, "root and question")
            fake.quiet(1.0)
            roots = [m for m in fake.messages[SALES].values() if m["thread_ts"] is None]
            assert len(roots) == 1
            questions = [m for m in fake.messages[SALES].values()
                         if m["thread_ts"] == roots[0]["ts"]]
            assert len(questions) == 1
            until(lambda: r.xpending(STREAM, "turns")["pending"] == 0, 10, "acknowledged")
            assert "Traceback" not in server.log_text()
        finally:
            server.stop()
