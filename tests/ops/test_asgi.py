"""The ASGI front in-process (bot/ops/asgi.py): what one worker answers, without a server.

Requests go through the ASGI interface exactly as uvicorn hands them over (scope, receive,
send); the Bolt app is a real one, with a real signature check. The whole server (gunicorn,
uvicorn workers, slow sockets) is tested in tests/ops/test_front.py.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import pytest
from slack_bolt import Ack, App
from slack_sdk import WebClient

from bot.ops import asgi, metrics
from bot.ops.settings import Settings
from dialogue.store.connect import parse
from tests.fakeslack import FakeSlack
from tests.redisproc import RedisProcess, free_port
from tests.slackreq import command_form

SECRET = "test-signing-secret"
PUBLIC, METRICS = 3000, 9100


@pytest.fixture(scope="module", autouse=True)
def fake() -> Iterator[FakeSlack]:
    """Bolt asks auth.test on its first request: the local fake answers."""
    global _FAKE_URL
    with FakeSlack() as fake:
        _FAKE_URL = fake.url
        yield fake


_FAKE_URL = ""


def _bolt(settings: Settings) -> App:
    client = WebClient(token="xoxb-test-token", base_url=_FAKE_URL)
    app = App(client=client, signing_secret=SECRET, token_verification_enabled=False)

    @app.command("/gpu-sizing")
    def _cmd(ack: Ack) -> None:
        ack()

    return app


def _settings(**kw: Any) -> Settings:
    return Settings(slack_bot_token="xoxb-test", slack_signing_secret=SECRET,
                    port=PUBLIC, metrics_port=METRICS, **kw)


def call(front: asgi.Front, path: str, method: str = "GET", body: bytes = b"",
         headers: dict[str, str] | None = None, port: int = PUBLIC,
         chunks: list[bytes] | None = None) -> tuple[int, dict[str, str], bytes]:
    """One request through the ASGI interface; (status, headers, body)."""
    sent: list[dict[str, Any]] = []
    parts = list(chunks) if chunks is not None else [body]

    async def receive() -> dict[str, Any]:
        if parts:
            chunk = parts.pop(0)
            return {"type": "http.request", "body": chunk, "more_body": bool(parts)}
        await asyncio.sleep(3600)  # a client that never sends the rest
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": method, "path": path, "query_string": b"",
             "server": ("127.0.0.1", port),
             "headers": [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]}
    asyncio.run(front(scope, receive, send))
    start = next(m for m in sent if m["type"] == "http.response.start")
    out = {k.decode(): v.decode() for k, v in start["headers"]}
    return start["status"], out, b"".join(m.get("body", b"") for m in sent
                                          if m["type"] == "http.response.body")


def signed_headers(body: bytes, ctype: str = "application/x-www-form-urlencoded",
                   ts: str | None = None) -> dict[str, str]:
    """Signed as Slack signs: on the raw bytes (which need not be UTF-8 for the signature)."""
    ts = ts or str(int(time.time()))
    mac = hmac.new(SECRET.encode(), b"v0:" + ts.encode() + b":" + body, hashlib.sha256)
    return {"Content-Type": ctype, "X-Slack-Request-Timestamp": ts,
            "X-Slack-Signature": "v0=" + mac.hexdigest()}


@pytest.fixture
def plain_metrics(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR", raising=False)
    metrics._reset_for_tests()
    yield
    metrics._reset_for_tests()


def test_a_signed_command_is_dispatched_on_the_pool(plain_metrics: None) -> None:
    front = asgi.Front(_settings(), _bolt, steps=[])
    assert front.warm()
    body = urlencode(command_form("/gpu-sizing", "70b")).encode()
    status, headers, _ = call(front, "/slack/events", "POST", body, signed_headers(body))
    assert status == 200 and headers["x-worker-pid"].isdigit()


def test_a_worker_whose_slack_app_failed_is_alive_not_ready_and_recovers(
    monkeypatch: pytest.MonkeyPatch, plain_metrics: None
) -> None:
    attempts: list[int] = []

    def factory(s: Settings) -> App:
        attempts.append(1)
        if len(attempts) == 1:
            raise ConnectionError("auth.test: Slack unreachable, token xoxb-1-2-3")
        return _bolt(s)

    front = asgi.Front(_settings(), factory, steps=[])
    assert front.warm() is False
    assert call(front, "/healthz")[0] == 200  # liveness: do not restart for this
    status, _, body = call(front, "/readyz")
    assert status == 503
    assert json.loads(body)["reason"] == "slack app did not start: ConnectionError"
    payload = urlencode(command_form("/gpu-sizing")).encode()
    assert call(front, "/slack/events", "POST", payload, signed_headers(payload))[0] == 503
    assert len(attempts) == 1  # not rebuilt on every request...

    monkeypatch.setattr(asgi, "BUILD_RETRY_S", 0.0)  # ...but after a pause, off the loop
    call(front, "/readyz")
    deadline = time.monotonic() + 5
    while front.app is None and time.monotonic() < deadline:
        time.sleep(0.02)
    status, _, body = call(front, "/readyz")
    assert status == 200 and json.loads(body)["status"] == "ready"
    assert len(attempts) == 2


@pytest.mark.parametrize(("body", "headers", "status", "reason"), [
    (b"{bad", {"Content-Type": "application/json"}, 401, "unsigned"),
    (b"payload={not json", {}, 401, "unsigned"),
    (b"[1,2]", {"Content-Type": "application/json", "X-Slack-Signature": "v0=00",
                "X-Slack-Request-Timestamp": "1"}, 401, "stale_timestamp"),
    (b"\xff\xfe\x00garbage", {"X-Slack-Signature": "v0=ab", "X-Slack-Request-Timestamp": "abc"},
     401, "bad_signature"),
    (b"token=x", {"X-Slack-Signature": "v0=\u00e9", "X-Slack-Request-Timestamp": "9" * 40},
     401, "bad_signature"),
    (b"token=x", {"X-Slack-Signature": "v0=ab", "X-Slack-Request-Timestamp": "\u00b2"},
     401, "bad_signature"),
])
def test_unsigned_garbage_is_401_without_parsing(
    body: bytes, headers: dict[str, str], status: int, reason: str, plain_metrics: None,
    caplog: pytest.LogCaptureFixture,
) -> None:
    front = asgi.Front(_settings(), _bolt, steps=[])
    assert front.warm()
    caplog.set_level("INFO", logger="bot.front")
    got, _, text = call(front, "/slack/events", "POST", body, headers)
    assert (got, text.decode().strip()) == (status, reason)
    lines = [r for r in caplog.records if r.name == "bot.front" and r.getMessage() != "worker warm"]
    assert len(lines) == 1 and lines[0].exc_info is None
    assert f'gpubot_requests_refused_total{{reason="{reason}"}} 1.0' in metrics.render()[0].decode()


@pytest.mark.parametrize(("body", "ctype"), [
    (b"{bad", "application/json"),
    (b"[1,2]", "application/json"),
    (b"payload={not json", "application/x-www-form-urlencoded"),
    (b"payload=%5B1%2C2%5D", "application/x-www-form-urlencoded"),
    (b"\xff\xfe\x00garbage", "application/x-www-form-urlencoded"),
])
def test_signed_but_malformed_is_400_before_bolt(body: bytes, ctype: str,
                                                 plain_metrics: None) -> None:
    front = asgi.Front(_settings(), _bolt, steps=[])
    assert front.warm()
    status, _, text = call(front, "/slack/events", "POST", body, signed_headers(body, ctype))
    assert (status, text) == (400, b"malformed\n")


def test_bodies_too_large_or_too_slow_are_refused(monkeypatch: pytest.MonkeyPatch,
                                                  plain_metrics: None) -> None:
    front = asgi.Front(_settings(), _bolt, steps=[])
    assert front.warm()
    declared = {"Content-Length": str(asgi.MAX_BODY_BYTES + 1)}
    status, headers, _ = call(front, "/slack/events", "POST", b"", declared)
    assert status == 413 and headers["connection"] == "close"
    big = [b"x" * 65536] * (asgi.MAX_BODY_BYTES // 65536 + 1)  # chunked, no length declared
    assert call(front, "/slack/events", "POST", chunks=big)[0] == 413
    monkeypatch.setattr(asgi, "BODY_TIMEOUT_S", 0.2)
    # A body that arrives in pieces, whole, is read (and refused here only for its signature)...
    assert call(front, "/slack/events", "POST", chunks=[b"token=", b"x"])[0] == 401


def test_a_body_that_stops_half_way_is_408(monkeypatch: pytest.MonkeyPatch,
                                           plain_metrics: None) -> None:
    front = asgi.Front(_settings(), _bolt, steps=[])
    assert front.warm()
    monkeypatch.setattr(asgi, "BODY_TIMEOUT_S", 0.2)
    sent: list[dict[str, Any]] = []
    parts = [{"type": "http.request", "body": b"to", "more_body": True}]

    async def receive() -> dict[str, Any]:
        if parts:
            return parts.pop()
        await asyncio.sleep(3600)  # the rest never comes
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/slack/events", "query_string": b"",
             "server": ("127.0.0.1", PUBLIC), "headers": []}
    asyncio.run(front(scope, receive, send))
    assert sent[0]["status"] == 408 and (b"connection", b"close") in sent[0]["headers"]
    assert b"".join(m.get("body", b"") for m in sent[1:]) == b"body_timeout\n"


def test_metrics_answer_only_on_the_metrics_port(plain_metrics: None) -> None:
    front = asgi.Front(_settings(), _bolt, steps=[])
    assert front.warm()
    assert call(front, "/metrics", port=PUBLIC)[0] == 404
    status, headers, body = call(front, "/metrics", port=METRICS)
    assert status == 200 and headers["content-type"].startswith("text/plain")
    assert b"# TYPE gpubot_redis_errors_total counter" in body
    assert call(front, "/slack/events", "POST", port=METRICS)[0] == 404
    assert call(front, "/readyz", port=METRICS)[0] == 404


def test_readiness_reports_redis_down_and_stays_ready(own_redis: RedisProcess,
                                                      plain_metrics: None) -> None:
    settings = _settings(redis_url=own_redis.url)
    front = asgi.Front(settings, _bolt, steps=[], redis_target=parse(own_redis.url))
    assert front.warm()
    status, _, body = call(front, "/readyz")
    report = json.loads(body)
    assert status == 200 and report["redis"]["up"] is True
    assert report["redis"]["persistence"] == {"mode": "none", "durable": False,
                                              "detail": 'appendonly no, save ""'}
    own_redis.stop()
    front.monitor.check_now()
    status, _, body = call(front, "/readyz")
    report = json.loads(body)
    assert status == 200, "a Redis outage must not take the pod out of the Service"
    assert report["status"] == "ready" and report["redis"]["up"] is False
    assert report["redis"]["error"] == "ConnectionError"
    assert "gpubot_redis_up 0.0" in call(front, "/metrics", port=METRICS)[2].decode()
    own_redis.start()
    front.monitor.check_now()
    assert json.loads(call(front, "/readyz")[2])["redis"]["up"] is True
    assert "gpubot_redis_up 1.0" in call(front, "/metrics", port=METRICS)[2].decode()


def _broken() -> None:
    raise ZeroDivisionError("a warm-up step with a bug")


def test_readiness_lists_the_warm_up(plain_metrics: None) -> None:
    ran: list[str] = []
    front = asgi.Front(_settings(), _bolt, steps=[("catalogs", lambda: ran.append("c")),
                                                 ("broken", _broken)])
    assert front.warm()
    warm = json.loads(call(front, "/readyz")[2])["warm"]
    assert ran == ["c"]
    assert [k for k in warm] == ["slack_app", "catalogs", "broken"]
    assert warm["catalogs"]["ok"] and not warm["broken"]["ok"]


def test_an_unreachable_redis_port_is_reported_not_raised(plain_metrics: None) -> None:
    url = f"redis://127.0.0.1:{free_port()}/0"
    front = asgi.Front(_settings(redis_url=url), _bolt, steps=[], redis_target=parse(url))
    assert front.warm()
    status, _, body = call(front, "/readyz")
    assert status == 200 and json.loads(body)["redis"]["up"] is False


def test_a_signature_is_judged_by_slack_sdks_verifier_with_its_reason() -> None:
    from slack_sdk.signature import SignatureVerifier

    from bot.ops.signature import Signatures

    body, now = b"token=x&command=%2Fgpu-sizing", 1_700_000_000.0
    stamp = str(int(now))
    good = SignatureVerifier("s3cret").generate_signature(timestamp=stamp, body=body)
    assert good is not None
    signatures = Signatures("s3cret")
    assert signatures.refusal(stamp, good, body, now) is None
    assert signatures.refusal(stamp, good, body + b"x", now) == "bad_signature"
    assert signatures.refusal(stamp, good, body, now + 301) == "stale_timestamp"
    assert signatures.refusal(None, good, body, now) == "unsigned"
    assert Signatures("").refusal(stamp, good, body, now) == "bad_signature"
