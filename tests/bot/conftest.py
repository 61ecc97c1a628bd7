"""Fixtures for the Slack face: a fake Slack Web API and the app served over HTTP."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.bot.harness import BotServer, populate
from tests.fakeslack import FakeSlack


@pytest.fixture
def fake() -> Iterator[FakeSlack]:
    slack = FakeSlack().start()
    populate(slack)
    yield slack
    slack.stop()


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
