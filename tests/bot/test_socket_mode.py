"""Socket Mode end to end: ``python -m bot`` against a fake Slack (Web API + WebSocket).

The bot runs as a real subprocess with ``SLACK_BOT_TOKEN`` + ``SLACK_APP_TOKEN``: Bolt's
``SocketModeHandler`` and slack_sdk's built-in WebSocket client connect to
:class:`tests.fakesocket.FakeSocket` (after ``apps.connections.open`` on the fake Web API), and
the test plays Slack: it pushes a slash command, a typed reply and button clicks as envelopes,
checks each one is acked, moves the client to a new connection with a ``disconnect``
(``refresh_requested``) mid-conversation, and reads the card from the fake's ``chat.update``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from tests.bot.harness import (
    INTERNAL_TEAM,
    QUOTES,
    REP,
    SALES,
    assert_valid,
    first_choice,
    is_card,
    message,
    settings_for,
    wait_version_change,
)
from tests.fakeslack import FakeSlack
from tests.fakesocket import FakeSocket
from tests.slackreq import block_actions, command_form, event_envelope, message_event

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


class BotProcess:
    """``python -m bot`` with its stdout and stderr kept in files."""

    def __init__(self, env: dict[str, str], tmp: Path) -> None:
        self.out_path, self.err_path = tmp / "bot.out", tmp / "bot.err"
        self._out, self._err = self.out_path.open("wb"), self.err_path.open("wb")
        self.proc = subprocess.Popen([sys.executable, "-m", "bot"], env=env, cwd=ROOT,
                                     stdin=subprocess.DEVNULL, stdout=self._out,
                                     stderr=self._err)

    def output(self) -> str:
        return (self.out_path.read_text(errors="replace") + "\n"
                + self.err_path.read_text(errors="replace"))

    def wait(self, timeout: float) -> int:
        return self.proc.wait(timeout)

    def stop(self, timeout: float = 15.0) -> int:
        """SIGTERM (as ``docker stop``), then SIGKILL if it does not end in ``timeout``."""
        try:
            if self.proc.poll() is None:
                self.proc.send_signal(signal.SIGTERM)
            try:
                return self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
                raise
        finally:
            self._out.close()
            self._err.close()


def bot_env(fake: FakeSlack, redis_url: str, app_token: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SLACK_", "PROMETHEUS_MULTIPROC"))}
    env.update({
        "SLACK_BOT_TOKEN": fake.bot_token,
        "SLACK_APP_TOKEN": app_token,
        "SLACK_API_URL": fake.url,
        "REDIS_URL": redis_url,
        "INTERNAL_TEAM_IDS": INTERNAL_TEAM,
        "QUOTE_CHANNEL_ID": QUOTES,
        "LOG_LEVEL": "INFO",
        "PYTHONPATH": str(ROOT),
        "NO_PROXY": "127.0.0.1,localhost",  # the WebSocket client honours HTTPS_PROXY
    })
    for proxy in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        env.pop(proxy, None)
    return env


@pytest.fixture
def sock(fake: FakeSlack) -> Iterator[FakeSocket]:
    server = FakeSocket().start().attach(fake)
    yield server
    server.stop()


@pytest.fixture
def run_bot(tmp_path: Path) -> Iterator[Any]:
    started: list[BotProcess] = []

    def start(env: dict[str, str]) -> BotProcess:
        bot = BotProcess(env, tmp_path)
        started.append(bot)
        return bot

    yield start
    for bot in started:
        if bot.proc.poll() is None:
            bot.stop()
        print(f"--- python -m bot (exit {bot.proc.returncode}):\n{bot.output()}")  # on failure


def _secrets_absent(text: str, *secrets: str) -> None:
    for secret in secrets:
        assert secret not in text
    assert "Traceback" not in text


@pytest.mark.parametrize("store", ["redis", "in-process"])
def test_a_whole_sizing_over_socket_mode_survives_a_refresh(
    fake: FakeSlack, sock: FakeSocket, redis_url: str, run_bot: Any, store: str
) -> None:
    env = bot_env(fake, redis_url, sock.app_token)
    if store == "in-process":  # Socket Mode may run without Redis (one dev process)
        env["REDIS_URL"] = ""
    bot = run_bot(env)
    try:
        first = sock.wait_connections(1, timeout=15)
    except AssertionError:
        raise AssertionError(f"the bot did not connect:\n{bot.output()}") from None
    (opened,) = fake.wait_for("apps.connections.open", 1)
    assert opened.headers["authorization"] == f"Bearer {sock.app_token}"
    # what a first turn loads was loaded before the connection opened (as an HTTP worker does)
    (warm,) = [json.loads(x) for x in bot.output().splitlines() if '"event": "warm"' in x]
    assert list(warm["steps"]) == ["catalogs", "sizing", "engine", "charts", "freeze"]
    assert all(step["ok"] for step in warm["steps"].values()), warm
    assert first.path.startswith("/link/?ticket=")
    first.ping(b"are-you-there")  # Slack pings; the client must pong the same payload
    sock.wait_pong(first, b"are-you-there")

    # the slash command: acked at once (within Slack's 3 s), the question posted in a thread
    started = time.monotonic()
    eid = sock.slash_command(command_form("/gpu-sizing", "llama 3.1 70b inference", user=REP,
                                          channel=SALES, response_url=fake.response_url("cmd")))
    ack = sock.wait_ack(eid, timeout=3.0)  # Slack's deadline
    assert time.monotonic() - started < 3.0
    assert ack["_conn"] == first.number
    _root_call, question_call = fake.wait_for(
        "chat.postMessage", 2, where=lambda c: c.params.get("channel") == SALES)[:2]
    root_ts = next(ts for ts, m in fake.messages[SALES].items() if m["thread_ts"] is None)
    assert question_call.params["thread_ts"] == root_ts
    q_ts = next(ts for ts, m in fake.messages[SALES].items() if m["thread_ts"] == root_ts)

    # a typed reply in the thread (events_api, retry_attempt 0 as Slack sends it)
    before = json.dumps(message(fake, SALES, q_ts)["blocks"])
    sock.wait_ack(sock.events_api(event_envelope(message_event(
        user=REP, channel=SALES, text="64 users", thread_ts=root_ts))))
    msg = wait_version_change(fake, SALES, q_ts, before)
    assert "64" in json.dumps(msg["blocks"])

    # Slack refreshes the connection mid-conversation: the client asks apps.connections.open
    # for a new URL, connects, and the old connection goes away
    old = sock.refresh()
    second = sock.wait_connections(2, timeout=10)
    fake.wait_for("apps.connections.open", 2)
    sock.wait_closed(old)
    assert old is first and old.closed_by == "server"
    assert second.ticket != first.ticket and second.open

    # click the buttons the bot rendered (over the new connection) until the card shows
    clicks = 0
    for _ in range(12):
        msg = message(fake, SALES, q_ts)
        assert_valid(msg)
        if is_card(msg):
            break
        block_id, action_id, value, selected = first_choice(msg)
        before = json.dumps(msg["blocks"])
        eid = sock.interactive(block_actions(
            user=REP, user_team=INTERNAL_TEAM, channel=SALES, message_ts=q_ts,
            action_id=action_id, block_id=block_id, value=value, selected=selected,
            thread_ts=root_ts, response_url=fake.response_url("act")))
        assert sock.wait_ack(eid, timeout=3.0)["_conn"] == second.number
        wait_version_change(fake, SALES, q_ts, before)
        clicks += 1
    else:
        raise AssertionError("no card after 12 clicks")
    assert clicks >= 1

    # the card replaced the question through chat.update, on the fake
    last_update = fake.calls("chat.update")[-1]
    assert last_update.params["ts"] == q_ts
    assert is_card(last_update.params)
    assert len(fake.calls("chat.postMessage")) == 2

    # every envelope was acked exactly once (and nothing else was sent), no extra connection
    assert set(sock.acks) == set(sock.sent)
    assert [r for r in sock.received if r.data is None] == []
    ack_ids = [r.data["envelope_id"] for r in sock.received if r.data]
    assert sorted(ack_ids) == sorted(sock.sent)
    assert len(sock.connections) == 2 and sock.refused == []

    # SIGTERM: the connection closes, the process ends cleanly, no secret in its output
    assert bot.stop() == 0
    sock.wait_closed(second)
    out = bot.output()
    _secrets_absent(out, fake.bot_token, sock.app_token)
    levels = [json.loads(line)["level"] for line in out.splitlines() if line.startswith("{")]
    assert "ERROR" not in levels and "CRITICAL" not in levels, out
    assert "stopped" in out
    if store == "in-process":
        assert "REDIS_URL is not set" in out


def test_sigterm_lets_a_turn_in_flight_finish(
    fake: FakeSlack, sock: FakeSocket, redis_url: str, run_bot: Any
) -> None:
    """The ack is sent before the turn's work: SIGTERM must not cut that work off."""
    bot = run_bot(bot_env(fake, redis_url, sock.app_token))
    sock.wait_connections(1, timeout=15)
    sock.wait_ack(sock.slash_command(command_form(
        "/gpu-sizing", "llama 3.1 70b inference", user=REP, channel=SALES,
        response_url=fake.response_url("cmd"))))
    fake.wait_for("chat.postMessage", 2)
    root_ts = next(ts for ts, m in fake.messages[SALES].items() if m["thread_ts"] is None)
    q_ts = next(ts for ts, m in fake.messages[SALES].items() if m["thread_ts"] == root_ts)
    block_id, action_id, value, selected = first_choice(message(fake, SALES, q_ts))
    fake.hang("chat.update", 1.5)  # the turn's Slack update is slow
    sock.wait_ack(sock.interactive(block_actions(
        user=REP, user_team=INTERNAL_TEAM, channel=SALES, message_ts=q_ts,
        action_id=action_id, block_id=block_id, value=value, selected=selected,
        thread_ts=root_ts, response_url=fake.response_url("act"))))
    deadline = time.monotonic() + 5
    while not fake.calls("chat.update"):  # the update is on its way, the turn not done
        assert time.monotonic() < deadline, bot.output()
        time.sleep(0.02)
    assert bot.stop() == 0
    lines = [json.loads(line) for line in bot.output().splitlines() if line.startswith("{")]
    msgs = [(x["msg"], x.get("kind")) for x in lines]
    stopping = msgs.index(("stopping: closing the Socket Mode connection, then finishing"
                           " turns in flight", None))
    assert msgs[-1] == ("stopped", None)
    # The click's turn (the only action) is never cut off: it finished (after the signal, or
    # before it on a machine slow to deliver the signal), or, when Slack failed it (the hang
    # ends in an error), it was put off and left pending in the durable queue for the next
    # worker.
    if ("turn", "action") not in msgs:
        assert ("slack api error", None) in msgs[stopping:], msgs
        pending = redis.Redis.from_url(redis_url).xpending("{gpusizing:turns}", "turns")
        assert pending["pending"] >= 1, msgs


@pytest.mark.parametrize("refused", ["SLACK_APP_TOKEN", "SLACK_BOT_TOKEN"])
def test_a_refused_token_ends_the_bot_with_a_message(
    fake: FakeSlack, sock: FakeSocket, redis_url: str, run_bot: Any, refused: str
) -> None:
    env = bot_env(fake, redis_url, sock.app_token)
    wrong = {"SLACK_APP_TOKEN": "xapp-1-AAPP0001-2-revoked0123456789",
             "SLACK_BOT_TOKEN": "xoxb-1111-2222-revoked0123456789"}[refused]
    env[refused] = wrong
    bot = run_bot(env)
    try:
        code = bot.wait(15)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"the bot kept running:\n{bot.output()}") from None
    out = bot.output()
    assert code == 1, out
    assert f"Slack refused {refused}" in out and "invalid_auth" in out, out
    _secrets_absent(out, wrong, fake.bot_token, sock.app_token)
    assert not any(c.ok for c in fake.calls("apps.connections.open"))
    assert sock.connections == []


def test_first_deliveries_are_not_counted_as_retries(
    fake: FakeSlack, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Slack puts ``retry_attempt: 0`` on every events_api envelope; Bolt turns it into an
    ``x-slack-retry-num: 0`` header. Only a number above 0 is a redelivery."""
    from slack_bolt.adapter.socket_mode.internals import run_bolt_app
    from slack_sdk.socket_mode.request import SocketModeRequest

    from bot.ops import metrics
    from bot.slack.app import create_app

    counted: list[str] = []
    monkeypatch.setattr(metrics, "slack_retry", counted.append)
    app = create_app(settings_for(fake, redis_url)).app
    try:
        for attempt, reason in ((0, ""), (1, "timeout")):
            envelope = {"envelope_id": f"e{attempt}", "type": "events_api",
                        "accepts_response_payload": False, "retry_attempt": attempt,
                        "retry_reason": reason,
                        "payload": event_envelope(
                            message_event(user=REP, channel=SALES, text="hello"),
                            event_id=f"Ev{attempt}")}
            req = SocketModeRequest.from_dict(envelope)
            assert req is not None
            assert run_bolt_app(app, req).status == 200
    finally:
        app.listener_runner.listener_executor.shutdown(wait=True)
    assert counted == ["timeout"]


def test_the_fake_plays_slacks_part(fake: FakeSlack, sock: FakeSocket) -> None:
    """The fake itself (its protocol is the websockets library's): single-use tickets for the
    app-level token only, a hello on connect, acks recorded by connection."""
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    assert sock.connections_open("xapp-wrong", {}) == {"ok": False, "error": "invalid_auth"}
    url = sock.connections_open(sock.app_token, {})["url"]
    with connect(url) as ws:
        hello = json.loads(ws.recv(timeout=5))
        assert hello["type"] == "hello" and hello["connection_info"]["app_id"] == sock.app_id
        ws.send(json.dumps({"envelope_id": "e1"}))
        assert sock.wait_ack("e1")["_conn"] == 1
    with pytest.raises(InvalidStatus) as refused:  # the ticket was used
        connect(url)
    assert refused.value.response.status_code == 401
    assert sock.refused == [url.removeprefix(f"ws://127.0.0.1:{sock.port}")]
