"""A sizing whose Slack message is behind its stored state (issue 13, item 3): the turn was
applied and its ``chat.update`` never landed (three 429s, a 500, a hang, a worker killed between
the Redis write and the update). Before, every later click on the visible message was refused
as "an earlier question" and the message never changed. Now a click on it brings it to the
current state and says so privately; typing brings it up to date too; and its buttons work
again.

The lost update is made real: a turn is applied to the stored conversation through the real
dialogue on the real Redis, with no Slack update, exactly what a worker killed right after the
write leaves behind.
"""

from __future__ import annotations

import json

from dialogue import Dialogue, RedisStore
from tests.bot.harness import (
    INTERNAL_TEAM,
    REP,
    SALES,
    BotServer,
    click,
    first_choice,
    message,
    said,
    stored_conversations,
    wait_shown,
    wait_version_change,
)
from tests.bot.threads import mention, question_ts
from tests.fakeslack import FakeSlack
from tests.slackreq import event_envelope, message_event


def _lose_an_update(bot: BotServer, text: str) -> int:
    """Apply ``text`` to the only sizing without telling Slack; the stored version."""
    (key,) = stored_conversations(bot)
    reply = Dialogue(RedisStore(str(bot.settings.redis_url))).handle(key, text, actor=REP)
    return reply.version


def test_a_click_on_a_message_that_is_behind_brings_it_up_to_date(
    bot: BotServer, fake: FakeSlack
) -> None:
    root = mention(bot, fake, text="llama 3.1 70b inference")
    q_ts = question_ts(fake, SALES, root)
    wait_shown(bot)
    shown = message(fake, SALES, q_ts)
    version = _lose_an_update(bot, "64")  # the person's answer is stored; Slack never heard
    block_id, action_id, value, _ = first_choice(shown)
    status, _ = click(bot, user=REP, user_team=INTERNAL_TEAM, channel=SALES, message_ts=q_ts,
                      block_id=block_id, action_id=action_id, value=value, thread_ts=root)
    assert status == 200
    (note,) = fake.wait_for("chat.postEphemeral", 1)
    assert note.params["user"] == REP and note.params["text"] == said("slack.behind")
    current = wait_version_change(fake, SALES, q_ts, json.dumps(shown["blocks"]))
    assert f"|{version}|" in json.dumps(current["blocks"])  # the buttons of the current turn
    (doc,) = stored_conversations(bot).values()
    assert doc["version"] == version  # the stale click itself changed nothing
    # and its buttons work again: the next click is a turn
    block_id, action_id, value, _ = first_choice(current)
    click(bot, user=REP, user_team=INTERNAL_TEAM, channel=SALES, message_ts=q_ts,
          block_id=block_id, action_id=action_id, value=value, thread_ts=root)
    wait_version_change(fake, SALES, q_ts, json.dumps(current["blocks"]))
    (doc,) = stored_conversations(bot).values()
    assert doc["version"] == version + 1
    assert len(fake.calls("chat.postEphemeral")) == 1
    assert [m["ts"] for m in fake.messages[SALES].values() if m["thread_ts"] == root] == [q_ts]


def test_typing_to_a_sizing_whose_message_is_behind_brings_it_up_to_date(
    bot: BotServer, fake: FakeSlack
) -> None:
    root = mention(bot, fake, text="llama 3.1 70b inference")
    q_ts = question_ts(fake, SALES, root)
    wait_shown(bot)
    shown = message(fake, SALES, q_ts)
    _lose_an_update(bot, "64")
    bot.client.post_event(event_envelope(message_event(user=REP, channel=SALES, text="8k",
                                                       thread_ts=root)))
    current = wait_version_change(fake, SALES, q_ts, json.dumps(shown["blocks"]))
    (doc,) = stored_conversations(bot).values()
    assert doc["answers"]["concurrency"] == 64 and doc["answers"]["context"] == 8192
    assert f"|{doc['version']}|" in json.dumps(current["blocks"])
    assert not fake.calls("chat.postEphemeral")
