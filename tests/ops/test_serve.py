"""HTTP mode for real: ``python -m bot`` with two workers (gunicorn + uvicorn, bot/ops/serve.py),
a real redis-server and the local fake Slack API, driven by requests signed exactly as Slack
signs them. The front's own defences (slow clients, garbage, limits) are tests/ops/test_front.py.

One server for the module (starting it is the slow part); the tests run in file order, and the
last ones stop Redis and then the server itself.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.slack.keys import ConversationKey
from dialogue import Dialogue, RedisStore
from tests.fakeslack import FakeSlack
from tests.ops.drive import Driven, drive
from tests.ops.server import (
    WORKER_HEADER,
    ServerProcess,
    WorkerConn,
    bot_env,
    get,
    pin_workers,
    python_m_bot,
    steady_metrics,
)
from tests.ops.server import metric_sum as _metric
from tests.redisproc import RedisProcess, free_port
from tests.slackreq import SignedClient

pytestmark = pytest.mark.slow

SECRET = "7d3c0ffee5ecret4ops"  # a signing secret that must never show in the logs
TEAM = "TINT0001"


@dataclass
class Stack:
    redis: RedisProcess
    fake: FakeSlack
    server: ServerProcess
    conns: list[WorkerConn]
    driven: Driven | None = None


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    redis = RedisProcess()
    redis.start()
    fake = FakeSlack().start()
    port = free_port()
    env = bot_env(slack_url=fake.url, redis_url=redis.url, port=port, secret=SECRET,
                  token=fake.bot_token, workers=2, INTERNAL_TEAM_IDS=TEAM)
    log = tmp_path_factory.mktemp("serve") / "server.log"
    server = ServerProcess(python_m_bot(), env, port, log)
    try:
        server.start()
        conns = pin_workers(port, 2)
        yield Stack(redis, fake, server, conns)
    finally:
        server.stop()
        fake.stop()
        redis.cleanup()


def _repin(stack: Stack) -> list[WorkerConn]:
    """Fresh kept-alive connections per worker (the server closes idle ones after 5 s)."""
    for conn in stack.conns:
        conn.close()
    stack.conns = pin_workers(stack.server.port, 2)
    return stack.conns


def _scrape(stack: Stack) -> str:
    return get(stack.server.metrics_port, "/metrics")[2].decode()


def test_probes_answer_on_every_worker_warm(stack: Stack) -> None:
    for conn in _repin(stack):
        status, headers, body = conn.request("GET", "/healthz")
        assert status == 200 and json.loads(body)["status"] == "ok"
        assert headers[WORKER_HEADER] == conn.pid
        status, _, body = conn.request("GET", "/readyz")
        ready = json.loads(body)
        assert status == 200 and (ready["status"], ready["reason"]) == ("ready", "ok")
        # Cold start (issue 13, item 13): everything a first turn loads was loaded before the
        # worker accepted its first connection.
        assert set(ready["warm"]) == {"slack_app", "catalogs", "sizing", "engine", "charts",
                                      "freeze"}
        assert all(step["ok"] for step in ready["warm"].values()), ready["warm"]
        assert ready["redis"]["up"] is True
        assert conn.request("GET", "/metrics")[0] == 404, "metrics are not public"
        assert conn.request("GET", "/nowhere")[0] == 404
        assert conn.request("GET", "/slack/events")[0] == 405
    status, headers, body = get(stack.server.metrics_port, "/metrics")
    assert status == 200 and headers["Content-Type"].startswith("text/plain")
    assert b"# TYPE gpubot_redis_errors_total counter" in body


def test_a_bad_signature_is_refused(stack: Stack) -> None:
    client = SignedClient(f"http://127.0.0.1:{stack.server.port}/slack/events", "wrong-secret")
    status, _ = client.post_command("/gpu-sizing", "70B for Project Bluebird")
    assert status == 401  # and Bolt's log of it must not quote the typed text (next tests)


def test_a_whole_conversation_alternating_between_workers(stack: Stack) -> None:
    run = drive(stack.fake, _repin(stack), SECRET, team=TEAM)
    stack.driven = run
    pids = {c.pid for c in stack.conns}
    assert len(pids) == 2
    assert all(t.status == 200 for t in run.turns)
    # Requests alternated: consecutive turns were served by different worker processes.
    served = [t.pid for t in run.turns]
    assert set(served) == pids
    assert all(a != b for a, b in itertools.pairwise(served))
    assert len(run.turns) >= 4

    # The card is in Slack (the fake), in the question message, updated in place.
    assert run.blocks
    posted_in_thread = [c for c in stack.fake.calls("chat.postMessage")
                        if c.params.get("thread_ts") == run.root_ts]
    assert len(posted_in_thread) == 1  # every later turn updated it, none posted anew

    # The conversation in Redis is whole: finished, every click applied once, in order.
    dialogue = Dialogue(RedisStore(stack.redis.url))
    conv = dialogue.load(ConversationKey.thread(TEAM, run.channel, run.root_ts, run.user).format())
    assert conv is not None
    assert conv.state == "done"
    assert conv.owner == run.user
    assert conv.version >= len(run.turns)

    # Every turn of this conversation was applied by a worker of this server (any worker's
    # consumer takes a queued turn, whichever acked it), once, without error: the turn log
    # lines (the last one is written after its Slack call: wait for it).
    deadline = time.monotonic() + 10
    while True:
        lines = [x for x in stack.server.log_lines() if x.get("event") == "turn"]
        ours = [x for x in lines if x.get("conversation_id") == lines[-1]["conversation_id"]]
        if len(ours) >= len(run.turns) or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert {str(x["pid"]) for x in ours} <= {str(p) for p in pids}
    assert len(ours) == len(run.turns)
    assert all(x["outcome"] != "error" for x in ours)


def test_metrics_moved_and_are_the_same_from_both_workers(stack: Stack) -> None:
    assert stack.driven is not None, "runs after the conversation"
    # whichever worker accepts the scrape; the Redis timings move on their own (the turn
    # consumers poll the queue), so they are left out of the comparison
    bodies = [steady_metrics(_scrape(stack)) for _ in range(6)]
    assert len(set(bodies)) == 1, "each worker must expose the sum over all workers"
    text = bodies[0]
    clicks = len(stack.driven.turns) - 1
    assert _metric(text, "gpubot_turns_total", kind="command") >= 1
    assert _metric(text, "gpubot_turns_total", kind="action") >= clicks
    assert _metric(text, "gpubot_turn_duration_seconds_count", kind="action") >= clicks
    assert _metric(text, "gpubot_conversations_started_total") >= 1
    assert _metric(text, "gpubot_conversations_finished_total") >= 1
    verdicts = re.findall(r'^gpubot_recommendations_total\{verdict="([^"]+)"\} (\S+)$', text,
                          re.M)
    assert verdicts and sum(float(v) for _, v in verdicts) >= 1


def test_logs_are_json_and_hold_no_secret(stack: Stack) -> None:
    text = stack.server.log_text()
    lines = stack.server.log_lines()  # every line parses as JSON
    assert lines and all({"ts", "level", "logger", "pid", "msg"} <= x.keys() for x in lines)
    assert SECRET not in text
    assert "Bluebird" not in text  # typed by a customer, in a request that failed its signature
    assert stack.fake.bot_token not in text
    assert not re.search(r"xox[a-z]-[A-Za-z0-9]", text)


def test_with_redis_down_the_bot_stays_ready_and_answers(stack: Stack) -> None:
    """Readiness means "this process can answer" (issue 13, item 12): with Redis down the pods
    stay in the Service and a slash command still gets the bot's own answer, not an ingress
    5xx; Redis health is in the readiness body and the metrics."""
    conns = _repin(stack)
    stack.redis.stop()
    try:
        deadline = time.monotonic() + 10
        while not all(json.loads(c.request("GET", "/readyz")[2])["redis"]["up"] is False
                      for c in conns):
            assert time.monotonic() < deadline, "the workers did not notice Redis went away"
            time.sleep(0.1)
        for conn in conns:
            status, _, body = conn.request("GET", "/readyz")
            assert status == 200 and json.loads(body)["status"] == "ready"
        assert _metric(_scrape(stack), "gpubot_redis_up") == 0
        told = len(stack.fake.calls("response_url")) + len(stack.fake.calls("chat.postEphemeral"))
        status, _, _ = conns[0].post_signed(SECRET, {
            "command": "/gpu-sizing", "text": "", "user_id": "UREP0003",
            "channel_id": "CDOWN001", "team_id": TEAM,
            "response_url": stack.fake.response_url(), "trigger_id": "t.down"})
        assert status == 200
        deadline = time.monotonic() + 10
        while (len(stack.fake.calls("response_url"))
               + len(stack.fake.calls("chat.postEphemeral"))) == told:
            assert time.monotonic() < deadline, "the person was told nothing"
            time.sleep(0.05)
    finally:
        stack.redis.start()
    deadline = time.monotonic() + 10
    while not all(json.loads(c.request("GET", "/readyz")[2])["redis"]["up"] is True
                  for c in conns):
        assert time.monotonic() < deadline
        time.sleep(0.1)


def test_retry_reasons_from_clients_make_no_new_series(stack: Stack) -> None:
    """30 made-up X-Slack-Retry-Reason values, signed (issue 13, item 9): one series."""
    from tests.slackreq import SignedClient, event_envelope, message_event

    client = SignedClient(f"http://127.0.0.1:{stack.server.port}/slack/events", SECRET)
    for i in range(30):
        edit = message_event(user="UREP0001", channel="CSALES01", text="x",
                             subtype="message_changed")  # never an answer: dropped
        status, _ = client.post_event(event_envelope(edit), retry=1,
                                      retry_reason=f"made-up-{i}")
        assert status == 200
    from bot.ops.labelsets import RETRY_REASONS

    series = dict(re.findall(r'^gpubot_slack_retries_total\{reason="([^"]+)"\} (\S+)',
                             _scrape(stack), re.M))
    assert set(series) <= RETRY_REASONS | {"other"}  # the closed set, zero-initialised
    assert float(series["other"]) >= 30  # the made-up reasons all counted as "other"


def test_a_killed_worker_is_replaced_and_its_counts_kept(stack: Stack) -> None:
    turns_before = _metric(_scrape(stack), "gpubot_turns_total")
    assert turns_before > 0
    victim = _repin(stack)[1]
    os.kill(int(str(victim.pid)), signal.SIGKILL)
    victim.close()
    deadline = time.monotonic() + 15
    while True:
        conns = pin_workers(stack.server.port, 2, timeout=15)  # waits for the replacement
        if victim.pid not in {c.pid for c in conns}:
            break
        for c in conns:  # a stale accept of the dead one? not possible, but never loop forever
            c.close()
        assert time.monotonic() < deadline, "the master did not replace the killed worker"
        time.sleep(0.2)
    stack.conns = conns
    conns = _repin(stack)  # those pinned while the replacement booted may have idled out
    assert victim.pid not in {c.pid for c in conns}
    assert _metric(_scrape(stack), "gpubot_turns_total") == turns_before
    for conn in conns:
        assert conn.request("GET", "/readyz")[0] == 200


def test_sigterm_lets_an_in_flight_turn_finish(stack: Stack) -> None:
    """A command is acked; its turn is still waiting on Slack (429, Retry-After 2 s) when
    SIGTERM arrives. The worker must finish that turn (both messages delivered) before it
    exits, and the server must exit cleanly."""
    fake = stack.fake
    channel = "CSTOP001"

    def here(c: object) -> bool:
        return bool(getattr(c, "params", {}).get("channel") == channel)

    fake.rate_limit("chat.postMessage", times=1, retry_after=2)
    status, _, _ = _repin(stack)[0].post_signed(SECRET, {
        "command": "/gpu-sizing", "text": "", "user_id": "UREP0002", "channel_id": channel,
        "team_id": TEAM, "response_url": fake.response_url(), "trigger_id": "t.stop"})
    assert status == 200  # acked at once; the turn goes on in Bolt's listener thread
    deadline = time.monotonic() + 5
    while not any(c.status == 429 and here(c) for c in fake.calls("chat.postMessage")):
        assert time.monotonic() < deadline, "the rate-limited post never came"
        time.sleep(0.01)
    (serving,) = [x for x in stack.server.log_lines() if x.get("event") == "serve"]
    metrics_dir = Path(serving["metrics_dir"])
    assert any(metrics_dir.glob("*.db")), "workers write their metrics there"
    for conn in stack.conns:
        conn.close()
    stack.server.terminate()  # mid-turn: the worker is sleeping out the Retry-After
    started = time.monotonic()
    code = stack.server.wait(45)
    took = time.monotonic() - started
    assert code == 0, stack.server.log_text()[-3000:]
    delivered = [c for c in fake.calls("chat.postMessage") if here(c) and c.status == 200]
    assert len(delivered) == 2, "root message and first question, after the back-off"
    assert delivered[1].params.get("blocks")
    assert 1.0 < took < 40
    turns = [x for x in stack.server.log_lines()
             if x.get("event") == "turn" and x.get("kind") == "command"]
    assert turns[-1]["outcome"] == "question"
    assert "Shutting down: Master" in stack.server.log_text()
    assert not metrics_dir.exists(), "the master removes its metrics directory at exit"
