"""The Slack face when Slack, the store or the dialogue fails: refused and hanging posts, rate
limits beyond the retries, an unreachable response URL, the App Home's failures, a defect in
the dialogue; and no secret in any log or message on the way.

Slack failing for a passing reason (5xx, 429 beyond the retries, a timeout) puts the turn off:
the queue retries it, the person is told once that their answer waits, and the sizing keeps
one live message (issue 13, items 3, 4 and 6). Only a refusal (``ok: false`` with a reason)
ends a turn with "Slack did not accept my message".
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from bot.slack.cards import ids
from tests.bot.harness import (
    COLLEAGUE,
    CUSTOMER,
    EXTERNAL_TEAM,
    INTERNAL_TEAM,
    REP,
    SALES,
    BotServer,
    assert_valid,
    click,
    find_element,
    first_choice,
    home_click,
    is_math,
    message,
    said,
    slack_failed,
    stored_conversations,
    wait_shown,
    wait_version_change,
)
from tests.bot.threads import (
    OPENING,
    click_element,
    finished_card,
    mention,
    question_ts,
)
from tests.fakeslack import FakeSlack
from tests.redisproc import RedisProcess
from tests.slackreq import block_actions, event_envelope, message_event

# ------------------------------------------------------------------ Slack API failures


def test_question_that_cannot_be_posted_is_told_and_shown_again(
    bot: BotServer, fake: FakeSlack
) -> None:
    fake.fail("chat.postMessage", "invalid_blocks")  # refused: not a passing failure
    root = mention(bot, fake, text="llama 3.1 70b inference 64 users")
    (note,) = fake.wait_for("chat.postEphemeral", 1)
    assert note.params["user"] == REP
    assert note.params["text"] == slack_failed("slack.what.question_not_shown")
    fake.quiet(0.2)
    assert SALES not in fake.messages
    # mentioning the bot again in the thread shows the question (no second sizing)
    mention(bot, fake, text="", thread_ts=root)
    q_ts = question_ts(fake, SALES, root)
    (doc,) = stored_conversations(bot).values()  # no second sizing; the opening was kept
    assert doc["state"] == "context" and doc["answers"]["concurrency"] == 64
    assert message(fake, SALES, q_ts)["blocks"]
    # a typed answer when the question was never shown posts it at once (no wait for a post
    # that is not coming)
    root2 = "1800400000.000100"
    fake.fail("chat.postMessage", "invalid_blocks")
    mention(bot, fake, thread_ts=root2)
    fake.wait_for("chat.postEphemeral", 2)
    fake.quiet(0.1)
    started = time.monotonic()
    bot.client.post_event(event_envelope(message_event(user=REP, channel=SALES,
                                                       text="no target", thread_ts=root2)))
    question_ts(fake, SALES, root2)
    assert time.monotonic() - started < 1.5


def test_slash_command_failures_say_what_happened(bot: BotServer, fake: FakeSlack) -> None:
    # not a member: how to fix it
    fake.fail("chat.postMessage", "channel_not_found")
    bot.client.post_command("/gpu-sizing", OPENING, user=REP, channel="DOTHER01",
                            response_url=fake.response_url("a"))
    (told,) = fake.wait_for("response_url", 1)
    assert told.params["text"] == said("slack.cannot_post")
    assert told.params["response_type"] == "ephemeral"
    # the token was revoked: "invite me" would be wrong advice
    fake.fail("chat.postMessage", "invalid_auth")
    n = len(fake.calls("response_url"))
    bot.client.post_command("/gpu-sizing", OPENING, user=REP, channel=SALES,
                            response_url=fake.response_url("b"))
    told = fake.wait_for("response_url", n + 1)[-1]
    assert told.params["text"] == slack_failed("slack.what.no_sizing")
    # the root posts, the question does not: the root is taken back and the person told
    fake.fail("chat.postMessage", "msg_too_long", after=1)
    n = len(fake.calls("response_url"))
    bot.client.post_command("/gpu-sizing", OPENING, user=REP, channel=SALES,
                            response_url=fake.response_url("c"))
    told = fake.wait_for("response_url", n + 1)[-1]
    assert told.params["text"] == slack_failed("slack.what.question_not_shown")
    (deleted,) = fake.wait_for("chat.delete", 1)
    (root_post,) = [c for c in fake.calls("chat.postMessage") if c.ok]
    assert deleted.params["channel"] == SALES
    # /gpu-sizing post where the bot cannot post
    fake.fail("chat.postMessage", "not_in_channel")
    bot.client.post_command("/gpu-sizing", "post", user=REP, channel="CELSE001",
                            response_url=fake.response_url("d"))
    told = fake.wait_for("response_url", n + 2)[-1]
    assert told.params["text"] == said("slack.cannot_post")
    assert root_post.params["channel"] == SALES


def test_an_update_slack_keeps_failing_waits_and_never_leaves_two_questions(
    bot: BotServer, fake: FakeSlack
) -> None:
    """Issue 13, item 4: any chat.update failure posted a new message and left the old
    question live. A 500-storm now puts the turn off; the person is told once that their
    answer waits, and the same message catches up when Slack is back."""
    root = mention(bot, fake, text="llama 3.1 70b inference")
    q_ts = question_ts(fake, SALES, root)
    wait_shown(bot)
    msg = message(fake, SALES, q_ts)
    fake.http_error("chat.update", 500, times=6)  # beyond the client's own two retries
    block_id, action_id, value, _ = first_choice(msg)
    click(bot, user=REP, user_team=INTERNAL_TEAM, channel=SALES, message_ts=q_ts,
          block_id=block_id, action_id=action_id, value=value, thread_ts=root)
    (note,) = fake.wait_for("chat.postEphemeral", 1)
    assert note.params["text"] == said("slack.waits.slack")
    shown = wait_version_change(fake, SALES, q_ts, json.dumps(msg["blocks"]), timeout=15)
    fake.quiet(0.3)
    assert [ts for ts, m in fake.messages[SALES].items() if m["thread_ts"] == root] == [q_ts]
    assert len(fake.calls("chat.postEphemeral")) == 1  # told once, not at every attempt
    (doc,) = stored_conversations(bot).values()
    assert "concurrency" in doc["answers"] and f"|{doc['version']}|" in json.dumps(shown)


def test_an_update_slack_refuses_for_good_replaces_the_message_and_retires_the_old(
    bot: BotServer, fake: FakeSlack
) -> None:
    """The sizing's message was deleted (Slack answers message_not_found, cant_update_message
    for a message too old to edit): the current state is posted as a new message, which the
    next answers update, and the old one, when it is still there, loses its buttons."""
    root = mention(bot, fake, text="llama 3.1 70b inference")
    q_ts = question_ts(fake, SALES, root)
    wait_shown(bot)
    msg = message(fake, SALES, q_ts)
    fake.fail("chat.update", "cant_update_message")
    block_id, action_id, value, _ = first_choice(msg)
    click(bot, user=REP, user_team=INTERNAL_TEAM, channel=SALES, message_ts=q_ts,
          block_id=block_id, action_id=action_id, value=value, thread_ts=root)
    new_ts = question_ts(fake, SALES, root, skip=(q_ts,))
    wait_shown(bot, new_ts)
    old = wait_version_change(fake, SALES, q_ts, json.dumps(msg["blocks"]))
    assert not [b for b in old["blocks"] if b["type"] == "actions"]  # no live buttons left
    assert old["text"] == said("slack.superseded.thread")
    before = json.dumps(message(fake, SALES, new_ts)["blocks"])
    bot.client.post_event(event_envelope(message_event(user=REP, channel=SALES, text="8k",
                                                       thread_ts=root)))
    wait_version_change(fake, SALES, new_ts, before)
    (doc,) = stored_conversations(bot).values()
    assert doc["answers"]["context"] == 8192 and "concurrency" in doc["answers"]


def test_hanging_slack_times_out_and_the_worker_keeps_serving(
    bot: BotServer, fake: FakeSlack
) -> None:
    bot.app.client.timeout = 1  # the same client the turns use; production waits 10 s
    root = mention(bot, fake, text="llama 3.1 70b inference")
    q_ts = question_ts(fake, SALES, root)
    wait_shown(bot)
    msg = message(fake, SALES, q_ts)
    fake.hang("chat.update", 1.5)
    started = time.monotonic()
    status, _ = bot.client.post_event(event_envelope(message_event(
        user=REP, channel=SALES, text="64", thread_ts=root)))
    assert status == 200 and time.monotonic() - started < 1.0  # the ack did not wait
    # the update timed out (Slack may have done it): retried, never answered with a second
    # question; the same message shows the answer
    shown = wait_version_change(fake, SALES, q_ts, json.dumps(msg["blocks"]), timeout=8)
    assert stored_conversations(bot)[next(iter(stored_conversations(bot)))]["state"] == "context"
    assert [ts for ts, m in fake.messages[SALES].items() if m["thread_ts"] == root] == [q_ts]
    # and the next answer updates that message
    bot.client.post_event(event_envelope(message_event(user=REP, channel=SALES, text="8k",
                                                       thread_ts=root)))
    wait_version_change(fake, SALES, q_ts, json.dumps(shown["blocks"]))
    assert len(fake.calls("chat.postMessage")) == 1


def test_rate_limited_beyond_retries_waits_and_is_posted_once(
    bot: BotServer, fake: FakeSlack
) -> None:
    """A 429 means "not processed": beyond the client's retries the turn waits (the person is
    told), then the question is posted, once."""
    fake.rate_limit("chat.postMessage", times=3, retry_after=0)
    root = mention(bot, fake)
    (note,) = fake.wait_for("chat.postEphemeral", 1, timeout=10)
    assert note.params["text"] == said("slack.waits.slack")
    q_ts = question_ts(fake, SALES, root, timeout=10)
    fake.quiet(0.3)
    assert [c.status for c in fake.calls("chat.postMessage")] == [429, 429, 429, 200]
    assert [ts for ts, m in fake.messages[SALES].items() if m["thread_ts"] == root] == [q_ts]


def test_help_in_a_dm_explains_instead_of_starting_a_sizing(bot: BotServer,
                                                            fake: FakeSlack) -> None:
    for text in ("help", "<@UBOT0001> help?", "?"):
        n = len(fake.calls("chat.postMessage"))
        bot.client.post_event(event_envelope(message_event(user=REP, channel="DREP0001",
                                                           text=text, channel_type="im")))
        post = fake.wait_for("chat.postMessage", n + 1)[-1]
        assert post.params["text"] == said("slack.help") and not post.params.get("thread_ts")
    assert not stored_conversations(bot)


# ------------------------------------------------------------------ App Home




def test_home_new_sizing_from_the_view_and_its_failures(
    serve: Callable[..., BotServer], own_redis: RedisProcess, fake: FakeSlack
) -> None:
    bot = serve(own_redis.url)
    home_click(bot)
    (post,) = fake.wait_for("chat.postMessage", 1)
    assert post.params["channel"] == "DREP0001" and not post.params.get("thread_ts")
    fake.quiet(0.2)
    assert len(fake.calls("chat.postMessage")) == 1  # the question only: no root message
    # the messages tab opening is not the home tab: nothing published
    bot.client.post_event(event_envelope({"type": "app_home_opened", "user": REP,
                                          "channel": "DREP0001", "tab": "messages",
                                          "event_ts": "1800300000.1"}))
    fake.quiet(0.3)
    assert not fake.calls("views.publish")
    # the DM cannot be opened: said on the Home tab (there is no channel to answer in)
    fake.fail("conversations.open", "user_disabled")
    home_click(bot, user=COLLEAGUE)
    (view,) = fake.wait_for("views.publish", 1)
    assert slack_failed("slack.what.no_sizing") in json.dumps(view.params["view"],
                                                               ensure_ascii=False)
    # the store is down: the click is not taken (503), and that is said on the Home tab too
    own_redis.stop()
    home_click(bot, user=CUSTOMER, expect=503)
    views = fake.wait_for("views.publish", 2, timeout=15)
    assert views[-1].params["user_id"] == CUSTOMER
    assert said("slack.home.store_down") in json.dumps(views[-1].params["view"],
                                                        ensure_ascii=False)
    assert not [c for c in fake.calls("chat.postEphemeral") if not c.params.get("channel")]


# ------------------------------------------------------------------ secrets


def test_no_secret_in_logs_or_messages(bot: BotServer, fake: FakeSlack,
                                       caplog: Any) -> None:
    caplog.set_level("DEBUG")
    fake.fail("chat.postMessage", "invalid_auth")
    bot.client.post_command("/gpu-sizing", "status", user=REP, channel=SALES,
                            response_url=fake.response_url("s"))
    bot.client.post_command("/gpu-sizing", OPENING, user=REP, channel=SALES,
                            response_url=fake.response_url("s"))
    fake.wait_for("response_url", 2)
    root, q_ts, card = finished_card(bot, fake)
    fake.fail("chat.update", "invalid_auth")
    fake.fail("chat.postMessage", "invalid_auth")
    click_element(bot, card, f"{ids.A_NAV}_restart", user=REP, ts=q_ts, root=root)
    fake.wait_for("chat.postEphemeral", 1)
    fake.quiet(0.3)
    secrets = (fake.bot_token, "test-signing-secret-0123456789")
    texts = [r.getMessage() + str(r.__dict__.get("json_fields", "")) + str(r.exc_text or "")
             for r in caplog.records]
    texts += [json.dumps(c.params) for c in fake.calls()]
    for text in texts:
        for secret in secrets:
            assert secret not in text


# ------------------------------------------------------------------ a dialogue bug


def test_an_error_inside_the_dialogue_is_told_and_the_worker_keeps_serving(
    bot: BotServer, fake: FakeSlack, monkeypatch: Any
) -> None:
    from dialogue import turn

    real = turn.take

    def take(conv: Any, text: str, *rest: Any) -> Any:
        if text == "boom":
            raise OverflowError("cannot convert float infinity to integer")
        return real(conv, text, *rest)

    monkeypatch.setattr(turn, "take", take)
    root = mention(bot, fake, text="llama 3.1 70b inference")
    q_ts = question_ts(fake, SALES, root)
    wait_shown(bot)
    msg = message(fake, SALES, q_ts)
    bot.client.post_event(event_envelope(message_event(user=REP, channel=SALES, text="boom",
                                                       thread_ts=root)))
    (note,) = fake.wait_for("chat.postEphemeral", 1)
    assert note.params["user"] == REP and note.params["text"] == said("slack.failed_turn")
    assert message(fake, SALES, q_ts) == msg
    bot.client.post_event(event_envelope(message_event(user=REP, channel=SALES, text="64",
                                                       thread_ts=root)))
    wait_version_change(fake, SALES, q_ts, json.dumps(msg["blocks"]))
    # a slash command whose opening breaks the dialogue: told through the response_url, and
    # the root it posted is taken back
    monkeypatch.setattr(turn, "begin", lambda *a: (_ for _ in ()).throw(ValueError()))
    bot.client.post_command("/gpu-sizing", "anything", user=REP, channel=SALES,
                            response_url=fake.response_url("x"))
    (told,) = fake.wait_for("response_url", 1)
    assert told.params["text"] == said("slack.failed_turn")
    fake.wait_for("chat.delete", 1)


def test_unreachable_response_url_falls_back_to_an_ephemeral_and_is_not_logged(
    bot: BotServer, fake: FakeSlack, caplog: Any
) -> None:
    hook = "http://127.0.0.1:9/commands/T0/1/secret-hook-token"  # nothing listens on port 9
    for text in ("help", "status"):
        bot.client.post_command("/gpu-sizing", text, user=REP, channel=SALES, response_url=hook)
    notes = fake.wait_for("chat.postEphemeral", 2)
    assert {n.params["user"] for n in notes} == {REP}
    assert any(n.params["text"] == said("slack.help") for n in notes)
    fake.quiet(0.2)
    logged = " ".join(r.getMessage() + str(r.exc_text or "") + str(r.__dict__)
                      for r in caplog.records)
    assert "secret-hook-token" not in logged


def test_math_that_slack_refused_can_be_asked_for_again(bot: BotServer, fake: FakeSlack) -> None:
    root, q_ts, card = finished_card(bot, fake)
    fake.fail("chat.postMessage", "invalid_blocks")
    click_element(bot, card, ids.A_MATH, user=REP, ts=q_ts, root=root)
    (note,) = fake.wait_for("chat.postEphemeral", 1)
    assert note.params["text"] == slack_failed("slack.what.math_not_posted")
    fake.quiet(0.1)
    click_element(bot, card, ids.A_MATH, user=REP, ts=q_ts, root=root)
    (math,) = fake.wait_for("chat.postMessage", 1, where=lambda c: is_math(c.params))
    assert math.params["thread_ts"] == root
    click_element(bot, card, ids.A_MATH, user=REP, ts=q_ts, root=root)  # now once is enough
    notes = fake.wait_for("chat.postEphemeral", 2)
    assert notes[-1].params["text"] == said("slack.math_in_thread")


def test_start_my_own_from_the_ephemeral_note(bot: BotServer, fake: FakeSlack) -> None:
    root = mention(bot, fake, text="llama 3.1 70b inference")
    q_ts = question_ts(fake, SALES, root)
    wait_shown(bot)
    block_id, action_id, value, _ = first_choice(message(fake, SALES, q_ts))
    click(bot, user=CUSTOMER, user_team=EXTERNAL_TEAM, channel=SALES, message_ts=q_ts,
          block_id=block_id, action_id=action_id, value=value, thread_ts=root)
    (note,) = fake.wait_for("chat.postEphemeral", 1)
    start_block, start = find_element(note.params, ids.A_START)
    # the note is ephemeral: the payload has no "message", only the container
    payload = block_actions(user=CUSTOMER, user_team=EXTERNAL_TEAM, channel=SALES,
                            message_ts="1700009999.000001", action_id=ids.A_START,
                            block_id=start_block, value=start["value"], ephemeral=True)
    assert "message" not in payload
    status, _ = bot.client.post_action(payload)
    assert status == 200
    (own,) = fake.wait_for("chat.postMessage", 1, where=lambda c: c.params.get("thread_ts") == root
                           and f"<@{CUSTOMER}>" in json.dumps(c.params.get("blocks")))
    assert_valid(own.params)
