"""The person is told when their answer waits (issue 13, item 6), in their language: the
queue has a backlog when it is acknowledged; a form cannot be recorded (it stays open, with
everything typed, and says so). The store or Slack failing mid-turn is told once by the turn
itself (``tests/bot/test_durable.py``, ``tests/bot/test_slack_failures.py``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import redis

from bot.slack.cards.quote_modal import B_EMAIL, B_NAME
from bot.slack.listeners.deliver import BACKLOG_NOTE
from tests.bot.harness import REP, SALES, BotServer, plain, said
from tests.bot.quoteflow import open_form, submit
from tests.bot.threads import finished_card
from tests.fakeslack import FakeSlack
from tests.redisproc import RedisProcess
from tests.slackreq import event_envelope, message_event

DM = "DREP0001"


def test_an_answer_behind_a_backlog_is_told_it_waits_then_applied(
    bot: BotServer, fake: FakeSlack
) -> None:
    bot.consumer.stop(5)  # the workers are busy: nothing is taken for a moment
    sent = []
    for i in range(BACKLOG_NOTE + 1):
        envelope = event_envelope(message_event(user=REP, channel=DM, text=f"help {i}",
                                                channel_type="im"))
        status, _ = bot.client.post_event(envelope)
        assert status == 200
        sent.append(envelope)
    (note, *_) = fake.wait_for("chat.postEphemeral", 1)
    assert note.params["user"] == REP and note.params["text"] == said("slack.waits.backlog")
    bot.consumer = bot.built.consumer()  # a worker is free again
    bot.consumer.start()
    r = redis.Redis.from_url(str(bot.settings.redis_url))
    deadline = time.monotonic() + 20
    while r.xpending("{gpusizing:turns}", "turns")["pending"] or r.xinfo_groups(
            "{gpusizing:turns}")[0]["lag"]:
        assert time.monotonic() < deadline, "the backlog never drained"
        time.sleep(0.05)


def test_a_form_that_cannot_be_recorded_stays_open_with_what_was_typed(
    serve: Callable[..., BotServer], own_redis: RedisProcess, fake: FakeSlack
) -> None:
    bot = serve(own_redis.url)
    root, q_ts, card = finished_card(bot, fake)
    view = open_form(bot, card, user=REP, ts=q_ts, root=root, channel=SALES)
    own_redis.stop()
    status, ack = submit(bot, view, {B_NAME: "Rémi", B_EMAIL: "remi@client.fr"}, user=REP)
    assert status == 200
    assert ack == {"response_action": "errors",
                   "errors": {B_NAME: plain("slack.modal.error.not_taken")}}
    assert "Traceback" not in json.dumps(ack)
