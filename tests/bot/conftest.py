"""Fixtures for the Slack face: a fake Slack Web API and the app served over HTTP."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from bot.slack import blockkit
from tests.bot.harness import BotServer, populate
from tests.fakeslack import FakeSlack

MESSAGE_METHODS = ("chat.postMessage", "chat.update", "chat.postEphemeral")


@pytest.fixture
def fake() -> Iterator[FakeSlack]:
    """The fake Slack; at the end, every message and view the bot sent is checked against
    Block Kit's limits, so no test can pass while posting something Slack would reject."""
    slack = FakeSlack().start()
    populate(slack)
    yield slack
    slack.stop()
    problems = []
    for call in slack.calls():
        if call.method in MESSAGE_METHODS and "blocks" in call.params:
            errors = blockkit.message_problems(call.params)
        elif call.method in MESSAGE_METHODS:
            text = call.params.get("text")
            errors = [] if isinstance(text, str) and text.strip() else ["no text"]
        elif call.method == "views.publish":
            errors = blockkit.view_problems(call.params.get("view") or {})
        else:
            continue
        problems += [f"{call.method}: {e}" for e in errors]
    assert not problems, problems


@pytest.fixture
def serve(fake: FakeSlack) -> Iterator[Callable[..., BotServer]]:
    """``serve(redis_url, **settings)`` starts one app instance ("worker"); all stop at the end."""
    started: list[BotServer] = []

    def start(redis_url: str, **overrides: Any) -> BotServer:
        server = BotServer(fake, redis_url, **overrides)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def bot(serve: Callable[..., BotServer], redis_url: str) -> BotServer:
    """One worker on the session's throwaway Redis."""
    return serve(redis_url)
