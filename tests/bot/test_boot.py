"""What a worker says when it starts and what ``/gpu-sizing status`` tells the vendor's team.

* Every worker used to log Bolt's "As you gave `client` as well, `token` will be unused" at
  boot (issue 11): the app is now built the way Bolt documents (its own client, from the
  token), so the boot logs no such warning, and still checks the token once (``auth.test``).
* ``/gpu-sizing status`` (internal only) says the mode, whether the store answers, what it keeps
  across a crash (issue 13, item 11), how many turns wait, and where quote requests go.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest

from bot.ops.settings import Settings
from bot.slack.app import create_app
from engine.wording import msg
from tests.bot.harness import QUOTES, REP, SALES, BotServer, said, settings_for
from tests.fakeslack import FakeSlack
from tests.redisproc import RedisProcess


def test_the_boot_logs_no_bolt_warning_and_checks_the_token_once(
    fake: FakeSlack, redis_url: str, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("SLACK_BOT_TOKEN", fake.bot_token)  # as every deployment sets it
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "s")
    caplog.set_level(logging.INFO)
    app = create_app(settings_for(fake, redis_url)).app
    bolt = [r for r in caplog.records if r.name.startswith("slack_bolt")
            and r.levelno >= logging.WARNING]
    assert bolt == [], [r.getMessage() for r in bolt]
    assert "will be unused" not in caplog.text and "will be ignored" not in caplog.text
    assert {c.method for c in fake.calls()} == {"auth.test"}
    assert app.client.base_url == fake.url  # the one client every turn uses


def test_a_refused_token_fails_the_boot(fake: FakeSlack, redis_url: str) -> None:
    from slack_bolt.error import BoltError

    with pytest.raises(BoltError):
        create_app(settings_for(fake, redis_url, slack_bot_token="xoxb-refused"))


@pytest.mark.parametrize("aof", [True, False])
def test_status_says_what_the_store_keeps(
    serve: Callable[..., BotServer], fake: FakeSlack, aof: bool
) -> None:
    store = RedisProcess(appendonly=aof)
    store.start()
    try:
        bot = serve(store.url)
        bot.client.post_command("/gpu-sizing", "status", user=REP, channel=SALES,
                                response_url=fake.response_url("s"))
        (told,) = fake.wait_for("response_url", 1)
        line = said(msg("slack.status.line", mode="http", store=msg("slack.status.reachable"),
                        kept=msg(f"slack.status.kept.{'aof' if aof else 'none'}"), waiting=0,
                        teams=1), mentions={"channel": f"<#{QUOTES}>"})
        assert told.params["text"] == line
    finally:
        store.cleanup()


def test_status_without_redis_says_the_process_keeps_it(fake: FakeSlack) -> None:
    """Socket Mode in development: no REDIS_URL, the memory queue and store."""
    settings = Settings(slack_bot_token=fake.bot_token, slack_app_token="xapp-1-A-1-x",
                        slack_api_url=fake.url, internal_team_ids="TINT0001")
    face = create_app(settings).pipeline.face
    from bot.slack.flows.commands import status

    said_ = status(face)
    assert said_.params["kept"] == msg("slack.status.kept.memory")
    assert face.waits(store=True) == msg("slack.waits.store_unknown")
