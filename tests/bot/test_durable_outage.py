"""A turn that meets a store outage midway (issue 13, items 2 and 11): it waits in the turn
queue and is retried when the store is back; the person is told once, and "nothing was lost"
only when the store keeps an append-only file. A file of its own so the suite's processes
share these long waits out (the Makefile's pytest-xdist, one file per process at a time).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.bot.harness import (
    REP,
    SALES,
    BotServer,
    said,
    stored_conversations,
    until,
    wait_shown,
)
from tests.bot.threads import mention, question_ts
from tests.fakeslack import FakeSlack
from tests.redisproc import RedisProcess


@pytest.mark.parametrize("durable", [True, False])
def test_a_store_outage_in_the_middle_of_a_turn_waits_and_says_what_is_true(
    serve: Callable[..., BotServer], fake: FakeSlack, durable: bool
) -> None:
    store = RedisProcess(appendonly=durable)
    store.start()
    try:
        bot = serve(store.url)
        fake.delay("chat.postMessage", 2.0)  # the question is on its way to Slack...
        root = mention(bot, fake, text="llama 3.1 70b inference")
        until(lambda: stored_conversations(bot), what="the sizing stored")
        with store.paused():  # ...when the store stops answering
            (note,) = fake.wait_for("chat.postEphemeral", 1, timeout=20)
        assert note.params["user"] == REP
        assert note.params["text"] == said("slack.waits.store_aof" if durable
                                           else "slack.waits.store_none")
        q_ts = question_ts(fake, SALES, root, timeout=20)
        wait_shown(bot, q_ts, timeout=20)
        fake.quiet(0.5)
        assert [m["ts"] for m in fake.messages[SALES].values()] == [q_ts]
        assert len(fake.calls("chat.postEphemeral")) == 1  # told once
    finally:
        store.cleanup()
