"""The Bolt app factory: one code path for Socket Mode, HTTP workers and the tests.

Why a thin factory: everything that decides something lives in the flows
(``bot/slack/flows/``) and the cards (``bot/slack/cards/``); this only wires a ``WebClient``
(pointed at ``SLACK_API_URL``, so tests run against a local fake, with slack_sdk's retry
handlers for 429 and connection errors) and a ``Dialogue`` (Redis when ``REDIS_URL`` is set)
into a :class:`~bot.slack.pipeline.Pipeline`, and registers the listeners by surface. The
retry handlers sleep in the listener thread, after the ack, never on the 3-second ack path
(docs/slack.md §5).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from slack_bolt import App, BoltRequest, BoltResponse
from slack_sdk import WebClient
from slack_sdk.http_retry import (
    ConnectionErrorRetryHandler,
    HttpRequest,
    HttpResponse,
    RateLimitErrorRetryHandler,
    RetryState,
)

from bot.ops import metrics
from bot.ops.settings import Settings
from bot.slack import listeners
from bot.slack.pipeline import Pipeline
from dialogue import Dialogue, MemoryStore, RedisStore, Store

log = logging.getLogger(__name__)

LISTENER_THREADS = 16  # Bolt's default is 5; a 429 back-off holds a thread for seconds
API_TIMEOUT_S = 10


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


def make_client(settings: Settings) -> WebClient:
    """The Web API client every listener uses; retries 429 (Retry-After) and connection errors."""
    token = settings.slack_bot_token.get_secret_value() if settings.slack_bot_token else None
    return WebClient(
        token=token,
        base_url=settings.slack_api_url,
        timeout=API_TIMEOUT_S,
        retry_handlers=[
            ConnectionErrorRetryHandler(max_retry_count=2),
            CountingRateLimitRetryHandler(max_retry_count=2),
        ],
    )


def make_dialogue(settings: Settings) -> Dialogue:
    """Redis-kept conversations; the in-process store only without REDIS_URL (Socket Mode/dev)."""
    store: Store
    if settings.redis_url:
        store = RedisStore(settings.redis_url)
    else:
        log.warning("REDIS_URL is not set: conversations live in this process only")
        store = MemoryStore()
    return Dialogue(store, ttl_seconds=settings.conversation_ttl_seconds)


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


def create_app(settings: Settings, *, dialogue: Dialogue | None = None,
               client: WebClient | None = None) -> App:
    """Build the Bolt app. With a bot token, Bolt calls ``auth.test`` once here (fail fast)."""
    client = client or make_client(settings)
    secret = settings.slack_signing_secret
    app = App(
        client=client,
        signing_secret=secret.get_secret_value() if secret else "",
        process_before_response=False,
        listener_executor=ThreadPoolExecutor(
            max_workers=LISTENER_THREADS, thread_name_prefix="bolt-listener"
        ),
    )
    app.middleware(count_retries)
    listeners.register(app, Pipeline(settings, dialogue or make_dialogue(settings), client))
    return app
