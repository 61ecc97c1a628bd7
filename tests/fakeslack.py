"""A local fake of the Slack Web API, for tests that run the real Bolt app and WebClient.

Why a real HTTP server (not mocks): the app under test talks to it through slack_sdk's own
``WebClient`` (``SLACK_API_URL`` points here), so the encoding of every call, the retry
handlers (429 + ``Retry-After``) and Bolt's start-up ``auth.test`` are all exercised as in
production. The technique is the one bolt-python's own suite uses (docs/slack.md §1.6).

Usage::

    fake = FakeSlack().start()
    settings = Settings(slack_api_url=fake.url, ...)
    ...
    fake.wait_for("chat.postMessage", count=1)
    fake.calls("chat.update")[-1].params["blocks"]
    fake.rate_limit("chat.postMessage", times=1, retry_after=1)
    fake.delay("chat.postMessage", 0.5)
    fake.stop()

Every call is recorded (method, params merged from query, form and JSON body, headers).
Messages are kept per channel, with their ``metadata``, so ``chat.update`` of an unknown ``ts``
fails like Slack's and ``conversations.history`` / ``conversations.replies`` answer as Slack
does (newest first, ``oldest`` and ``limit`` honoured, metadata only with
``include_all_metadata``; shared files appear as messages with ``files``). A message's ``ts``
is the wall clock, as Slack's is, so lookups bounded by time work. ``response_url`` posts
(Bolt's ``respond()``) go to ``{base}response/<anything>`` and are recorded under the method
name ``response_url``. Modals and file uploads (``views.open``, ``files_upload_v2``'s three
steps) are served by ``fake.files`` (``tests/fakefiles.py``); files people share (private
URLs, ``files.info``) by ``fake.downloads`` (``tests/fakedownloads.py``).

Faults (``tests/fakefaults.py``), per method for a number of calls or for a window
(``fake.mode``): 429s, 5xx pages, ``ok: false``, hangs, delays, and the two a client cannot
see through: the work done but the connection reset (``reset_connection``), or done but
answered too late (``late``). ``bench/faults.py`` drives the same fake.
"""

from __future__ import annotations

import contextlib
import json
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlparse

from tests.fakedownloads import PREFIX, FakeDownloads
from tests.fakefaults import Faults
from tests.fakefiles import FakeFiles
from tests.fakehistory import listing

JSON_FIELDS = ("blocks", "view", "attachments", "metadata")


@dataclass
class Call:
    """One request the fake received."""

    method: str
    params: dict[str, Any]
    headers: dict[str, str]
    at: float = field(default_factory=time.monotonic)
    status: int = 200  # the HTTP status (429 when rate limited)
    ok: bool = True  # the body's "ok" (Slack answers errors with HTTP 200 and ok: false)
    path: str = ""  # a response_url post: the name after /response/


class FakeSlack(Faults):
    """A ThreadingHTTPServer on a free port answering the Web API methods the bot uses (its
    faults, set with :class:`~tests.fakefaults.Faults`' methods, apply to every call)."""

    def __init__(
        self,
        *,
        bot_token: str = "xoxb-test-token",
        bot_user_id: str = "UBOT0001",
        bot_id: str = "BBOT0001",
        team_id: str = "TINT0001",
    ) -> None:
        self.bot_token = bot_token
        self.bot_user_id = bot_user_id
        self.bot_id = bot_id
        self.team_id = team_id
        super().__init__()
        self._lock = threading.Lock()
        self._calls: list[Call] = []
        self._cond = threading.Condition(self._lock)
        # method -> answer(token, params): a method another fake serves with its own token
        # check (tests/fakesocket.py answers apps.connections.open for the app-level token)
        self.routes: dict[str, Callable[[str, dict[str, Any]], dict[str, Any]]] = {}
        self._last_ts = 0.0
        self.users: dict[str, dict[str, Any]] = {}
        self.channels: dict[str, dict[str, Any]] = {}
        self.messages: dict[str, dict[str, dict[str, Any]]] = {}
        self.files = FakeFiles(self)  # views.open, files.getUploadURLExternal, ...
        self.downloads = FakeDownloads(self)  # files people share: private URLs, files.info
        complete = self.routes["files.completeUploadExternal"]

        def complete_and_stamp(token: str, p: dict[str, Any]) -> dict[str, Any]:
            """Shared files are one message of the channel (or thread): give it its ts."""
            result = complete(token, p)
            if result.get("ok") and p.get("channel_id"):
                ts = self._next_ts()
                for f in result.get("files") or []:
                    self.files.uploads[str(f["id"])]["ts"] = ts
            return result

        self.routes["files.completeUploadExternal"] = complete_and_stamp
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> FakeSlack:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                fake._handle(self)

            def do_POST(self) -> None:
                fake._handle(self)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        # A client that gave up on a late answer (or a reset) is this fake's business.
        self._server.handle_error = lambda request, client_address: None  # type: ignore[method-assign]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeSlack:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "start() the fake first"
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """The base URL to give ``WebClient(base_url=...)`` / ``SLACK_API_URL``."""
        return f"http://127.0.0.1:{self.port}/api/"

    def response_url(self, name: str = "r") -> str:
        return f"http://127.0.0.1:{self.port}/response/{name}"

    # ------------------------------------------------------------------ configuration

    def add_user(self, user_id: str, team_id: str, **extra: Any) -> None:
        self.users[user_id] = {"id": user_id, "team_id": team_id, "name": user_id.lower(),
                               **extra}

    def add_channel(self, channel_id: str, **flags: Any) -> None:
        self.channels[channel_id] = {"id": channel_id, "name": channel_id.lower(), **flags}

    def reset(self) -> None:
        """Forget the calls recorded and every fault set."""
        self.clear_faults()
        with self._lock:
            self._calls.clear()

    # ------------------------------------------------------------------ inspection

    def calls(self, method: str | None = None) -> list[Call]:
        """Recorded calls (answered 200 or not), optionally of one method, in arrival order."""
        with self._lock:
            return [c for c in self._calls if method is None or c.method == method]

    def wait_for(
        self,
        method: str,
        count: int = 1,
        timeout: float = 10.0,
        where: Callable[[Call], bool] | None = None,
    ) -> list[Call]:
        """Wait until ``count`` successful calls of ``method`` (matching ``where``) arrived."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                found = [c for c in self._calls if c.method == method and c.status == 200
                         and c.ok and (where is None or where(c))]
                if len(found) >= count:
                    return found
                left = deadline - time.monotonic()
                if left <= 0:
                    seen = [c.method for c in self._calls]
                    raise AssertionError(
                        f"expected {count} call(s) of {method}, got {len(found)}; calls: {seen}"
                    )
                self._cond.wait(min(left, 0.05))

    def quiet(self, seconds: float = 0.3) -> None:
        """Wait until no call arrived for ``seconds`` (for asserting that nothing more happens).

        Always waits at least ``seconds`` from now: a request just sent may not have produced
        its first call yet, and "quiet since long ago" would pass without waiting for it.
        """
        since = time.monotonic()
        while True:
            with self._lock:
                last = max(self._calls[-1].at if self._calls else 0.0, since)
            idle = time.monotonic() - last
            if idle >= seconds:
                return
            time.sleep(seconds - idle)

    # ------------------------------------------------------------------ serving

    def _record(self, call: Call) -> None:
        with self._cond:
            self._calls.append(call)
            self._cond.notify_all()

    def _handle(self, req: BaseHTTPRequestHandler) -> None:
        parsed = urlparse(req.path)
        length = int(req.headers.get("Content-Length") or 0)
        raw = req.rfile.read(length) if length else b""
        if parsed.path.startswith(PREFIX):  # a shared file's private URL (fake.downloads)
            return self.downloads.serve(req, parsed.path)
        if parsed.path.startswith("/upload/"):  # files_upload_v2's raw bytes (fake.files)
            status = self.files.receive(parsed.path.removeprefix("/upload/"), raw)
            self._record(Call("upload", {"bytes": len(raw)}, {}, status=status, ok=status == 200))
            self._send_raw(req, status, b"OK" if status == 200 else b"error", "text/plain")
            return
        params: dict[str, Any] = dict(parse_qsl(parsed.query))
        ctype = req.headers.get("Content-Type") or ""
        if raw:
            if "json" in ctype:
                try:
                    body = json.loads(raw)
                    if isinstance(body, dict):
                        params.update(body)
                except ValueError:
                    pass
            else:
                params.update(dict(parse_qsl(raw.decode("utf-8"), keep_blank_values=True)))
        for name in JSON_FIELDS:
            if isinstance(params.get(name), str):
                with contextlib.suppress(ValueError):
                    params[name] = json.loads(params[name])
        headers = {k.lower(): v for k, v in req.headers.items()}
        path = parsed.path
        if path.startswith("/response/"):
            call = Call("response_url", params, headers, path=path.removeprefix("/response/"))
            delay = self.before("response_url").delay_s  # ``delay("response_url", ...)``
            if delay:
                time.sleep(delay)
            self._record(call)
            self._send(req, 200, {"ok": True})
            return
        method = path.removeprefix("/api/").strip("/")
        call = Call(method, params, headers)
        if self.window(method) == "slow":
            time.sleep(self.slow_s)
        fault = self.before(method)
        if fault.delay_s:
            time.sleep(fault.delay_s)
        if fault.hang_s:
            call.status, call.ok = 0, False
            self._record(call)
            time.sleep(fault.hang_s)
            with contextlib.suppress(OSError):
                self._send(req, 200, {"ok": False, "error": "timed_out_in_fake"})
            return
        if fault.status >= 500:
            call.status, call.ok = fault.status, False
            self._record(call)
            self._send_raw(req, fault.status, b"<html><body>Service Unavailable</body></html>",
                           "text/html")
            return
        if fault.status == 429:
            call.status, call.ok = 429, False
            self._record(call)
            self._send(req, 429, {"ok": False, "error": "ratelimited"},
                       {"Retry-After": str(fault.retry_after)})
            return
        auth = headers.get("authorization", "")
        token = auth.removeprefix("Bearer ").strip() or str(params.get("token", ""))
        route = self.routes.get(method)
        if token != self.bot_token and route is None:
            call.ok = False
            self._record(call)
            self._send(req, 200, {"ok": False, "error": "invalid_auth"})
            return
        if fault.error is not None:
            call.ok = False
            self._record(call)
            self._send(req, 200, {"ok": False, "error": fault.error})
            return
        result = route(token, params) if route else self._answer(method, params)
        call.ok = bool(result.get("ok"))
        self._record(call)
        after = self.after(method)
        if after == "reset":  # done, but the client is never told
            req.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                      struct.pack("ii", 1, 0))
            req.close_connection = True
            return
        if isinstance(after, float):  # done, and told too late
            time.sleep(after)
        with contextlib.suppress(OSError):
            self._send(req, 200, result)

    def _send(self, req: BaseHTTPRequestHandler, status: int, body: dict[str, Any],
              headers: dict[str, str] | None = None) -> None:
        self._send_raw(req, status, json.dumps(body).encode(), "application/json; charset=utf-8",
                       headers)

    def _send_raw(self, req: BaseHTTPRequestHandler, status: int, data: bytes, ctype: str,
                  headers: dict[str, str] | None = None) -> None:
        req.send_response(status)
        req.send_header("Content-Type", ctype)
        req.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            req.send_header(k, v)
        req.end_headers()
        req.wfile.write(data)

    def _next_ts(self) -> str:
        """The wall clock, strictly increasing (as Slack's ts are)."""
        with self._lock:
            self._last_ts = max(time.time(), self._last_ts + 0.000001)
            return f"{self._last_ts:.6f}"

    def _answer(self, method: str, p: dict[str, Any]) -> dict[str, Any]:
        if method == "auth.test":
            return {"ok": True, "url": "https://fake.slack.com/", "team": "Vendor",
                    "user": "gpu-sizing", "team_id": self.team_id, "user_id": self.bot_user_id,
                    "bot_id": self.bot_id, "is_enterprise_install": False}
        if method == "chat.postMessage":
            channel = str(p.get("channel", ""))
            if not channel:
                return {"ok": False, "error": "channel_not_found"}
            ts = self._next_ts()
            msg = {"ts": ts, "text": p.get("text"), "blocks": p.get("blocks"),
                   "thread_ts": p.get("thread_ts"), "user": self.bot_user_id,
                   "bot_id": self.bot_id}
            if isinstance(p.get("metadata"), dict):
                msg["metadata"] = p["metadata"]
            with self._lock:
                self.messages.setdefault(channel, {})[ts] = msg
            return {"ok": True, "channel": channel, "ts": ts, "message": msg}
        if method == "chat.update":
            channel, ts = str(p.get("channel", "")), str(p.get("ts", ""))
            with self._lock:
                current = self.messages.get(channel, {}).get(ts)
                if current is None:
                    return {"ok": False, "error": "message_not_found"}
                current.update({"text": p.get("text"), "blocks": p.get("blocks")})
                if isinstance(p.get("metadata"), dict):
                    current["metadata"] = p["metadata"]
            return {"ok": True, "channel": channel, "ts": ts, "text": p.get("text")}
        if method == "chat.delete":
            channel, ts = str(p.get("channel", "")), str(p.get("ts", ""))
            with self._lock:
                if self.messages.get(channel, {}).pop(ts, None) is None:
                    return {"ok": False, "error": "message_not_found"}
            return {"ok": True, "channel": channel, "ts": ts}
        if method == "conversations.history":
            return listing(self, p, None)
        if method == "conversations.replies":
            return listing(self, p, str(p.get("ts", "")))
        if method == "chat.postEphemeral":
            return {"ok": True, "message_ts": self._next_ts()}
        if method == "views.publish":
            return {"ok": True, "view": {"id": "VHOME", **(p.get("view") or {})}}
        if method == "users.info":
            user = self.users.get(str(p.get("user", "")))
            if user is None:
                return {"ok": False, "error": "user_not_found"}
            return {"ok": True, "user": user}
        if method == "conversations.info":
            ch = self.channels.get(str(p.get("channel", "")))
            if ch is None:
                return {"ok": False, "error": "channel_not_found"}
            return {"ok": True, "channel": ch}
        if method == "conversations.open":
            first = str(p.get("users", "")).split(",")[0]
            return {"ok": True, "channel": {"id": f"D{first[1:]}" if first else "DNONE"}}
        if method == "team.info":
            return {"ok": True, "team": {"id": p.get("team") or self.team_id, "name": "Team"}}
        return {"ok": True}
