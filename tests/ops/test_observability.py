"""What an operator watches, measured against the real things: Redis and Slack latency as the
servers count the calls, a Redis outage as the log lines it leaves, the exposition as
``promtool`` reads it, and the served bot as Prometheus would scrape it (issue 11, item 4).

Real redis-server processes (``tests/redisproc.py``), the local fake Slack API
(``tests/fakeslack.py``), and, at the end, ``python -m bot`` itself.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import logging
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from prometheus_client.parser import text_string_to_metric_families

from bot.ops import logs, metrics, outage, redistiming
from bot.ops.health import RedisMonitor
from dialogue.errors import StoreUnavailable
from dialogue.store.base import Write
from dialogue.store.connect import parse
from dialogue.store.queue import RedisTurnQueue
from dialogue.store.redis import RedisStore
from tests.fakeslack import FakeSlack
from tests.redisproc import RedisProcess

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def fresh_metrics(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR", raising=False)
    metrics._reset_for_tests()
    outage._reset_for_tests()
    yield
    metrics._reset_for_tests()
    outage._reset_for_tests()


@pytest.fixture
def log_lines(monkeypatch: pytest.MonkeyPatch) -> Iterator[io.StringIO]:
    stream = io.StringIO()
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    monkeypatch.setattr(sys, "stderr", stream)
    logs.setup_logging("INFO")
    yield stream
    root.handlers[:] = saved[0]
    root.setLevel(saved[1])


def _lines(stream: io.StringIO, event: str) -> list[dict[str, Any]]:
    found = [json.loads(line) for line in stream.getvalue().splitlines() if line.strip()]
    return [x for x in found if x.get("event") == event]


def _counts(family: str) -> dict[str, float]:
    """``label value -> _count`` of one histogram in this process's exposition."""
    families = {f.name: f for f in text_string_to_metric_families(metrics.render()[0].decode())}
    out: dict[str, float] = {}
    for sample in families[family].samples:
        if sample.name.endswith("_count"):
            (value,) = (v for k, v in sample.labels.items())
            out[value] = sample.value
    return out


def _commandstats(client: redis.Redis) -> dict[str, int]:
    """What Redis itself counted (INFO commandstats), by command."""
    stats = client.info("commandstats")
    return {k.removeprefix("cmdstat_"): int(v["calls"]) for k, v in stats.items()}


# -- Redis latency ------------------------------------------------------------------------------

def _one_of_each(store: RedisStore, queue: RedisTurnQueue, i: int) -> None:
    """What turns do: a finishing write, a read, face metadata, a claim, a quote record, a
    queued delivery taken and acknowledged."""
    key = f"T1:C1:1700000000.00010{i}:U1"
    store.write(key, Write(doc='{"owner":"U1"}', version=1, expected=None, ttl_seconds=600,
                           delivery_id=f"ev{i}", audit={"kind": "sizing", "owner": "U1"},
                           owner="U1", recent={"finished_at": time.time(), "n": i}))
    assert store.read(key, f"ev{i}") is not None
    store.set_meta(key, {"ts": "1.2"})
    assert store.claim(f"once{i}", 60)
    store.append_audit({"kind": "quote", "owner": "U1", "requester": "U2", "n": i})
    queue.submit(f"d{i}", "{}")
    (entry,) = queue.take("w1", block_ms=50)
    queue.ack(entry.entry_id)


def test_every_redis_command_of_the_store_and_the_queue_is_timed_as_redis_counts_it(
        redis_url: str, fresh_metrics: None) -> None:
    metrics.render()  # builds the metrics, which instruments redis-py in this process
    assert redistiming.installed()
    store, queue = RedisStore(redis_url), RedisTurnQueue(redis_url)
    admin = redis.Redis.from_url(redis_url, decode_responses=True)
    _one_of_each(store, queue, 0)  # scripts loaded, the group made: the next round is a turn's
    admin.config_resetstat()
    before = _counts("gpubot_redis_command_duration_seconds")
    _one_of_each(store, queue, 1)
    after = _counts("gpubot_redis_command_duration_seconds")
    server = _commandstats(admin)

    # (Redis also counts the commands scripts run; the client sends only the script.)
    grew = {k: after[k] - before.get(k, 0) for k in after if after[k] != before.get(k, 0)}
    assert grew["script:cas"] == 1  # the turn's write: one script
    assert grew["hgetall"] == server["hgetall"] == 1  # the turn's read
    assert grew["script:set_meta"] == 1 and grew["set"] == 1  # meta; the claim's SET NX
    assert grew["script:audit_append"] == 1 and grew["script:submit"] == 1
    assert grew["xreadgroup"] == server["xreadgroup"] == 1
    assert grew["script:ack"] == 1 and server["xack"] == server["xdel"] == 1  # ack and delete
    scripts = sum(v for k, v in grew.items() if k.startswith("script:"))
    assert scripts == server["evalsha"]  # every script Redis ran, each under its name
    assert "script:other" not in grew and "other" not in grew


def test_the_histogram_tells_a_slow_redis_from_a_fast_one(
        own_redis: RedisProcess, fresh_metrics: None) -> None:
    """A Redis that stalls for 0.3 s (SIGSTOP, then SIGCONT) lands in the right bucket."""
    import threading

    metrics.render()
    store = RedisStore(own_redis.url)
    store.read("warm")

    def bucket(le: str) -> float:
        text = metrics.render()[0].decode()
        family = next(f for f in text_string_to_metric_families(text)
                      if f.name == "gpubot_redis_command_duration_seconds")
        return next(s.value for s in family.samples
                    if s.name.endswith("_bucket") and s.labels == {"command": "hgetall", "le": le})

    fast, everything = bucket("0.1"), bucket("+Inf")
    own_redis.pause()
    threading.Timer(0.3, own_redis.resume).start()
    store.read("slow")  # waits for the resume
    assert bucket("0.1") == fast, "a 0.3 s read counted under 0.1 s"
    assert bucket("0.5") == bucket("+Inf") == everything + 1


# -- Redis outages in the logs ----------------------------------------------------------------

def test_an_outage_met_by_the_store_is_one_warning_and_its_end_one_info(
        own_redis: RedisProcess, fresh_metrics: None, log_lines: io.StringIO) -> None:
    metrics.render()
    store = RedisStore(own_redis.url, socket_timeout=0.3)
    store.read("k")  # up: nothing logged (not an outage's end)
    own_redis.stop()
    for _ in range(5):  # five turns fail during the outage
        with pytest.raises(StoreUnavailable):
            store.read("k")
    (down,) = _lines(log_lines, "redis_outage")
    assert (down["level"], down["state"], down["error"]) == ("WARNING", "down", "ConnectionError")
    assert down["where"] == f"redis://127.0.0.1:{own_redis.port}/0"  # no password, ever
    own_redis.start()
    store.read("k")
    store.read("k")
    _down, up = _lines(log_lines, "redis_outage")
    assert (up["level"], up["state"]) == ("INFO", "up") and up["down_s"] >= 0
    own_redis.stop()  # a second outage is a second line
    with pytest.raises(StoreUnavailable):
        store.read("k")
    assert [x["state"] for x in _lines(log_lines, "redis_outage")] == ["down", "up", "down"]


def test_the_health_probe_reports_an_outage_when_no_turn_runs(
        own_redis: RedisProcess, fresh_metrics: None, log_lines: io.StringIO) -> None:
    monitor = RedisMonitor(parse(own_redis.url), interval_s=0.05)
    monitor.start()
    try:
        _wait(lambda: metrics.render() and "gpubot_redis_up 1.0" in metrics.render()[0].decode())
        own_redis.stop()
        _wait(lambda: len(_lines(log_lines, "redis_outage")) == 1)
        time.sleep(0.5)  # ten more failed probes: still one line
        (down,) = _lines(log_lines, "redis_outage")
        assert down["state"] == "down" and down["where"].startswith("redis://127.0.0.1:")
        assert "gpubot_redis_up 0.0" in metrics.render()[0].decode()
        own_redis.start()
        _wait(lambda: len(_lines(log_lines, "redis_outage")) == 2)
        assert _lines(log_lines, "redis_outage")[1]["state"] == "up"
    finally:
        monitor.stop()


def _wait(ok: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not ok():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_one_sentinel_or_seed_node_down_is_not_an_outage(
        fresh_metrics: None, log_lines: io.StringIO) -> None:
    """Discovery asks the next Sentinel (or cluster seed node) when one is down: timed, but
    not logged as the store's outage; the same error on a store command is."""
    metrics.render()
    client = redis.Redis(host="127.0.0.1", port=1)
    down = redis.exceptions.ConnectionError("refused")
    for args in (("SENTINEL GET-MASTER-ADDR-BY-NAME", "mymaster"), ("CLUSTER SLOTS",)):
        redistiming._record(client, args, 0.01, down)
    assert not _lines(log_lines, "redis_outage")
    assert _counts("gpubot_redis_command_duration_seconds")["sentinel"] == 1
    redistiming._record(client, ("HGETALL", "k"), 0.01, down)
    (line,) = _lines(log_lines, "redis_outage")
    assert line["where"] == "redis://127.0.0.1:1/0"
    redistiming._record(client, ("XREADGROUP",), 0.01,
                        redis.exceptions.ResponseError("NOGROUP No such key"))
    assert _lines(log_lines, "redis_outage")[-1]["state"] == "up"  # Redis answered


# -- Slack latency ------------------------------------------------------------------------------

def test_slack_web_api_calls_are_timed_by_method_failures_included(fresh_metrics: None) -> None:
    from slack_sdk import WebClient

    from bot.slack.api import SlackApi
    from bot.slack.errors import SlackUnknown

    fake = FakeSlack().start()
    try:
        fake.add_channel("CSALES01")
        api = SlackApi(WebClient(token=fake.bot_token, base_url=fake.url))
        fake.delay("chat.postMessage", 0.3)
        posted = api.call("chat.postMessage", channel="CSALES01", text="slow")
        assert posted and api.call("chat.postMessage", channel="CSALES01", text="fast")
        fake.http_error("chat.update", 500)
        with pytest.raises(SlackUnknown):  # a 500: Slack may have done it
            api.call("chat.update", channel="CSALES01", ts=posted["ts"], text="x")
    finally:
        fake.stop()
    families = {f.name: f for f in text_string_to_metric_families(metrics.render()[0].decode())}
    samples = families["gpubot_slack_api_duration_seconds"].samples

    def value(suffix: str, **labels: str) -> float:
        return next(s.value for s in samples if s.name.endswith(suffix) and s.labels == labels)

    assert value("_count", method="chat.postMessage") == 2
    assert value("_bucket", method="chat.postMessage", le="0.25") == 1  # the fast one only
    assert value("_bucket", method="chat.postMessage", le="0.5") == 2
    assert value("_count", method="chat.update") == 1  # the failed call is timed too
    assert 'gpubot_slack_api_errors_total{method="chat.update"} 1.0' in metrics.render()[0].decode()


# -- the exposition, read by the tools --------------------------------------------------------

def test_the_exposition_passes_promtool_check_metrics(fresh_metrics: None) -> None:
    from tests.ops.test_deploy import _tool

    metrics.observe_turn("action", "ok", 0.2)
    metrics.observe_redis("hgetall", 0.001)
    with metrics.slack_call("chat.update"):
        pass
    metrics.redis_health(True, "aof")
    checked = subprocess.run([_tool("promtool"), "check", "metrics"], input=metrics.render()[0],
                             capture_output=True, timeout=60, check=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_gunicorn_master_neither_builds_metrics_nor_times_redis(redis_url: str) -> None:
    """The master's start-up checks (persistence, audit retention) run before the workers
    fork and before PROMETHEUS_MULTIPROC_DIR exists: they must not build metric objects the
    workers would inherit (``bot/ops/metrics.py``), nor instrument redis-py there."""
    script = (
        "import sys\n"
        "from bot import audit\n"
        "from bot.ops import health, metrics, redistiming\n"
        "from bot.ops.settings import Settings\n"
        "from dialogue.store.connect import parse\n"
        "health.startup_check(parse(sys.argv[1]))\n"
        "audit.apply_at_start(Settings(redis_url=sys.argv[1]))\n"
        "print(metrics._metrics is None, redistiming.installed())\n")
    out = subprocess.run([sys.executable, "-c", script, redis_url], capture_output=True,
                         text=True, timeout=60, check=True, cwd=ROOT)
    assert out.stdout.split() == ["True", "False"], out.stderr


# -- the served bot, as Prometheus and the log collector see it -------------------------------

SECRET = "0bserv4bility5ecret"
HASH_KEY = "the deployment's log hash key"


def _keyed(ident: str) -> str:
    """The hash the docs promise: HMAC-SHA256 keyed by a key derived from LOG_HASH_KEY."""
    key = hmac.new(HASH_KEY.encode(), b"gpu-sizing-bot log ids v1", hashlib.sha256).digest()
    return hmac.new(key, ident.encode(), hashlib.sha256).hexdigest()[:16]


@pytest.mark.slow
def test_a_served_turn_shows_in_the_metrics_and_its_log_line_names_no_ids(
        tmp_path: Path) -> None:
    from tests.ops.server import ServerProcess, bot_env, get, python_m_bot
    from tests.redisproc import free_port
    from tests.slackreq import SignedClient

    store = RedisProcess()
    store.start()
    fake = FakeSlack().start()
    port = free_port()
    env = bot_env(slack_url=fake.url, redis_url=store.url, port=port, secret=SECRET,
                  token=fake.bot_token, workers=2, LOG_HASH_KEY=HASH_KEY,
                  GPUBOT_COMMIT="0123456789abcdef0123456789abcdef01234567")
    server = ServerProcess(python_m_bot(), env, port, tmp_path / "server.log")
    try:
        server.start()
        client = SignedClient(f"http://127.0.0.1:{port}/slack/events", SECRET)
        status, _ = client.post_command("/gpu-sizing", "llama 3.1 70b inference",
                                        channel="CSALES01", user="UREP0001",
                                        response_url=fake.response_url())
        assert status == 200
        fake.wait_for("chat.postMessage", count=1, timeout=15)
        _wait(lambda: any(x.get("event") == "turn" for x in server.log_lines()))
        text = get(server.metrics_port, "/metrics")[2].decode()
        families = {f.name: f for f in text_string_to_metric_families(text)}

        def total(family: str, suffix: str, **labels: str) -> float:
            return sum(s.value for s in families[family].samples
                       if s.name.endswith(suffix) and labels.items() <= s.labels.items())

        assert total("gpubot_slack_api_duration_seconds", "_count", method="chat.postMessage") >= 1
        for command in ("hgetall", "script:cas", "ping"):  # a turn's read and write; the probe
            assert total("gpubot_redis_command_duration_seconds", "_count",
                         command=command) >= 1, command
        (info,) = families["gpubot_build_info"].samples
        assert info.labels["commit"] == env["GPUBOT_COMMIT"] and info.value == 1
        assert info.labels["version"] and info.labels["python"] == \
            ".".join(map(str, sys.version_info[:3]))
        zero = [s for s in families["gpubot_turns"].samples
                if s.labels == {"kind": "view", "outcome": "conflict"}]
        assert [s.value for s in zero] == [0.0]  # a series before its first event

        (start,) = [x for x in server.log_lines() if x.get("event") == "audit_retention"]
        assert start["days"] == 365 and start["level"] == "INFO"  # applied once, at start
        turns = [x for x in server.log_lines() if x.get("event") == "turn"]
        assert turns[0]["team_hash"] == _keyed(fake.team_id)
        assert turns[0]["channel_hash"] == _keyed("CSALES01")
        turn_text = json.dumps(turns)
        assert fake.team_id not in turn_text and "CSALES01" not in turn_text
        assert HASH_KEY not in server.log_text()

        store.stop()  # an outage: one WARNING per worker, however many probes fail
        _wait(lambda: len({x["pid"] for x in server.log_lines()
                           if x.get("event") == "redis_outage"}) == 2)
        time.sleep(1.0)
        downs = [x for x in server.log_lines() if x.get("event") == "redis_outage"]
        assert len(downs) == 2 and {x["level"] for x in downs} == {"WARNING"}
        store.start()
        _wait(lambda: sum(x.get("state") == "up" for x in server.log_lines()
                          if x.get("event") == "redis_outage") == 2)
    finally:
        server.stop()
        fake.stop()
        store.cleanup()
