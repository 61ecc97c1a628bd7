"""The Slack manifests match what the code listens to (no YAML parser: no new dependency)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.slack.listeners.commands import COMMAND

DEPLOY = Path(__file__).resolve().parents[2] / "deploy" / "slack"
EVENTS = {"app_mention", "app_home_opened", "message.channels", "message.groups", "message.mpim",
          "message.im"}
SCOPES = {"chat:write", "commands", "app_mentions:read", "channels:history", "groups:history",
          "mpim:history", "im:history", "im:write", "users:read", "channels:read", "groups:read"}


def _list_after(text: str, key: str) -> set[str]:
    """Items of the YAML block list right after ``key:`` (comments stripped)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == f"{key}:")
    indent = len(lines[start + 1]) - len(lines[start + 1].lstrip())
    items = set()
    for line in lines[start + 1:]:
        if not line.strip():
            continue
        if len(line) - len(line.lstrip()) < indent or not line.lstrip().startswith("- "):
            break
        items.add(line.split("#")[0].strip()[2:].strip())
    return items


@pytest.mark.parametrize("name", ["manifest.yaml", "manifest.socket.yaml"])
def test_manifest(name: str) -> None:
    text = (DEPLOY / name).read_text()
    assert _list_after(text, "bot_events") == EVENTS
    assert _list_after(text, "bot") == SCOPES
    assert f"command: {COMMAND}" in text
    socket = name == "manifest.socket.yaml"
    assert f"socket_mode_enabled: {'true' if socket else 'false'}" in text
    urls = re.findall(r"(?:request_url|url): (\S+)", text)
    if socket:
        assert not urls
    else:
        assert len(urls) == 3 and all(u.endswith("/slack/events") for u in urls)
    display = re.search(r"^  name: (.+)$", text, re.M)
    assert display and len(display.group(1)) <= 35
    assert "xoxb-" not in text and "xapp-" not in text.replace("xapp-...", "")
