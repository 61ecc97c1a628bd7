"""The Slack app manifests are valid for Slack and match what the code listens to.

Validated with ``jsonschema`` against Slack's published manifest schema, vendored in
``tests/ops/schemas/`` (see its README for the source); read with PyYAML. Beyond the schema
(which accepts any event or scope name), the events, scopes and commands must be exactly what
``bot/`` handles, and the dev app must not collide with the production one in a workspace.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import jsonschema
import pytest
import yaml

from bot.slack import routes

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy" / "slack"
SCHEMA = ROOT / "tests" / "ops" / "schemas" / "slack-manifest.v1.schema.json"
PROD, DEV = "manifest.yaml", "manifest.socket.yaml"
DEV_COMMAND = routes.COMMAND + "-dev"

EVENTS = {"app_mention", "app_home_opened", "message.channels", "message.groups", "message.mpim",
          "message.im"}
SCOPES = {"chat:write", "commands", "app_mentions:read", "channels:history", "groups:history",
          "mpim:history", "im:history", "im:write", "users:read", "channels:read", "groups:read",
          "files:write",        # the quote brief: files_upload_v2 (bot/slack/api.py)
          "files:read",         # a shared config.json, downloaded (bot/slack/flows/files.py)
          "users:read.email"}   # the quote form's e-mail, pre-filled (bot/slack/flows/quote.py)
OPS_DOC = ROOT / "docs" / "operations.md"


def _manifest(name: str) -> dict[str, Any]:
    data = yaml.safe_load((DEPLOY / name).read_text())
    assert isinstance(data, dict), name
    return data


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft7Validator:
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())


@pytest.mark.parametrize("name", [PROD, DEV])
def test_manifest_is_valid_for_slack(name: str, validator: jsonschema.Draft7Validator) -> None:
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
              for e in validator.iter_errors(_manifest(name))]
    assert not errors, errors


def test_the_validator_refuses_what_slack_would_refuse(
        validator: jsonschema.Draft7Validator) -> None:
    """The schema really constrains: a typo'd key, a long name, a command without a slash."""
    good = _manifest(PROD)
    bad_key = {**good, "setings": good["settings"]}
    long_name = {**good, "display_information": {"name": "x" * 36}}
    no_slash = json.loads(json.dumps(good))
    no_slash["features"]["slash_commands"][0]["command"] = "gpu-sizing"
    for bad in (bad_key, long_name, no_slash):
        assert not validator.is_valid(bad)


@pytest.mark.parametrize("name", [PROD, DEV])
def test_events_and_scopes_are_exactly_what_the_bot_uses(name: str) -> None:
    manifest = _manifest(name)
    assert set(manifest["settings"]["event_subscriptions"]["bot_events"]) == EVENTS
    assert set(manifest["oauth_config"]["scopes"]["bot"]) == SCOPES
    assert "user" not in manifest["oauth_config"]["scopes"]  # a bot, never a user's token
    assert manifest["settings"]["interactivity"]["is_enabled"] is True
    assert manifest["settings"]["org_deploy_enabled"] is False
    assert "redirect_urls" not in manifest["oauth_config"]  # no OAuth install flow


def test_production_app_is_http_and_sends_everything_to_the_bolt_route() -> None:
    from bot.ops import asgi

    manifest = _manifest(PROD)
    assert manifest["settings"]["socket_mode_enabled"] is False
    (command,) = manifest["features"]["slash_commands"]
    assert command["command"] == routes.COMMAND
    urls = [manifest["settings"]["event_subscriptions"]["request_url"],
            manifest["settings"]["interactivity"]["request_url"], command["url"]]
    for url in urls:
        assert urlparse(url).scheme == "https", url
        assert urlparse(url).path == asgi.SLACK_PATH, url


def test_dev_app_is_socket_mode_and_cannot_collide_with_production() -> None:
    prod, dev = _manifest(PROD), _manifest(DEV)
    assert dev["settings"]["socket_mode_enabled"] is True
    assert "request_url" not in dev["settings"]["event_subscriptions"]
    assert "request_url" not in dev["settings"]["interactivity"]
    (command,) = dev["features"]["slash_commands"]
    assert command["command"] == DEV_COMMAND
    assert "url" not in command
    # Two apps in one workspace: names, bot names and commands all differ.
    assert dev["display_information"]["name"] != prod["display_information"]["name"]
    assert (dev["features"]["bot_user"]["display_name"]
            != prod["features"]["bot_user"]["display_name"])
    prod_commands = {c["command"] for c in prod["features"]["slash_commands"]}
    assert not prod_commands & {c["command"] for c in dev["features"]["slash_commands"]}


def test_the_bot_answers_the_commands_of_both_apps() -> None:
    """The listener must be registered for the dev command too, or /gpu-sizing-dev goes dead.

    ``bot.slack.routes.COMMANDS`` lists every command the app registers.
    """
    answered = set(routes.COMMANDS)
    for name in (PROD, DEV):
        for command in _manifest(name)["features"]["slash_commands"]:
            assert command["command"] in answered, (
                f"{name} registers {command['command']} but bot/slack/routes.py"
                f" answers only {sorted(answered)}")


@pytest.mark.parametrize("name", [PROD, DEV])
def test_manifests_say_they_are_single_workspace_and_hold_no_token(name: str) -> None:
    text = (DEPLOY / name).read_text()
    assert "SINGLE-WORKSPACE" in text and "Marketplace" in text
    for shape in ("xoxb-", "xoxp-", "xapp-1", "xoxe"):
        assert shape not in text


def test_every_scope_is_explained_to_the_slack_admin() -> None:
    """docs/operations.md "Slack app: scopes" has one row per scope, saying why it is there."""
    text = OPS_DOC.read_text()
    section = text[text.index("### Slack app: scopes"):text.index("### Slack app: events")]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    explained: dict[str, str] = {}
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        for scope in re.findall(r"`([a-z_.:]+)`", cells[0]):
            explained[scope] = cells[1]
    assert set(explained) == SCOPES
    assert all(len(why) > 20 for why in explained.values()), explained
    assert "optional" in explained["users:read.email"]
    for name in (PROD, DEV):
        assert set(_manifest(name)["oauth_config"]["scopes"]["bot"]) == set(explained)
