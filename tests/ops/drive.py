"""Drive one whole sizing through a running server, one click per turn, as a person would.

The person runs ``/gpu-sizing``, then clicks the first offered answer on the question message
until the message turns into the recommendation card. Each request goes to the next of the given
worker connections in turn, so consecutive turns of one conversation are served by different
worker processes. A turn is over when the fake Slack received the update of the question
message (the work Bolt does after its ack), which is also what the latency figures measure.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from tests.fakeslack import FakeSlack
from tests.ops.server import WORKER_HEADER, FreshConn, WorkerConn
from tests.slackreq import block_actions, command_form

CARD_ACTIONS = ("gs_math", "gs_quote", "gs_compare", "gs_change")
MAX_TURNS = 30


@dataclass
class Turn:
    kind: str
    pid: str
    status: int
    ack_s: float  # request sent -> HTTP response (Bolt's ack)
    turn_s: float  # request sent -> Slack got the message that answers it


@dataclass
class Driven:
    channel: str
    user: str
    root_ts: str
    question_ts: str
    turns: list[Turn] = field(default_factory=list)
    blocks: list[dict[str, Any]] = field(default_factory=list)


def _elements(blocks: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for block in blocks or []:
        if block.get("type") == "actions":
            for el in block.get("elements", []):
                out.append((str(block.get("block_id", "")), el))
    return out


def is_card(blocks: list[dict[str, Any]]) -> bool:
    return any(el.get("action_id") in CARD_ACTIONS for _, el in _elements(blocks))


def first_answer(blocks: list[dict[str, Any]]) -> tuple[str, str, str | None, str | None]:
    """(block_id, action_id, button value, selected option value) of the first answer offered."""
    for block_id, el in _elements(blocks):
        action_id = str(el.get("action_id", ""))
        if not action_id.startswith("gs_answer"):
            continue
        if el.get("type") == "button":
            return block_id, action_id, str(el["value"]), None
        options = el.get("options") or [o for g in el.get("option_groups", [])
                                        for o in g.get("options", [])]
        if options:
            return block_id, action_id, None, str(options[0]["value"])
    raise AssertionError(f"no answer offered in {blocks}")


def _ok(call: Any) -> bool:
    """Counted as FakeSlack.wait_for counts: HTTP 200 and a body with ok: true."""
    return bool(call.status == 200 and getattr(call, "ok", True))


def drive(
    fake: FakeSlack,
    conns: list[WorkerConn] | list[FreshConn],
    secret: str,
    *,
    user: str = "UREP0001",
    team: str = "TINT0001",
    channel: str = "CSALES01",
    timeout: float = 10.0,
) -> Driven:
    """One whole conversation; raises if it does not reach the card within MAX_TURNS."""
    def here(c: Any) -> bool:
        return bool(c.params.get("channel") == channel)

    posts = len([c for c in fake.calls("chat.postMessage") if _ok(c) and here(c)])
    sent = time.monotonic()
    status, headers, _ = conns[0].post_signed(
        secret, command_form("/gpu-sizing", "", user=user, channel=channel, team=team))
    ack = time.monotonic() - sent
    # Root message, then the first question as a reply in its thread.
    calls = fake.wait_for("chat.postMessage", count=posts + 2, timeout=timeout,
                          where=here)
    root, question = calls[-2], calls[-1]
    run = Driven(channel=channel, user=user, root_ts=str(question.params["thread_ts"]),
                 question_ts="")
    run.turns.append(Turn("command", headers[WORKER_HEADER], status, ack, question.at - sent))
    with fake._lock:  # the fake's record of the thread
        thread = fake.messages[channel]
        run.question_ts = next(ts for ts, m in thread.items()
                               if m.get("thread_ts") == run.root_ts and m.get("blocks"))
    assert root.params.get("thread_ts") is None
    for n in range(1, MAX_TURNS + 1):
        with fake._lock:
            blocks = list(fake.messages[channel][run.question_ts]["blocks"])
        if is_card(blocks):
            run.blocks = blocks
            return run
        block_id, action_id, value, selected = first_answer(blocks)
        payload = block_actions(user=user, user_team=team, channel=channel,
                                message_ts=run.question_ts, thread_ts=run.root_ts,
                                action_id=action_id, block_id=block_id, value=value,
                                selected=selected, team=team)
        def mine(c: Any) -> bool:
            return bool(here(c) and c.params.get("ts") == run.question_ts)

        updates = len([c for c in fake.calls("chat.update") if _ok(c) and mine(c)])
        conn = conns[n % len(conns)]
        sent = time.monotonic()
        status, headers, _ = conn.post_signed(secret, {"payload": json.dumps(payload)})
        ack = time.monotonic() - sent
        done = fake.wait_for("chat.update", count=updates + 1, timeout=timeout,
                             where=mine)[updates].at
        # an earlier turn's update may arrive again (a write retried after a timeout finds
        # and repeats itself): the next click waits for the message this one changed
        deadline = time.monotonic() + timeout
        while True:
            with fake._lock:
                now = list(fake.messages[channel][run.question_ts]["blocks"])
            if now != blocks:
                break
            assert time.monotonic() < deadline, "the click changed nothing"
            time.sleep(0.01)
        run.turns.append(Turn("action", headers[WORKER_HEADER], status, ack, done - sent))
    raise AssertionError(f"no card after {MAX_TURNS} turns")
