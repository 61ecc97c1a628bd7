"""No acknowledged answer lost (issue 13, items 2, 5 and 11), with real processes: Redis
paused with SIGSTOP during the ack, killed -9 and restarted from its append-only file, a
worker of the real server (``python -m bot``: gunicorn, two workers) killed -9 while it holds
a turn, and the store failing in the middle of a turn.

* Paused during the ack, Redis used to run the timed-out attempt's dedupe marker on resuming,
  so Slack's retry looked like a duplicate and the answer was lost without a word. Now the
  delivery is not acknowledged (503) and Slack's retry, after the resume, is applied once.
* A worker killed after the ack used to lose that turn. Now its entry stays pending in the
  turn queue and another worker takes it over: the sizing appears, its root and question once.
* A turn that meets a store outage midway waits and is retried; the person is told once, and
  "nothing was lost" only when the store keeps an append-only file.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

from tests.bot.harness import (
    REP,
    BotServer,
    message,
    stored_conversations,
    wait_shown,
    wait_version_change,
)
from tests.fakeslack import FakeSlack
from tests.redisproc import RedisProcess
from tests.slackreq import event_envelope, message_event

STREAM = "{gpusizing:turns}"
DM = "DREP0001"


def _dm_question(bot: BotServer, fake: FakeSlack) -> str:
    bot.client.post_event(event_envelope(message_event(
        user=REP, channel=DM, text="llama 3.1 70b inference", channel_type="im")))
    fake.wait_for("chat.postMessage", 1)
    q_ts = next(iter(fake.messages[DM]))
    wait_shown(bot, q_ts)
    return q_ts


def test_a_redis_pause_during_the_ack_is_not_acked_and_slacks_retry_applies_once(
    serve: Callable[..., BotServer], aof_redis: RedisProcess, fake: FakeSlack
) -> None:
    bot = serve(aof_redis.url)
    q_ts = _dm_question(bot, fake)
    before = json.dumps(message(fake, DM, q_ts)["blocks"])
    envelope = event_envelope(message_event(user=REP, channel=DM, text="64",
                                            channel_type="im"))
    with aof_redis.paused():
        started = time.monotonic()
        status, _ = bot.client.post_event(envelope)
        assert status != 200 and time.monotonic() - started < 3.0  # inside Slack's 3 s
        time.sleep(1.0)
    # Slack redelivers the event after the pause (the timed-out attempt may have landed:
    # either way it is applied once)
    status, _ = bot.client.post_event(envelope, retry=1)
    assert status == 200
    shown = wait_version_change(fake, DM, q_ts, before, timeout=20)
    fake.quiet(1.0)
    (doc,) = stored_conversations(bot).values()
    assert doc["answers"]["concurrency"] == 64 and doc["version"] == 2
    assert f"|{doc['version']}|" in json.dumps(shown["blocks"])
    status, _ = bot.client.post_event(envelope, retry=2)  # a third delivery: nothing more
    assert status == 200
    fake.quiet(0.5)
    (doc,) = stored_conversations(bot).values()
    assert doc["version"] == 2 and list(fake.messages[DM]) == [q_ts]


def test_redis_killed_and_restarted_with_its_append_only_file_keeps_the_sizing(
    serve: Callable[..., BotServer], aof_redis: RedisProcess, fake: FakeSlack
) -> None:
    bot = serve(aof_redis.url)
    q_ts = _dm_question(bot, fake)
    before = json.dumps(message(fake, DM, q_ts)["blocks"])
    time.sleep(1.2)  # appendfsync everysec: what was acknowledged a second ago is on disk
    aof_redis.kill9()
    aof_redis.start()
    status, _ = bot.client.post_event(event_envelope(message_event(
        user=REP, channel=DM, text="64", channel_type="im")))
    assert status == 200
    wait_version_change(fake, DM, q_ts, before, timeout=20)
    (doc,) = stored_conversations(bot).values()
    assert doc["answers"]["concurrency"] == 64
    assert list(fake.messages[DM]) == [q_ts]
