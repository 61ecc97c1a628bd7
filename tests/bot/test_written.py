"""Slack writes that are never made twice (issue 13, item 4), through signed HTTP into the real
app, against the fake Slack doing the work and then resetting the connection or answering too
late: a root message, a question, a math post, a quote summary and a brief are each posted
once; a late ``chat.update`` is not followed by a second card; every message carries its own
id in Slack's message metadata, and a post whose outcome is unknown is looked for before it
is made again (never retried blindly by the client).
"""

from __future__ import annotations

import json
from typing import Any

from bot.slack import written
from bot.slack.cards import ids
from bot.slack.cards.quote_modal import B_EMAIL, B_NAME
from tests.bot.harness import (
    INTERNAL_TEAM,
    QUOTES,
    REP,
    SALES,
    BotServer,
    click,
    first_choice,
    is_card,
    is_math,
    message,
    said,
    wait_shown,
    wait_version_change,
)
from tests.bot.quoteflow import open_form, submit
from tests.bot.threads import click_element, finished_card, mention, question_ts
from tests.fakeslack import FakeSlack

GOOD = {B_NAME: "Rémi Lefèvre", B_EMAIL: "remi.lefevre@client.fr"}


def _ours(fake: FakeSlack, channel: str) -> list[dict[str, Any]]:
    with fake._lock:
        return [dict(m) for m in fake.messages.get(channel, {}).values()]


def _roots(fake: FakeSlack, channel: str) -> list[dict[str, Any]]:
    return [m for m in _ours(fake, channel) if m["thread_ts"] is None]


def test_a_root_and_a_question_reset_after_slack_posted_them_are_posted_once(
    bot: BotServer, fake: FakeSlack
) -> None:
    fake.reset_connection("chat.postMessage", times=2)  # the root, then the question
    status, _ = bot.client.post_command("/gpu-sizing", "llama 3.1 70b inference", user=REP,
                                        channel=SALES, response_url=fake.response_url("c"))
    assert status == 200
    fake.wait_for("chat.postMessage", 2)
    (root,) = _roots(fake, SALES)
    q_ts = question_ts(fake, SALES, root["ts"])
    wait_shown(bot, q_ts)
    fake.quiet(0.3)
    assert len(_ours(fake, SALES)) == 2  # one root, one question: nothing posted twice
    # each post was made once, then looked for (never retried blindly by the client)
    methods = [c.method for c in fake.calls() if c.method.startswith(("chat.", "conv"))]
    assert methods[:4] == ["chat.postMessage", "conversations.history",
                           "chat.postMessage", "conversations.replies"]
    assert all(c.params.get("include_all_metadata") for c in fake.calls()
               if c.method.startswith("conversations."))
    assert not fake.calls("chat.postEphemeral") and not fake.calls("chat.delete")


def test_every_message_carries_its_own_id(bot: BotServer, fake: FakeSlack) -> None:
    root, q_ts, card = finished_card(bot, fake)
    click_element(bot, card, ids.A_MATH, user=REP, ts=q_ts, root=root)
    fake.wait_for("chat.postMessage", 2)
    posted = [c for c in fake.calls("chat.postMessage") if c.ok]
    idents = [written.id_of(c.params) for c in posted]
    assert all(idents) and len(set(idents)) == len(idents)
    assert {str(i).split(":")[0] for i in idents} == {"sizing", "math"}
    assert all(c.params["metadata"]["event_type"] == written.EVENT_TYPE for c in posted)
    # updates keep the sizing message's id
    assert all(written.id_of(c.params) == idents[0] for c in fake.calls("chat.update"))


def test_a_question_answered_too_late_is_posted_once(bot: BotServer, fake: FakeSlack) -> None:
    bot.app.client.timeout = 1  # production waits 10 s; Slack here answers after 2
    fake.late("chat.postMessage", seconds=2.0)
    root = mention(bot, fake, text="llama 3.1 70b inference")
    q_ts = question_ts(fake, SALES, root)
    wait_shown(bot, q_ts, timeout=10)
    fake.quiet(2.5)
    assert [m["ts"] for m in _ours(fake, SALES)] == [q_ts]


def test_a_late_update_is_not_followed_by_a_second_card(bot: BotServer, fake: FakeSlack) -> None:
    """Issue 13, item 4: "a chat.update answered after 11 s is followed by a fallback post:
    two cards". Now an update whose answer never came is simply done again."""
    root = mention(bot, fake, text="llama 3.1 70b inference")
    q_ts = question_ts(fake, SALES, root)
    wait_shown(bot)
    bot.app.client.timeout = 1
    msg = message(fake, SALES, q_ts)
    fake.late("chat.update", seconds=2.0)
    block_id, action_id, value, _ = first_choice(msg)
    click(bot, user=REP, user_team=INTERNAL_TEAM, channel=SALES, message_ts=q_ts,
          block_id=block_id, action_id=action_id, value=value, thread_ts=root)
    wait_version_change(fake, SALES, q_ts, json.dumps(msg["blocks"]))
    fake.quiet(2.5)
    assert [m["ts"] for m in _ours(fake, SALES)] == [q_ts]
    assert len(fake.calls("chat.postMessage")) == 1


def test_a_math_post_reset_after_slack_posted_it_is_posted_once(
    bot: BotServer, fake: FakeSlack
) -> None:
    root, q_ts, card = finished_card(bot, fake)
    fake.reset_connection("chat.postMessage")
    click_element(bot, card, ids.A_MATH, user=REP, ts=q_ts, root=root)
    fake.wait_for("chat.postMessage", 1, where=lambda c: is_math(c.params))
    fake.quiet(0.5)
    assert len([m for m in _ours(fake, SALES) if is_math(m)]) == 1
    assert not fake.calls("chat.postEphemeral")  # nothing went wrong that a person could see
    # asking again says it is already there
    click_element(bot, card, ids.A_MATH, user=REP, ts=q_ts, root=root)
    fake.wait_for("chat.postEphemeral", 1)
    assert len([m for m in _ours(fake, SALES) if is_math(m)]) == 1


def test_a_quote_summary_and_its_brief_reset_after_slack_took_them_are_sent_once(
    bot: BotServer, fake: FakeSlack
) -> None:
    root, q_ts, card = finished_card(bot, fake)
    assert is_card(card)
    view = open_form(bot, card, user=REP, ts=q_ts, root=root, channel=SALES)
    fake.reset_connection("chat.postMessage")  # the summary
    fake.reset_connection("files.completeUploadExternal")  # the brief's share
    status, ack = submit(bot, view, GOOD, user=REP)
    assert status == 200 and ack == {}
    fake.wait_for("chat.postEphemeral", 1, timeout=15)  # the requester's confirmation
    fake.quiet(0.5)
    summaries = _roots(fake, QUOTES)
    assert len(summaries) == 1
    shares = {f["id"] for f in fake.files.shared(QUOTES)}
    assert len(shares) == 2  # the PDF and the Markdown, shared once
    assert {f["thread_ts"] for f in fake.files.shared(QUOTES)} == {summaries[0]["ts"]}
    from dialogue import RedisStore

    records = [r for r in RedisStore(str(bot.settings.redis_url)).audit_log(20)
               if r.get("kind") == "quote"]
    assert len(records) == 1


def test_a_math_post_put_off_while_slack_fails_is_posted_once_when_it_is_back(
    bot: BotServer, fake: FakeSlack
) -> None:
    """The click's claim is held by its delivery id: its own retries (the turn put off while
    Slack answers 500s) still hold it, and post the math once, looked for first."""
    root, q_ts, card = finished_card(bot, fake)
    fake.http_error("chat.postMessage", 500, times=4)
    click_element(bot, card, ids.A_MATH, user=REP, ts=q_ts, root=root)
    (note,) = fake.wait_for("chat.postEphemeral", 1)
    assert note.params["text"] == said("slack.waits.slack")
    fake.wait_for("chat.postMessage", 1, where=lambda c: is_math(c.params), timeout=15)
    fake.quiet(0.5)
    assert len([m for m in _ours(fake, SALES) if is_math(m)]) == 1
    assert len(fake.calls("chat.postEphemeral")) == 1
