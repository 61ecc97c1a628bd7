"""The Slack face driven the way real people and real Slack do: strangers, stale cards, expired
sizings, payloads of every subtype Slack delivers, hostile text, and Slack API failures.

Payload shapes follow Slack's docs (block_actions from a message, an ephemeral message and the
App Home view; message events with their subtypes; Slack Connect / Enterprise Grid envelopes).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any

import redis

from bot.slack import cards, turns
from dialogue import Dialogue, RedisStore
from tests.bot.harness import (
    COLLEAGUE,
    CUSTOMER,
    EXTERNAL_TEAM,
    INTERNAL_TEAM,
    QUOTES,
    REP,
    SALES,
    SHARED,
    BotServer,
    assert_valid,
    click,
    click_to_card,
    find_element,
    first_choice,
    home_click,
    message,
    stored_conversations,
    wait_version_change,
)
from tests.fakeslack import FakeSlack
from tests.redisproc import RedisProcess
from tests.slackreq import _ids, block_actions, event_envelope, mention_event, message_event

OPENING = "llama 3.1 70b inference 64 users 8k context"


def _question_ts(fake: FakeSlack, channel: str, root: str, *, skip: tuple[str, ...] = (),
                 timeout: float = 5.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for ts, m in list(fake.messages.get(channel, {}).items()):
            if m["thread_ts"] == root and ts not in skip:
                return ts
        time.sleep(0.02)
    raise AssertionError("no question message in the thread")


def _mention(bot: BotServer, fake: FakeSlack, *, user: str = REP, channel: str = SALES,
             text: str = OPENING, thread_ts: str | None = None,
             envelope: dict[str, Any] | None = None) -> str:
    ev = mention_event(user=user, channel=channel, text=f"<@UBOT0001> {text}",
                       thread_ts=thread_ts)
    status, _ = bot.client.post_event(envelope or event_envelope(ev))
    assert status == 200
    return str(ev["ts"])


def _card(bot: BotServer, fake: FakeSlack, text: str = OPENING,
          thread_ts: str | None = None) -> tuple[str, str, dict[str, Any]]:
    """A finished sizing by REP in SALES: (root, question/card ts, card)."""
    before = set(fake.messages.get(SALES, {}))
    root = _mention(bot, fake, text=text, thread_ts=thread_ts)
    root = thread_ts or root
    q_ts = _question_ts(fake, SALES, root, skip=tuple(before))
    _settle(bot)
    card = click_to_card([bot], user=REP, user_team=INTERNAL_TEAM, channel=SALES, ts=q_ts,
                         root=root)
    return root, q_ts, card


def _settle(bot: BotServer, ts: str | None = None) -> None:
    """Let the just-posted questions' ts (``ts`` if given) land in the store (it is stored
    right after the post returns)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        metas = _metas(bot)
        if ts is not None and any(m.get("ts") == ts for m in metas.values()):
            return
        if ts is None and metas and all(m.get("ts") for m in metas.values()):
            return
        time.sleep(0.02)
    raise AssertionError("a question's ts was never stored")


def _metas(bot: BotServer) -> dict[str, dict[str, str]]:
    store = RedisStore(str(bot.settings.redis_url))
    prefix = f"{store.prefix}:conv:"
    dialogue = Dialogue(store)
    out = {}
    for k in store.client.scan_iter(prefix + "*"):
        key = k.decode().removeprefix(prefix)
        conv = dialogue.load(key)
        if conv is not None:
            out[key] = dict(conv.meta)
    return out


def _click_el(bot: BotServer, msg: dict[str, Any], action_id: str, *, user: str, ts: str,
              root: str, team: str | None = INTERNAL_TEAM, channel: str = SALES,
              value: str | None = None, selected: str | None = None) -> None:
    block_id, el = find_element(msg, action_id)
    if value is None and selected is None:
        value = el.get("value")
    status, _ = click(bot, user=user, user_team=team, channel=channel, message_ts=ts,
                      block_id=block_id, action_id=action_id, value=value, selected=selected,
                      thread_ts=root)
    assert status == 200




# ------------------------------------------------------------------ strangers and stale cards


def test_stranger_cannot_take_over_an_expired_sizing(bot: BotServer, fake: FakeSlack) -> None:
    root, q_ts, card = _card(bot, fake)
    r = redis.Redis.from_url(str(bot.settings.redis_url))
    for k in r.scan_iter("gpusizing:conv:*"):  # the sizing expired (TTL)
        r.delete(k)
    n = len(fake.calls())
    # a colleague clicks the card's Start over: an expired sizing has no stored owner any more
    _click_el(bot, card, f"{cards.A_NAV}_restart", user=COLLEAGUE, ts=q_ts, root=root)
    (note,) = fake.wait_for("chat.postEphemeral", 1)
    assert note.params["user"] == COLLEAGUE and f"<@{REP}>" in note.params["text"]
    fake.quiet(0.3)
    assert not [c for c in fake.calls()[n:] if c.method == "chat.update"]
    assert not stored_conversations(bot)  # nobody owns REP's thread slot now
    # ... and the same through Compare
    _click_el(bot, card, cards.A_COMPARE, user=COLLEAGUE, ts=q_ts, root=root,
              selected=find_element(card, cards.A_COMPARE)[1]["options"][0]["value"])
    fake.wait_for("chat.postEphemeral", 2)
    fake.quiet(0.3)
    assert not stored_conversations(bot)
    # the owner's own Start over restarts it, in place, as theirs
    before = json.dumps(message(fake, SALES, q_ts)["blocks"])
    _click_el(bot, card, f"{cards.A_NAV}_restart", user=REP, ts=q_ts, root=root)
    msg = wait_version_change(fake, SALES, q_ts, before)
    assert f"Only <@{REP}> can answer" in json.dumps(msg)
    (doc,) = stored_conversations(bot).values()
    assert doc["owner"] == REP


def test_an_older_card_never_quotes_or_explains_the_newer_result(
    bot: BotServer, fake: FakeSlack
) -> None:
    root, q_ts, old_card = _card(bot, fake)
    # asked again in the same thread: a new sizing (another model) replaces the finished one
    _, q2, new_card = _card(bot, fake, text="llama 3.1 8b inference 8 users 8k context no target",
                            thread_ts=root)
    assert q2 != q_ts and "8B" in json.dumps(new_card["blocks"][0])
    n = len(fake.calls())
    _click_el(bot, old_card, cards.A_QUOTE, user=REP, ts=q_ts, root=root)
    _click_el(bot, old_card, cards.A_MATH, user=REP, ts=q_ts, root=root)
    notes = fake.wait_for("chat.postEphemeral", 2)
    assert all("out of date" in c.params["text"] for c in notes)
    fake.quiet(0.3)
    assert not [c for c in fake.calls()[n:] if c.method == "chat.postMessage"]
    # the current card still works
    _click_el(bot, new_card, cards.A_QUOTE, user=REP, ts=q2, root=root)
    (summary,) = fake.wait_for("chat.postMessage", 1,
                               where=lambda c: c.params.get("channel") == QUOTES)
    assert "8B" in summary.params["text"]


def test_every_card_button_by_owner_stranger_twice_and_after_cancel(
    bot: BotServer, fake: FakeSlack
) -> None:
    root, q_ts, card = _card(bot, fake)
    gpu = find_element(card, cards.A_COMPARE)[1]["options"][0]["value"]
    # a customer from another organisation: refused privately on every answer-changing button
    for action_id, kw in ((cards.A_COMPARE, {"selected": gpu}),
                          (cards.A_CHANGE, {"selected": "change model"}),
                          (f"{cards.A_NAV}_restart", {}), (cards.A_QUOTE, {})):
        _click_el(bot, card, action_id, user=CUSTOMER, team=EXTERNAL_TEAM, ts=q_ts, root=root,
                  **kw)
    notes = fake.wait_for("chat.postEphemeral", 4)
    assert all(c.params["user"] == CUSTOMER and "belongs to" in c.params["text"] for c in notes)
    fake.quiet(0.2)
    assert message(fake, SALES, q_ts) == card
    # the owner cancels through "Change an answer" -> the question -> Cancel
    _click_el(bot, card, cards.A_CHANGE, user=REP, ts=q_ts, root=root, selected="change gpu")
    question = wait_version_change(fake, SALES, q_ts, json.dumps(card["blocks"]))
    cancel = next(el for _, el in [(b, e) for b, e in _elements(question)]
                  if el.get("value") == "cancel")
    _click_el(bot, question, cancel["action_id"], user=REP, ts=q_ts, root=root)
    ended = wait_version_change(fake, SALES, q_ts, json.dumps(question["blocks"]))
    assert "cancelled" in ended["text"].lower()
    n = len(fake.calls())
    # every button of the old card after the cancel: nothing changes, each is told why
    for action_id, kw in ((cards.A_COMPARE, {"selected": gpu}), (cards.A_MATH, {}),
                          (cards.A_QUOTE, {}), (cards.A_CHANGE, {"selected": "change model"})):
        _click_el(bot, card, action_id, user=REP, ts=q_ts, root=root, **kw)
    fake.wait_for("chat.postEphemeral", 4, where=lambda c: c.params["user"] == REP)
    fake.quiet(0.3)
    assert not [c for c in fake.calls()[n:] if c.method in ("chat.update", "chat.postMessage")]
    # the ended message's own restart works
    restart = first_choice(ended)
    click(bot, user=REP, user_team=INTERNAL_TEAM, channel=SALES, message_ts=q_ts,
          block_id=restart[0], action_id=restart[1], value=restart[2], thread_ts=root)
    wait_version_change(fake, SALES, q_ts, json.dumps(ended["blocks"]))


def _elements(msg: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(b.get("block_id", ""), el) for b in msg.get("blocks") or []
            if b.get("type") == "actions" for el in b["elements"]]


def test_start_message_clicked_by_several_people(bot: BotServer, fake: FakeSlack) -> None:
    bot.client.post_command("/gpu-sizing", "post", user=REP, channel=SHARED,
                            response_url=fake.response_url("p"))
    fake.wait_for("chat.postMessage", 1)
    start_ts = next(iter(fake.messages[SHARED]))
    start = message(fake, SHARED, start_ts)
    people = [(REP, INTERNAL_TEAM), (COLLEAGUE, INTERNAL_TEAM), (CUSTOMER, EXTERNAL_TEAM)]
    for user, team in people:
        _click_el(bot, start, cards.A_START, user=user, team=team, ts=start_ts, root="",
                  channel=SHARED)
    fake.wait_for("chat.postMessage", 4)
    _settle(bot)
    questions = {ts: m for ts, m in fake.messages[SHARED].items() if m["thread_ts"] == start_ts}
    assert len(questions) == 3
    owners = {user: ts for user, _ in people for ts, m in questions.items()
              if f"Only <@{user}> can answer" in json.dumps(m["blocks"])}
    assert len(owners) == 3
    # the customer types an answer in the shared thread: only their own question moves
    before = {ts: json.dumps(m["blocks"]) for ts, m in questions.items()}
    bot.client.post_event(event_envelope(message_event(
        user=CUSTOMER, channel=SHARED, text="llama 3.1 8b", thread_ts=start_ts,
        user_team=EXTERNAL_TEAM), ext_shared=True))
    wait_version_change(fake, SHARED, owners[CUSTOMER], before[owners[CUSTOMER]])
    fake.quiet(0.2)
    for user in (REP, COLLEAGUE):
        assert json.dumps(message(fake, SHARED, owners[user])["blocks"]) == before[owners[user]]
    # a second click on Start by someone who has a sizing going: told, nothing new
    _click_el(bot, start, cards.A_START, user=COLLEAGUE, ts=start_ts, root="", channel=SHARED)
    (note,) = fake.wait_for("chat.postEphemeral", 1)
    assert "already have a sizing" in note.params["text"]


# ------------------------------------------------------------------ what Slack delivers


def _ignored_events(root: str) -> list[dict[str, Any]]:
    """Message events Slack delivers to a bot with channels:history that are not answers."""
    def ts() -> str:
        return f"{1800100000 + next(_ids)}.000100"

    base = {"type": "message", "channel": SALES, "channel_type": "channel"}
    return [
        {**base, "subtype": "message_changed", "hidden": True, "ts": ts(), "event_ts": ts(),
         "message": {"type": "message", "user": REP, "text": "64", "ts": "1800000009.000001",
                     "thread_ts": root, "edited": {"user": REP, "ts": ts()}},
         "previous_message": {"type": "message", "user": REP, "text": "6",
                              "ts": "1800000009.000001", "thread_ts": root}},
        {**base, "subtype": "message_deleted", "hidden": True, "ts": ts(),
         "deleted_ts": "1800000009.000001", "event_ts": ts(),
         "previous_message": {"type": "message", "user": REP, "text": "64",
                              "ts": "1800000009.000001", "thread_ts": root}},
        {**base, "subtype": "bot_message", "bot_id": "BOTHER01", "username": "other bot",
         "text": "64", "ts": ts(), "thread_ts": root},
        {**base, "subtype": "channel_join", "user": REP, "ts": ts(),
         "text": f"<@{REP}> has joined the channel"},
        # our own question, as Slack echoes it (no subtype, our bot_id and bot user)
        {**base, "user": "UBOT0001", "bot_id": "BBOT0001", "app_id": "AAPP0001", "text": "64",
         "ts": ts(), "thread_ts": root, "bot_profile": {"id": "BBOT0001", "name": "GPU Sizing"}},
        {**base, "user": REP, "text": "64", "ts": ts()},  # top-level chatter
        {**base, "user": REP, "text": "64", "ts": ts(), "thread_ts": "1799999999.000001"},
        {**base, "user": COLLEAGUE, "text": "64", "ts": ts(), "thread_ts": root},  # not theirs
        {**base, "subtype": "message_replied", "hidden": True, "ts": ts(), "event_ts": ts(),
         "message": {"type": "message", "user": REP, "text": "x", "ts": root,
                     "thread_ts": root, "reply_count": 2}},
        {**base, "subtype": "channel_topic", "user": REP, "topic": "gpus", "ts": ts(),
         "text": "set the channel topic: gpus"},
        {**base, "subtype": "file_share", "user": REP, "text": "", "ts": ts(),
         "thread_ts": root, "files": [{"id": "F0001"}], "upload": True},
        {**base, "subtype": "tombstone", "hidden": True, "user": "USLACKBOT", "ts": root,
         "thread_ts": root, "text": "This message was deleted."},
        # a reply that mentions us: the app_mention event answers it, not this one
        {**base, "user": REP, "text": "<@UBOT0001> 64", "ts": ts(), "thread_ts": root},
    ]


def test_messages_slack_delivers_that_are_not_answers(bot: BotServer, fake: FakeSlack) -> None:
    root = _mention(bot, fake, text="llama 3.1 70b inference")
    q_ts = _question_ts(fake, SALES, root)
    _settle(bot)
    msg = message(fake, SALES, q_ts)
    docs = stored_conversations(bot)
    n = len(fake.calls())
    for ev in _ignored_events(root):
        status, _ = bot.client.post_event(event_envelope(ev))
        assert status == 200, ev.get("subtype")
    fake.quiet(0.4)
    assert [c.method for c in fake.calls()[n:] if c.method != "auth.test"] == []
    assert message(fake, SALES, q_ts) == msg
    assert stored_conversations(bot) == docs
    # a broadcast reply ("also send to channel") by the owner is an answer
    bot.client.post_event(event_envelope(message_event(
        user=REP, channel=SALES, text="64", thread_ts=root, subtype="thread_broadcast")))
    wait_version_change(fake, SALES, q_ts, json.dumps(msg["blocks"]))


def test_channel_chatter_is_not_counted_as_turns(bot: BotServer, fake: FakeSlack,
                                                 caplog: Any) -> None:
    from bot.ops import logs

    caplog.set_level("INFO", logger=logs.TURN_LOGGER)
    bot.client.post_event(event_envelope(message_event(user=REP, channel=SALES, text="hi")))
    root = "1800000000.000777"
    for ev in _ignored_events(root)[:6]:  # edits, deletes, bots, joins, ours, top level
        bot.client.post_event(event_envelope(ev))
    fake.quiet(0.3)
    assert not [r for r in caplog.records if r.name == logs.TURN_LOGGER]


def test_enterprise_grid_slack_connect_mention_in_a_thread(bot: BotServer, fake: FakeSlack) -> None:
    """An external person's mention in a shared channel's thread, as Enterprise Grid sends it
    (user_team an enterprise id, source_team, authorizations of our install)."""
    root = "1800200000.000100"  # someone's message in the shared channel
    ev = mention_event(user=CUSTOMER, channel=SHARED, thread_ts=root,
                       text="<@UBOT0001> llama 3.1 70b inference")
    ev.update(user_team="EEXT0001", source_team="TEXT0001", team="TEXT0001")
    envelope = event_envelope(ev, ext_shared=True)
    envelope.update(enterprise_id="EEXT0001", context_team_id=INTERNAL_TEAM,
                    context_enterprise_id=None)
    status, _ = bot.client.post_event(envelope)
    assert status == 200
    q_ts = _question_ts(fake, SHARED, root)
    _settle(bot)
    before = json.dumps(message(fake, SHARED, q_ts)["blocks"])
    reply = message_event(user=CUSTOMER, channel=SHARED, text="64", thread_ts=root)
    reply.update(user_team="EEXT0001", source_team="TEXT0001", team="TEXT0001")
    bot.client.post_event(event_envelope(reply, ext_shared=True))
    wait_version_change(fake, SHARED, q_ts, before)
    (key,) = stored_conversations(bot)
    assert key.startswith(f"{INTERNAL_TEAM}:{SHARED}:{root}:{CUSTOMER}")


def test_hostile_typed_text_reaches_slack_escaped(bot: BotServer, fake: FakeSlack) -> None:
    root = _mention(bot, fake, text="")
    q_ts = _question_ts(fake, SALES, root)
    _settle(bot)
    # what Slack delivers: control sequences raw, typed < > & entity-encoded
    texts = ["x" * 10000, "<https://evil.example|click here> 70b", "*bold* _it_ ~s~ `code`",
             "<!channel> <!here> <!subteam^S0001> <#C0000001|general>",
             "&lt;script&gt;alert(1)&lt;/script&gt; &amp;amp; <@U0000123|bob>",
             ("A" * 2990) + " " + ("&lt;" * 3000), ":tada: \U0001f680 70b"]
    for text in texts:
        before = json.dumps(message(fake, SALES, q_ts)["blocks"])
        bot.client.post_event(event_envelope(message_event(user=REP, channel=SALES, text=text,
                                                           thread_ts=root)))
        wait_version_change(fake, SALES, q_ts, before)
    fake.quiet(0.2)
    for call in fake.calls():
        dumped = json.dumps(call.params)
        for raw in ("<!channel>", "<!here>", "<!subteam", "<https://evil", "<#C0000001",
                    "<script>", "<@U0000123"):
            assert raw not in dumped, (raw, call.method)
        if call.method in ("chat.update", "chat.postMessage", "chat.postEphemeral"):
            assert_valid(call.params)
            # no half entity left by a clip
            assert not re.search(r"&[a-z]{0,3}…", json.dumps(call.params, ensure_ascii=False))


# ------------------------------------------------------------------ Slack API failures


def test_question_that_cannot_be_posted_is_told_and_shown_again(
    bot: BotServer, fake: FakeSlack
) -> None:
    fake.http_error("chat.postMessage", 500)
    root = _mention(bot, fake)
    (note,) = fake.wait_for("chat.postEphemeral", 1)
    assert note.params["user"] == REP and "Slack did not accept" in note.params["text"]
    assert "Invite me" not in note.params["text"]
    fake.quiet(0.2)
    assert SALES not in fake.messages
    # mentioning the bot again in the thread shows the question (no second sizing)
    _mention(bot, fake, text="", thread_ts=root)
    q_ts = _question_ts(fake, SALES, root)
    assert "throughput target" in message(fake, SALES, q_ts)["text"]
    assert len(stored_conversations(bot)) == 1
    # a typed answer when the question was never shown posts it at once (no wait for a post
    # that is not coming)
    root2 = "1800400000.000100"
    fake.http_error("chat.postMessage", 500)
    _mention(bot, fake, thread_ts=root2)
    fake.wait_for("chat.postEphemeral", 2)
    fake.quiet(0.1)
    started = time.monotonic()
    bot.client.post_event(event_envelope(message_event(user=REP, channel=SALES,
                                                       text="no target", thread_ts=root2)))
    _question_ts(fake, SALES, root2)
    assert time.monotonic() - started < 1.5


def test_slash_command_failures_say_what_happened(bot: BotServer, fake: FakeSlack) -> None:
    # not a member: how to fix it
    fake.fail("chat.postMessage", "channel_not_found")
    bot.client.post_command("/gpu-sizing", OPENING, user=REP, channel="DOTHER01",
                            response_url=fake.response_url("a"))
    (told,) = fake.wait_for("response_url", 1)
    assert "Invite me" in told.params["text"] and told.params["response_type"] == "ephemeral"
    # Slack is down or the token was revoked: "invite me" would be wrong advice
    for failure in (lambda: fake.http_error("chat.postMessage", 503),
                    lambda: fake.fail("chat.postMessage", "invalid_auth")):
        failure()
        n = len(fake.calls("response_url"))
        bot.client.post_command("/gpu-sizing", OPENING, user=REP, channel=SALES,
                                response_url=fake.response_url("b"))
        told = fake.wait_for("response_url", n + 1)[-1]
        assert "Slack did not accept" in told.params["text"]
        assert "Invite me" not in told.params["text"]
    # the root posts, the question does not: the root is taken back and the person told
    fake.fail("chat.postMessage", "msg_too_long", after=1)
    n = len(fake.calls("response_url"))
    bot.client.post_command("/gpu-sizing", OPENING, user=REP, channel=SALES,
                            response_url=fake.response_url("c"))
    told = fake.wait_for("response_url", n + 1)[-1]
    assert "could not be shown" in told.params["text"]
    (deleted,) = fake.wait_for("chat.delete", 1)
    (root_post,) = [c for c in fake.calls("chat.postMessage") if c.ok]
    assert deleted.params["channel"] == SALES
    # /gpu-sizing post where the bot cannot post
    fake.fail("chat.postMessage", "not_in_channel")
    bot.client.post_command("/gpu-sizing", "post", user=REP, channel="CELSE001",
                            response_url=fake.response_url("d"))
    told = fake.wait_for("response_url", n + 2)[-1]
    assert "Invite me" in told.params["text"]
    assert root_post.params["channel"] == SALES


def test_update_that_slack_refuses_is_told_and_nothing_is_lost(
    bot: BotServer, fake: FakeSlack
) -> None:
    root = _mention(bot, fake, text="llama 3.1 70b inference")
    q_ts = _question_ts(fake, SALES, root)
    _settle(bot)
    msg = message(fake, SALES, q_ts)
    fake.http_error("chat.update", 500)
    fake.http_error("chat.postMessage", 502)
    block_id, action_id, value, _ = first_choice(msg)
    click(bot, user=REP, user_team=INTERNAL_TEAM, channel=SALES, message_ts=q_ts,
          block_id=block_id, action_id=action_id, value=value, thread_ts=root)
    (note,) = fake.wait_for("chat.postEphemeral", 1)
    assert "your answer was saved" in note.params["text"]
    # the answer was kept: the next typed answer moves on from it, in the same message
    bot.client.post_event(event_envelope(message_event(user=REP, channel=SALES, text="8k",
                                                       thread_ts=root)))
    msg = wait_version_change(fake, SALES, q_ts, json.dumps(msg["blocks"]))
    assert "Concurrent requests" in json.dumps(msg) and "8,192" in json.dumps(msg)


def test_hanging_slack_times_out_and_the_worker_keeps_serving(
    bot: BotServer, fake: FakeSlack
) -> None:
    bot.app.client.timeout = 1  # the same client the turns use; production waits 10 s
    root = _mention(bot, fake, text="llama 3.1 70b inference")
    q_ts = _question_ts(fake, SALES, root)
    _settle(bot)
    msg = message(fake, SALES, q_ts)
    fake.hang("chat.update", 1.5)
    started = time.monotonic()
    status, _ = bot.client.post_event(event_envelope(message_event(
        user=REP, channel=SALES, text="64", thread_ts=root)))
    assert status == 200 and time.monotonic() - started < 1.0  # the ack did not wait
    # the update timed out: the question is posted again, current, in the thread
    posts = fake.wait_for("chat.postMessage", 2, timeout=8)
    assert posts[-1].params["thread_ts"] == root and "context" in posts[-1].params["text"].lower()
    new_ts = next(ts for ts, m in fake.messages[SALES].items()
                  if m["thread_ts"] == root and ts != q_ts)
    _settle(bot, ts=new_ts)
    # and the next answer updates that new message
    before = json.dumps(message(fake, SALES, new_ts)["blocks"])
    bot.client.post_event(event_envelope(message_event(user=REP, channel=SALES, text="8k",
                                                       thread_ts=root)))
    wait_version_change(fake, SALES, new_ts, before)
    assert json.dumps(message(fake, SALES, q_ts)["blocks"]) == json.dumps(msg["blocks"])


def test_rate_limited_beyond_retries_is_told(bot: BotServer, fake: FakeSlack) -> None:
    fake.rate_limit("chat.postMessage", times=3, retry_after=0)
    _mention(bot, fake)
    (note,) = fake.wait_for("chat.postEphemeral", 1, timeout=10)
    assert "Slack did not accept" in note.params["text"]
    assert [c.status for c in fake.calls("chat.postMessage")] == [429, 429, 429]


def test_help_in_a_dm_explains_instead_of_starting_a_sizing(bot: BotServer,
                                                            fake: FakeSlack) -> None:
    for text in ("help", "<@UBOT0001> help?", "?"):
        n = len(fake.calls("chat.postMessage"))
        bot.client.post_event(event_envelope(message_event(user=REP, channel="DREP0001",
                                                           text=text, channel_type="im")))
        post = fake.wait_for("chat.postMessage", n + 1)[-1]
        assert post.params["text"] == turns.HELP and not post.params.get("thread_ts")
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
    assert "no sizing was started" in json.dumps(view.params["view"])
    # the store is down: said on the Home tab too
    own_redis.stop()
    home_click(bot, user=CUSTOMER)
    views = fake.wait_for("views.publish", 2)
    assert views[-1].params["user_id"] == CUSTOMER
    assert "cannot reach its store" in json.dumps(views[-1].params["view"])
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
    root, q_ts, card = _card(bot, fake)
    fake.http_error("chat.update", 500)
    fake.fail("chat.postMessage", "invalid_auth")
    _click_el(bot, card, f"{cards.A_NAV}_restart", user=REP, ts=q_ts, root=root)
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
    from dialogue import service

    real = service.Dialogue._apply

    def apply(self: Any, conv: Any, text: str) -> Any:
        if text == "boom":
            raise OverflowError("cannot convert float infinity to integer")
        return real(self, conv, text)

    monkeypatch.setattr(service.Dialogue, "_apply", apply)
    root = _mention(bot, fake, text="llama 3.1 70b inference")
    q_ts = _question_ts(fake, SALES, root)
    _settle(bot)
    msg = message(fake, SALES, q_ts)
    bot.client.post_event(event_envelope(message_event(user=REP, channel=SALES, text="boom",
                                                       thread_ts=root)))
    (note,) = fake.wait_for("chat.postEphemeral", 1)
    assert note.params["user"] == REP and "nothing was changed" in note.params["text"]
    assert message(fake, SALES, q_ts) == msg
    bot.client.post_event(event_envelope(message_event(user=REP, channel=SALES, text="64",
                                                       thread_ts=root)))
    wait_version_change(fake, SALES, q_ts, json.dumps(msg["blocks"]))
    # a slash command whose opening breaks the dialogue: told through the response_url, and
    # the root it posted is taken back
    monkeypatch.setattr(service, "extract", lambda text: (_ for _ in ()).throw(ValueError()))
    bot.client.post_command("/gpu-sizing", "anything", user=REP, channel=SALES,
                            response_url=fake.response_url("x"))
    (told,) = fake.wait_for("response_url", 1)
    assert "nothing was changed" in told.params["text"]
    fake.wait_for("chat.delete", 1)


def test_unreachable_response_url_falls_back_to_an_ephemeral_and_is_not_logged(
    bot: BotServer, fake: FakeSlack, caplog: Any
) -> None:
    hook = "http://127.0.0.1:9/commands/T0/1/secret-hook-token"  # nothing listens on port 9
    for text in ("help", "status"):
        bot.client.post_command("/gpu-sizing", text, user=REP, channel=SALES, response_url=hook)
    notes = fake.wait_for("chat.postEphemeral", 2)
    assert {n.params["user"] for n in notes} == {REP}
    assert any(n.params["text"] == turns.HELP for n in notes)
    fake.quiet(0.2)
    logged = " ".join(r.getMessage() + str(r.exc_text or "") + str(r.__dict__)
                      for r in caplog.records)
    assert "secret-hook-token" not in logged


def test_math_that_slack_refused_can_be_asked_for_again(bot: BotServer, fake: FakeSlack) -> None:
    root, q_ts, card = _card(bot, fake)
    fake.http_error("chat.postMessage", 500)
    _click_el(bot, card, cards.A_MATH, user=REP, ts=q_ts, root=root)
    (note,) = fake.wait_for("chat.postEphemeral", 1)
    assert "the math was not posted" in note.params["text"]
    fake.quiet(0.1)
    _click_el(bot, card, cards.A_MATH, user=REP, ts=q_ts, root=root)
    (math,) = fake.wait_for("chat.postMessage", 1, where=lambda c: "math" in c.params["text"])
    assert math.params["thread_ts"] == root
    _click_el(bot, card, cards.A_MATH, user=REP, ts=q_ts, root=root)  # now once is enough
    notes = fake.wait_for("chat.postEphemeral", 2)
    assert "already in the thread" in notes[-1].params["text"]


def test_start_my_own_from_the_ephemeral_note(bot: BotServer, fake: FakeSlack) -> None:
    root = _mention(bot, fake, text="llama 3.1 70b inference")
    q_ts = _question_ts(fake, SALES, root)
    _settle(bot)
    block_id, action_id, value, _ = first_choice(message(fake, SALES, q_ts))
    click(bot, user=CUSTOMER, user_team=EXTERNAL_TEAM, channel=SALES, message_ts=q_ts,
          block_id=block_id, action_id=action_id, value=value, thread_ts=root)
    (note,) = fake.wait_for("chat.postEphemeral", 1)
    start_block, start = find_element(note.params, cards.A_START)
    # the note is ephemeral: the payload has no "message", only the container
    payload = block_actions(user=CUSTOMER, user_team=EXTERNAL_TEAM, channel=SALES,
                            message_ts="1700009999.000001", action_id=cards.A_START,
                            block_id=start_block, value=start["value"], ephemeral=True)
    assert "message" not in payload
    status, _ = bot.client.post_action(payload)
    assert status == 200
    (own,) = fake.wait_for("chat.postMessage", 1, where=lambda c: c.params.get("thread_ts") == root
                           and f"<@{CUSTOMER}>" in json.dumps(c.params.get("blocks")))
    assert_valid(own.params)
