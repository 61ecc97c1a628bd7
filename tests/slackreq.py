"""Signed requests exactly as Slack sends them, and builders for the payloads the bot handles.

Signature (docs/slack.md §1.3): ``v0=`` + hex HMAC-SHA256 of ``v0:{timestamp}:{raw body}``
keyed with the signing secret, in ``X-Slack-Signature``, with ``X-Slack-Request-Timestamp``,
computed by slack_sdk's own ``SignatureVerifier`` (the code Bolt verifies with); Slack's
retries add ``X-Slack-Retry-Num`` / ``-Reason``.
Slash commands and interactivity are form-encoded (interactivity as ``payload=<json>``);
events are JSON envelopes with ``event_id``, ``team_id`` and ``event``.

Usage::

    client = SignedClient("http://127.0.0.1:PORT/slack/events", "secret")
    status, body = client.post_command("/gpu-sizing", "70b inference", user="U1", channel="C1")
    status, body = client.post_event(message_event(...), retry=1)
"""

from __future__ import annotations

import itertools
import json
import time
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlencode

from slack_sdk.signature import SignatureVerifier

_ids = itertools.count(1)


def sign(secret: str, timestamp: str, body: bytes) -> str:
    """``X-Slack-Signature`` for ``body`` (UTF-8, as Slack's are) sent at ``timestamp``."""
    signature = SignatureVerifier(secret).generate_signature(timestamp=timestamp, body=body)
    assert signature is not None
    return signature


class SignedClient:
    """POSTs signed requests to a Bolt endpoint; returns (status, body text)."""

    def __init__(self, url: str, secret: str, timeout: float = 10.0) -> None:
        self.url = url
        self.secret = secret
        self.timeout = timeout

    def post(
        self,
        body: bytes,
        content_type: str,
        *,
        timestamp: int | None = None,
        signature: str | None = None,
        retry: int | None = None,
        retry_reason: str = "http_timeout",
        extra_headers: dict[str, str] | None = None,
    ) -> tuple[int, str]:
        ts = str(int(time.time()) if timestamp is None else timestamp)
        headers = {
            "Content-Type": content_type,
            "X-Slack-Request-Timestamp": ts,
            "X-Slack-Signature": signature or sign(self.secret, ts, body),
        }
        if retry is not None:
            headers["X-Slack-Retry-Num"] = str(retry)
            headers["X-Slack-Retry-Reason"] = retry_reason
        headers.update(extra_headers or {})
        req = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return resp.status, resp.read().decode()
        except urllib.error.HTTPError as err:
            return err.code, err.read().decode()

    def post_form(self, fields: dict[str, str], **kw: Any) -> tuple[int, str]:
        return self.post(urlencode(fields).encode(), "application/x-www-form-urlencoded", **kw)

    def post_json(self, payload: dict[str, Any], **kw: Any) -> tuple[int, str]:
        return self.post(json.dumps(payload).encode(), "application/json", **kw)

    def post_command(self, command: str, text: str = "", **kw: Any) -> tuple[int, str]:
        sign_kw = {k: kw.pop(k) for k in ("timestamp", "signature", "retry") if k in kw}
        return self.post_form(command_form(command, text, **kw), **sign_kw)

    def post_action(self, payload: dict[str, Any], **kw: Any) -> tuple[int, str]:
        return self.post_form({"payload": json.dumps(payload)}, **kw)

    def post_event(self, envelope: dict[str, Any], **kw: Any) -> tuple[int, str]:
        return self.post_json(envelope, **kw)


# ---------------------------------------------------------------------- payload builders


def command_form(
    command: str,
    text: str = "",
    *,
    user: str = "UREP0001",
    channel: str = "CSALES01",
    team: str = "TINT0001",
    response_url: str = "http://127.0.0.1:9/response",
    trigger_id: str | None = None,
    **extra: str,
) -> dict[str, str]:
    """A slash command as Slack form-encodes it."""
    return {
        "token": "deprecated-verification-token",
        "team_id": team,
        "team_domain": "vendor",
        "channel_id": channel,
        "channel_name": "sales",
        "user_id": user,
        "user_name": user.lower(),
        "command": command,
        "text": text,
        "api_app_id": "AAPP0001",
        "is_enterprise_install": "false",
        "response_url": response_url,
        "trigger_id": trigger_id or f"trig.{next(_ids)}",
        **extra,
    }


def block_actions(
    *,
    user: str,
    user_team: str | None,
    channel: str,
    message_ts: str,
    action_id: str,
    block_id: str | None = None,
    value: str | None = None,
    selected: str | None = None,
    thread_ts: str | None = None,
    team: str = "TINT0001",
    ephemeral: bool = False,
    response_url: str = "http://127.0.0.1:9/response",
) -> dict[str, Any]:
    """A ``block_actions`` payload for a button (``value``) or a select (``selected``)."""
    action: dict[str, Any] = {
        "action_id": action_id,
        "block_id": block_id or "b",
        "type": "button" if selected is None else "static_select",
        "action_ts": f"{time.time():.6f}.{next(_ids)}",
    }
    if selected is not None:
        action["selected_option"] = {"text": {"type": "plain_text", "text": selected},
                                     "value": selected}
    else:
        action["value"] = value or ""
    user_obj: dict[str, Any] = {"id": user, "username": user.lower(), "name": user.lower()}
    if user_team is not None:
        user_obj["team_id"] = user_team
    container: dict[str, Any] = {"type": "message", "message_ts": message_ts,
                                 "channel_id": channel, "is_ephemeral": ephemeral}
    if thread_ts:
        container["thread_ts"] = thread_ts
    payload: dict[str, Any] = {
        "type": "block_actions",
        "user": user_obj,
        "api_app_id": "AAPP0001",
        "token": "deprecated-verification-token",
        "container": container,
        "trigger_id": f"trig.{next(_ids)}",
        "team": {"id": team, "domain": "vendor"},
        "enterprise": None,
        "is_enterprise_install": False,
        "channel": {"id": channel, "name": "channel"},
        "message": {"type": "message", "ts": message_ts, "thread_ts": thread_ts,
                    "bot_id": "BBOT0001", "text": "…"},
        "response_url": response_url,
        "actions": [action],
        "state": {"values": {}},
    }
    if ephemeral:  # Slack sends no copy of an ephemeral message: only the container names it
        del payload["message"]
    return payload


def event_envelope(
    event: dict[str, Any],
    *,
    team: str = "TINT0001",
    event_id: str | None = None,
    ext_shared: bool = False,
) -> dict[str, Any]:
    """An Events API ``event_callback`` envelope around ``event``."""
    return {
        "token": "deprecated-verification-token",
        "team_id": team,
        "context_team_id": team,
        "api_app_id": "AAPP0001",
        "event": event,
        "type": "event_callback",
        "event_id": event_id or f"Ev{next(_ids):08d}",
        "event_time": int(time.time()),
        "is_ext_shared_channel": ext_shared,
        "authorizations": [{"enterprise_id": None, "team_id": team, "user_id": "UBOT0001",
                            "is_bot": True, "is_enterprise_install": False}],
    }


def message_event(
    *,
    user: str,
    channel: str,
    text: str,
    ts: str | None = None,
    thread_ts: str | None = None,
    channel_type: str = "channel",
    user_team: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    ev: dict[str, Any] = {
        "type": "message", "user": user, "channel": channel, "text": text,
        "ts": ts or f"{1800000000 + next(_ids)}.000200", "channel_type": channel_type,
        "event_ts": ts or f"{1800000000 + next(_ids)}.000200",
    }
    if thread_ts:
        ev["thread_ts"] = thread_ts
    if user_team:
        ev["user_team"] = user_team
        ev["team"] = user_team
    ev.update(extra)
    return ev


def mention_event(
    *,
    user: str,
    channel: str,
    text: str,
    ts: str | None = None,
    thread_ts: str | None = None,
    user_team: str | None = None,
) -> dict[str, Any]:
    ev = message_event(user=user, channel=channel, text=text, ts=ts, thread_ts=thread_ts,
                       user_team=user_team)
    ev["type"] = "app_mention"
    ev.pop("channel_type", None)
    return ev


def url_verification(challenge: str = "chal-123") -> dict[str, Any]:
    return {"token": "deprecated-verification-token", "challenge": challenge,
            "type": "url_verification"}


def file_share_event(
    *,
    user: str,
    channel: str,
    files: list[dict[str, Any]],
    text: str = "",
    thread_ts: str | None = None,
    channel_type: str = "channel",
    **extra: Any,
) -> dict[str, Any]:
    """A message sharing ``files`` (file objects: ``tests/fakedownloads.py``) as Slack sends
    it: subtype ``file_share``, the files already uploaded (``upload: false``)."""
    return message_event(user=user, channel=channel, text=text, thread_ts=thread_ts,
                         channel_type=channel_type, subtype="file_share", files=files,
                         upload=False, display_as_bot=False, **extra)
