"""The Bolt app factory and its turn consumers: one code path for Socket Mode, HTTP workers
and the tests.

Why a thin factory: everything that decides something lives in the flows
(``bot/slack/flows/``) and the cards (``bot/slack/cards/``); this wires the pieces:

* **Bolt's own Web API client** (``App(token=...)``: Bolt builds it, so Bolt never sees a
  client *and* a token, and stops logging "``token`` will be unused" at every boot),
  then pointed at ``SLACK_API_URL`` (tests run against a local fake) with slack_sdk's retry
  handlers: 429s for every method (a 429 means "not processed"), connection errors and 5xx only
  for idempotent methods (``bot/slack/api.py`` ``IDEMPOTENT``), never ``chat.postMessage`` nor
  the file share, whose retries look for what was posted first (``bot/slack/written.py``), nor
  ``chat.update``, retried with a fresh render (``bot/slack/flows/show.py``). The
  token is checked with ``auth.test`` here (a refused token fails the boot), and one ignored
  event is dispatched through the app so the first real request pays for nothing;
* **the store and the durable turn queue**: Redis when ``REDIS_URL`` is set
  (``RedisStore(connect(redis_target(settings)))``; one server, Sentinel or Cluster), else the
  process's memory (Socket Mode and development: ``MemoryTurnQueue``, same semantics). The
  listeners' queue connection has 0.5 s timeouts (a submit gives up within ~1.7 s, inside
  Slack's 3 s); the consumers' has the store's;
* :func:`create_app` returns what it built (:class:`BuiltApp`): the Bolt app, and the factory
  of the worker's :class:`~bot.ops.consumer.TurnConsumer` feeding
  :meth:`~bot.slack.pipeline.Pipeline.dispatch`; the front (``bot/ops/asgi.py``) starts it with
  the worker and stops it first at shutdown, Socket Mode (``bot/__main__.py``) likewise;
* the server secret that signs what the bot puts in its messages (``bot/slack/cards/ids.py``).
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import socket
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from slack_bolt import App, BoltRequest, BoltResponse
from slack_bolt.error import BoltError
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry import (
    ConnectionErrorRetryHandler,
    HttpRequest,
    HttpResponse,
    RateLimitErrorRetryHandler,
    RetryState,
)
from slack_sdk.http_retry.builtin_handlers import ServerErrorRetryHandler

from bot.ops import metrics
from bot.ops.consumer import TurnConsumer
from bot.ops.health import redis_target
from bot.ops.settings import Settings
from bot.slack import listeners, payloads, work
from bot.slack.api import IDEMPOTENT
from bot.slack.cards import ids
from bot.slack.errors import SlackPassing
from bot.slack.listeners.deliver import Recorder
from bot.slack.pipeline import Pipeline, audience
from bot.slack.storefacts import StoreFacts
from dialogue import Dialogue, MemoryStore, RedisStore, Store
from dialogue.hub import HubClient
from dialogue.store.connect import connect
from dialogue.store.memqueue import MemoryTurnQueue
from dialogue.store.queue import Entry, RedisTurnQueue, TurnQueue
from engine.wording import msg

log = logging.getLogger(__name__)

LISTENER_THREADS = 16  # Bolt's default is 5; listeners only record and ack now
API_TIMEOUT_S = 10
SUBMIT_TIMEOUT_S = 0.5  # x 3 attempts with back-off: a submit gives up within ~1.7 s
MIN_IDLE_MS = 15_000  # a dead worker's turns are taken over after this (live ones beat)
HEARTBEAT_S = 3.0
SWEEP_S = 2.0
GIVE_UP_S = 15 * 60  # a turn Slack keeps failing is given up after this (and logged)


def _method(request: HttpRequest) -> str:
    return request.url.rsplit("/", 1)[-1].split("?", 1)[0]


class CountingRateLimitRetryHandler(RateLimitErrorRetryHandler):
    """slack_sdk's 429 handler (sleeps Retry-After + jitter), counted in the metrics."""

    def prepare_for_next_attempt(
        self,
        *,
        state: RetryState,
        request: HttpRequest,
        response: HttpResponse | None = None,
        error: Exception | None = None,
    ) -> None:
        metrics.slack_retry("ratelimited")
        super().prepare_for_next_attempt(
            state=state, request=request, response=response, error=error
        )


class IdempotentConnectionRetryHandler(ConnectionErrorRetryHandler):
    """Connection errors retried only for methods whose effect is the same however often
    they run: a reset ``chat.postMessage`` may have been posted (``bot/slack/api.py``)."""

    def _can_retry(self, *, state: RetryState, request: HttpRequest,
                   response: HttpResponse | None = None,
                   error: Exception | None = None) -> bool:
        return _method(request) in IDEMPOTENT and super()._can_retry(
            state=state, request=request, response=response, error=error)


class IdempotentServerErrorRetryHandler(ServerErrorRetryHandler):
    """500/503 retried only for idempotent methods (a 5xx post may have been processed)."""

    def _can_retry(self, *, state: RetryState, request: HttpRequest,
                   response: HttpResponse | None = None,
                   error: Exception | None = None) -> bool:
        return _method(request) in IDEMPOTENT and super()._can_retry(
            state=state, request=request, response=response, error=error)


def configure_client(client: WebClient, settings: Settings) -> WebClient:
    """Point Bolt's client at ``SLACK_API_URL`` with our timeout and retry handlers (Bolt
    copies these into the client of every request)."""
    client.base_url = settings.slack_api_url
    client.timeout = API_TIMEOUT_S
    client.retry_handlers = [
        IdempotentConnectionRetryHandler(max_retry_count=2),
        IdempotentServerErrorRetryHandler(max_retry_count=2),
        CountingRateLimitRetryHandler(max_retry_count=2),
    ]
    return client


def make_dialogue(settings: Settings) -> Dialogue:
    """Redis-kept conversations; the in-process store only without REDIS_URL (Socket Mode/dev)."""
    target = redis_target(settings)
    store: Store
    if target is not None:
        store = RedisStore(connect(target))
    else:
        log.warning("REDIS_URL is not set: conversations and queued turns live in this process")
        store = MemoryStore()
    token = settings.hf_token.get_secret_value() if settings.hf_token else None
    hub = HubClient(endpoint=settings.hf_endpoint, token=token, offline=settings.hf_offline,
                    timeout_s=settings.hf_timeout_seconds)
    return Dialogue(store, ttl_seconds=settings.conversation_ttl_seconds, hub=hub)


def count_retries(req: BoltRequest, resp: BoltResponse,
                  next: Callable[[], BoltResponse]) -> BoltResponse:
    """Slack's redeliveries carry X-Slack-Retry-Num/-Reason: count them (deduped later).

    In Socket Mode Bolt builds these headers from the envelope's ``retry_attempt`` and
    ``retry_reason``, which Slack sends on *every* events_api envelope (0 and "" on the first
    delivery): only a number above 0 is a redelivery.
    """
    num = str((req.headers.get("x-slack-retry-num") or ["0"])[0]).strip()
    if num not in ("", "0"):
        metrics.slack_retry(str((req.headers.get("x-slack-retry-reason") or ["unknown"])[0]))
    return next()


@dataclass(frozen=True)
class BuiltApp:
    """What :func:`create_app` built: the Bolt app, its pipeline, and ``consumer()``, which
    makes a worker's turn consumers (``WEB_THREADS`` threads, not started yet) feeding it."""

    app: App
    pipeline: Pipeline
    consumer: Callable[[], TurnConsumer]


def _client_secret(settings: Settings) -> str | None:
    for secret in (settings.client_data_secret, settings.slack_signing_secret,
                   settings.slack_bot_token):
        if secret is not None:
            return secret.get_secret_value()
    return None


def _verify_token(client: WebClient) -> None:
    """``auth.test`` now, as Bolt does with a token: a refused token fails the boot."""
    try:
        client.auth_test()
    except SlackApiError as exc:
        raise BoltError(f"The token is not valid: auth.test: {exc.response.get('error')}") \
            from None


def _prime(app: App, team: str | None) -> None:
    """Dispatch one event the bot ignores (the App Home's Messages tab opened), so Bolt's
    authorization runs its one ``auth.test`` now, not on the first real request."""
    body = ('{"type":"event_callback","team_id":"%s","event_id":"Ev0PRIME",'
            '"event":{"type":"app_home_opened","user":"U0PRIME","tab":"messages"}}'
            % (team or "T0PRIME"))
    app.dispatch(BoltRequest(body=body, mode="socket_mode"))


def create_app(settings: Settings, *, dialogue: Dialogue | None = None) -> BuiltApp:
    """Build the Bolt app and its consumers' factory. With a bot token, ``auth.test`` is
    called once here (fail fast)."""
    token = settings.slack_bot_token.get_secret_value() if settings.slack_bot_token else None
    secret = settings.slack_signing_secret
    app = App(
        token=token,
        signing_secret=secret.get_secret_value() if secret else "",
        token_verification_enabled=False,  # checked below, once the client points at Slack
        process_before_response=False,
        listener_executor=ThreadPoolExecutor(
            max_workers=LISTENER_THREADS, thread_name_prefix="bolt-listener"
        ),
    )
    client = configure_client(app.client, settings)
    if token:
        _verify_token(client)
    client_secret = _client_secret(settings)
    if client_secret:
        ids.use_secret(client_secret)
    dialogue = dialogue or make_dialogue(settings)
    target = redis_target(settings)
    submit_queue: TurnQueue
    consume_queue: TurnQueue
    if target is not None:
        submit_queue = RedisTurnQueue(connect(target, socket_timeout=SUBMIT_TIMEOUT_S))
        consume_queue = RedisTurnQueue(connect(target))
    else:
        submit_queue = consume_queue = MemoryTurnQueue()
    facts = StoreFacts(target)
    pipeline = Pipeline(settings, dialogue, client, facts=facts, backlog=consume_queue.backlog)
    app.middleware(count_retries)
    listeners.register(app, Recorder(submit_queue, pipeline.face))
    if token:
        _prime(app, None)
        facts.check()  # what the store keeps across a crash, known before the first turn
    handle = make_handler(pipeline)

    def consumer() -> TurnConsumer:
        # unique in the process without a counter; bench/faults.py reads the pid back
        return TurnConsumer(consume_queue, handle,
                            name=f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(4)}",
                            threads=settings.web_threads, min_idle_ms=MIN_IDLE_MS,
                            sweep_s=SWEEP_S, heartbeat_s=HEARTBEAT_S)

    return BuiltApp(app, pipeline, consumer)


class _Attempts:
    """How many times this process ran each entry (bounded: old counts are forgotten)."""

    def __init__(self, limit: int = 10_000) -> None:
        self._seen: OrderedDict[str, int] = OrderedDict()
        self._lock = threading.Lock()
        self._limit = limit

    def next(self, entry_id: str) -> int:
        with self._lock:
            n = self._seen.pop(entry_id, 0) + 1
            self._seen[entry_id] = n
            while len(self._seen) > self._limit:
                self._seen.popitem(last=False)
            return n

    def done(self, entry_id: str) -> None:
        with self._lock:
            self._seen.pop(entry_id, None)


def make_handler(pipeline: Pipeline) -> Callable[[Entry], None]:
    """What a consumer does with one queue entry: the delivery it holds, dispatched as this
    attempt (``bot/slack/work.py``). ``SlackPassing`` and ``StoreUnavailable`` go back to the
    consumer (the entry is retried); a turn Slack kept failing for :data:`GIVE_UP_S` is
    logged and acknowledged."""
    attempts = _Attempts()

    def handle(entry: Entry) -> None:
        n = attempts.next(entry.entry_id)
        delivery = payloads.parse(entry.payload)
        attempt = work.Work(delivery_id=delivery.id, replay=entry.redelivered or n > 1,
                            attempt=n, queued_at=entry.queued_at_ms / 1000)
        try:
            pipeline.dispatch(delivery, attempt)
        except SlackPassing as exc:
            if attempt.age_s < GIVE_UP_S:
                raise
            log.error("turn given up: Slack kept failing", extra={"json_fields": {
                "event": "turn_given_up", "delivery_id": delivery.id, "method": exc.method,
                "error": exc.error}})
            with contextlib.suppress(Exception):  # Slack may still refuse the note itself
                face = pipeline.face
                face.tell(audience(face, delivery), msg("slack.waits.gave_up"))
        attempts.done(entry.entry_id)

    return handle
