"""Simulated people and a Slack that misbehaves, for bench/faults.py.

Why apart from the scenarios: what a person notices (an answer that never comes, a message
posted twice, a sizing stuck before its card) is measured the same way in every scenario, so
the driver is one piece: :func:`converse` runs one whole sizing, clicking the first answer until
the card, as ``tests/ops/drive.py`` does, but keeps going when an answer is lost (a person
clicks again) and counts instead of asserting; :func:`deliver` posts a signed request as Slack
does, with Slack's redeliveries of an unanswered one (up to 3, 1 s apart here, with
``X-Slack-Retry-Num``). :class:`FaultySlack` adds to the local fake (``tests/fakeslack.py``)
the one fault it lacks: a call Slack processed whose answer is lost (connection reset).
"""

from __future__ import annotations

import contextlib
import json
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from tests.fakeslack import FakeSlack
from tests.ops.drive import first_answer, is_card
from tests.ops.server import WorkerConn
from tests.slackreq import block_actions, command_form, sign

__all__ = ["SLACK_METHODS", "FaultySlack", "Tally", "converse", "deliver", "ok_calls"]

TEAM = "TINT0001"
TURN_TIMEOUT_S = 12.0  # how long a person waits for an answer before counting it lost
SLACK_METHODS = ("chat.postMessage", "chat.update")


# -- a fake Slack that can also reset connections --------------------------------------------


class FaultySlack(FakeSlack):
    """The fake, plus faults it lacks, for chat.postMessage/update while a mode is set:

    * ``reset``: the call is processed (the message posted or updated), then the connection is
      reset instead of answered: Slack did it, the bot cannot know;
    * ``late``: processed, and answered :attr:`late_s` later (past the client's 10 s timeout);
    * ``slow``: held :attr:`slow_s` *before* being processed, then answered normally (turns
      stay in flight, e.g. while a worker is killed)."""

    mode: str | None = None
    late_s = 11.0
    slow_s = 1.5

    def start(self) -> FaultySlack:
        super().start()
        assert self._server is not None
        # A client that gave up on a late answer is this fake's business, not a traceback.
        self._server.handle_error = lambda request, client_address: None  # type: ignore[method-assign]
        return self

    def _handle(self, req: Any) -> None:
        method = req.path.split("?", 1)[0].removeprefix("/api/").strip("/")
        mode = self.mode if method in SLACK_METHODS else None
        if mode == "slow":
            time.sleep(self.slow_s)
        if mode not in ("reset", "late"):
            super()._handle(req)
            return
        sink = _Sink()
        real, req.wfile = req.wfile, sink
        try:
            super()._handle(req)  # the message is posted / updated...
        finally:
            req.wfile = real
        if mode == "late":
            time.sleep(self.late_s)  # ...and the answer comes too late
            with contextlib.suppress(OSError):  # the client may have given up and gone
                real.write(bytes(sink.data))
            return
        req.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                  struct.pack("ii", 1, 0))
        req.close_connection = True  # ...and the client gets a reset, not the answer


class _Sink:
    def __init__(self) -> None:
        self.data = bytearray()

    def write(self, data: bytes) -> int:
        self.data += data
        return len(data)

    def flush(self) -> None:
        return None


# -- one signed delivery, with Slack's retries ------------------------------------------------


@dataclass
class Tally:
    sent: int = 0
    acked: int = 0
    lost: int = 0
    http5xx: int = 0
    stuck: int = 0
    conversations: int = 0
    acks_s: list[float] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def deliver(port: int, secret: str, form: dict[str, str], tally: Tally) -> bool:
    """POST as Slack does: retried up to 3 times (1 s apart) without a 200 in 3 s."""
    body = urlencode(form).encode()
    for attempt in range(4):
        ts = str(int(time.time()))
        headers = {"Content-Type": "application/x-www-form-urlencoded",
                   "X-Slack-Request-Timestamp": ts, "X-Slack-Signature": sign(secret, ts, body)}
        if attempt:
            headers.update({"X-Slack-Retry-Num": str(attempt),
                            "X-Slack-Retry-Reason": "http_timeout"})
        started = time.monotonic()
        status = 0
        try:
            conn = WorkerConn(port, timeout=3.0, probe=False)
            try:
                status = conn.request("POST", "/slack/events", body, headers)[0]
            finally:
                conn.close()
        except OSError:
            status = 0
        with tally.lock:
            tally.sent += 1
            tally.http5xx += status >= 500
            if status == 200:
                tally.acked += 1
                tally.acks_s.append(time.monotonic() - started)
        if status == 200:
            return True
        time.sleep(1.0)
    return False


def ok_calls(fake: FakeSlack, method: str, pred: Callable[[Any], bool]) -> int:
    return len([c for c in fake.calls(method) if c.status == 200 and c.ok and pred(c)])


def converse(fake: FakeSlack, port: int, secret: str, n: int, tally: Tally) -> None:
    """One person's whole sizing; counts what they would notice."""
    user, channel = f"UF{n:05d}", f"CF{n:05d}"

    def here(c: Any) -> bool:
        return bool(c.params.get("channel") == channel)

    acked = deliver(port, secret, command_form("/gpu-sizing", "", user=user, channel=channel,
                                       team=TEAM), tally)
    deadline = time.monotonic() + TURN_TIMEOUT_S
    while ok_calls(fake, "chat.postMessage", here) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    with fake._lock:
        thread = dict(fake.messages.get(channel, {}))
    question = next((ts for ts, m in thread.items() if m.get("thread_ts") and m.get("blocks")),
                    None)
    with tally.lock:
        tally.conversations += 1
        if question is None:
            tally.lost += acked
            tally.stuck += 1
            return
    root = str(thread[question]["thread_ts"])
    for _ in range(14):
        with fake._lock:
            blocks = list(fake.messages[channel][question].get("blocks") or [])
        if is_card(blocks):
            return
        try:
            block_id, action_id, value, selected = first_answer(blocks)
        except AssertionError:
            break
        payload = block_actions(user=user, user_team=TEAM, channel=channel,
                                message_ts=question, thread_ts=root, action_id=action_id,
                                block_id=block_id, value=value, selected=selected, team=TEAM)

        def mine(c: Any) -> bool:
            return bool(here(c) and c.params.get("ts") == question)

        before = ok_calls(fake, "chat.update", mine)
        acked = deliver(port, secret, {"payload": json.dumps(payload)}, tally)
        deadline = time.monotonic() + TURN_TIMEOUT_S
        while ok_calls(fake, "chat.update", mine) == before and time.monotonic() < deadline:
            time.sleep(0.05)
        if ok_calls(fake, "chat.update", mine) == before and acked:
            with tally.lock:
                tally.lost += 1  # the person clicks again (the next loop), as they would
    with tally.lock:
        tally.stuck += 1
