"""A local fake of Slack's Socket Mode endpoint, on the ``websockets`` package's server.

Why a real WebSocket server: the bot's Socket Mode path is Bolt's ``SocketModeHandler`` around
slack_sdk's built-in client (``slack_sdk/socket_mode/builtin``), which opens a raw TCP socket,
does the HTTP Upgrade handshake itself, masks its frames, answers pings and reconnects on a
``disconnect`` message. Only a server speaking RFC 6455 on a real port exercises all of that;
the protocol is the ``websockets`` library's (a dev dependency, as bolt-python's own tests use
a library server, docs/slack.md §1.6), this module only plays Slack's part.

How it fits with :class:`tests.fakeslack.FakeSlack`: :meth:`FakeSocket.attach` routes the fake
Web API's ``apps.connections.open`` here. Called with the app-level token it answers
``{"ok": true, "url": "ws://127.0.0.1:<port>/link/?ticket=…"}`` (any other token:
``invalid_auth``, as Slack does); each ticket is good for one connection (a reused or unknown
one is refused with 401 at the handshake). On connect the fake sends ``hello``; then the test
pushes envelopes the way Slack does and reads the acks back::

    sock = FakeSocket().start().attach(fake)
    ... start the bot with SLACK_APP_TOKEN=sock.app_token, SLACK_API_URL=fake.url ...
    sock.wait_connections(1)
    eid = sock.slash_command(command_form("/gpu-sizing", "70b"))
    sock.wait_ack(eid)
    sock.refresh()               # {"type": "disconnect", "reason": "refresh_requested"}
    sock.wait_connections(2)     # the client asked apps.connections.open again and reconnected
    sock.stop()

After a ``refresh()`` the old connection is closed by the server as soon as the client's new
connection has been sent its hello (Slack drops the old one a little later; sooner keeps tests
quick).
"""

from __future__ import annotations

import itertools
import json
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qs, urlparse

from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response
from websockets.sync.server import Server, ServerConnection, serve

from tests.fakeslack import FakeSlack

CLOSE_TIMEOUT_S = 0.5  # slack_sdk's built-in client never answers a close frame


@dataclass
class Received:
    """A text message the client sent (an ack, or anything else), on which connection."""

    conn: int
    text: str
    data: dict[str, Any] | None
    at: float = field(default_factory=time.monotonic)


class Connection:
    """One accepted WebSocket connection, as the test sees it."""

    def __init__(self, ws: ServerConnection, number: int, ticket: str, path: str) -> None:
        self.ws = ws
        self.number = number
        self.ticket = ticket
        self.path = path
        self.open = True
        self.closed_by: str | None = None  # "server", "client" or "eof"
        self.refresh_requested = False
        self._pongs: dict[bytes, threading.Event] = {}

    def send_json(self, message: dict[str, Any]) -> None:
        self.ws.send(json.dumps(message))

    def ping(self, payload: bytes = b"fake-ping") -> None:
        """Ping as Slack does; the client must answer with a pong of the same payload."""
        self._pongs[payload] = self.ws.ping(payload)

    def ponged(self, payload: bytes) -> bool:
        event = self._pongs.get(payload)
        return event is not None and event.is_set()

    def close(self, code: int = 1000, reason: str = "") -> None:
        if self.open and self.closed_by is None:
            self.closed_by = "server"
        self.ws.close(code, reason)


class FakeSocket:
    """Slack's Socket Mode side: tickets, WebSocket connections, envelopes and their acks."""

    def __init__(self, *, app_token: str = "xapp-1-AAPP0001-1-fakesocket",
                 app_id: str = "AAPP0001") -> None:
        self.app_token = app_token
        self.app_id = app_id
        self._cond = threading.Condition()
        self._tickets: dict[str, bool] = {}  # ticket -> used
        self.connections: list[Connection] = []
        self.refused: list[str] = []  # paths of handshakes refused (bad or reused ticket)
        self.received: list[Received] = []
        self.acks: dict[str, dict[str, Any]] = {}
        self.sent: dict[str, dict[str, Any]] = {}  # envelope_id -> envelope pushed
        self._numbers = itertools.count(1)
        self._server: Server | None = None
        self._thread: threading.Thread | None = None

    # -------------------------------------------------------------- lifecycle

    def start(self) -> FakeSocket:
        self._server = serve(self._serve, "127.0.0.1", 0, process_request=self._check,
                             ping_interval=None, close_timeout=CLOSE_TIMEOUT_S, compression=None)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True,
                                        name="fakesocket")
        self._thread.start()
        return self

    def attach(self, slack: FakeSlack) -> FakeSocket:
        """Answer ``apps.connections.open`` on the fake Web API from here."""
        slack.routes["apps.connections.open"] = self.connections_open
        return self

    def stop(self) -> None:
        for conn in list(self.connections):
            if conn.open:
                conn.close(1001, "going away")
        if self._server is not None:
            self._server.shutdown()
        if self._thread is not None:
            self._thread.join(timeout=5)

    @property
    def port(self) -> int:
        assert self._server is not None, "start() the fake first"
        return int(self._server.socket.getsockname()[1])

    # -------------------------------------------------------------- apps.connections.open

    def connections_open(self, token: str, params: dict[str, Any]) -> dict[str, Any]:
        """The Web API method: a fresh single-use WebSocket URL for the app-level token."""
        if token != self.app_token:
            return {"ok": False, "error": "invalid_auth"}
        ticket = str(uuid.uuid4())
        with self._cond:
            self._tickets[ticket] = False
        return {"ok": True,
                "url": f"ws://127.0.0.1:{self.port}/link/?ticket={ticket}&app_id={self.app_id}"}

    # -------------------------------------------------------------- serving

    def _check(self, ws: ServerConnection, request: Request) -> Response | None:
        """The handshake: a known, unused ticket on ``/link``; anything else is refused."""
        url = urlparse(request.path)
        ticket = (parse_qs(url.query).get("ticket") or [""])[0]
        with self._cond:
            valid = url.path.startswith("/link") and self._tickets.get(ticket) is False
            if valid:
                self._tickets[ticket] = True
            else:
                self.refused.append(request.path)
                self._cond.notify_all()
        return None if valid else ws.respond(HTTPStatus.UNAUTHORIZED, "invalid ticket\n")

    def _serve(self, ws: ServerConnection) -> None:
        assert ws.request is not None
        path = ws.request.path
        ticket = (parse_qs(urlparse(path).query).get("ticket") or [""])[0]
        conn = Connection(ws, next(self._numbers), ticket, path)
        with self._cond:
            live = [c for c in self.connections if c.open]
        conn.send_json({"type": "hello", "num_connections": len(live) + 1,
                        "debug_info": {"host": "applink-fake", "build_number": 1,
                                       "approximate_connection_time": 18060},
                        "connection_info": {"app_id": self.app_id}})
        with self._cond:
            self.connections.append(conn)
            stale = [c for c in self.connections if c.refresh_requested and c.open]
            self._cond.notify_all()
        for old in stale:  # the refresh is done: Slack drops the connection it asked to leave
            old.close(1000, "refreshed")
        try:
            for message in ws:
                if isinstance(message, str):
                    self._received(conn, message)
        except ConnectionClosed:
            pass
        finally:
            with self._cond:
                conn.open = False
                if conn.closed_by is None:
                    conn.closed_by = "client" if ws.protocol.close_rcvd is not None else "eof"
                self._cond.notify_all()

    def _received(self, conn: Connection, text: str) -> None:
        data: dict[str, Any] | None = None
        try:
            loaded = json.loads(text)
            data = loaded if isinstance(loaded, dict) else None
        except ValueError:
            pass
        with self._cond:
            self.received.append(Received(conn.number, text, data))
            if data is not None and isinstance(data.get("envelope_id"), str):
                self.acks.setdefault(data["envelope_id"], {**data, "_conn": conn.number})
            self._cond.notify_all()

    # -------------------------------------------------------------- driving

    @property
    def current(self) -> Connection:
        """The newest open connection (where Slack would send the next envelope)."""
        with self._cond:
            live = [c for c in self.connections if c.open and not c.refresh_requested]
        if not live:
            raise AssertionError("no open Socket Mode connection")
        return live[-1]

    def push(self, kind: str, payload: dict[str, Any], *, accepts_response_payload: bool = False,
             conn: Connection | None = None, **extra: Any) -> str:
        """Send one envelope; returns its ``envelope_id``."""
        envelope_id = str(uuid.uuid4())
        envelope = {"envelope_id": envelope_id, "payload": payload, "type": kind,
                    "accepts_response_payload": accepts_response_payload, **extra}
        with self._cond:
            self.sent[envelope_id] = envelope
        (conn or self.current).send_json(envelope)
        return envelope_id

    def slash_command(self, form: dict[str, str], **kw: Any) -> str:
        """A slash command: the same fields as the HTTP form, as a JSON object."""
        return self.push("slash_commands", dict(form), accepts_response_payload=True, **kw)

    def interactive(self, payload: dict[str, Any], **kw: Any) -> str:
        """``block_actions``, ``view_submission``, … (only views accept a response payload)."""
        accepts = payload.get("type") in ("view_submission", "block_suggestion")
        return self.push("interactive", payload, accepts_response_payload=accepts, **kw)

    def events_api(self, envelope: dict[str, Any], *, retry_attempt: int = 0,
                   retry_reason: str = "", **kw: Any) -> str:
        """An ``event_callback``; Slack sends ``retry_attempt`` 0 and ``""`` on first delivery."""
        return self.push("events_api", envelope, retry_attempt=retry_attempt,
                         retry_reason=retry_reason, **kw)

    def refresh(self, conn: Connection | None = None) -> Connection:
        """Ask the client to move to a new connection, as Slack does regularly."""
        conn = conn or self.current
        conn.send_json({"type": "disconnect", "reason": "refresh_requested",
                        "debug_info": {"host": "applink-fake"}})
        with self._cond:
            conn.refresh_requested = True
            self._cond.notify_all()
        return conn

    # -------------------------------------------------------------- waiting

    def _wait(self, ready: Callable[[], Any], what: str, timeout: float) -> Any:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                value = ready()
                if value:
                    return value
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"timed out after {timeout}s waiting for {what}")
                self._cond.wait(min(left, 0.05))

    def wait_connections(self, count: int = 1, timeout: float = 10.0) -> Connection:
        """Wait until ``count`` connections have been accepted in all; return the newest."""
        conn: Connection = self._wait(
            lambda: self.connections[count - 1] if len(self.connections) >= count else None,
            f"{count} connection(s)", timeout)
        return conn

    def wait_ack(self, envelope_id: str, timeout: float = 5.0) -> dict[str, Any]:
        ack: dict[str, Any] = self._wait(lambda: self.acks.get(envelope_id),
                                         f"the ack of {envelope_id}", timeout)
        return ack

    def wait_closed(self, conn: Connection, timeout: float = 5.0) -> None:
        self._wait(lambda: not conn.open, f"connection {conn.number} to close", timeout)

    def wait_pong(self, conn: Connection, payload: bytes, timeout: float = 5.0) -> None:
        self._wait(lambda: conn.ponged(payload), "a pong", timeout)
