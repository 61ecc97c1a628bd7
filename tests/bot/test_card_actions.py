"""The card's buttons over signed HTTP (math, compare, change, quote), App Home and "post"."""

from __future__ import annotations

import json

from bot.slack import blockkit
from bot.slack.cards import ids
from engine.catalog import catalog
from tests.bot.harness import (
    COLLEAGUE,
    INTERNAL_TEAM,
    QUOTES,
    REP,
    SALES,
    BotServer,
    assert_valid,
    click,
    click_to_card,
    find_element,
    is_card,
    is_math,
    message,
    said,
    stored_conversations,
    wait_version_change,
)
from tests.bot.quoteflow import open_form, submit
from tests.fakeslack import FakeSlack
from tests.slackreq import event_envelope, mention_event


def _card(bot: BotServer, fake: FakeSlack) -> tuple[str, str, dict[str, object]]:
    ev = mention_event(user=REP, channel=SALES,
                       text="<@UBOT0001> llama 3.1 70b inference 64 users 8k context")
    bot.client.post_event(event_envelope(ev))
    fake.wait_for("chat.postMessage", 1)
    q_ts = next(iter(fake.messages[SALES]))
    card = click_to_card([bot], user=REP, user_team=INTERNAL_TEAM, channel=SALES, ts=q_ts,
                         root=ev["ts"])
    return ev["ts"], q_ts, card


def test_show_the_math_once_in_the_thread(bot: BotServer, fake: FakeSlack) -> None:
    root, q_ts, card = _card(bot, fake)
    block_id, _ = find_element(card, ids.A_MATH)
    for _ in range(2):
        click(bot, user=REP, user_team=INTERNAL_TEAM, channel=SALES, message_ts=q_ts,
              block_id=block_id, action_id=ids.A_MATH, value="math", thread_ts=root)
    (math,) = fake.wait_for("chat.postMessage", 1, where=lambda c: is_math(c.params))
    assert math.params["thread_ts"] == root
    assert_valid(math.params)
    (note,) = fake.wait_for("chat.postEphemeral", 1)
    assert note.params["text"] == said("slack.math_in_thread")
    # someone else asking sees it privately, the thread is not spammed
    click(bot, user=COLLEAGUE, user_team=INTERNAL_TEAM, channel=SALES, message_ts=q_ts,
          block_id=block_id, action_id=ids.A_MATH, value="math", thread_ts=root)
    fake.wait_for("chat.postEphemeral", 2)
    fake.quiet(0.3)
    assert len([c for c in fake.calls("chat.postMessage") if is_math(c.params)]) == 1


def test_compare_and_change_rerun_in_place(bot: BotServer, fake: FakeSlack) -> None:
    root, q_ts, card = _card(bot, fake)
    block_id, compare = find_element(card, ids.A_COMPARE)
    other = compare["options"][0]["value"]
    before = json.dumps(card["blocks"])
    click(bot, user=REP, user_team=INTERNAL_TEAM, channel=SALES, message_ts=q_ts,
          block_id=block_id, action_id=ids.A_COMPARE, selected=other, thread_ts=root)
    fake.wait_for("chat.update", 1, where=lambda c: is_card(c.params))
    new = wait_version_change(fake, SALES, q_ts, before)
    while not is_card(new):  # the intermediate "which GPU" question, then the card
        new = wait_version_change(fake, SALES, q_ts, json.dumps(new["blocks"]))
    assert_valid(new)
    assert new["blocks"] != card["blocks"]
    # the compared GPU's answer and its alternatives, side by side in one table
    (table,) = [b for b in new["blocks"] if b["type"] == "table"]
    head, answer, *others = [[c["text"] for c in row] for row in table["rows"]]
    assert head[:4] == [said("options.col.option"), said("options.col.nodes"),
                        said("options.col.gpus"), said("options.col.per_user")]
    assert catalog().gpus[other].name in answer[0] and others
    # change an answer: the card's menu reopens that question
    block_id, change = find_element(new, ids.A_CHANGE)
    option = next(o["value"] for o in change["options"] if o["value"] == "change concurrency")
    before = json.dumps(new["blocks"])
    click(bot, user=REP, user_team=INTERNAL_TEAM, channel=SALES, message_ts=q_ts,
          block_id=block_id, action_id=ids.A_CHANGE, selected=option, thread_ts=root)
    question = wait_version_change(fake, SALES, q_ts, before)
    assert not is_card(question)
    (doc,) = stored_conversations(bot).values()
    assert doc["state"] == "concurrency"  # the question that answer came from, asked again


def test_internal_quote_goes_to_the_quote_channel(bot: BotServer, fake: FakeSlack) -> None:
    """Two clicks open two forms (a click only opens the form); both submitted: one request in
    the quote channel, the second is told it is already there (tests/bot/test_quote.py)."""
    root, q_ts, card = _card(bot, fake)
    views = [open_form(bot, card, user=REP, ts=q_ts, root=root, channel=SALES) for _ in "ab"]
    for view in views:
        submit(bot, view, {"q_name": "Rémi", "q_email": "remi@client.fr"}, user=REP)
    (summary,) = fake.wait_for("chat.postMessage", 1,
                               where=lambda c: c.params.get("channel") == QUOTES)
    notes = fake.wait_for("chat.postEphemeral", 2)
    assert said("slack.quote_already") in {n.params["text"] for n in notes}
    assert said("slack.quote.requested_internal", team=INTERNAL_TEAM,
                mentions={"who": f"<@{REP}>"}) in json.dumps(summary.params["blocks"],
                                                             ensure_ascii=False)
    fake.quiet(0.3)
    assert len([c for c in fake.calls("chat.postMessage")
                if c.params.get("channel") == QUOTES]) == 1


def test_quote_refused_when_the_quote_channel_is_shared(
    serve: object, redis_url: str, fake: FakeSlack
) -> None:
    fake.add_channel("CLEAKY01", is_ext_shared=True)
    bot = serve(redis_url, quote_channel_id="CLEAKY01")  # type: ignore[operator]
    root, q_ts, card = _card(bot, fake)
    block_id, _ = find_element(card, ids.A_QUOTE)
    click(bot, user=REP, user_team=INTERNAL_TEAM, channel=SALES, message_ts=q_ts,
          block_id=block_id, action_id=ids.A_QUOTE, value="quote", thread_ts=root)
    (note,) = fake.wait_for("chat.postEphemeral", 1)
    assert note.params["text"] == said("slack.quote_unavailable")
    fake.quiet(0.3)
    assert not [c for c in fake.calls("chat.postMessage") if c.params["channel"] == "CLEAKY01"]


def test_app_home_and_new_sizing(bot: BotServer, fake: FakeSlack) -> None:
    _card(bot, fake)
    bot.client.post_event(event_envelope({"type": "app_home_opened", "user": REP,
                                          "channel": "DREP0001", "tab": "home",
                                          "event_ts": "1.2"}))
    (publish,) = fake.wait_for("views.publish", 1)
    view = publish.params["view"]
    assert not blockkit.view_problems(view)
    assert "Llama 3.1 70B" in json.dumps(view)
    block_id = "home"
    click(bot, user=REP, user_team=INTERNAL_TEAM, channel="", message_ts="",
          block_id=block_id, action_id=ids.A_HOME_NEW, value="new")
    fake.wait_for("conversations.open", 1)
    (post,) = fake.wait_for("chat.postMessage", 1,
                            where=lambda c: c.params["channel"] == "DREP0001")
    assert post.params.get("thread_ts") is None  # the question itself, at the DM's top level
    assert_valid(post.params)
    fake.quiet(0.2)
    assert len(fake.messages["DREP0001"]) == 1  # no root message announcing it


def test_post_command_by_a_rep(bot: BotServer, fake: FakeSlack) -> None:
    bot.client.post_command("/gpu-sizing", "post", user=REP, channel=SALES,
                            response_url=fake.response_url("p"))
    (post,) = fake.wait_for("chat.postMessage", 1)
    assert_valid(post.params)
    ts = next(iter(fake.messages[SALES]))
    assert find_element(message(fake, SALES, ts), ids.A_START)
    bot.client.post_command("/gpu-sizing", "help", user=REP, channel=SALES,
                            response_url=fake.response_url("h"))
    (help_,) = fake.wait_for("response_url", 1)
    assert help_.params["text"] == said("slack.help")


def test_command_where_the_bot_is_not_a_member(bot: BotServer, fake: FakeSlack) -> None:
    fake.fail("chat.postMessage", "not_in_channel")
    bot.client.post_command("/gpu-sizing", "llama 3.1 70b", user=REP, channel="CELSE001",
                            response_url=fake.response_url("n"))
    (told,) = fake.wait_for("response_url", 1)
    assert told.params["text"] == said("slack.cannot_post")
    fake.quiet(0.3)
    assert not [c for c in fake.calls("chat.postMessage") if c.ok]
    assert "CELSE001" not in fake.messages
