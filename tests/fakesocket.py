"""A local fake of Slack's Socket Mode endpoint (a WebSocket server), standard library only.

Why a real WebSocket server: the bot's Socket Mode path is Bolt's ``SocketModeHandler`` around
slack_sdk's built-in client (``slack_sdk/socket_mode/builtin``), which opens a raw TCP socket,
does the HTTP Upgrade handshake itself, masks its frames, answers pings and reconnects on a
``disconnect`` message. Only a server speaking RFC 6455 on a real port exercises all of that.

How it fits with :class:`tests.fakeslack.FakeSlack`: :meth:`FakeSocket.attach` routes the fake
Web API's ``apps.connections.open`` here. Called with the app-level token it answers
``{"ok": true, "url": "ws://127.0.0.1:<port>/link/?ticket=…"}`` (any other token:
``invalid_auth``, as Slack does); each ticket is good for one connection. On connect the fake
sends ``hello``; then the test pushes envelopes the way Slack does and reads the acks back::

    sock = FakeSocket().start().attach(fake)
    ... start the bot with SLACK_APP_TOKEN=sock.app_token, SLACK_API_URL=fake.url ...
    sock.wait_connections(1)
    eid = sock.slash_command(command_form("/gpu-sizing", "70b"))
    sock.wait_ack(eid)
    sock.refresh()               # {"type": "disconnect", "reason": "refresh_requested"}
    sock.wait_connections(2)     # the client asked apps.connections.open again and reconnected
    sock.stop()

Frames: the server's are unmasked, the client's must be masked (a bare frame is a protocol
error, closed with 1002, as the RFC requires); fragmented messages are reassembled; pings are
answered with a pong carrying the same payload, pongs are recorded; a close frame is echoed.
After a ``refresh()`` the old connection is closed by the server as soon as the client's new
connection has said hello (Slack drops the old one a little later; sooner keeps tests quick).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import itertools
import json
import os
import socket
import struct
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlparse

from tests.fakeslack import FakeSlack

WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
OP_CONT, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA
MAX_MESSAGE = 1 << 24


def accept_key(key: str) -> str:
    """``Sec-WebSocket-Accept`` for a ``Sec-WebSocket-Key`` (RFC 6455 §4.2.2)."""
    return base64.b64encode(hashlib.sha1((key + WS_GUID).encode()).digest()).decode()


def encode_frame(opcode: int, payload: bytes, *, mask: bool = False, fin: bool = True) -> bytes:
    """One frame; servers send unmasked frames, clients masked ones (§5.1)."""
    head = bytes([(0x80 if fin else 0) | opcode])
    n = len(payload)
    bit = 0x80 if mask else 0
    if n <= 125:
        head += bytes([bit | n])
    elif n <= 0xFFFF:
        head += struct.pack("!BH", bit | 126, n)
    else:
        head += struct.pack("!BQ", bit | 127, n)
    if mask:
        key = os.urandom(4)
        payload = bytes(b ^ key[i % 4] for i, b in enumerate(payload))
        head += key
    return head + payload


class ProtocolError(Exception):
    """The peer broke RFC 6455 (the connection is closed with 1002)."""


@dataclass
class Received:
    """A text message the client sent (an ack, or anything else), on which connection."""

    conn: int
    text: str
    data: dict[str, Any] | None
    at: float = field(default_factory=time.monotonic)


class Connection:
    """One accepted WebSocket connection (server side)."""

    def __init__(self, server: FakeSocket, sock: socket.socket, number: int, ticket: str,
                 path: str) -> None:
        self.server = server
        self.sock = sock
        self.number = number
        self.ticket = ticket
        self.path = path
        self.open = True
        self.closed_by: str | None = None  # "server", "client" or "eof"
        self.close_code: int | None = None
        self.pongs: list[bytes] = []
        self.pings: list[bytes] = []  # pings the client sent (answered with pongs)
        self.refresh_requested = False
        self._send_lock = threading.Lock()
        self._buf = b""

    # -------------------------------------------------------------- sending

    def send_frame(self, opcode: int, payload: bytes) -> None:
        with self._send_lock:
            if not self.open:
                raise ConnectionError(f"connection {self.number} is closed")
            self.sock.sendall(encode_frame(opcode, payload))

    def send_json(self, message: dict[str, Any]) -> None:
        self.send_frame(OP_TEXT, json.dumps(message).encode())

    def ping(self, payload: bytes = b"fake-ping") -> None:
        self.send_frame(OP_PING, payload)

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Send a close frame and drop the TCP connection (the built-in client never answers
        a close frame, so waiting for its echo would only wait for a timeout)."""
        with contextlib.suppress(OSError, ConnectionError):
            self.send_frame(OP_CLOSE, struct.pack("!H", code) + reason.encode())
        self._drop("server", code)

    def _drop(self, by: str, code: int | None = None) -> None:
        with self._send_lock:
            if not self.open:
                return
            self.open = False
            self.closed_by, self.close_code = by, code
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self.sock.close()
        self.server._changed()

    # -------------------------------------------------------------- receiving

    def _read(self, n: int) -> bytes:
        while len(self._buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError
            self._buf += chunk
        out, self._buf = self._buf[:n], self._buf[n:]
        return out

    def _read_frame(self) -> tuple[bool, int, bytes]:
        b1, b2 = self._read(2)
        fin, opcode = bool(b1 & 0x80), b1 & 0x0F
        if b1 & 0x70:
            raise ProtocolError("reserved bits set without an extension")
        if not b2 & 0x80:
            raise ProtocolError("client frame not masked")
        n = b2 & 0x7F
        if n == 126:
            (n,) = struct.unpack("!H", self._read(2))
        elif n == 127:
            (n,) = struct.unpack("!Q", self._read(8))
        if n > MAX_MESSAGE:
            raise ProtocolError("frame too large")
        if opcode >= 0x8 and (n > 125 or not fin):
            raise ProtocolError("bad control frame")
        key = self._read(4)
        data = self._read(n)
        return fin, opcode, bytes(b ^ key[i % 4] for i, b in enumerate(data))

    def serve(self) -> None:
        """Read frames until the connection ends; answer pings, record texts and pongs."""
        parts: list[bytes] = []
        message_op: int | None = None
        try:
            while self.open:
                fin, opcode, data = self._read_frame()
                if opcode == OP_PING:
                    self.pings.append(data)
                    self.send_frame(OP_PONG, data)
                elif opcode == OP_PONG:
                    self.pongs.append(data)
                    self.server._changed()
                elif opcode == OP_CLOSE:
                    code = struct.unpack("!H", data[:2])[0] if len(data) >= 2 else 1005
                    with contextlib.suppress(OSError, ConnectionError):
                        self.send_frame(OP_CLOSE, data[:2])
                    self._drop("client", code)
                elif opcode in (OP_TEXT, OP_BINARY, OP_CONT):
                    if opcode == OP_CONT and message_op is None:
                        raise ProtocolError("continuation without a message")
                    if opcode != OP_CONT:
                        if message_op is not None:
                            raise ProtocolError("new message inside a fragmented one")
                        message_op = opcode
                    parts.append(data)
                    if fin:
                        payload = b"".join(parts)
                        parts, op, message_op = [], message_op, None
                        if op == OP_TEXT:
                            self.server._received(self, payload.decode("utf-8"))
                else:
                    raise ProtocolError(f"unknown opcode {opcode}")
        except ProtocolError:
            self.close(1002)
        except (EOFError, OSError, ConnectionError, UnicodeDecodeError):
            self._drop("eof")


class FakeSocket:
    """Slack's Socket Mode side: tickets, WebSocket connections, envelopes and their acks."""

    def __init__(self, *, app_token: str = "xapp-1-AAPP0001-1-fakesocket",
                 app_id: str = "AAPP0001") -> None:
        self.app_token = app_token
        self.app_id = app_id
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._tickets: dict[str, bool] = {}  # ticket -> used
        self.connections: list[Connection] = []
        self.refused: list[str] = []  # paths of handshakes refused (bad or reused ticket)
        self.received: list[Received] = []
        self.acks: dict[str, dict[str, Any]] = {}
        self.sent: dict[str, dict[str, Any]] = {}  # envelope_id -> envelope pushed
        self._numbers = itertools.count(1)
        self._listener: socket.socket | None = None
        self._threads: list[threading.Thread] = []
        self._stopping = threading.Event()

    # -------------------------------------------------------------- lifecycle

    def start(self) -> FakeSocket:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        listener.settimeout(0.1)
        self._listener = listener
        self._spawn(self._accept_loop, "fakesocket-accept")
        return self

    def attach(self, slack: FakeSlack) -> FakeSocket:
        """Answer ``apps.connections.open`` on the fake Web API from here."""
        slack.routes["apps.connections.open"] = self.connections_open
        return self

    def stop(self) -> None:
        self._stopping.set()
        for conn in list(self.connections):
            conn.close(1001, "going away")
        if self._listener is not None:
            with contextlib.suppress(OSError):
                self._listener.close()
        for t in self._threads:
            t.join(timeout=2)

    def __enter__(self) -> FakeSocket:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._listener is not None, "start() the fake first"
        return int(self._listener.getsockname()[1])

    def _spawn(self, target: Callable[..., None], name: str, *args: Any) -> None:
        t = threading.Thread(target=target, args=args, name=name, daemon=True)
        self._threads.append(t)
        t.start()

    # -------------------------------------------------------------- apps.connections.open

    def connections_open(self, token: str, params: dict[str, Any]) -> dict[str, Any]:
        """The Web API method: a fresh single-use WebSocket URL for the app-level token."""
        if token != self.app_token:
            return {"ok": False, "error": "invalid_auth"}
        ticket = str(uuid.uuid4())
        with self._lock:
            self._tickets[ticket] = False
        return {"ok": True,
                "url": f"ws://127.0.0.1:{self.port}/link/?ticket={ticket}&app_id={self.app_id}"}

    # -------------------------------------------------------------- serving

    def _accept_loop(self) -> None:
        assert self._listener is not None
        while not self._stopping.is_set():
            try:
                sock, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self._spawn(self._handshake, "fakesocket-conn", sock)

    def _handshake(self, sock: socket.socket) -> None:
        sock.settimeout(None)
        raw = b""
        try:
            sock.settimeout(5)
            while b"\r\n\r\n" not in raw:
                chunk = sock.recv(4096)
                if not chunk or len(raw) > 65536:
                    sock.close()
                    return
                raw += chunk
            sock.settimeout(None)
        except OSError:
            sock.close()
            return
        head, _, rest = raw.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        request_line = lines[0].split(" ")
        headers = {}
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if sep:
                headers[name.strip().lower()] = value.strip()
        path = request_line[1] if len(request_line) == 3 else ""
        url = urlparse(path)
        ticket = (parse_qs(url.query).get("ticket") or [""])[0]
        with self._lock:
            valid = self._tickets.get(ticket) is False
            if valid:
                self._tickets[ticket] = True
        problem = None
        if request_line[0] != "GET" or not url.path.startswith("/link"):
            problem = "404 Not Found"
        elif headers.get("upgrade", "").lower() != "websocket" or \
                "upgrade" not in headers.get("connection", "").lower() or \
                headers.get("sec-websocket-version") != "13" or \
                len(base64.b64decode(headers.get("sec-websocket-key", "") + "==")) != 16:
            problem = "400 Bad Request"
        elif not valid:
            problem = "401 Unauthorized"
        if problem is not None:
            with self._cond:
                self.refused.append(path)
                self._cond.notify_all()
            with contextlib.suppress(OSError):
                sock.sendall(f"HTTP/1.1 {problem}\r\nContent-Length: 0\r\n"
                             "Connection: close\r\n\r\n".encode())
            sock.close()
            return
        sock.sendall(("HTTP/1.1 101 Switching Protocols\r\n"
                      "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Accept: {accept_key(headers['sec-websocket-key'])}\r\n"
                      "\r\n").encode())
        conn = Connection(self, sock, next(self._numbers), ticket, path)
        conn._buf = rest
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
        conn.serve()

    def _received(self, conn: Connection, text: str) -> None:
        data: dict[str, Any] | None = None
        with contextlib.suppress(ValueError):
            loaded = json.loads(text)
            data = loaded if isinstance(loaded, dict) else None
        with self._cond:
            self.received.append(Received(conn.number, text, data))
            if data is not None and isinstance(data.get("envelope_id"), str):
                self.acks.setdefault(data["envelope_id"], {**data, "_conn": conn.number})
            self._cond.notify_all()

    def _changed(self) -> None:
        with self._cond:
            self._cond.notify_all()

    # -------------------------------------------------------------- driving

    @property
    def current(self) -> Connection:
        """The newest open connection (where Slack would send the next envelope)."""
        with self._lock:
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
        with self._lock:
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
        return self._wait(  # type: ignore[no-any-return]
            lambda: self.connections[count - 1] if len(self.connections) >= count else None,
            f"{count} connection(s)", timeout)

    def wait_ack(self, envelope_id: str, timeout: float = 5.0) -> dict[str, Any]:
        return self._wait(  # type: ignore[no-any-return]
            lambda: self.acks.get(envelope_id), f"the ack of {envelope_id}", timeout)

    def wait_closed(self, conn: Connection, timeout: float = 5.0) -> None:
        self._wait(lambda: not conn.open, f"connection {conn.number} to close", timeout)

    def wait_pong(self, conn: Connection, payload: bytes, timeout: float = 5.0) -> None:
        self._wait(lambda: payload in conn.pongs, "a pong", timeout)
