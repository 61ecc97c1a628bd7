"""The real server front (gunicorn + uvicorn workers + bot/ops/asgi.py) under hostile clients.

The server is ``python -m tests.ops.miniapp``: the production front around a bare Bolt app
(no dialogue, no engine), two workers of two threads each, a real redis-server and the local
fake Slack. Each test is one defect of issue 13 the front owns: slow clients (item 1),
unsigned garbage (6), the metrics listener (9), readiness (12), cold start (13), the
persistence check (11), plus the graceful stop and a killed worker. The tests run in file
order; the last one stops the module's server.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bot.ops import asgi, uvworker
from tests.fakeslack import FakeSlack
from tests.ops.server import (
    FreshConn,
    ServerProcess,
    WorkerConn,
    bot_env,
    get,
    mini_app,
    pin_workers,
    steady_metrics,
)
from tests.ops.server import metric_sum as _metric
from tests.redisproc import RedisProcess, free_port
from tests.slackreq import command_form

pytestmark = pytest.mark.slow

SECRET = "7d3c0ffee5ecret4front"
WORKERS = 2


@dataclass
class Front:
    redis: RedisProcess
    fake: FakeSlack
    server: ServerProcess
    conns: list[WorkerConn] = field(default_factory=list)


def _start(tmp: Path, redis: RedisProcess, fake: FakeSlack, name: str) -> ServerProcess:
    port = free_port()
    env = bot_env(slack_url=fake.url, redis_url=redis.url, port=port, secret=SECRET,
                  token=fake.bot_token, workers=WORKERS, WEB_THREADS="2")
    return ServerProcess(mini_app(), env, port, tmp / f"{name}.log").start()


@pytest.fixture(scope="module")
def front(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Front]:
    redis = RedisProcess()  # no persistence: the start-up check must say so
    redis.start()
    fake = FakeSlack().start()
    tmp = tmp_path_factory.mktemp("front")
    server: ServerProcess | None = None
    try:
        server = _start(tmp, redis, fake, "front")
        yield Front(redis, fake, server, pin_workers(server.port, WORKERS))
    finally:
        if server is not None:
            server.stop()
        fake.stop()
        redis.cleanup()


def _repin(front: Front) -> list[WorkerConn]:
    """Kept-alive connections to each worker, fresh: the server closes idle ones after 5 s."""
    for conn in front.conns:
        conn.close()
    front.conns = pin_workers(front.server.port, WORKERS)
    return front.conns


def _slow_body(port: int, out: list[bytes], stop: threading.Event) -> None:
    """Headers and a declared 100 kB body, then one byte every second: until the server
    answers or hangs up (``out`` gets what it said), or ``stop``."""
    with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
        s.sendall(b"POST /slack/events HTTP/1.1\r\nHost: bot\r\nContent-Type: "
                  b"application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\n")
        _dribble(s, out, stop)


def _slow_head(port: int, out: list[bytes], stop: threading.Event) -> None:
    """A request head sent one byte a second (slowloris)."""
    with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
        s.sendall(b"POST /slack/events HTTP/1.1\r\nHost: bot\r\n")
        _dribble(s, out, stop, b"X-Slow: " + b"a" * 200)


def _dribble(s: socket.socket, out: list[bytes], stop: threading.Event,
             data: bytes = b"x" * 1000) -> None:
    for byte in data:
        if stop.is_set():
            return
        try:
            s.sendall(bytes([byte]))
            got = s.recv(4096)
            out.append(got or b"<closed>")
            return
        except TimeoutError:
            continue  # nothing from the server yet: send the next byte
        except OSError:
            out.append(b"<closed>")
            return


def test_slow_clients_do_not_stall_signed_requests(front: Front) -> None:
    """64 slow connections (48 dribbling a body, 16 a head) against 2 workers x 2 threads:
    signed slash commands are all answered while they hang on, and each slow one is
    answered 408 or hung up on by the server once its deadline passes."""
    stop = threading.Event()
    results: list[list[bytes]] = [[] for _ in range(64)]
    threads = [threading.Thread(target=_slow_body if i < 48 else _slow_head,
                                args=(front.server.port, results[i], stop), daemon=True)
               for i in range(64)]
    for t in threads:
        t.start()
    time.sleep(1.0)  # every slow connection is open and dribbling
    try:
        conn = FreshConn(front.server.port, timeout=5)
        statuses = [conn.post_signed(SECRET, command_form("/gpu-sizing", f"n{i}"))[0]
                    for i in range(10)]
        assert statuses == [200] * 10
    finally:
        deadline = max(asgi.BODY_TIMEOUT_S, uvworker.HEADER_TIMEOUT_S) + 5
        for t in threads:
            t.join(deadline)
        stop.set()
    answered = [r[0] for r in results if r]
    assert len(answered) == 64, "the server left slow connections open past their deadline"
    bodies = answered[:48]
    assert all(b.startswith(b"HTTP/1.1 408") for b in bodies if b != b"<closed>")
    assert sum(b.startswith(b"HTTP/1.1 408") for b in bodies) >= 40
    assert all(r == b"<closed>" for r in answered[48:])


GARBAGE: list[tuple[bytes, dict[str, str]]] = [
    (b"{bad", {"Content-Type": "application/json"}),
    (b"payload={not json", {"Content-Type": "application/x-www-form-urlencoded"}),
    (b"[1,2]", {"Content-Type": "application/json"}),
    (b"\xff\xfe\xfa\x00", {"Content-Type": "application/x-www-form-urlencoded"}),
    (b"command=%2Fgpu-sizing", {"X-Slack-Request-Timestamp": "abc",
                                "X-Slack-Signature": "v0=abc"}),
    (b"command=%2Fgpu-sizing", {"X-Slack-Request-Timestamp": str(int(time.time()) - 3600),
                                "X-Slack-Signature": "v0=" + "0" * 64}),
    (b"payload={not json", {"X-Slack-Request-Timestamp": "1", "X-Slack-Signature": ""}),
]


def test_unsigned_and_malformed_requests_get_401_and_one_line(front: Front) -> None:
    before = len(front.server.log_lines())
    conn = _repin(front)[0]
    for body, headers in GARBAGE:
        status, _, _ = conn.request("POST", "/slack/events", body, headers)
        assert status == 401, body
    time.sleep(0.2)
    new = front.server.log_lines()[before:]
    refused = [x for x in new if x.get("event") == "refused"]
    assert len(refused) == len(GARBAGE)
    assert all(x["status"] == 401 for x in refused)
    text = front.server.log_text()
    assert "Traceback" not in text and not any("exc" in x for x in new)
    assert "not json" not in text  # the body is never logged


def test_metrics_are_on_their_own_port_only(front: Front) -> None:
    assert get(front.server.port, "/metrics")[0] == 404
    status, headers, body = get(front.server.metrics_port, "/metrics")
    assert status == 200 and headers["content-type"].startswith("text/plain")
    text = body.decode()
    assert _metric(text, "gpubot_requests_refused_total", reason="unsigned") >= 1
    assert get(front.server.metrics_port, "/healthz")[0] == 404
    # Summed over workers: both answers are the same whichever worker serves the scrape.
    again = get(front.server.metrics_port, "/metrics")[2].decode()
    assert steady_metrics(again) == steady_metrics(text)


def test_readiness_reports_redis_and_never_drops_traffic(front: Front) -> None:
    _repin(front)
    front.redis.stop()
    try:
        deadline = time.monotonic() + 10
        down: set[str | None] = set()
        while len(down) < WORKERS:
            assert time.monotonic() < deadline, "the workers did not notice Redis went away"
            for conn in front.conns:
                status, _, body = conn.request("GET", "/readyz")
                assert status == 200, "readiness must not follow Redis"
                if json.loads(body)["redis"]["up"] is False:
                    down.add(conn.pid)
            time.sleep(0.1)
        metrics = get(front.server.metrics_port, "/metrics")[2].decode()
        assert _metric(metrics, "gpubot_redis_up") == 0
        status, _, _ = front.conns[0].post_signed(SECRET, command_form("/gpu-sizing"))
        assert status == 200  # the process still answers Slack
    finally:
        front.redis.start()
    deadline = time.monotonic() + 10
    while any(json.loads(c.request("GET", "/readyz")[2])["redis"]["up"] is not True
              for c in front.conns):
        assert time.monotonic() < deadline
        time.sleep(0.1)


def test_persistence_is_checked_once_and_reported(front: Front,
                                                  tmp_path: Path) -> None:
    lines = [x for x in front.server.log_lines() if x.get("event") == "redis_persistence"]
    assert len(lines) == 1
    assert lines[0]["level"] == "WARNING" and lines[0]["mode"] == "none"
    report = json.loads(get(front.server.port, "/readyz")[2])["redis"]
    assert report["persistence"]["mode"] == "none" and report["persistence"]["durable"] is False
    metrics = get(front.server.metrics_port, "/metrics")[2].decode()
    assert _metric(metrics, "gpubot_redis_persistence", mode="none") == 1
    assert _metric(metrics, "gpubot_redis_persistence", mode="aof") == 0

    aof = RedisProcess(appendonly=True)
    aof.start()
    try:
        other = _start(tmp_path, aof, front.fake, "aof")
        try:
            (line,) = [x for x in other.log_lines() if x.get("event") == "redis_persistence"]
            assert (line["level"], line["mode"]) == ("INFO", "aof")
            report = json.loads(get(other.port, "/readyz")[2])["redis"]
            assert report["persistence"]["durable"] is True
        finally:
            other.stop()
    finally:
        aof.cleanup()


def test_a_worker_is_warm_before_it_answers(front: Front, tmp_path: Path) -> None:
    """With a slow warm-up, nothing is answered before it finished: the first answer of a
    starting server already lists the warm-up, done."""
    port = free_port()
    env = bot_env(slack_url=front.fake.url, redis_url=front.redis.url, port=port,
                  secret=SECRET, token=front.fake.bot_token, workers=1, MINI_WARM_S="1.5")
    server = ServerProcess(mini_app(), env, port, tmp_path / "cold.log")
    answers: list[tuple[int, dict[str, object]]] = []
    server.start(ready_path="/healthz")
    try:
        status, _, body = get(port, "/readyz")
        answers.append((status, json.loads(body)))
    finally:
        server.stop()
    assert answers[0][0] == 200
    warm = answers[0][1]["warm"]
    assert isinstance(warm, dict) and set(warm) == {"slack_app", "mini"}
    assert all(step["ok"] for step in warm.values())
    (line,) = [x for x in server.log_lines() if x.get("event") == "warm"]
    assert line["steps"]["mini"]["ms"] >= 1500


def test_a_killed_worker_is_replaced_and_its_counts_kept(front: Front) -> None:
    before = _metric(get(front.server.metrics_port, "/metrics")[2].decode(),
                     "gpubot_requests_refused_total")
    assert before > 0
    victim = _repin(front)[1]
    os.kill(int(str(victim.pid)), signal.SIGKILL)
    victim.close()
    deadline = time.monotonic() + 20
    while True:
        conns = pin_workers(front.server.port, WORKERS, timeout=20)
        if victim.pid not in {c.pid for c in conns}:
            break
        for c in conns:
            c.close()
        assert time.monotonic() < deadline, "the master did not replace the killed worker"
        time.sleep(0.2)
    front.conns = conns
    after = _metric(get(front.server.metrics_port, "/metrics")[2].decode(),
                    "gpubot_requests_refused_total")
    assert after == before
    assert all(c.request("GET", "/readyz")[0] == 200 for c in conns)


def test_sigterm_lets_an_in_flight_turn_finish(front: Front) -> None:
    """A command is acked; its post to Slack is still waiting out a 429 (Retry-After 2 s)
    when SIGTERM arrives: the worker finishes it before exiting, and the server exits 0."""
    fake = front.fake
    channel = "CSTOP001"

    def here(c: object) -> bool:
        return bool(getattr(c, "params", {}).get("channel") == channel)

    fake.rate_limit("chat.postMessage", times=1, retry_after=2)
    status, _, _ = FreshConn(front.server.port).post_signed(
        SECRET, command_form("/gpu-sizing", "post", channel=channel))
    assert status == 200
    deadline = time.monotonic() + 5
    while not any(c.status == 429 and here(c) for c in fake.calls("chat.postMessage")):
        assert time.monotonic() < deadline, "the rate-limited post never came"
        time.sleep(0.01)
    (serving,) = [x for x in front.server.log_lines() if x.get("event") == "serve"]
    metrics_dir = Path(serving["metrics_dir"])
    assert any(metrics_dir.glob("*.db"))
    for conn in front.conns:
        conn.close()
    front.server.terminate()
    code = front.server.wait(45)
    assert code == 0, front.server.log_text()[-3000:]
    delivered = [c for c in fake.calls("chat.postMessage") if here(c) and c.status == 200]
    assert len(delivered) == 1, "the post after the back-off was cut off"
    assert "Shutting down: Master" in front.server.log_text()
    assert not metrics_dir.exists(), "the master removes its metrics directory at exit"
