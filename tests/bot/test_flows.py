"""Whole conversations through signed HTTP: slash command, mention, DM; card and questions valid."""

from __future__ import annotations

import json
import time

from tests.bot.harness import (
    INTERNAL_TEAM,
    REP,
    SALES,
    BotServer,
    assert_valid,
    click_to_card,
    is_card,
    message,
    verdict_of,
    wait_version_change,
)
from tests.fakeslack import FakeSlack
from tests.slackreq import event_envelope, mention_event, message_event, url_verification


def test_url_verification(bot: BotServer) -> None:
    status, body = bot.client.post_event(url_verification("abc"))
    assert status == 200
    assert json.loads(body)["challenge"] == "abc"


def test_slash_command_to_card_through_the_thread(bot: BotServer, fake: FakeSlack) -> None:
    started = time.monotonic()
    status, _ = bot.client.post_command("/gpu-sizing", "llama 3.1 70b inference", user=REP,
                                        channel=SALES, response_url=fake.response_url("cmd"))
    assert status == 200
    assert time.monotonic() - started < 3.0  # acked before the slow work
    root_call, question_call = fake.wait_for(
        "chat.postMessage", 2, where=lambda c: c.params.get("channel") == SALES)[:2]
    assert root_call.params.get("thread_ts") is None  # the root is a top-level message
    question = question_call.params
    root_ts = next(ts for ts, m in fake.messages[SALES].items() if m["thread_ts"] is None)
    assert question["thread_ts"] == root_ts
    q_ts = next(ts for ts, m in fake.messages[SALES].items() if m["thread_ts"] == root_ts)
    msg = message(fake, SALES, q_ts)
    assert_valid(msg)
    # a typed reply in the thread answers the question (concurrency), updating in place
    before = json.dumps(msg["blocks"])
    status, _ = bot.client.post_event(event_envelope(message_event(
        user=REP, channel=SALES, text="64 users", thread_ts=root_ts)))
    assert status == 200
    msg = wait_version_change(fake, SALES, q_ts, before)
    assert "64" in json.dumps(msg["blocks"])
    card = click_to_card([bot], user=REP, user_team=INTERNAL_TEAM, channel=SALES, ts=q_ts,
                         root=root_ts)
    assert_valid(card)
    # one node: 4-bit weights when the 20 tok/s per user clicked needs them
    assert verdict_of(card) in ("single_node", "single_node_int4")
    # only the root and the question were ever posted in the channel: the rest were updates
    assert len(fake.calls("chat.postMessage")) == 2


def test_mention_to_card(bot: BotServer, fake: FakeSlack) -> None:
    ev = mention_event(user=REP, channel=SALES,
                       text="<@UBOT0001> llama 3.1 70b inference 64 users 8k context")
    status, _ = bot.client.post_event(event_envelope(ev))
    assert status == 200
    (call,) = fake.wait_for("chat.postMessage", 1)
    assert call.params["thread_ts"] == ev["ts"]  # the conversation lives in the mention's thread
    q_ts = next(iter(fake.messages[SALES]))
    card = click_to_card([bot], user=REP, user_team=INTERNAL_TEAM, channel=SALES, ts=q_ts,
                         root=ev["ts"])
    assert is_card(card)


def test_dm_to_card_by_typing_in_threads(bot: BotServer, fake: FakeSlack) -> None:
    """Replies inside a thread of the DM answer its sizing too (top-level answers: test_dm)."""
    dm = "DREP0001"
    ev = message_event(user=REP, channel=dm, text="llama 3.1 70b inference", channel_type="im")
    bot.client.post_event(event_envelope(ev))
    (call,) = fake.wait_for("chat.postMessage", 1)
    assert not call.params.get("thread_ts")  # the question is a top-level message of the DM
    q_ts = next(iter(fake.messages[dm]))
    # under the person's opening message, then under the question itself
    for text, thread in (("32", ev["ts"]), ("8k", q_ts), ("no target", q_ts)):
        before = json.dumps(message(fake, dm, q_ts)["blocks"])
        status, _ = bot.client.post_event(event_envelope(message_event(
            user=REP, channel=dm, text=text, thread_ts=thread, channel_type="im")))
        assert status == 200
        msg = wait_version_change(fake, dm, q_ts, before)
        assert_valid(msg)
    assert is_card(message(fake, dm, q_ts))
