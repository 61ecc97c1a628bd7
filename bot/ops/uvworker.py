"""The gunicorn worker: uvicorn's event loop, h11 with a deadline for the request head.

Why: uvicorn reads requests without a thread per connection, but it has no timeout for a head
that never completes: a client that opens a connection and sends one header byte every few
seconds would hold it forever (slowloris). :class:`HeadTimeoutProtocol` gives
every request head :data:`HEADER_TIMEOUT_S` from the moment the connection opens or the
previous response ended, then closes the connection. The body's deadline and size cap are the
ASGI app's (``bot/ops/asgi.py``); the head's size cap is h11's (:data:`MAX_HEAD_BYTES`, 400).

:class:`BotUvicornWorker` is the maintained ``uvicorn-worker`` package's worker with our
protocol and limits: gunicorn stays the process manager (several workers, a dead one replaced,
SIGTERM a graceful stop, hooks for the metrics directory and for draining turns in flight).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn_worker import UvicornWorker  # type: ignore[import-untyped]  # no py.typed

from bot.ops import metrics

__all__ = ["HEADER_TIMEOUT_S", "BotUvicornWorker", "HeadTimeoutProtocol"]

_log = logging.getLogger("bot.front")

HEADER_TIMEOUT_S = 5.0
MAX_HEAD_BYTES = 16 * 1024
LIMIT_CONCURRENCY = 1000  # connections + tasks per worker before uvicorn answers 503
GRACEFUL_S = 20  # uvicorn's wait for requests in flight; gunicorn's graceful_timeout is above


class HeadTimeoutProtocol(H11Protocol):
    """h11, plus: the request head must arrive within HEADER_TIMEOUT_S."""

    _head_timer: asyncio.TimerHandle | None = None

    def _arm(self) -> None:
        self._disarm()
        self._head_timer = self.loop.call_later(HEADER_TIMEOUT_S, self._head_late)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:
            self._disarm()  # the head is in: the body has its own deadline

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()  # the next request on this kept-alive connection

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _head_late(self) -> None:
        self._head_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            if self.conn.trailing_data[0]:  # some bytes came, never a whole head
                metrics.refused("header_timeout")
                _log.info("request refused", extra={"json_fields": {
                    "event": "refused", "reason": "header_timeout", "status": 0}})
            self.transport.close()


class BotUvicornWorker(UvicornWorker):  # type: ignore[misc]
    """uvicorn-worker with the head deadline, bounded head size and concurrency."""

    CONFIG_KWARGS: ClassVar[dict[str, Any]] = {
        "loop": "asyncio",
        "http": HeadTimeoutProtocol,
        "lifespan": "on",
        "h11_max_incomplete_event_size": MAX_HEAD_BYTES,
        "limit_concurrency": LIMIT_CONCURRENCY,
        "timeout_graceful_shutdown": GRACEFUL_S,
        "access_log": False,
        "server_header": False,
        "proxy_headers": False,
    }
