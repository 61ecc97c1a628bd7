"""The Slack Web API as the flows use it: one place for calls, errors, metrics, and for
writes that are never made twice.

Why a wrapper: every call after the ack can fail (an outage, rate limits beyond the retries,
a channel the bot is not in), and a failure must never reach Bolt unexplained nor be lost:
each failure is counted (``slack_api_error``), logged as one line with Slack's error code
(never a token, a body or a response URL), and raised as what it means
(``bot/slack/errors.py``: refused, passing, unknown), so a flow can tell "invite me" from
"Slack is down" by catching one kind.

What a failure means decides what happens next:

* **refused** (:class:`~bot.slack.errors.SlackRefused`): nothing was done; the flow says so;
* **passing, not done** (:class:`~bot.slack.errors.SlackPassing`, a 429 beyond slack_sdk's
  retries: a 429 means "not processed"): the turn is put off and retried
  (``bot/ops/consumer.py``);
* **unknown** (:class:`~bot.slack.errors.SlackUnknown`, a connection reset, a timeout, a 5xx,
  ``internal_error``, an answer too late): Slack may have done it. Idempotent calls
  (``views.publish``, reads) are retried by the client and later; ``chat.update`` is retried
  by its caller with the state rendered afresh (``bot/slack/flows/show.py``). A post or an
  upload is never blindly retried: :meth:`SlackApi._write_once` looks for it first (a post
  carries its own id in message metadata, an upload its file names, ``bot/slack/written.py``)
  and writes only if absent. When even the lookup fails, the turn is put off: the retry looks
  first too, because a turn that is a replay (``bot/slack/work.py``) always looks before it
  writes.

slack_sdk's own retry handlers (``bot/slack/app.py``) retry 429s for every method (a 429 is not
processed), connection errors and 5xx only for :data:`IDEMPOTENT` methods.

A shared file is read with :meth:`SlackApi.download` (its transport, ``bot/slack/filebytes.py``,
sends the bot token to Slack's own hosts only); a refusal (403, 404, a redirect to the sign-in
page) is the flow's to say, a passing failure is raised as for any read.

A slash command's ``response_url`` is answered through slack_sdk's ``WebhookClient``, so a
:class:`~bot.slack.payloads.Delivery` carries only the URL (plain data a queue can hold).
"""

from __future__ import annotations

import http.client
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from slack_sdk import WebClient
from slack_sdk.webhook import WebhookClient

from bot.ops import metrics
from bot.slack import filebytes, work, written
from bot.slack.errors import SlackPassing, SlackRefused, SlackUnknown, error_of
from bot.slack.payloads import SharedFile, shared_file

log = logging.getLogger(__name__)
# slack_sdk's webhook client logs the URL (a credential) in its retries and failures: silenced;
# respond() logs a failure itself, without the URL.
_WEBHOOK_LOG = logging.getLogger("bot.slack.webhook")
_WEBHOOK_LOG.setLevel(logging.CRITICAL + 1)
_WEBHOOK_LOG.propagate = False

Message = dict[str, Any]
T = TypeVar("T")

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
#: Why a shared file could not be read (a passing failure raises).
Unread = Literal["too_large", "refused"]


@dataclass(frozen=True)
class Posted:
    """A message that is in Slack: its ``ts``; ``found``: posted by an earlier attempt (it may
    show what was true then) rather than by this call."""

    ts: str
    found: bool = False


@dataclass(frozen=True)
class Upload:
    """One file to share: its name (with extension), the title Slack shows, its bytes."""

    filename: str
    title: str
    content: bytes


class SlackApi:
    """The bot's Web API calls; each returns Slack's data or raises a
    :class:`~bot.slack.errors.SlackError` saying what the failure means."""

    def __init__(self, client: WebClient) -> None:
        self.client = client

    def call(self, method: str, **kwargs: Any) -> dict[str, Any]:
        """``method`` (``chat.postMessage``) with ``kwargs``: Slack's data; a failure is
        counted, logged and raised as what it means."""
        try:
            with metrics.slack_call(method):  # latency by method (bot/ops/metrics.py)
                resp = getattr(self.client, method.replace(".", "_"))(**kwargs)
            data = resp.data
            return dict(data) if isinstance(data, dict) else {}
        except Exception as exc:  # network errors after the retry handlers gave up, too
            failure = error_of(method, exc)
        metrics.slack_api_error(method)
        log.warning("slack api error",
                    extra={"json_fields": {"method": method, "error": failure.error[:200]}})
        raise failure from None

    def _read(self, method: str, **kwargs: Any) -> dict[str, Any] | None:
        """A lookup's read (``bot/slack/written.py``): a refused read finds nothing (None); a
        passing failure raises, so the turn is retried rather than written blindly."""
        try:
            return self.call(method, **kwargs)
        except SlackRefused:
            return None

    # -- writes, never made twice -----------------------------------------------------------

    @staticmethod
    def _write_once(method: str, write: Callable[[], T], look: Callable[[], T | None], *,
                    look_first: bool) -> tuple[T, bool]:
        """``write()`` once, whatever fails: look for an earlier attempt's write first when
        ``look_first``, and again after each unknown outcome (Slack may have done it) before
        writing again. What was written (or found) and whether it was found; a refusal or a
        passing failure that was not processed is raised as is; an unknown outcome whose
        lookup found nothing, twice, raises :class:`SlackUnknown` (the turn's retry looks
        first too)."""
        if look_first:
            got = look()
            if got:
                return got, True
        error = "unknown"
        for _ in range(2):
            try:
                return write(), False
            except SlackUnknown as exc:
                error = exc.error
            got = look()  # did Slack do it before failing?
            if got:
                return got, True
        raise SlackUnknown(method, error)

    def find(self, channel: str, thread_ts: str | None, mid: str) -> str | None:
        """The ts of the message carrying ``mid`` already in the thread (channel), or None."""
        found = written.find_message(self._read, channel, thread_ts, mid, _since())
        ts = found.get("ts") if found else None
        return str(ts) if ts else None

    def post(self, channel: str, message: Message, thread_ts: str | None = None, *,
             mid: str, look_first: bool = False, **payload: str) -> Posted:
        """Post ``message`` carrying the id ``mid``: the new (or already posted) message.
        ``look_first``: an earlier attempt may have posted it (always so in a replayed turn).
        ``payload``: more facts kept in its metadata."""
        args: dict[str, Any] = {"channel": channel, **message,
                                "metadata": written.metadata(mid, **payload)}
        if thread_ts:
            args["thread_ts"] = thread_ts

        def write() -> str:
            return str(self.call("chat.postMessage", **args).get("ts") or "")

        ts, found = self._write_once("chat.postMessage", write,
                                     lambda: self.find(channel, thread_ts, mid),
                                     look_first=look_first or work.current().replay)
        return Posted(ts, found)

    def found_payload(self, channel: str, thread_ts: str | None, mid: str) -> dict[str, Any] | None:
        """The metadata payload of the message carrying ``mid`` (facts an earlier attempt
        kept in it), or None when it is not there."""
        return written.payload_of(written.find_message(self._read, channel, thread_ts, mid,
                                                       _since()))

    def update(self, channel: str, ts: str, message: Message, *, mid: str | None = None,
               version: int | None = None, thread_ts: str | None = None) -> None:
        """Update a message; :class:`SlackRefused` when Slack will not (deleted, too old to
        edit). A passing failure is raised (the caller retries with a fresh render), except
        when the outcome was unknown and the message, read back, already carries this
        ``version`` in its metadata: then Slack did it."""
        args: dict[str, Any] = {"channel": channel, "ts": ts, **message}
        if mid is not None:
            args["metadata"] = written.metadata(
                mid, **({"v": str(version)} if version is not None else {}))
        try:
            self.call("chat.update", **args)
        except SlackUnknown:
            if mid is None or version is None:
                raise
            payload = written.payload_of(written.read_message(self._read, channel, thread_ts,
                                                              ts))
            if payload is None or payload.get("id") != mid or payload.get("v") != str(version):
                raise

    def delete(self, channel: str, ts: str) -> None:
        """Delete a message; returns once it is gone (or was already)."""
        try:
            self.call("chat.delete", channel=channel, ts=ts)
        except SlackRefused as exc:
            if exc.error != "message_not_found":
                raise

    def ephemeral(self, channel: str, user: str, message: Message,
                  thread_ts: str | None = None) -> None:
        """A private note. Its caller never retries it: a note that may have arrived is not
        sent twice."""
        args: dict[str, Any] = {"channel": channel, "user": user, **message}
        if thread_ts:
            args["thread_ts"] = thread_ts
        self.call("chat.postEphemeral", **args)

    def publish_home(self, user: str, view: dict[str, Any]) -> None:
        self.call("views.publish", user_id=user, view=view)

    def open_dm(self, user: str) -> str:
        """The DM channel id with ``user`` (conversations.open)."""
        channel = self.call("conversations.open", users=user).get("channel")
        ident = channel.get("id") if isinstance(channel, dict) else None
        if not ident:
            raise SlackRefused("conversations.open", "no_channel")
        return str(ident)

    def user_info(self, user: str) -> dict[str, Any]:
        info = self.call("users.info", user=user).get("user")
        return info if isinstance(info, dict) else {}

    def channel_info(self, channel: str) -> dict[str, Any]:
        info = self.call("conversations.info", channel=channel).get("channel")
        return info if isinstance(info, dict) else {}

    def open_view(self, trigger_id: str, view: dict[str, Any]) -> str:
        """Open a modal for the person whose click gave ``trigger_id`` (Slack accepts it for
        3 seconds after the click: ``expired_trigger_id`` after that); the view's id. Its
        caller never puts it off: a later attempt could not use the trigger any more."""
        opened = self.call("views.open", trigger_id=trigger_id, view=view).get("view")
        ident = opened.get("id") if isinstance(opened, dict) else None
        if not ident:
            raise SlackRefused("views.open", "no_view")
        return str(ident)

    def upload(self, channel: str, files: Sequence[Upload], *, thread_ts: str | None = None,
               comment: str | None = None) -> list[str]:
        """Share ``files`` in ``channel`` as one message (in the thread of ``thread_ts``) with
        slack_sdk's ``files_upload_v2``: ``files.getUploadURLExternal`` per file, the bytes
        POSTed to each returned URL, then one ``files.completeUploadExternal``. The upload
        URLs are credentials of sorts: never logged (a failure logs only its kind). After an
        unknown outcome (or in a replayed turn) the files are looked for by name before they
        are shared again. The shared files' ids."""
        names = {f.filename for f in files}

        def write() -> list[str]:
            shared = self.call(
                "files_upload_v2",
                file_uploads=[{"content": f.content, "filename": f.filename, "title": f.title}
                              for f in files],
                channel=channel, thread_ts=thread_ts, initial_comment=comment).get("files")
            return [str(f.get("id")) for f in shared if isinstance(f, dict)] \
                if isinstance(shared, list) else []

        def look() -> list[str] | None:
            return written.find_files(self._read, channel, thread_ts, names, _since())

        ids, _found = self._write_once("files.completeUploadExternal", write, look,
                                       look_first=work.current().replay)
        return ids

    def file_info(self, file_id: str) -> SharedFile | None:
        """``files.info``: what an event did not say of a file (Slack Connect sends only its
        id, ``file_access: check_file_info``); None when its answer holds no file."""
        return shared_file(self.call("files.info", file=file_id).get("file"))

    def download(self, url: str, *, limit: int) -> bytes | Unread:
        """A shared file's bytes, with the bot token (``files:read``), at most ``limit`` of
        them. ``refused``: Slack would not give it (401/403/404, a redirect to its sign-in
        page), or the URL is not Slack's (no request is made: the token never leaves Slack).
        A 429, a 5xx, a reset or a timeout raise :class:`SlackPassing`: the turn is retried.
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
            if exc.status == 429:
                raise SlackPassing("files.download", error) from None
            if exc.status >= 500:
                raise SlackUnknown("files.download", error) from None
            return "refused"
        except (OSError, http.client.HTTPException) as exc:  # resets, timeouts, bad answers
            self._download_failed(type(exc).__name__)
            raise SlackUnknown("files.download", type(exc).__name__) from None
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
