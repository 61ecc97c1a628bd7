"""The ASGI front of one worker: Slack events, probes and metrics, on an event loop.

Why it is built this way:

* **Slow clients cost a coroutine, not a thread.** The request head and body are read by the
  event loop (uvicorn, ``bot/ops/uvworker.py``), with a deadline for the head
  (``HEADER_TIMEOUT_S``), one for the whole body (:data:`BODY_TIMEOUT_S`: 408) and a size cap
  (:data:`MAX_BODY_BYTES`: 413, refused from ``Content-Length`` before reading). Only a request
  that arrived whole and signed reaches a thread. slack_bolt's own ASGI adapter for the sync
  ``App`` calls ``App.dispatch`` on the event loop, which would stall every connection of the
  worker for the length of a dispatch; here dispatch runs on a bounded pool of ``WEB_THREADS``
  threads (``loop.run_in_executor``).
* **The signature first, on the raw bytes** (``bot/ops/signature.py``), before anything parses
  the body. Anything unsigned or malformed
  (``{bad``, ``payload={not json``, ``[1,2]``, bytes that are not UTF-8, a timestamp ``abc``)
  gets 401 or 400, one log line without a traceback, and a ``gpubot_requests_refused_total``
  count. Bolt then checks the signature again (cheap) and parses a body known to be sound.
* **Readiness means "this process can answer"** (its Bolt app is built and warmed up:
  ``bot/ops/warmup.py``). Redis health is in the body (``bot/ops/health.py``), not a reason for
  503: with Redis down the bot still answers Slack with its "try again" note.
* **The turn consumers** (``bot/ops/consumer.py``) of the durable queue run in the worker: built
  after the Bolt app (by the ``consumer()`` of what ``create_app`` built, ``bot/slack/app.py``;
  a bare Bolt app of a bench has the :data:`ConsumerFactory` it is given, if any), started when
  the worker starts serving, stopped first at shutdown so the turns they hold finish.
* **Metrics on their own listener.** ``/metrics`` answers only on ``METRICS_PORT`` (the server
  binds it beside ``PORT``; the route is chosen by the local port of the connection), never on
  the public port Slack and the internet reach.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from bot.ops import metrics, warmup
from bot.ops.health import RedisMonitor
from bot.ops.signature import Signatures, sound

if TYPE_CHECKING:
    from slack_bolt import App

    from bot.ops.consumer import TurnConsumer
    from bot.ops.settings import Settings
    from bot.slack.app import BuiltApp
    from dialogue.store.connect import Target

__all__ = ["BoltFactory", "ConsumerFactory", "Front"]

_log = logging.getLogger("bot.front")

SLACK_PATH = "/slack/events"
HEALTH_PATH = "/healthz"
READY_PATH = "/readyz"
METRICS_PATH = "/metrics"
WORKER_HEADER = "x-worker-pid"

MAX_BODY_BYTES = 1 << 20  # Slack's largest payloads (view submissions) are far below this
BODY_TIMEOUT_S = 5.0  # Slack sends a body in milliseconds and gives up on us after 3 s
BUILD_RETRY_S = 10.0  # how often a worker retries building a Bolt app that failed to start

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
BoltFactory = Callable[["Settings"], "App | BuiltApp"]
ConsumerFactory = Callable[["App", "Settings"], "TurnConsumer | None"]


def _default_bolt_factory(settings: Settings) -> BuiltApp:
    """The Slack face's app (bot/slack/app.py), with its real Redis-backed dialogue."""
    from bot.slack.app import create_app

    return create_app(settings)


class Front:
    """The ASGI app of one worker process (built in the worker, after the fork)."""

    def __init__(
        self,
        settings: Settings,
        bolt_factory: BoltFactory | None = None,
        *,
        steps: list[warmup.Step] | None = None,
        redis_target: Target | None = None,
        consumers: ConsumerFactory | None = None,
    ) -> None:
        self._settings = settings
        self._factory = bolt_factory or _default_bolt_factory
        self._consumers = consumers
        self.consumer: TurnConsumer | None = None
        self._serving = False
        self._steps = warmup.default_steps() if steps is None else steps
        secret = settings.slack_signing_secret
        self._signatures = Signatures(secret.get_secret_value() if secret else "")
        self._metrics_port = int(getattr(settings, "metrics_port", 9100))
        self._pool = ThreadPoolExecutor(max_workers=int(getattr(settings, "web_threads", 4)),
                                        thread_name_prefix="dispatch")
        self._side = ThreadPoolExecutor(max_workers=1, thread_name_prefix="probe")
        self.monitor = RedisMonitor(redis_target)
        self._lock = threading.Lock()
        self.app: App | None = None
        self._build_error: str | None = None
        self._last_attempt = float("-inf")
        self._warm: dict[str, dict[str, Any]] = {}

    # -- building ---------------------------------------------------------------------------

    def warm(self) -> bool:
        """Build the Bolt app and run the warm-up steps, now; False if the app did not build."""
        if not self._build():
            return False
        self._warm.update(warmup.run(self._steps))
        self.monitor.check_now()  # the readiness body says where Redis stands from the start
        _log.info("worker warm", extra={"json_fields": {"event": "warm", "steps": self._warm}})
        return True

    def _build(self) -> bool:
        with self._lock:
            if self.app is not None:
                return True
            self._last_attempt = time.monotonic()
            started = time.perf_counter()
            try:
                built = self._factory(self._settings)
            except Exception as exc:
                self._build_error = f"slack app did not start: {type(exc).__name__}"
                _log.error("slack app did not start; will retry",
                           extra={"json_fields": {"event": "boot_error",
                                                  "error": type(exc).__name__}})
                return False
            from slack_bolt import App as BoltApp  # loaded with the app it builds

            app = built if isinstance(built, BoltApp) else built.app
            try:
                if not isinstance(built, BoltApp):
                    self.consumer = built.consumer()
                elif self._consumers is not None:
                    self.consumer = self._consumers(built, self._settings)
            except Exception as exc:
                _log.error("turn consumers did not start", extra={"json_fields": {
                    "event": "boot_error", "error": type(exc).__name__}})
            self.app = app
            self._build_error = None
            if self._serving and self.consumer is not None:
                self.consumer.start()  # built late (after an outage at boot)
            self._warm = {"slack_app": {"ok": True,
                                        "ms": round(1000 * (time.perf_counter() - started), 1)}}
            return True

    def _maybe_rebuild(self) -> None:
        """A worker that booted during an outage retries, off the loop, every BUILD_RETRY_S."""
        if self.app is None and time.monotonic() - self._last_attempt >= BUILD_RETRY_S:
            self._last_attempt = time.monotonic()
            threading.Thread(target=self.warm, name="bolt-build", daemon=True).start()

    def drain(self) -> None:
        """At worker exit: finish dispatches, then Bolt's post-ack listener threads (turns in
        flight write Redis *and* update Slack before the process ends). Idempotent."""
        if self.consumer is not None:
            self.consumer.stop()  # nothing new taken; the entries held are finished
        self._pool.shutdown(wait=True)
        if self.app is not None:
            try:
                self.app.listener_runner.listener_executor.shutdown(wait=True)
            except Exception as exc:
                _log.warning("could not drain Bolt's listener threads",
                             extra={"json_fields": {"error": type(exc).__name__}})
        self.monitor.stop()
        self._side.shutdown(wait=False)

    # -- reports ----------------------------------------------------------------------------

    def readiness(self) -> tuple[bool, dict[str, Any]]:
        ready = self.app is not None
        body: dict[str, Any] = {
            "status": "ready" if ready else "unavailable",
            "reason": "ok" if ready else (self._build_error or "slack app not started"),
            "pid": os.getpid(),
            "warm": self._warm,
            "redis": self.monitor.report(),
        }
        return ready, body

    # -- ASGI -------------------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        try:
            await self._http(scope, receive, send)
        except Exception as exc:  # never a traceback for a request; the response may be gone
            _log.error("request failed", extra={"json_fields": {"event": "front_error",
                                                                "error": type(exc).__name__}})
            with contextlib.suppress(Exception):
                await _send(send, 500, b"internal error\n", close=True)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                self.monitor.start()
                self._serving = True
                if self.consumer is not None:
                    self.consumer.start()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                # uvicorn has stopped accepting and finished the requests in flight; the turns
                # Bolt runs after its acks finish now. (Not in gunicorn's worker_exit hook:
                # uvicorn re-raises the SIGTERM it captured as it returns, which ends the
                # process before that hook runs.)
                await asyncio.to_thread(self.drain)
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path") or "/"
        method = scope.get("method", "GET")
        server = scope.get("server") or ("", 0)
        if server[1] == self._metrics_port:
            if path == METRICS_PATH and method in ("GET", "HEAD"):
                loop = asyncio.get_running_loop()
                data, ctype = await loop.run_in_executor(self._side, metrics.render)
                await _send(send, 200, data, ctype=ctype)
            else:
                await _send(send, 404, b"not found\n")
            return
        if path == SLACK_PATH:
            if method != "POST":
                metrics.refused("method")
                await _send(send, 405, b"method not allowed\n", extra=[(b"allow", b"POST")])
                return
            await self._slack(scope, receive, send)
            return
        if path in (HEALTH_PATH, READY_PATH) and method not in ("GET", "HEAD"):
            await _send(send, 405, b"method not allowed\n", extra=[(b"allow", b"GET, HEAD")])
        elif path == HEALTH_PATH:
            await _json(send, 200, {"status": "ok", "pid": os.getpid()})
        elif path == READY_PATH:
            if self.app is None:
                self._maybe_rebuild()
            ok, body = self.readiness()
            await _json(send, 200 if ok else 503, body)
        else:
            await _send(send, 404, b"not found\n")

    async def _slack(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers: dict[str, str] = {}
        for raw_name, raw_value in scope.get("headers") or []:
            name = raw_name.decode("latin-1").lower()
            value = raw_value.decode("latin-1")
            headers[name] = f"{headers[name]},{value}" if name in headers else value
        declared = headers.get("content-length", "")
        if declared and not (declared.isascii() and declared.isdigit()
                             and int(declared) <= MAX_BODY_BYTES):
            await self._refuse(send, 413, "too_large", 0, close=True)
            return
        body, why = await _read_body(receive)
        if why is not None:
            status = 413 if why == "too_large" else 408
            await self._refuse(send, status, why, len(body), close=True)
            return
        refusal = self._signatures.refusal(headers.get("x-slack-request-timestamp"),
                                           headers.get("x-slack-signature"), body, time.time())
        if refusal == "unsigned" and body.startswith(b"ssl_check=1"):
            await _send(send, 200, b"")  # Slack's certificate check carries no signature
            return
        if refusal is not None:
            await self._refuse(send, 401, refusal, len(body))
            return
        text = sound(headers.get("content-type", ""), body)
        if text is None:
            await self._refuse(send, 400, "malformed", len(body))
            return
        if self.app is None:
            self._maybe_rebuild()
            # 503: Slack retries the delivery; another worker or pod may be ready.
            await _json(send, 503, {"status": "unavailable", "reason": self._build_error})
            return
        from slack_bolt import BoltRequest

        bolt_headers: dict[str, str | Sequence[str]] = dict(headers)
        request = BoltRequest(body=text, query=scope.get("query_string", b"").decode("latin-1"),
                              headers=bolt_headers)
        loop = asyncio.get_running_loop()
        try:
            response = await loop.run_in_executor(self._pool, self.app.dispatch, request)
        except Exception:  # Bolt answers listener errors itself; this is a bug of ours
            _log.error("dispatch failed", exc_info=True,
                       extra={"json_fields": {"event": "dispatch_error"}})
            await _send(send, 500, b"internal error\n")
            return
        out: list[tuple[bytes, bytes]] = []
        for name, values in (response.headers or {}).items():
            if name.lower() in ("content-length", "connection"):
                continue
            for value in values if isinstance(values, list | tuple) else [values]:
                out.append((name.encode("latin-1"), str(value).encode("latin-1")))
        await _send(send, response.status, (response.body or "").encode("utf-8"), headers=out)

    async def _refuse(self, send: Send, status: int, reason: str, size: int, *,
                      close: bool = False) -> None:
        """One log line (no body, no traceback), one count, a short answer."""
        metrics.refused(reason)
        _log.info("request refused",
                  extra={"json_fields": {"event": "refused", "reason": reason,
                                         "status": status, "bytes": size}})
        await _send(send, status, f"{reason}\n".encode(), close=close)


async def _read_body(receive: Receive) -> tuple[bytes, str | None]:
    """The whole body within BODY_TIMEOUT_S and MAX_BODY_BYTES; (bytes, refusal or None)."""
    chunks: list[bytes] = []
    size = 0
    try:
        async with asyncio.timeout(BODY_TIMEOUT_S):
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return b"".join(chunks), "body_timeout"
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > MAX_BODY_BYTES:
                    return b"", "too_large"
                chunks.append(chunk)
                if not message.get("more_body", False):
                    return b"".join(chunks), None
    except TimeoutError:
        return b"".join(chunks), "body_timeout"


async def _send(send: Send, status: int, body: bytes, *,
                ctype: str = "text/plain; charset=utf-8",
                headers: list[tuple[bytes, bytes]] | None = None,
                extra: list[tuple[bytes, bytes]] | None = None, close: bool = False) -> None:
    out = list(headers) if headers is not None else [(b"content-type", ctype.encode())]
    out += [(b"content-length", str(len(body)).encode()), (b"cache-control", b"no-store"),
            (WORKER_HEADER.encode(), str(os.getpid()).encode()), *(extra or [])]
    if close:  # the client may still be sending: do not keep reading it
        out.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": out})
    await send({"type": "http.response.body", "body": body})


async def _json(send: Send, status: int, payload: dict[str, Any]) -> None:
    await _send(send, status, (json.dumps(payload) + "\n").encode(),
                ctype="application/json")
