"""The Slack Web API as the flows use it: one place for calls, errors, metrics, the last error,
and for writes that are never made twice.

Why a wrapper: every call after the ack can fail (an outage, rate limits beyond the retries,
a channel the bot is not in), and a failure must never be raised into Bolt nor lost: each
failure is counted (``slack_api_error``), logged as one line with Slack's error code (never a
token, a body or a response URL), and kept for the calling thread in :attr:`SlackApi.last_error`,
so a flow can tell "invite me" from "Slack is down".

What a failure means decides what happens next (issue 13, item 4):

* **refused** (``ok: false`` with a reason such as ``not_in_channel``): nothing was done; the
  method returns None / False and the flow says so;
* **passing, not done** (a 429 beyond slack_sdk's retries: a 429 means "not processed"):
  :class:`SlackDown` is raised; the turn is put off and retried (``bot/ops/consumer.py``);
* **unknown** (a connection reset, a timeout, a 5xx, ``internal_error``, an answer too late):
  Slack may have done it. Idempotent calls (``views.publish``, reads) are retried by the
  client and later (:class:`SlackDown`); ``chat.update`` is retried by its caller with the
  state rendered afresh (``bot/slack/flows/show.py``). A post is never blindly retried: it
  carries its own id in message metadata, and :meth:`SlackApi.post` first looks for it
  (``bot/slack/written.py``), posting only if absent; so does :meth:`SlackApi.upload` by
  file names. When even the lookup fails, :class:`SlackDown`: the retry looks first too, because a
  turn that is a replay (``bot/slack/work.py``) always looks before it posts.

slack_sdk's own retry handlers (``bot/slack/app.py``) retry 429s for every method (a 429 is not
processed), connection errors and 5xx only for :data:`IDEMPOTENT` methods.

A shared file is read with :meth:`SlackApi.download` (its transport, ``bot/slack/filebytes.py``,
sends the bot token to Slack's own hosts only); a refusal (403, 404, a redirect to the sign-in
page) is the flow's to say, a passing failure is :class:`SlackDown` as for any read.

A slash command's ``response_url`` is answered through slack_sdk's ``WebhookClient``, so a
:class:`~bot.slack.payloads.Delivery` carries only the URL (plain data a queue can hold).
"""

from __future__ import annotations

import http.client
import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.webhook import WebhookClient

from bot.ops import metrics
from bot.ops.consumer import Later
from bot.slack import filebytes, work, written
from bot.slack.payloads import SharedFile, shared_file

log = logging.getLogger(__name__)
# slack_sdk's webhook client logs the URL (a credential) in its retries and failures: silenced;
# respond() logs a failure itself, without the URL.
_WEBHOOK_LOG = logging.getLogger("bot.slack.webhook")
_WEBHOOK_LOG.setLevel(logging.CRITICAL + 1)
_WEBHOOK_LOG.propagate = False

Message = dict[str, Any]

#: Slack errors that mean "the bot cannot post in this conversation" (not a passing outage).
NO_ACCESS_ERRORS = frozenset({
    "not_in_channel", "channel_not_found", "is_archived", "restricted_action",
    "restricted_action_read_only_channel", "restricted_action_thread_only_channel",
    "restricted_action_non_threadable_channel", "ekm_access_denied", "team_access_not_granted",
})
#: ``ok: false`` answers after which Slack may or may not have done the work
#: (https://docs.slack.dev/reference/methods/chat.postMessage, "Errors").
UNKNOWN_ERRORS = frozenset({"internal_error", "fatal_error", "request_timeout"})
PASSING_ERRORS = UNKNOWN_ERRORS | {"ratelimited", "service_unavailable"}
#: Methods the client may simply send again after a connection error or a 5xx: their effect is
#: the same however often they run. Not ``chat.postMessage`` nor the file share (they would
#: post twice), and not ``chat.update`` either: the same payload sent again after a newer
#: turn's update would bring an older question back, so the sizing's message is retried by
#: ``bot/slack/flows/show.py`` with a fresh render.
IDEMPOTENT = frozenset({
    "auth.test", "chat.delete", "views.publish", "conversations.open",
    "conversations.info", "conversations.history", "conversations.replies", "users.info",
    "team.info", "files.getUploadURLExternal", "apps.connections.open", "files.info",
})
#: Why a shared file could not be read (a passing failure raises :class:`SlackDown`).
Unread = Literal["too_large", "refused"]


class SlackDown(Later):
    """Slack failed for a passing reason and what was asked is not settled: retry the turn
    later (the consumer keeps its entry pending)."""

    def __init__(self, method: str, error: str) -> None:
        super().__init__(f"{method}: {error}")
        self.method = method
        self.error = error


@dataclass(frozen=True)
class Failure:
    """How a call failed: Slack's error code (or the exception's name), whether the failure
    is passing (retry later) and whether Slack may have done the work anyway."""

    error: str
    passing: bool
    unknown: bool


@dataclass(frozen=True)
class Upload:
    """One file to share: its name (with extension), the title Slack shows, its bytes."""

    filename: str
    title: str
    content: bytes


def classify(exc: Exception) -> Failure:
    """What an exception from a slack_sdk call means (see the module docstring)."""
    if isinstance(exc, SlackApiError):
        status = int(getattr(exc.response, "status_code", 200) or 200)
        error = str(exc.response.get("error", "") or "unknown")
        if status == 429 or error == "ratelimited":
            return Failure("ratelimited", passing=True, unknown=False)
        if status >= 500:
            return Failure(f"http_{status}", passing=True, unknown=True)
        return Failure(error, passing=error in PASSING_ERRORS, unknown=error in UNKNOWN_ERRORS)
    if isinstance(exc, OSError | http.client.HTTPException):  # resets, timeouts, URLError
        return Failure(type(exc).__name__, passing=True, unknown=True)
    return Failure(type(exc).__name__, passing=False, unknown=False)


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
    def last_failure(self) -> Failure | None:
        failure: Failure | None = getattr(self._last, "failure", None)
        return failure

    @property
    def last_found(self) -> bool:
        """This thread's last :meth:`post` found the message already there (posted by an
        earlier attempt, maybe with what was true then) instead of posting it."""
        return bool(getattr(self._last, "found", False))

    @property
    def no_access(self) -> bool:
        """The last failure means the bot is not allowed to post there (invite it)."""
        return self.last_error in NO_ACCESS_ERRORS

    def call(self, method: str, **kwargs: Any) -> dict[str, Any] | None:
        """``method`` (``chat.postMessage``) with ``kwargs``; None after counting the failure
        (:attr:`last_failure` says what kind)."""
        self._last.error = None
        self._last.failure = None
        try:
            with metrics.slack_call(method):  # latency by method (bot/ops/metrics.py)
                resp = getattr(self.client, method.replace(".", "_"))(**kwargs)
            data = resp.data
            return dict(data) if isinstance(data, dict) else {}
        except Exception as exc:  # network errors after the retry handlers gave up, too
            failure = classify(exc)
        metrics.slack_api_error(method)
        self._last.error = failure.error
        self._last.failure = failure
        log.warning("slack api error",
                    extra={"json_fields": {"method": method, "error": failure.error[:200]}})
        return None

    def must(self, method: str, **kwargs: Any) -> dict[str, Any] | None:
        """:meth:`call` for a call that may simply be retried later: a passing failure raises
        :class:`SlackDown`; a refusal is None."""
        data = self.call(method, **kwargs)
        failure = self.last_failure
        if data is None and failure is not None and failure.passing:
            raise SlackDown(method, failure.error)
        return data

    # -- posts, never made twice ------------------------------------------------------------

    def find(self, channel: str, thread_ts: str | None, mid: str) -> str | None:
        """The ts of the message carrying ``mid`` already in the thread (channel), or None."""
        found = written.find_message(self.must, channel, thread_ts, mid, _since())
        ts = found.get("ts") if found else None
        return str(ts) if ts else None

    def post(self, channel: str, message: Message, thread_ts: str | None = None, *,
             mid: str, look_first: bool = False, **payload: str) -> str | None:
        """Post ``message`` carrying the id ``mid``; the new (or already posted) message's ts,
        or None when Slack refused it. ``look_first``: an earlier attempt may have posted it
        (always so in a replayed turn). ``payload``: more facts kept in its metadata."""
        self._last.found = False
        if look_first or work.current().replay:
            ts = self.find(channel, thread_ts, mid)
            if ts:
                self._last.found = True
                return ts
        args: dict[str, Any] = {"channel": channel, **message,
                                "metadata": written.metadata(mid, **payload)}
        if thread_ts:
            args["thread_ts"] = thread_ts
        error = "unknown"
        for _ in range(2):
            data = self.call("chat.postMessage", **args)
            failure = self.last_failure
            if data is not None:
                ts = data.get("ts")
                return str(ts) if ts else None
            if failure is None or not failure.passing:
                return None  # refused: nothing was posted
            if not failure.unknown:
                raise SlackDown("chat.postMessage", failure.error)
            error = failure.error
            ts = self.find(channel, thread_ts, mid)  # did Slack post it before failing?
            if ts:
                self._last.found = True
                return ts
        raise SlackDown("chat.postMessage", error)

    def found_payload(self, channel: str, thread_ts: str | None, mid: str) -> dict[str, Any] | None:
        """The metadata payload of the message carrying ``mid`` (facts an earlier attempt
        kept in it), or None when it is not there."""
        return written.payload_of(written.find_message(self.must, channel, thread_ts, mid,
                                                       _since()))

    def update(self, channel: str, ts: str, message: Message, *, mid: str | None = None,
               version: int | None = None, thread_ts: str | None = None) -> bool:
        """Update a message; False when Slack refused (deleted, too old to edit). A passing
        failure raises :class:`SlackDown` (the caller retries with a fresh render), except
        when the outcome was unknown and the message, read back, already carries this
        ``version`` in its metadata: then Slack did it."""
        args: dict[str, Any] = {"channel": channel, "ts": ts, **message}
        if mid is not None:
            args["metadata"] = written.metadata(
                mid, **({"v": str(version)} if version is not None else {}))
        if self.call("chat.update", **args) is not None:
            return True
        failure = self.last_failure
        if failure is None or not failure.passing:
            return False
        if failure.unknown and mid is not None and version is not None:
            payload = written.payload_of(written.read_message(self.must, channel, thread_ts, ts))
            if payload is not None and payload.get("id") == mid \
                    and payload.get("v") == str(version):
                return True
        raise SlackDown("chat.update", failure.error)

    def delete(self, channel: str, ts: str) -> bool:
        """Delete a message; True when it is gone (or was already)."""
        if self.call("chat.delete", channel=channel, ts=ts) is not None:
            return True
        return self.last_error == "message_not_found"

    def ephemeral(self, channel: str, user: str, message: Message,
                  thread_ts: str | None = None) -> bool:
        """A private note (never retried: a note that may have arrived is not sent twice)."""
        args: dict[str, Any] = {"channel": channel, "user": user, **message}
        if thread_ts:
            args["thread_ts"] = thread_ts
        return self.call("chat.postEphemeral", **args) is not None

    def publish_home(self, user: str, view: dict[str, Any]) -> None:
        self.must("views.publish", user_id=user, view=view)

    def open_dm(self, user: str) -> str | None:
        """The DM channel id with ``user`` (conversations.open), or None."""
        data = self.must("conversations.open", users=user) or {}
        channel = data.get("channel")
        ident = channel.get("id") if isinstance(channel, dict) else None
        return str(ident) if ident else None

    def user_info(self, user: str) -> dict[str, Any] | None:
        data = self.must("users.info", user=user) or {}
        info = data.get("user")
        return info if isinstance(info, dict) else None

    def channel_info(self, channel: str) -> dict[str, Any] | None:
        data = self.must("conversations.info", channel=channel) or {}
        info = data.get("channel")
        return info if isinstance(info, dict) else None

    def open_view(self, trigger_id: str, view: dict[str, Any]) -> str | None:
        """Open a modal for the person whose click gave ``trigger_id`` (Slack accepts it for
        3 seconds after the click: ``expired_trigger_id`` after that); the view's id, or None.
        Never put off: a later attempt could not use the trigger any more."""
        data = self.call("views.open", trigger_id=trigger_id, view=view) or {}
        opened = data.get("view")
        ident = opened.get("id") if isinstance(opened, dict) else None
        return str(ident) if ident else None

    def upload(self, channel: str, files: Sequence[Upload], *, thread_ts: str | None = None,
               comment: str | None = None) -> list[str] | None:
        """Share ``files`` in ``channel`` as one message (in the thread of ``thread_ts``) with
        slack_sdk's ``files_upload_v2``: ``files.getUploadURLExternal`` per file, the bytes
        POSTed to each returned URL, then one ``files.completeUploadExternal``. The upload
        URLs are credentials of sorts: never logged (a failure logs only its kind). After an
        unknown outcome (or in a replayed turn) the files are looked for by name before they
        are shared again. The shared files' ids, or None when Slack refused."""
        names = {f.filename for f in files}
        if work.current().replay:
            ids = written.find_files(self.must, channel, thread_ts, names, _since())
            if ids:
                return ids
        error = "unknown"
        for _ in range(2):
            data = self.call(
                "files_upload_v2",
                file_uploads=[{"content": f.content, "filename": f.filename, "title": f.title}
                              for f in files],
                channel=channel, thread_ts=thread_ts, initial_comment=comment)
            failure = self.last_failure
            if data is not None:
                shared = data.get("files")
                return [str(f.get("id")) for f in shared if isinstance(f, dict)] \
                    if isinstance(shared, list) else []
            if failure is None or not failure.passing:
                return None
            if not failure.unknown:
                raise SlackDown("files.completeUploadExternal", failure.error)
            error = failure.error
            ids = written.find_files(self.must, channel, thread_ts, names, _since())
            if ids:
                return ids
        raise SlackDown("files.completeUploadExternal", error)

    def file_info(self, file_id: str) -> SharedFile | None:
        """``files.info``: what an event did not say of a file (Slack Connect sends only its
        id, ``file_access: check_file_info``); None when Slack refused."""
        return shared_file((self.must("files.info", file=file_id) or {}).get("file"))

    def download(self, url: str, *, limit: int) -> bytes | Unread:
        """A shared file's bytes, with the bot token (``files:read``), at most ``limit`` of
        them. ``refused``: Slack would not give it (401/403/404, a redirect to its sign-in
        page), or the URL is not Slack's (no request is made: the token never leaves Slack).
        A 429, a 5xx, a reset or a timeout raise :class:`SlackDown`: the turn is retried.
        Neither the URL (it names the file) nor the token nor the content is ever logged."""
        token = self.client.token
        if not token or not filebytes.allowed(url, self.client.base_url):
            self._download_failed("not_allowed")
            return "refused"
        try:
            with metrics.slack_call("files.download"):
                return filebytes.get(url, token, limit=limit, context=self.client.ssl,
                                     proxy=self.client.proxy)
        except filebytes.TooLarge:
            return "too_large"
        except filebytes.Refused as exc:
            self._download_failed(error := f"http_{exc.status}")
            if exc.status == 429 or exc.status >= 500:
                raise SlackDown("files.download", error) from None
            return "refused"
        except (OSError, http.client.HTTPException) as exc:  # resets, timeouts, bad answers
            self._download_failed(type(exc).__name__)
            raise SlackDown("files.download", type(exc).__name__) from None
        except ValueError:  # a URL urllib cannot open
            self._download_failed("bad_url")
            return "refused"

    def _download_failed(self, error: str) -> None:
        metrics.slack_api_error("files.download")
        log.warning("slack file download failed",
                    extra={"json_fields": {"method": "files.download", "error": error[:200]}})

    def respond(self, response_url: str, message: Message) -> bool:
        """Answer a slash command privately through its ``response_url``; False if that failed.

        The URL is a credential of sorts (anyone holding it may post): it is never logged.
        """
        try:
            hook = WebhookClient(response_url, timeout=5, ssl=self.client.ssl,
                                 proxy=self.client.proxy, logger=_WEBHOOK_LOG)
            with metrics.slack_call("response_url"):
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


def _since() -> float:
    """How far back a lookup reads: from when the running delivery was recorded."""
    return min(work.current().queued_at, time.time())
