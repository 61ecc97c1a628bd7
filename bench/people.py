"""Simulated people, for bench/faults.py: what a person would notice, counted the same way in
every scenario.

Why apart from the scenarios: :func:`converse` runs one whole sizing as a person does it (the
slash command, then a click on the first answer of each question until the card, as
``tests/ops/drive.py`` does) but keeps going when something goes wrong and counts instead of
asserting; :func:`deliver` posts a signed request as Slack does, with Slack's redeliveries of
an unanswered one (up to 3, 1 s apart here, with ``X-Slack-Retry-Num``). The Slack it talks to
is the one fake of the tests (``tests/fakeslack.py``), whose faults (429s, 5xx, connection
resets after the work, late answers, slow answers) the scenarios switch on.

What counts:

* *acked*: a delivery Slack got a 200 for; *lost*: acked, and its answer never reached Slack
  (a person waits up to :data:`GIVE_UP_S` for it; answers slower than :data:`PATIENCE_S` are
  counted *late*, not lost);
* a slash command the bot answered with "I could not confirm I received this" (its store did
  not answer) is not an acknowledged answer: the person runs it again if nothing happens;
* *stuck*: a conversation that never reached its card.
"""

from __future__ import annotations

import json
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

__all__ = ["PATIENCE_S", "SLACK_METHODS", "Tally", "converse", "deliver", "ok_calls"]

TEAM = "TINT0001"
PATIENCE_S = 12.0  # an answer slower than this is counted late
GIVE_UP_S = 60.0  # an acknowledged answer not there after this is counted lost
SLACK_METHODS = ("chat.postMessage", "chat.update")


@dataclass
class Tally:
    sent: int = 0
    acked: int = 0
    lost: int = 0
    late: int = 0
    not_taken: int = 0  # commands answered "could not confirm": the person ran them again
    http5xx: int = 0
    stuck: int = 0
    conversations: int = 0
    acks_s: list[float] = field(default_factory=list)
    answers_s: list[float] = field(default_factory=list)
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


def _until(check: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return check()


def _start(fake: FakeSlack, port: int, secret: str, user: str, channel: str,
           tally: Tally) -> bool:
    """The slash command, until its root and question are there (or the person gives up)."""
    hook = fake.response_url(f"{user}-{channel}")

    def here(c: Any) -> bool:
        return bool(c.params.get("channel") == channel)

    for _attempt in range(3):
        told = len(_notes(fake, hook))
        started = time.monotonic()
        acked = deliver(port, secret, command_form("/gpu-sizing", "", user=user,
                                                   channel=channel, team=TEAM,
                                                   response_url=hook), tally)
        if _until(lambda: ok_calls(fake, "chat.postMessage", here) >= 2, PATIENCE_S):
            _answered(tally, time.monotonic() - started)
            return True
        refused = any(n.startswith("I could not confirm") for n in _notes(fake, hook)[told:])
        if acked and refused:  # told it was not taken: the person runs it again
            with tally.lock:
                tally.not_taken += 1
            continue
        if _until(lambda: ok_calls(fake, "chat.postMessage", here) >= 2,
                  GIVE_UP_S - PATIENCE_S):
            _answered(tally, time.monotonic() - started)
            return True
        with tally.lock:
            tally.lost += acked
        if acked:
            _report_lost("command", channel)
        return False
    return False


def _report_lost(kind: str, channel: str) -> None:
    """One line on stderr per lost answer: which one, to look for in the server's log."""
    import sys

    print(f"lost: {kind} in {channel} at {time.strftime('%H:%M:%S')}", file=sys.stderr)


def _notes(fake: FakeSlack, hook: str) -> list[str]:
    """What the bot said through one person's response_url, in order."""
    name = hook.split("/response/", 1)[1]
    return [str(c.params.get("text", "")) for c in fake.calls("response_url")
            if c.path == name]


def _answered(tally: Tally, seconds: float) -> None:
    with tally.lock:
        tally.answers_s.append(seconds)
        tally.late += seconds > PATIENCE_S


def converse(fake: FakeSlack, port: int, secret: str, n: int, tally: Tally) -> None:
    """One person's whole sizing; counts what they would notice."""
    user, channel = f"UF{n:05d}", f"CF{n:05d}"
    with tally.lock:
        tally.conversations += 1
    if not _start(fake, port, secret, user, channel, tally):
        with tally.lock:
            tally.stuck += 1
        return
    with fake._lock:
        thread = dict(fake.messages.get(channel, {}))
    question = next((ts for ts, m in thread.items() if m.get("thread_ts") and m.get("blocks")),
                    None)
    if question is None:
        with tally.lock:
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
        shown = json.dumps(blocks)

        def moved(shown: str = shown) -> bool:
            with fake._lock:
                now = fake.messages[channel][question].get("blocks") or []
            return json.dumps(now) != shown

        started = time.monotonic()
        acked = deliver(port, secret, {"payload": json.dumps(payload)}, tally)
        if _until(moved, GIVE_UP_S):
            _answered(tally, time.monotonic() - started)
        elif acked:
            with tally.lock:
                tally.lost += 1  # the person clicks again (the next loop), as they would
            _report_lost("click", channel)
    with tally.lock:
        tally.stuck += 1
