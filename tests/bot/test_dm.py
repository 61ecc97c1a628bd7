"""Direct messages: people answer at top level, so a DM's sizing is the person's in that DM.

Everything goes through signed HTTP into the real app, the fake Slack and a throwaway Redis.
A DM's key is ``{team}:{channel}:dm:{user}``; its question is a top-level message updated in
place; a top-level message answers the sizing in progress, or starts a new one.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from bot.slack.cards import ids
from tests.bot.harness import (
    COLLEAGUE,
    INTERNAL_TEAM,
    REP,
    BotServer,
    assert_valid,
    click,
    find_element,
    first_choice,
    home_click,
    is_card,
    message,
    said,
    stored_conversations,
    verdict_of,
    wait_shown,
    wait_version_change,
)
from tests.fakeslack import FakeSlack
from tests.redisproc import RedisProcess
from tests.slackreq import event_envelope, mention_event, message_event

DM = "DREP0001"  # what the fake's conversations.open answers for REP
DM2 = "DOTHER01"  # ... and for COLLEAGUE
OPENING = "llama 3.1 70b inference"
ANSWERS = ("32", "8k", "no target")  # concurrency, context, throughput target


def _say(bot: BotServer, text: str, *, user: str = REP, channel: str = DM,
         thread_ts: str | None = None, event_id: str | None = None,
         retry: int | None = None) -> dict[str, Any]:
    """The person types ``text`` in their DM (top level unless ``thread_ts``)."""
    ev = message_event(user=user, channel=channel, text=text, thread_ts=thread_ts,
                       channel_type="im")
    envelope = event_envelope(ev, event_id=event_id)
    kw = {} if retry is None else {"retry": retry}
    status, _ = bot.client.post_event(envelope, **kw)
    assert status == 200
    return envelope


def _new_message(fake: FakeSlack, channel: str, before: set[str],
                 timeout: float = 10.0) -> str:
    """The ts of the bot's first message in ``channel`` that is not in ``before``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        new = [ts for ts in list(fake.messages.get(channel, {})) if ts not in before]
        if new:
            return sorted(new)[0]
        time.sleep(0.02)
    raise AssertionError(f"no new message in {channel}")


def _blocks(fake: FakeSlack, channel: str, ts: str) -> str:
    return json.dumps(message(fake, channel, ts)["blocks"])


def _answer(bot: BotServer, fake: FakeSlack, q_ts: str, text: str, *, user: str = REP,
            channel: str = DM) -> dict[str, Any]:
    """Type ``text`` at top level; wait for the question message to change in place."""
    before = _blocks(fake, channel, q_ts)
    _say(bot, text, user=user, channel=channel)
    msg = wait_version_change(fake, channel, q_ts, before)
    assert_valid(msg)
    return msg




def _key(channel: str = DM, user: str = REP) -> str:
    return f"{INTERNAL_TEAM}:{channel}:dm:{user}"


def _start_dm(bot: BotServer, fake: FakeSlack, text: str = OPENING, *, user: str = REP,
              channel: str = DM) -> str:
    """Open a sizing by a top-level DM message; the question's ts (a top-level message)."""
    before = set(fake.messages.get(channel, {}))
    _say(bot, text, user=user, channel=channel)
    q_ts = _new_message(fake, channel, before)
    assert message(fake, channel, q_ts)["thread_ts"] is None
    wait_shown(bot, q_ts, _key(channel, user))
    return q_ts


# ------------------------------------------------------------------ a whole sizing at top level


def test_a_whole_dm_sizing_answered_at_top_level_then_a_new_one(
    bot: BotServer, fake: FakeSlack
) -> None:
    q_ts = _start_dm(bot, fake)
    question = message(fake, DM, q_ts)
    assert said("slack.question.how_dm") in json.dumps(question["blocks"], ensure_ascii=False)
    for text in ANSWERS:
        msg = _answer(bot, fake, q_ts, text)
    assert is_card(msg)
    assert verdict_of(msg) == "single_node"
    # one message in the DM, updated in place from the first question to the card
    assert len(fake.calls("chat.postMessage")) == 1 and list(fake.messages[DM]) == [q_ts]
    assert list(stored_conversations(bot)) == [_key()]
    card = msg
    # a change typed at top level refers to the finished sizing: the card is recomputed
    card = _answer(bot, fake, q_ts, "change gpu to H200")
    assert is_card(card) and "H200" in json.dumps(card["blocks"])
    # so does an answer typed without 'change', naming no model: the same card, recomputed
    card = _answer(bot, fake, q_ts, "what about 128 users?")
    assert is_card(card) and "128" in json.dumps(card["blocks"])
    assert list(fake.messages[DM]) == [q_ts]  # no new sizing was started
    # a top-level message after the card starts a new sizing: a new question below it
    before = set(fake.messages[DM])
    _say(bot, "llama 3.1 8b inference")
    q2 = _new_message(fake, DM, before)
    wait_shown(bot, q2, _key())
    assert message(fake, DM, q2)["thread_ts"] is None
    assert "8B" in json.dumps(message(fake, DM, q2)["blocks"])
    assert message(fake, DM, q_ts) == card  # the old card is left as it was
    # the old card's buttons go through the version check: refused privately, nothing moves
    n = len(fake.calls())
    block_id, _ = find_element(card, ids.A_CHANGE)
    click(bot, user=REP, user_team=INTERNAL_TEAM, channel=DM, message_ts=q_ts,
          block_id=block_id, action_id=ids.A_CHANGE, selected="change context")
    block_id, _ = find_element(card, ids.A_QUOTE)
    click(bot, user=REP, user_team=INTERNAL_TEAM, channel=DM, message_ts=q_ts,
          block_id=block_id, action_id=ids.A_QUOTE, value="quote")
    notes = fake.wait_for("chat.postEphemeral", 2)
    assert all(c.params["channel"] == DM and c.params["user"] == REP for c in notes)
    assert sorted(c.params["text"] for c in notes) == sorted(
        [said("slack.stale"), said("slack.out_of_date")])
    fake.quiet(0.2)
    assert not [c for c in fake.calls()[n:] if c.method in ("chat.update", "chat.postMessage")]
    # ... and the new question answers to top-level messages, in place
    msg = _answer(bot, fake, q2, "8")
    assert "8B" in json.dumps(msg["blocks"])
    assert message(fake, DM, q_ts) == card


def test_new_start_over_and_restart_start_a_fresh_sizing(bot: BotServer,
                                                          fake: FakeSlack) -> None:
    q_ts = _start_dm(bot, fake)
    _answer(bot, fake, q_ts, "32")
    seen = {q_ts}
    for word in ("restart", "new", "Start over!"):
        before = set(fake.messages[DM])
        _say(bot, word)
        fresh = _new_message(fake, DM, before)
        wait_shown(bot, fresh, _key())
        seen.add(fresh)
        msg = message(fake, DM, fresh)
        assert msg["thread_ts"] is None
        # the first question again, nothing carried over: not a model called "new"
        doc = stored_conversations(bot)[_key()]
        assert doc["state"] == "model" and doc["answers"] == {}
        # ... and the fresh sizing takes the next top-level answers
        msg = _answer(bot, fake, fresh, OPENING)
        assert "Llama 3.1 70B" in json.dumps(msg["blocks"])
    assert len(seen) == 4
    assert list(stored_conversations(bot)) == [_key()]


# ------------------------------------------------------------------ other ways into the DM




def test_app_home_new_sizing_then_top_level_answers(bot: BotServer, fake: FakeSlack) -> None:
    home_click(bot)
    (post,) = fake.wait_for("chat.postMessage", 1)
    assert post.params["channel"] == DM and not post.params.get("thread_ts")
    q_ts = next(iter(fake.messages[DM]))
    wait_shown(bot, q_ts, _key())
    for text in (OPENING, *ANSWERS):
        msg = _answer(bot, fake, q_ts, text)
    assert is_card(msg)
    assert list(fake.messages[DM]) == [q_ts]
    # the finished sizing is listed on the Home tab
    bot.client.post_event(event_envelope({"type": "app_home_opened", "user": REP,
                                          "channel": DM, "tab": "home", "event_ts": "1.2"}))
    (view,) = fake.wait_for("views.publish", 1)
    assert "Llama 3.1 70B" in json.dumps(view.params["view"])


def test_slash_command_in_the_dm_then_top_level_answers(bot: BotServer,
                                                        fake: FakeSlack) -> None:
    status, _ = bot.client.post_command("/gpu-sizing", OPENING, user=REP, channel=DM,
                                        channel_name="directmessage",
                                        response_url=fake.response_url("c"))
    assert status == 200
    (post,) = fake.wait_for("chat.postMessage", 1)
    assert not post.params.get("thread_ts")  # no root message: the question is at top level
    q_ts = next(iter(fake.messages[DM]))
    wait_shown(bot, q_ts, _key())
    for text in ANSWERS:
        msg = _answer(bot, fake, q_ts, text)
    assert is_card(msg)
    assert list(fake.messages[DM]) == [q_ts] and list(stored_conversations(bot)) == [_key()]


def test_a_second_persons_dm_is_independent(bot: BotServer, fake: FakeSlack) -> None:
    mine = _start_dm(bot, fake)
    theirs = _start_dm(bot, fake, "llama 3.1 8b inference", user=COLLEAGUE, channel=DM2)
    for text in ANSWERS:  # interleaved: each answer moves only its author's sizing
        their_before = _blocks(fake, DM2, theirs)
        _answer(bot, fake, mine, text)
        fake.quiet(0.1)
        assert _blocks(fake, DM2, theirs) == their_before
        my_before = _blocks(fake, DM, mine)
        _answer(bot, fake, theirs, text, user=COLLEAGUE, channel=DM2)
        fake.quiet(0.1)
        assert _blocks(fake, DM, mine) == my_before
    assert "70B" in json.dumps(message(fake, DM, mine)["blocks"][0])
    assert "8B" in json.dumps(message(fake, DM2, theirs)["blocks"][0])
    assert set(stored_conversations(bot)) == {_key(), _key(DM2, COLLEAGUE)}
    # the Home tab lists each of a person's DM sizings, though they share the DM's key
    before = set(fake.messages[DM])
    _say(bot, "llama 3.1 8b inference 8 users 8k context")
    again = _new_message(fake, DM, before)
    wait_shown(bot, again, _key())
    if not is_card(message(fake, DM, again)):
        _answer(bot, fake, again, "no target")
    bot.client.post_event(event_envelope({"type": "app_home_opened", "user": REP,
                                          "channel": DM, "tab": "home", "event_ts": "1.3"}))
    (view,) = fake.wait_for("views.publish", 1)
    listed = json.dumps(view.params["view"])
    assert "Llama 3.1 70B" in listed and "Llama 3.1 8B" in listed


def test_a_duplicate_delivery_changes_nothing(bot: BotServer, fake: FakeSlack) -> None:
    # the opening, delivered twice (Slack's retry carries the same event_id)
    first = _say(bot, OPENING)
    _say(bot, OPENING, event_id=first["event_id"], retry=1)
    fake.wait_for("chat.postMessage", 1)
    q_ts = next(iter(fake.messages[DM]))
    wait_shown(bot, q_ts, _key())
    fake.quiet(0.2)
    assert len(fake.calls("chat.postMessage")) == 1 and not fake.calls("chat.update")
    for text in ANSWERS:
        before = _blocks(fake, DM, q_ts)
        sent = _say(bot, text)
        wait_version_change(fake, DM, q_ts, before)
        version = stored_conversations(bot)[_key()]["version"]
        updates = len(fake.calls("chat.update"))
        _say(bot, text, event_id=sent["event_id"], retry=1)
        fake.quiet(0.2)
        # nothing: no second answer, no new sizing after the last one, nobody told anything
        assert stored_conversations(bot)[_key()]["version"] == version
        assert len(fake.calls("chat.update")) == updates
        assert len(fake.calls("chat.postMessage")) == 1
        assert not fake.calls("chat.postEphemeral")
    assert is_card(message(fake, DM, q_ts))


# ------------------------------------------------------------------ what stays as it was


def test_help_and_thread_replies_in_a_dm(bot: BotServer, fake: FakeSlack) -> None:
    q_ts = _start_dm(bot, fake)
    # "help" at top level explains (and is not an answer)
    before = _blocks(fake, DM, q_ts)
    _say(bot, "help")
    (post,) = fake.wait_for("chat.postMessage", 2)[1:]
    assert post.params["text"] == said("slack.help") and not post.params.get("thread_ts")
    assert _blocks(fake, DM, q_ts) == before
    # a reply inside the question's thread answers too
    _say(bot, "32", thread_ts=q_ts)
    wait_version_change(fake, DM, q_ts, before)
    # a click on the question works as in a channel
    msg = message(fake, DM, q_ts)
    block_id, action_id, value, selected = first_choice(msg)
    click(bot, user=REP, user_team=INTERNAL_TEAM, channel=DM, message_ts=q_ts,
          block_id=block_id, action_id=action_id, value=value, selected=selected)
    wait_version_change(fake, DM, q_ts, json.dumps(msg["blocks"]))


def test_a_dm_when_the_store_is_unreachable(
    serve: Callable[..., BotServer], own_redis: RedisProcess, fake: FakeSlack
) -> None:
    """The message cannot be recorded: Slack is not told "got it" (503: it redelivers the
    event), and the person is told once, not at each of Slack's retries."""
    bot = serve(own_redis.url)
    q_ts = _start_dm(bot, fake)
    own_redis.stop()
    before = _blocks(fake, DM, q_ts)
    envelope = event_envelope(message_event(user=REP, channel=DM, text="32",
                                            channel_type="im"))
    status, _ = bot.client.post_event(envelope)
    assert status == 503
    (note,) = fake.wait_for("chat.postEphemeral", 1, timeout=15)
    assert note.params["channel"] == DM and note.params["user"] == REP
    assert note.params["text"] == said("slack.not_taken_event")
    status, _ = bot.client.post_event(envelope, retry=1)  # Slack's redelivery, still down
    assert status == 503
    fake.quiet(0.5)
    assert len(fake.calls("chat.postEphemeral")) == 1
    assert _blocks(fake, DM, q_ts) == before


def test_group_dm_threads_work_like_channel_threads(bot: BotServer, fake: FakeSlack) -> None:
    """message.mpim: a sizing started by a mention in a group DM is answered in its thread;
    top-level group-DM chatter is not an answer (only a DM's top level is)."""
    group = "GMPIM0001"
    ev = mention_event(user=REP, channel=group, text=f"<@UBOT0001> {OPENING}")
    bot.client.post_event(event_envelope(ev))
    fake.wait_for("chat.postMessage", 1)
    q_ts = next(iter(fake.messages[group]))
    assert message(fake, group, q_ts)["thread_ts"] == ev["ts"]
    key = f"{INTERNAL_TEAM}:{group}:{ev['ts']}:{REP}"
    wait_shown(bot, q_ts, key)
    before = _blocks(fake, group, q_ts)
    n = len(fake.calls())
    for who in (REP, COLLEAGUE):
        bot.client.post_event(event_envelope(message_event(
            user=who, channel=group, text="32", channel_type="mpim")))
    bot.client.post_event(event_envelope(message_event(
        user=COLLEAGUE, channel=group, text="32", thread_ts=ev["ts"], channel_type="mpim")))
    fake.quiet(0.2)
    assert [c.method for c in fake.calls()[n:] if c.method != "auth.test"] == []
    assert list(stored_conversations(bot)) == [key]
    bot.client.post_event(event_envelope(message_event(
        user=REP, channel=group, text="32", thread_ts=ev["ts"], channel_type="mpim")))
    wait_version_change(fake, group, q_ts, before)
