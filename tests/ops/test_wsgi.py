"""The WSGI router in-process: what a worker answers when its Slack app could not start."""

from __future__ import annotations

import json
from typing import Any
from wsgiref.util import setup_testing_defaults

import pytest
from slack_bolt import App

from bot.ops import serve
from bot.ops.settings import Settings


def _call(app: serve.BotWsgi, path: str, method: str = "GET") -> tuple[int, dict[str, Any]]:
    environ: dict[str, Any] = {"PATH_INFO": path, "REQUEST_METHOD": method}
    setup_testing_defaults(environ)
    seen: list[str] = []
    body = b"".join(app(environ, lambda status, headers, exc_info=None: seen.append(status)))
    try:
        payload = json.loads(body)
    except ValueError:
        payload = {}
    return int(seen[0].split()[0]), payload


def test_a_worker_whose_slack_app_failed_is_alive_not_ready_and_recovers(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings(slack_bot_token="xoxb-test", slack_signing_secret="test-signing",
                        redis_url=redis_url)
    attempts: list[int] = []

    def factory(s: Settings) -> App:
        attempts.append(1)
        if len(attempts) == 1:
            raise ConnectionError("auth.test: Slack unreachable, token xoxb-1-2-3")
        return App(token="xoxb-test", signing_secret="test-signing",
                   token_verification_enabled=False)

    app = serve.make_wsgi_app(settings, factory)
    assert app.warm() is False
    assert _call(app, "/healthz")[0] == 200  # liveness: do not restart for this
    status, body = _call(app, "/readyz")
    assert status == 503
    assert body["reason"] == "slack app did not start: ConnectionError"  # no token, no text
    assert _call(app, "/slack/events", "POST")[0] == 503  # Slack retries elsewhere / later
    assert len(attempts) == 1  # not rebuilt on every request...

    monkeypatch.setattr(serve, "BUILD_RETRY_S", 0.0)  # ...but after a pause
    assert _call(app, "/readyz") == (200, {"status": "ready", "reason": "ok"})
    assert len(attempts) == 2
    assert _call(app, "/slack/events", "POST")[0] == 401  # now Bolt's: unsigned is refused


def test_readyz_is_503_with_a_reason_when_redis_is_unreachable() -> None:
    from tests.redisproc import free_port

    settings = Settings(slack_bot_token="xoxb-test", slack_signing_secret="test-signing",
                        redis_url=f"redis://127.0.0.1:{free_port()}/0")
    app = serve.make_wsgi_app(settings, lambda s: App(
        token="xoxb-test", signing_secret="test-signing", token_verification_enabled=False))
    assert app.warm()
    status, body = _call(app, "/readyz")
    assert status == 503
    assert body == {"status": "unavailable", "reason": "redis unreachable (ConnectionError)"}
