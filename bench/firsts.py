"""Cold start and the 3-second trigger, for bench/faults.py: figures a person feels first.

* :func:`run_first`: the first signed slash command each worker receives after start-up (a
  whole sizing in one line: its answer is the card), sent while people converse beside it: its
  ack (request to HTTP 200; issue 13 wants under 300 ms) and its card (request to the card in
  the fake Slack; under 1 s). Workers are reached on purpose with pinned connections
  (``tests/ops/server.py``); the pinning itself sends only probes, no Slack request.
* :func:`run_modal`: "Request a formal quote" clicked on a finished card while people converse:
  click to ``views.open``. Slack accepts a click's ``trigger_id`` for 3 s only, and the click
  goes through the durable turn queue like every other (``bot/slack/flows/quote.py``).
"""

from __future__ import annotations

import json
import statistics
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from bench.people import Tally, converse
from tests.fakeslack import FakeSlack
from tests.ops.drive import is_card
from tests.ops.server import FreshConn, pin_workers
from tests.slackreq import block_actions, command_form

if TYPE_CHECKING:
    from bench.faults import Stack

SECRET = "bench-faults-signing-secret"
TEAM = "TINT0001"
WORKERS = 2
FULL_OPENING = "llama 3.1 70b inference 64 users 8k context no target"  # the card at once


def _card_at(fake: FakeSlack, channel: str) -> tuple[str, str, list[dict[str, Any]]] | None:
    """(ts, thread root, blocks) of the card in ``channel`` once it is there."""
    with fake._lock:
        for ts, m in fake.messages.get(channel, {}).items():
            if m.get("thread_ts") and is_card(m.get("blocks") or []):
                return ts, str(m["thread_ts"]), list(m["blocks"])
    return None


def _wait(check: Callable[[], Any], seconds: float) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.005)
    return None


def _load(stack: Stack, clients: int, offset: int, stop: threading.Event) -> threading.Thread:
    """People conversing beside a measurement, until ``stop``."""
    def run() -> None:
        n = offset
        with ThreadPoolExecutor(clients) as pool:
            while not stop.is_set():
                batch = [pool.submit(converse, stack.fake, stack.server.port, SECRET, n + i,
                                     Tally()) for i in range(clients)]
                n += clients
                for f in batch:
                    f.result()
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def run_first(stack: Stack, clients: int) -> dict[str, Any]:
    """The first slash command each worker gets after start-up, beside a load."""
    conns = pin_workers(stack.server.port, WORKERS)
    stop = threading.Event()
    load = _load(stack, clients, 90_000, stop)
    acks: list[float] = []
    cards: list[float] = []
    for i, conn in enumerate(conns):
        channel = f"CFIRST{i}"
        started = time.monotonic()
        status = conn.post_signed(SECRET, command_form("/gpu-sizing", FULL_OPENING,
                                                       user=f"UFIRST{i}", channel=channel,
                                                       team=TEAM))[0]
        acks.append(time.monotonic() - started if status == 200 else float("nan"))
        if _wait(lambda ch=channel: _card_at(stack.fake, ch), 10):
            cards.append(time.monotonic() - started)
    stop.set()
    load.join(60)
    for conn in conns:
        conn.close()
    return {"scenario": f"first (per worker, {clients} clients beside)",
            "ack_ms": [round(1000 * a, 1) for a in acks],
            "card_ms": [round(1000 * c, 1) for c in cards]}


def run_modal(stack: Stack, clients: int, clicks: int = 6) -> dict[str, Any]:
    """Click to views.open of "Request a formal quote", with people conversing beside it."""
    stop = threading.Event()
    load = _load(stack, clients, 80_000, stop)
    waits: list[float] = []
    conn = FreshConn(stack.server.port, timeout=5.0)
    for i in range(clicks):
        channel, user = f"CMODAL{i}", f"UMODAL{i}"
        conn.post_signed(SECRET, command_form("/gpu-sizing", FULL_OPENING, user=user,
                                              channel=channel, team=TEAM))
        found = _wait(lambda ch=channel: _card_at(stack.fake, ch), 15)
        if not found:
            continue
        ts, root, blocks = found
        block_id = next(b["block_id"] for b in blocks if b.get("type") == "actions"
                        and any(e.get("action_id") == "gs_quote" for e in b["elements"]))
        payload = block_actions(user=user, user_team=TEAM, channel=channel, message_ts=ts,
                                thread_ts=root, action_id="gs_quote", block_id=block_id,
                                value="quote", team=TEAM)
        before = len(stack.fake.calls("views.open"))
        started = time.monotonic()
        conn.post_signed(SECRET, {"payload": json.dumps(payload)})
        if _wait(lambda n=before: len(stack.fake.calls("views.open")) > n, 10):
            waits.append(time.monotonic() - started)
    stop.set()
    load.join(60)
    return {"scenario": f"modal ({clients} clients beside)", "clicks": clicks,
            "opened": len(waits),
            "p50_ms": round(1000 * statistics.median(waits), 1) if waits else None,
            "max_ms": round(1000 * max(waits), 1) if waits else None,
            "over_3s": sum(w > 3.0 for w in waits)}
