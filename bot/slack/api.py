"""The Slack Web API as the flows use it: one place for calls, errors, metrics, the last error.

Why a wrapper: every call after the ack can fail (an outage, rate limits beyond the retries,
a channel the bot is not in), and a failure must never be raised into Bolt (which would only
log it again) nor lost: each failure is counted (``slack_api_error``), logged as one line
with Slack's error code (never a token, a body or a response URL), and kept for the calling
thread in :attr:`SlackApi.last_error`, so a flow can tell "invite me" from "Slack is down".
Methods are slack_sdk's typed ones (they know each method's HTTP verb and encoding, and warn
when a message lacks its fallback text); 429s are retried inside the client by slack_sdk's
handlers (``bot/slack/app.py``), in the listener thread, never on the ack path.

A slash command's ``response_url`` is answered through slack_sdk's ``WebhookClient``, so a
:class:`~bot.slack.payloads.Delivery` carries only the URL (plain data a queue can hold), not
Bolt's ``respond`` function.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.webhook import WebhookClient

from bot.ops import metrics

log = logging.getLogger(__name__)

Message = dict[str, Any]

#: Slack errors that mean "the bot cannot post in this conversation" (not a passing outage).
NO_ACCESS_ERRORS = frozenset({
    "not_in_channel", "channel_not_found", "is_archived", "restricted_action",
    "restricted_action_read_only_channel", "restricted_action_thread_only_channel",
    "restricted_action_non_threadable_channel", "ekm_access_denied", "team_access_not_granted",
})


@dataclass(frozen=True)
class Upload:
    """One file to share: its name (with extension), the title Slack shows, its bytes."""

    filename: str
    title: str
    content: bytes


class SlackApi:
    """The bot's Web API calls; each returns the response data, or None after a failure."""

    def __init__(self, client: WebClient) -> None:
        self.client = client
        self._last = threading.local()

    @property
    def last_error(self) -> str | None:
        """Slack's error code (or the exception's name) of this thread's last failed call."""
        error: str | None = getattr(self._last, "error", None)
        return error

    @property
    def no_access(self) -> bool:
        """The last failure means the bot is not allowed to post there (invite it)."""
        return self.last_error in NO_ACCESS_ERRORS

    def call(self, method: str, **kwargs: Any) -> dict[str, Any] | None:
        """``method`` (``chat.postMessage``) with ``kwargs``; None after counting the failure."""
        self._last.error = None
        try:
            resp = getattr(self.client, method.replace(".", "_"))(**kwargs)
            data = resp.data
            return dict(data) if isinstance(data, dict) else {}
        except SlackApiError as exc:
            error = str(exc.response.get("error", "") or "unknown")
        except Exception as exc:  # network errors after the retry handlers gave up
            error = type(exc).__name__
        metrics.slack_api_error(method)
        self._last.error = error
        log.warning("slack api error",
                    extra={"json_fields": {"method": method, "error": error[:200]}})
        return None

    # -- the calls the flows make -----------------------------------------------------------

    def post(self, channel: str, message: Message, thread_ts: str | None = None) -> str | None:
        """Post ``message``; the new message's ts, or None."""
        args: dict[str, Any] = {"channel": channel, **message}
        if thread_ts:
            args["thread_ts"] = thread_ts
        data = self.call("chat.postMessage", **args)
        ts = (data or {}).get("ts")
        return str(ts) if ts else None

    def update(self, channel: str, ts: str, message: Message) -> bool:
        return self.call("chat.update", channel=channel, ts=ts, **message) is not None

    def delete(self, channel: str, ts: str) -> None:
        self.call("chat.delete", channel=channel, ts=ts)

    def ephemeral(self, channel: str, user: str, message: Message,
                  thread_ts: str | None = None) -> bool:
        args: dict[str, Any] = {"channel": channel, "user": user, **message}
        if thread_ts:
            args["thread_ts"] = thread_ts
        return self.call("chat.postEphemeral", **args) is not None

    def publish_home(self, user: str, view: dict[str, Any]) -> None:
        self.call("views.publish", user_id=user, view=view)

    def open_dm(self, user: str) -> str | None:
        """The DM channel id with ``user`` (conversations.open), or None."""
        data = self.call("conversations.open", users=user) or {}
        channel = data.get("channel")
        ident = channel.get("id") if isinstance(channel, dict) else None
        return str(ident) if ident else None

    def user_info(self, user: str) -> dict[str, Any] | None:
        data = self.call("users.info", user=user) or {}
        info = data.get("user")
        return info if isinstance(info, dict) else None

    def channel_info(self, channel: str) -> dict[str, Any] | None:
        data = self.call("conversations.info", channel=channel) or {}
        info = data.get("channel")
        return info if isinstance(info, dict) else None

    def open_view(self, trigger_id: str, view: dict[str, Any]) -> str | None:
        """Open a modal for the person whose click gave ``trigger_id`` (Slack accepts it for
        3 seconds after the click: ``expired_trigger_id`` after that); the view's id, or None."""
        data = self.call("views.open", trigger_id=trigger_id, view=view) or {}
        opened = data.get("view")
        ident = opened.get("id") if isinstance(opened, dict) else None
        return str(ident) if ident else None

    def upload(self, channel: str, files: Sequence[Upload], *, thread_ts: str | None = None,
               comment: str | None = None) -> list[str] | None:
        """Share ``files`` in ``channel`` as one message (in the thread of ``thread_ts``) with
        slack_sdk's ``files_upload_v2``: ``files.getUploadURLExternal`` per file, the bytes
        POSTed to each returned URL, then one ``files.completeUploadExternal``. The upload
        URLs are credentials of sorts: never logged (a failure logs only its kind). The
        shared files' ids, or None."""
        data = self.call(
            "files_upload_v2",
            file_uploads=[{"content": f.content, "filename": f.filename, "title": f.title}
                          for f in files],
            channel=channel, thread_ts=thread_ts, initial_comment=comment)
        if data is None:
            return None
        shared = data.get("files")
        return [str(f.get("id")) for f in shared if isinstance(f, dict)] \
            if isinstance(shared, list) else []

    def respond(self, response_url: str, message: Message) -> bool:
        """Answer a slash command privately through its ``response_url``; False if that failed.

        The URL is a credential of sorts (anyone holding it may post): it is never logged.
        """
        try:
            hook = WebhookClient(response_url, timeout=5, ssl=self.client.ssl,
                                 proxy=self.client.proxy)
            resp = hook.send_dict(
                {"response_type": "ephemeral", **message})
        except Exception as exc:
            metrics.slack_api_error("response_url")
            log.warning("respond failed",
                        extra={"json_fields": {"kind": "respond", "error": type(exc).__name__}})
            return False
        if resp.status_code != 200:
            metrics.slack_api_error("response_url")
            log.warning("respond failed",
                        extra={"json_fields": {"kind": "respond", "status": resp.status_code}})
            return False
        return True
