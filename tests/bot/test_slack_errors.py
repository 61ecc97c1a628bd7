"""The Slack error tree is public: a flow catches a failure by what it means, so the names a
module exports and which class is which are a contract (the way httpx tests its own)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from slack_sdk import WebClient

from bot.ops.consumer import Later
from bot.slack import errors
from bot.slack.api import SlackApi
from bot.slack.errors import SlackError, SlackPassing, SlackRefused, SlackUnknown
from tests.fakeslack import FakeSlack


def test_the_error_tree_is_exported_from_one_module() -> None:
    assert sorted(errors.__all__) == sorted([
        "NO_ACCESS_ERRORS", "PASSING_ERRORS", "UNKNOWN_ERRORS", "SlackError", "SlackPassing",
        "SlackRefused", "SlackUnknown", "error_of"])
    for name in errors.__all__:
        assert getattr(errors, name) is not None


def test_the_hierarchy_says_what_a_caller_may_do() -> None:
    assert SlackRefused.__mro__[1] is SlackError
    assert SlackPassing.__mro__[1] is SlackError
    assert SlackUnknown.__mro__[1] is SlackPassing
    # what is passing goes back to the queue (retried); a refusal is the flow's to say
    assert issubclass(SlackPassing, Later) and issubclass(SlackUnknown, Later)
    assert not issubclass(SlackRefused, Later)
    assert not issubclass(SlackRefused, SlackPassing)


@pytest.fixture
def api() -> Iterator[tuple[SlackApi, FakeSlack]]:
    fake = FakeSlack().start()
    fake.add_channel("CSALES01")
    try:
        yield SlackApi(WebClient(token=fake.bot_token, base_url=fake.url)), fake
    finally:
        fake.stop()


def test_each_failure_is_raised_as_what_it_means(api: tuple[SlackApi, FakeSlack]) -> None:
    slack, fake = api
    fake.fail("chat.postMessage", "not_in_channel")
    with pytest.raises(SlackRefused) as refused:
        slack.call("chat.postMessage", channel="CSALES01", text="x")
    assert refused.value.no_access and refused.value.error == "not_in_channel"
    fake.fail("chat.postMessage", "msg_too_long")
    with pytest.raises(SlackRefused) as other:
        slack.call("chat.postMessage", channel="CSALES01", text="x")
    assert not other.value.no_access
    fake.fail("chat.update", "internal_error")
    with pytest.raises(SlackUnknown):
        slack.call("chat.update", channel="CSALES01", ts="1.0", text="x")
    fake.fail("chat.update", "service_unavailable")
    with pytest.raises(SlackPassing) as passing:
        slack.call("chat.update", channel="CSALES01", ts="1.0", text="x")
    assert not isinstance(passing.value, SlackUnknown)  # not processed: nothing to look for
    assert slack.call("chat.postMessage", channel="CSALES01", text="x")["ok"] is True
