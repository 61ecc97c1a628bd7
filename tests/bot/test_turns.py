"""Turns as people make them, through signed HTTP into the real app: a second answer while the
first question is still being posted, a replayed slash command, a sizing held in French."""

from __future__ import annotations

import json
import time

from bot.slack.cards import ids
from tests.bot.harness import (
    COLLEAGUE,
    INTERNAL_TEAM,
    REP,
    SALES,
    BotServer,
    click,
    find_element,
    first_choice,
    is_card,
    message,
    plain,
    said,
    stored_conversations,
    wait_shown,
)
from tests.fakeslack import FakeSlack
from tests.slackreq import event_envelope, mention_event, message_event

DM = "DREP0001"


def _until(check: object, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if callable(check) and check():
            return
        time.sleep(0.02)
    raise AssertionError("the condition never held")


def test_an_answer_typed_while_the_question_is_being_posted_is_shown(
    bot: BotServer, fake: FakeSlack
) -> None:
    """The start records where the question goes with the sizing; a fast second turn saves
    its answer and the starter brings the message up to date: nothing waits, one message."""
    fake.delay("chat.postMessage", 1.5)  # Slack is slow to post the first question
    ev = mention_event(user=REP, channel=SALES, text="<@UBOT0001> llama 3.1 70b inference")
    bot.client.post_event(event_envelope(ev))
    _until(lambda: stored_conversations(bot))  # the start is stored; its question is on its way
    assert not fake.messages.get(SALES)
    started = time.monotonic()
    status, _ = bot.client.post_event(event_envelope(message_event(
        user=REP, channel=SALES, text="64", thread_ts=ev["ts"])))
    assert status == 200 and time.monotonic() - started < 0.5
    (post,) = fake.wait_for("chat.postMessage", 1)
    assert post.params["thread_ts"] == ev["ts"]
    q_ts = next(iter(fake.messages[SALES]))
    wait_shown(bot, q_ts)
    (doc,) = stored_conversations(bot).values()
    assert doc["answers"]["concurrency"] == 64
    # the one message shows the sizing as it is now: its buttons carry the current version
    _until(lambda: f"gs2|{doc['version']}|" in json.dumps(message(fake, SALES, q_ts)))
    fake.quiet(0.3)
    assert len(fake.calls("chat.postMessage")) == 1
    assert not fake.calls("chat.postEphemeral")


def test_a_replayed_slash_command_starts_one_sizing(bot: BotServer, fake: FakeSlack) -> None:
    """A signed command replayed within Slack's 5 minutes carries the same trigger_id."""
    for _ in range(3):
        status, _ = bot.client.post_command("/gpu-sizing", "llama 3.1 70b inference", user=REP,
                                            channel=SALES, trigger_id="1337.42.abc",
                                            response_url=fake.response_url("r"))
        assert status == 200
    fake.wait_for("chat.postMessage", 2)
    fake.quiet(0.5)
    assert len(fake.calls("chat.postMessage")) == 2  # one root, one question
    assert len(stored_conversations(bot)) == 1


def test_a_sizing_held_in_french(bot: BotServer, fake: FakeSlack) -> None:
    """The opening's language is the conversation's: the card, its buttons, and the notes
    sent to someone else who clicks, all in French."""
    ev = message_event(user=REP, channel=DM, channel_type="im",
                       text="nous voulons llama 3.1 70b en inférence pour 64 utilisateurs, "
                            "contexte 8k, sans objectif")
    bot.client.post_event(event_envelope(ev))
    fake.wait_for("chat.postMessage", 1)
    q_ts = next(iter(fake.messages[DM]))
    card = message(fake, DM, q_ts)
    assert is_card(card)
    assert card["blocks"][0]["text"]["text"].startswith(plain("verdict.single_node", "fr", gpus=8))
    _, math = find_element(card, ids.A_MATH)
    assert math["text"]["text"] == plain("slack.button.math", "fr")
    _, quote = find_element(card, ids.A_QUOTE)
    assert quote["text"]["text"] == plain("slack.button.quote", "fr")
    # a colleague clicking the French card is told in French whose sizing it is
    block_id, _ = find_element(card, ids.A_RESTART)
    click(bot, user=COLLEAGUE, user_team=INTERNAL_TEAM, channel=DM, message_ts=q_ts,
          block_id=block_id, action_id=ids.A_RESTART, value="restart")
    (note,) = fake.wait_for("chat.postEphemeral", 1)
    assert note.params["text"] == said("slack.not_owner", "fr", mentions={"owner": f"<@{REP}>"})


def test_a_question_in_french_and_its_choices(bot: BotServer, fake: FakeSlack) -> None:
    bot.client.post_event(event_envelope(message_event(
        user=REP, channel=DM, channel_type="im", text="bonjour, nous voulons llama 3.1 70b")))
    fake.wait_for("chat.postMessage", 1)
    q_ts = next(iter(fake.messages[DM]))
    question = message(fake, DM, q_ts)
    assert said("slack.question.how_dm", "fr") in json.dumps(question, ensure_ascii=False)
    block_id, action_id, value, selected = first_choice(question)
    click(bot, user=REP, user_team=INTERNAL_TEAM, channel=DM, message_ts=q_ts,
          block_id=block_id, action_id=action_id, value=value, selected=selected)
    _until(lambda: message(fake, DM, q_ts) != question)
    assert said("slack.question.how_dm", "fr") in json.dumps(message(fake, DM, q_ts),
                                                               ensure_ascii=False)
