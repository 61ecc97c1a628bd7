"""Settings: modes by tokens, and start-up errors that name the setting but never its value."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bot.ops.settings import Settings, SettingsError, load_settings

SECRET_LOOKING = "xoxb-0000-SUPERSECRETVALUE"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET", "REDIS_URL",
                 "INTERNAL_TEAM_IDS", "QUOTE_CHANNEL_ID", "PORT", "SLACK_API_URL",
                 "WEB_CONCURRENCY", "WEB_THREADS"):
        monkeypatch.delenv(name, raising=False)


def test_modes() -> None:
    assert Settings().mode == "console"
    assert Settings(slack_bot_token="xoxb-1", slack_app_token="xapp-1").mode == "socket"
    assert Settings(slack_bot_token="xoxb-1", slack_signing_secret="s").mode == "http"


def test_env_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INTERNAL_TEAM_IDS", "T0123, E0456")
    monkeypatch.setenv("SLACK_API_URL", "http://127.0.0.1:9/api")
    monkeypatch.setenv("SLACK_APP_TOKEN", "")
    s = Settings()
    assert s.internal_teams == {"T0123", "E0456"}
    assert s.slack_api_url.endswith("/api/")
    assert s.slack_app_token is None
    assert s.port == 3000 and s.conversation_ttl_seconds == 604800 and s.web_concurrency == 2
    assert s.web_threads == 4


def test_an_empty_variable_means_not_set(monkeypatch: pytest.MonkeyPatch) -> None:
    """``VAR=`` in a compose file or a shell is "unset": the default, not an invalid value."""
    for name in ("SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET", "REDIS_URL",
                 "QUOTE_CHANNEL_ID", "INTERNAL_TEAM_IDS", "PORT", "WEB_THREADS"):
        monkeypatch.setenv(name, "")
    s = load_settings()
    assert s.mode == "console"
    assert s.redis_url is None and s.quote_channel_id is None and s.internal_teams == frozenset()
    assert s.port == 3000 and s.web_threads == 4


def test_web_threads_is_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEB_THREADS", "8")
    assert Settings().web_threads == 8
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-1")
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "s")
    monkeypatch.setenv("REDIS_URL", "redis://localhost:6379/0")
    monkeypatch.setenv("WEB_THREADS", "0")
    with pytest.raises(SettingsError, match="WEB_THREADS"):
        load_settings()


def test_missing_signing_secret_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-1")
    with pytest.raises(SettingsError, match="SLACK_SIGNING_SECRET"):
        load_settings()


def test_http_needs_redis(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-1")
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "s")
    with pytest.raises(SettingsError, match="REDIS_URL"):
        load_settings()


@pytest.mark.parametrize(("name", "value"), [
    ("SLACK_APP_TOKEN", SECRET_LOOKING),  # an xoxb where an xapp belongs
    ("PORT", "eighty"),
    ("INTERNAL_TEAM_IDS", "acme-corp"),
    ("QUOTE_CHANNEL_ID", "#sales"),
    ("REDIS_URL", "localhost:6379"),
])
def test_malformed_setting_is_named_not_echoed(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-1")
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "s")
    monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError) as info:
        load_settings()
    assert name in str(info.value)
    if name == "SLACK_APP_TOKEN":
        assert "SUPERSECRET" not in str(info.value)


def test_secrets_are_never_in_repr() -> None:
    s = Settings(slack_bot_token=SECRET_LOOKING, slack_signing_secret="sign-SUPERSECRET")
    assert "SUPERSECRET" not in repr(s) and "SUPERSECRET" not in str(s.model_dump())


def test_python_m_bot_refuses_bad_settings_without_printing_them() -> None:
    env = {"PATH": "/usr/bin:/bin", "SLACK_BOT_TOKEN": "xoxp-" + "9" * 20 + "SUPERSECRET",
           "SLACK_SIGNING_SECRET": "s"}
    proc = subprocess.run([sys.executable, "-m", "bot"], env=env, capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2
    assert "SLACK_BOT_TOKEN" in proc.stderr
    assert "SUPERSECRET" not in proc.stderr + proc.stdout


def test_app_token_without_bot_token_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLACK_APP_TOKEN", "xapp-1-abc")
    with pytest.raises(SettingsError, match="SLACK_BOT_TOKEN"):
        load_settings()


def test_redis_url_takes_sentinel_and_cluster_and_never_echoes_a_bad_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for url in ("redis+sentinel://:pw@10.0.0.1:26379,10.0.0.2:26379/mymaster/0",
                "rediss+sentinel://10.0.0.1:26379/mymaster", "redis+cluster://n1:7000,n2:7000",
                "rediss://:pw@redis.internal:6380/2", "unix:///run/redis.sock"):
        assert Settings(redis_url=url).redis_url == url
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-1")
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "s")
    for bad in ("mysql://SUPERSECRETVALUE@db/0", "redis+sentinel://:SUPERSECRETVALUE@h:1",
                "redis+cluster://:SUPERSECRETVALUE@n1:7000/3", "SUPERSECRETVALUE"):
        monkeypatch.setenv("REDIS_URL", bad)
        with pytest.raises(SettingsError) as err:
            load_settings()
        assert "REDIS_URL" in str(err.value) and "SUPERSECRETVALUE" not in str(err.value)
