"""Settings for the Slack face, read once from the environment.

Why pydantic-settings: every setting is validated at start-up, so a typo in a deployment fails
the boot with a message naming the variable, instead of failing the first customer's click.
Secrets are ``SecretStr`` so that neither a traceback, a log line nor ``repr(settings)`` can
print them; :func:`load_settings` turns validation errors into messages that name the variable
and never echo its value. An empty variable (``SLACK_APP_TOKEN=``, as shells and compose files
write "unset") is ignored, by pydantic-settings itself (``env_ignore_empty``).
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

Mode = Literal["console", "socket", "http"]

_TEAM_ID = re.compile(r"^[TE][A-Z0-9]{2,30}$")
_CHANNEL_ID = re.compile(r"^[CGD][A-Z0-9]{2,30}$")


class SettingsError(RuntimeError):
    """A setting is missing or malformed; the message names it and never shows a secret."""


class Settings(BaseSettings):
    """Every knob of the Slack face; names are the environment variables (upper case)."""

    model_config = SettingsConfigDict(
        extra="ignore", case_sensitive=False, env_file=None, env_ignore_empty=True
    )

    slack_bot_token: SecretStr | None = None
    slack_signing_secret: SecretStr | None = None
    slack_app_token: SecretStr | None = None
    # Signs what the bot puts in its messages and reads back from clicks (block ids, button
    # values, a form's metadata: bot/slack/cards/ids.py). Unset: derived from the signing
    # secret (or, in Socket Mode, the bot token); set it to rotate either without making the
    # buttons already posted unverifiable.
    client_data_secret: SecretStr | None = None
    slack_api_url: str = "https://slack.com/api/"
    redis_url: str | None = None
    internal_team_ids: Annotated[list[str], NoDecode] = Field(default_factory=list)
    quote_channel_id: str | None = None
    port: int = Field(default=3000, ge=1, le=65535)
    conversation_ttl_seconds: int = Field(default=604800, ge=60, le=90 * 24 * 3600)
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = "INFO"
    web_concurrency: int = Field(default=2, ge=1, le=64)
    web_threads: int = Field(default=4, ge=1, le=64, description="threads per HTTP worker")
    # The server front and the store beyond one Redis (bot/ops/serve.py,
    # dialogue/store/connect.py): Prometheus on its own port, never on PORT; Sentinel
    # (REDIS_URL's host is then the master's name: redis://:password@mymaster/0) or Cluster
    # (REDIS_URL is any node).
    metrics_port: int = Field(default=9100, ge=1, le=65535, description="/metrics listener")
    redis_sentinels: Annotated[list[str], NoDecode] = Field(
        default_factory=list, description="host:port of each Sentinel, comma separated")
    redis_cluster: bool = Field(default=False, description="REDIS_URL is a Redis Cluster node")
    # The Hugging Face Hub (dialogue/hub.py): a model outside the catalog given by its Hub id
    # is read from its config.json there. HF_ENDPOINT for a mirror (or the tests' fake Hub),
    # HF_TOKEN for gated repositories, HF_OFFLINE=1 where there is no network (the person is
    # then told to paste the config.json or give the parameters).
    hf_endpoint: str | None = Field(default=None, description="Hub URL (huggingface.co)")
    hf_token: SecretStr | None = None
    hf_offline: bool = False
    hf_timeout_seconds: float = Field(default=10.0, gt=0, le=120)
    # Personal data and logs (docs/operations.md "Personal data", "Logs"): audit records older
    # than AUDIT_RETENTION_DAYS are trimmed (dialogue/store/redisaudit.py); LOG_HASH_KEY keys
    # the hashes of team and channel ids in turn logs (bot/ops/logs.py; default: derived from
    # the signing secret).
    audit_retention_days: int = Field(default=365, ge=1, le=3650,
                                      description="days an audit record is kept")
    log_hash_key: SecretStr | None = None

    @field_validator("hf_endpoint")
    @classmethod
    def _hf_endpoint(cls, v: str | None) -> str | None:
        if v is not None and not re.match(r"^https?://[^\s/]+", v):
            raise ValueError("must be an http(s) URL such as https://huggingface.co")
        return v.rstrip("/") if v is not None else None

    @field_validator("redis_sentinels", "internal_team_ids", mode="before")
    @classmethod
    def _split_list(cls, v: object) -> object:
        """Comma (or space) separated in the environment: ``REDIS_SENTINELS=10.0.0.1:26379,
        10.0.0.2:26379``, ``INTERNAL_TEAM_IDS=T0123,T0456``."""
        if isinstance(v, str):
            return [p for p in re.split(r"[,\s]+", v.strip()) if p]
        return v

    @field_validator("redis_sentinels")
    @classmethod
    def _sentinel_shape(cls, v: list[str]) -> list[str]:
        for item in v:
            if not re.match(r"^[A-Za-z0-9_.\-\[\]:]+:\d{1,5}$", item):
                raise ValueError(f"'{item}' is not host:port")
        return v

    @field_validator("slack_bot_token")
    @classmethod
    def _bot_token_shape(cls, v: SecretStr | None) -> SecretStr | None:
        if v is not None and not v.get_secret_value().startswith("xoxb-"):
            raise ValueError("must be a bot token starting with xoxb-")
        return v

    @field_validator("slack_app_token")
    @classmethod
    def _app_token_shape(cls, v: SecretStr | None) -> SecretStr | None:
        if v is not None and not v.get_secret_value().startswith("xapp-"):
            raise ValueError("must be an app-level token starting with xapp-")
        return v

    @field_validator("slack_api_url")
    @classmethod
    def _api_url(cls, v: str) -> str:
        if not re.match(r"^https?://[^\s/]+", v):
            raise ValueError("must be an http(s) URL such as https://slack.com/api/")
        return v if v.endswith("/") else v + "/"

    @field_validator("redis_url")
    @classmethod
    def _redis_url(cls, v: str | None) -> str | None:
        """One server (``redis://``, ``rediss://``, ``unix://``), Sentinel
        (``redis+sentinel://``) or Cluster (``redis+cluster://``), read as
        ``dialogue/store/connect.py`` reads it. The messages never quote the value."""
        if v is None:
            return v
        if not re.match(r"^(?:(?:redis|rediss)(?:\+(?:sentinel|cluster))?|unix)://", v):
            raise ValueError("must start with redis://, rediss://, unix://, redis+sentinel://"
                             " or redis+cluster:// (rediss+ for TLS)")
        from dialogue.store.connect import parse

        try:
            parse(v)
        except ValueError:
            raise ValueError("is not a Redis URL the bot can read: a Sentinel URL names its"
                             " master (redis+sentinel://host:port,host:port/master/0), a"
                             " cluster has only database 0") from None
        return v

    @field_validator("internal_team_ids")
    @classmethod
    def _team_id_shape(cls, v: list[str]) -> list[str]:
        for team in v:
            if not _TEAM_ID.match(team):
                raise ValueError(f"'{team}' is not a Slack team id (T… or E…)")
        return v

    @field_validator("quote_channel_id")
    @classmethod
    def _channel_shape(cls, v: str | None) -> str | None:
        if v is not None and not _CHANNEL_ID.match(v):
            raise ValueError("must be a Slack channel id (C… or G…), not a name")
        return v

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper(cls, v: object) -> object:
        return v.upper() if isinstance(v, str) else v

    @property
    def mode(self) -> Mode:
        """Which face runs: decided by the tokens present, never by a flag that could disagree."""
        if self.slack_bot_token is None:
            return "console"
        if self.slack_app_token is not None:
            return "socket"
        return "http"

    def check_mode(self) -> None:
        """The settings a mode needs beyond its tokens; raise :class:`SettingsError` naming them."""
        mode = self.mode
        if mode == "console" and (self.slack_app_token or self.slack_signing_secret):
            raise SettingsError(
                "SLACK_BOT_TOKEN is missing: Socket Mode needs SLACK_BOT_TOKEN and SLACK_APP_TOKEN,"
                " HTTP mode needs SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET"
            )
        if mode == "http":
            if self.slack_signing_secret is None:
                raise SettingsError(
                    "SLACK_SIGNING_SECRET is missing: HTTP mode verifies every request with it"
                    " (or set SLACK_APP_TOKEN for Socket Mode)"
                )
            if self.redis_url is None:
                raise SettingsError(
                    "REDIS_URL is missing: HTTP mode runs several workers, which must share"
                    " conversations through Redis"
                )

    @property
    def internal_teams(self) -> frozenset[str]:
        return frozenset(self.internal_team_ids)


def load_settings(**overrides: object) -> Settings:
    """Read and check the environment; raise :class:`SettingsError` naming what is wrong.

    The message lists variable names and the validator's reason, never the input value, so a
    malformed token cannot leak into a terminal or a log aggregator.
    """
    try:
        settings = Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        problems = []
        for err in exc.errors(include_input=False, include_url=False):
            name = str(err["loc"][0]).upper() if err["loc"] else "settings"
            problems.append(f"{name}: {err['msg']}")
        raise SettingsError("invalid settings: " + "; ".join(problems)) from None
    settings.check_mode()
    return settings
