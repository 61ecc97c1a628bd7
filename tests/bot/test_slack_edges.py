"""The Slack face driven the way real people and real Slack do: strangers, stale cards,
expired sizings, payloads of every subtype Slack delivers, hostile text.

Payload shapes follow Slack's docs (block_actions from a message, an ephemeral message and the
App Home view; message events with their subtypes; Slack Connect / Enterprise Grid envelopes).
"""

from __future__ import annotations

import json
import re
from typing import Any

import redis

from bot.slack.cards import ids
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
    find_element,
    first_choice,
    message,
    said,
    stored_conversations,
    wait_shown,
    wait_version_change,
)
from tests.bot.quoteflow import open_form, submit
from tests.bot.threads import (
    NOT_OWNER,
    click_element,
    finished_card,
    mention,
    question_ts,
)
from tests.fakeslack import FakeSlack
from tests.slackreq import _ids, event_envelope, mention_event, message_event

# ------------------------------------------------------------------ strangers and stale cards


def test_stranger_cannot_take_over_an_expired_sizing(bot: BotServer, fake: FakeSlack) -> None:
    root, q_ts, card = finished_card(bot, fake)
    r = redis.Redis.from_url(str(bot.settings.redis_url))
    for k in r.scan_iter("gpusizing:conv:*"):  # the sizing expired (TTL)
        r.delete(k)
    n = len(fake.calls())
    # a colleague clicks the card's Start over: an expired sizing has no stored owner any more
    click_element(bot, card, f"{ids.A_NAV}_restart", user=COLLEAGUE, ts=q_ts, root=root)
    (note,) = fake.wait_for("chat.postEphemeral", 1)
    assert note.params["user"] == COLLEAGUE and note.params["text"] == NOT_OWNER
    fake.quiet(0.3)
    assert not [c for c in fake.calls()[n:] if c.method == "chat.update"]
    assert not stored_conversations(bot)  # nobody owns REP's thread slot now
    # ... and the same through Compare
    click_element(bot, card, ids.A_COMPARE, user=COLLEAGUE, ts=q_ts, root=root,
              selected=find_element(card, ids.A_COMPARE)[1]["options"][0]["value"])
    fake.wait_for("chat.postEphemeral", 2)
    fake.quiet(0.3)
    assert not stored_conversations(bot)
    # the owner's own Start over restarts it, in place, as theirs
    before = json.dumps(message(fake, SALES, q_ts)["blocks"])
    click_element(bot, card, f"{ids.A_NAV}_restart", user=REP, ts=q_ts, root=root)
    msg = wait_version_change(fake, SALES, q_ts, before)
    assert f"Only <@{REP}> can answer" in json.dumps(msg)
    (doc,) = stored_conversations(bot).values()
    assert doc["owner"] == REP


def test_an_older_card_never_quotes_or_explains_the_newer_result(
    bot: BotServer, fake: FakeSlack
) -> None:
    root, q_ts, old_card = finished_card(bot, fake)
    # asked again in the same thread: a new sizing (another model) replaces the finished one
    _, q2, new_card = finished_card(
        bot, fake, text="llama 3.1 8b inference 8 users 8k context no target", thread_ts=root)
    assert q2 != q_ts and "8B" in json.dumps(new_card["blocks"][0])
    n = len(fake.calls())
    click_element(bot, old_card, ids.A_QUOTE, user=REP, ts=q_ts, root=root)
    click_element(bot, old_card, ids.A_MATH, user=REP, ts=q_ts, root=root)
    notes = fake.wait_for("chat.postEphemeral", 2)
    assert all(c.params["text"] == said("slack.out_of_date") for c in notes)
    fake.quiet(0.3)
    assert not [c for c in fake.calls()[n:] if c.method == "chat.postMessage"]
    # the current card still works: its form, submitted, is the request of the new result
    form = open_form(bot, new_card, user=REP, ts=q2, root=root, channel=SALES)
    submit(bot, form, {"q_name": "Rémi", "q_email": "remi@client.fr"}, user=REP)
    (summary,) = fake.wait_for("chat.postMessage", 1,
                               where=lambda c: c.params.get("channel") == QUOTES)
    assert "8B" in summary.params["text"]


def test_every_card_button_by_owner_stranger_twice_and_after_cancel(
    bot: BotServer, fake: FakeSlack
) -> None:
    root, q_ts, card = finished_card(bot, fake)
    gpu = find_element(card, ids.A_COMPARE)[1]["options"][0]["value"]
    # a customer from another organisation: refused privately on every answer-changing button
    for action_id, kw in ((ids.A_COMPARE, {"selected": gpu}),
                          (ids.A_CHANGE, {"selected": "change model"}),
                          (f"{ids.A_NAV}_restart", {}), (ids.A_QUOTE, {})):
        click_element(bot, card, action_id, user=CUSTOMER, team=EXTERNAL_TEAM, ts=q_ts, root=root,
                  **kw)
    notes = fake.wait_for("chat.postEphemeral", 4)
    assert all(c.params["user"] == CUSTOMER and c.params["text"] == NOT_OWNER for c in notes)
    fake.quiet(0.2)
    assert message(fake, SALES, q_ts) == card
    # the owner cancels through "Change an answer" -> the question -> Cancel
    click_element(bot, card, ids.A_CHANGE, user=REP, ts=q_ts, root=root, selected="change gpu")
    question = wait_version_change(fake, SALES, q_ts, json.dumps(card["blocks"]))
    click_element(bot, question, f"{ids.A_NAV}_cancel", user=REP, ts=q_ts, root=root)
    ended = wait_version_change(fake, SALES, q_ts, json.dumps(question["blocks"]))
    (doc,) = stored_conversations(bot).values()
    assert doc["state"] == "cancelled"
    n = len(fake.calls())
    # every button of the old card after the cancel: nothing changes, each is told why
    for action_id, kw in ((ids.A_COMPARE, {"selected": gpu}), (ids.A_MATH, {}),
                          (ids.A_QUOTE, {}), (ids.A_CHANGE, {"selected": "change model"})):
        click_element(bot, card, action_id, user=REP, ts=q_ts, root=root, **kw)
    fake.wait_for("chat.postEphemeral", 4, where=lambda c: c.params["user"] == REP)
    fake.quiet(0.3)
    # nothing is posted; the clicked message (the sizing's own) is only ever re-rendered as
    # what it shows, the ended sizing (a click on a message that is behind reconciles it)
    assert not [c for c in fake.calls()[n:] if c.method == "chat.postMessage"]
    assert {c.params["ts"] for c in fake.calls()[n:] if c.method == "chat.update"} <= {q_ts}
    assert message(fake, SALES, q_ts)["blocks"] == ended["blocks"]
    # the ended message's own restart works
    restart = first_choice(ended)
    click(bot, user=REP, user_team=INTERNAL_TEAM, channel=SALES, message_ts=q_ts,
          block_id=restart[0], action_id=restart[1], value=restart[2], thread_ts=root)
    wait_version_change(fake, SALES, q_ts, json.dumps(ended["blocks"]))


def test_start_message_clicked_by_several_people(bot: BotServer, fake: FakeSlack) -> None:
    bot.client.post_command("/gpu-sizing", "post", user=REP, channel=SHARED,
                            response_url=fake.response_url("p"))
    fake.wait_for("chat.postMessage", 1)
    start_ts = next(iter(fake.messages[SHARED]))
    start = message(fake, SHARED, start_ts)
    people = [(REP, INTERNAL_TEAM), (COLLEAGUE, INTERNAL_TEAM), (CUSTOMER, EXTERNAL_TEAM)]
    for user, team in people:
        click_element(bot, start, ids.A_START, user=user, team=team, ts=start_ts, root="",
                  channel=SHARED)
    fake.wait_for("chat.postMessage", 4)
    wait_shown(bot)
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
    click_element(bot, start, ids.A_START, user=COLLEAGUE, ts=start_ts, root="", channel=SHARED)
    (note,) = fake.wait_for("chat.postEphemeral", 1)
    assert note.params["text"] == said("slack.already_thread")


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
        # someone else's file in the thread (the owner's is an answer: tests/bot/test_files.py)
        {**base, "subtype": "file_share", "user": COLLEAGUE, "text": "", "ts": ts(),
         "thread_ts": root, "files": [{"id": "F0001"}], "upload": True},
        {**base, "subtype": "tombstone", "hidden": True, "user": "USLACKBOT", "ts": root,
         "thread_ts": root, "text": "This message was deleted."},
        # a reply that mentions us: the app_mention event answers it, not this one
        {**base, "user": REP, "text": "<@UBOT0001> 64", "ts": ts(), "thread_ts": root},
    ]


def test_messages_slack_delivers_that_are_not_answers(bot: BotServer, fake: FakeSlack) -> None:
    root = mention(bot, fake, text="llama 3.1 70b inference")
    q_ts = question_ts(fake, SALES, root)
    wait_shown(bot)
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
    q_ts = question_ts(fake, SHARED, root)
    wait_shown(bot)
    before = json.dumps(message(fake, SHARED, q_ts)["blocks"])
    reply = message_event(user=CUSTOMER, channel=SHARED, text="64", thread_ts=root)
    reply.update(user_team="EEXT0001", source_team="TEXT0001", team="TEXT0001")
    bot.client.post_event(event_envelope(reply, ext_shared=True))
    wait_version_change(fake, SHARED, q_ts, before)
    (key,) = stored_conversations(bot)
    assert key.startswith(f"{INTERNAL_TEAM}:{SHARED}:{root}:{CUSTOMER}")


def test_hostile_typed_text_reaches_slack_escaped(bot: BotServer, fake: FakeSlack) -> None:
    root = mention(bot, fake, text="")
    q_ts = question_ts(fake, SALES, root)
    wait_shown(bot)
    # what Slack delivers: control sequences raw, typed < > & entity-encoded
    texts = ["x" * 10000, "<https://evil.example|click here> 70b", "*bold* _it_ ~s~ `code`",
             "<!channel> <!here> <!subteam^S0001> <#C0000001|general>",
             "&lt;script&gt;alert(1)&lt;/script&gt; &amp;amp; <@U0000123|bob>",
             ("A" * 2990) + " " + ("&lt;" * 3000), ":tada: \U0001f680 70b",
             "\u202ellama\u202c 70b \u2066<!here>\u2069 \x07\x1b[31m"]
    for text in texts:
        before = json.dumps(message(fake, SALES, q_ts)["blocks"])
        bot.client.post_event(event_envelope(message_event(user=REP, channel=SALES, text=text,
                                                           thread_ts=root)))
        wait_version_change(fake, SALES, q_ts, before)
    fake.quiet(0.2)
    for call in fake.calls():
        dumped = json.dumps(call.params)
        for raw in ("<!channel>", "<!here>", "<!subteam", "<https://evil", "<#C0000001",
                    "<script>", "<@U0000123", "\\u202e", "\\u2066", "\\u0007", "\\u001b"):
            assert raw not in dumped, (raw, call.method)
        if call.method in ("chat.update", "chat.postMessage", "chat.postEphemeral"):
            assert_valid(call.params)
            # no half entity left by a clip
            assert not re.search(r"&[a-z]{0,3}…", json.dumps(call.params, ensure_ascii=False))
