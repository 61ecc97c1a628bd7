"""HTTP mode in production: gunicorn, several worker processes, health, readiness, metrics.

Why it is built this way:

* **gunicorn, programmatically.** ``python -m bot`` stays the one entry point (Docker, compose,
  Kubernetes, ``make run``); :class:`BotServer` is a ``BaseApplication`` so no config file or
  command line has to agree with :class:`bot.ops.settings.Settings`.
* **Workers are stateless.** Every conversation lives in Redis, so ``WEB_CONCURRENCY`` worker
  processes (and any number of pods) can take any click. The Bolt app, its Slack client and its
  Redis connections are built *in each worker after the fork* (``preload_app`` is off and
  :meth:`BotServer.load` runs in the worker): sockets shared across a fork interleave bytes.
* **gthread workers.** A turn waits on Redis and on Slack; a few threads per process keep the
  CPU busy during those waits without an async rewrite of the dialogue. Threads per worker:
  ``WEB_THREADS`` if the settings carry it, else 4.
* **Graceful shutdown, no half-written answer.** SIGTERM (``docker stop``, a Kubernetes pod
  deletion) makes the master stop accepting, and each gthread worker finish the requests it
  has within ``graceful_timeout``. Bolt acks a request and may run the listener (or a lazy
  listener) on its own thread pool *after* the HTTP response is gone; a worker that simply
  exited would cut that work off between the store's write and the Slack update. So the
  ``worker_exit`` hook drains Bolt's listener executor (``executor.shutdown(wait=True)``)
  before the process ends. This keeps the 3-second ack independent of how long a turn takes,
  which ``process_before_response=True`` would not; the price is that the grace period must
  cover the slowest turn (Kubernetes: ``terminationGracePeriodSeconds`` > ``graceful_timeout``).
* **Metrics across workers.** ``PROMETHEUS_MULTIPROC_DIR`` is created (or emptied) in the master
  before any fork and removed at exit; ``child_exit`` marks a dead worker's live gauges gone,
  its counters keep counting in the sum (see :mod:`bot.ops.metrics`).
* **Probes.** ``/healthz`` answers while the process can serve HTTP at all (liveness: restart
  me if not). ``/readyz`` answers 200 only when this worker's Bolt app is built and Redis
  answers PING within :data:`READY_TIMEOUT_S` (readiness: send me traffic). A Redis outage
  takes pods out of the Service rather than restarting them, which would not help.
* **Secrets never logged.** Settings hold them as ``SecretStr``; their literal values are also
  registered with :func:`bot.ops.logs.add_secret` so any accidental echo is redacted.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from gunicorn import glogging
from gunicorn.app.base import BaseApplication

from bot.ops import logs, metrics

if TYPE_CHECKING:
    from wsgiref.types import StartResponse, WSGIApplication, WSGIEnvironment

    import redis
    from slack_bolt import App

    from bot.ops.settings import Settings

__all__ = ["BotServer", "BotWsgi", "gunicorn_options", "main", "make_wsgi_app"]

_log = logging.getLogger(__name__)

SLACK_PATH = "/slack/events"
HEALTH_PATH = "/healthz"
READY_PATH = "/readyz"
METRICS_PATH = "/metrics"
WORKER_HEADER = "X-Worker-Pid"

READY_TIMEOUT_S = 0.5  # Redis PING budget for /readyz; the k8s probe timeout is 2 s.
GRACEFUL_TIMEOUT_S = 30  # in-flight requests + Bolt's listener threads, after SIGTERM.
DEFAULT_THREADS = 4
BUILD_RETRY_S = 10.0  # how often a worker retries building a Bolt app that failed to start.

BoltFactory = Callable[["Settings"], "App"]


def _default_bolt_factory(settings: Settings) -> App:
    """The Slack colleague's app, built with its real Redis-backed dialogue."""
    from bot.slack.app import create_app

    app: App = create_app(settings)
    return app


class BotWsgi:
    """The WSGI callable one worker serves: Slack events, probes and metrics.

    The Bolt app is built on :meth:`warm` (called by :meth:`BotServer.load`, after the fork)
    and rebuilt at most every :data:`BUILD_RETRY_S` if it failed (Slack or Redis down at boot),
    so a worker that booted during an outage becomes ready by itself once the outage ends.
    """

    def __init__(self, settings: Settings, bolt_factory: BoltFactory | None = None) -> None:
        self._settings = settings
        self._factory = bolt_factory or _default_bolt_factory
        self._lock = threading.Lock()
        self._app: App | None = None
        self._handler: Callable[[WSGIEnvironment, StartResponse], Iterable[bytes]] | None = None
        self._build_error: str | None = None
        self._last_attempt = float("-inf")
        self._redis: redis.Redis | None = None
        self._pid = str(os.getpid())

    # -- building -------------------------------------------------------------------------

    def warm(self) -> bool:
        """Build the Bolt app now (in the worker); False (and a logged reason) if it failed."""
        return self._bolt(force=True) is not None

    def _bolt(self, *, force: bool = False) -> Callable[..., Iterable[bytes]] | None:
        if self._handler is not None:
            return self._handler
        with self._lock:
            if self._handler is not None:
                return self._handler
            now = time.monotonic()
            if not force and now - self._last_attempt < BUILD_RETRY_S:
                return None
            self._last_attempt = now
            try:
                from slack_bolt.adapter.wsgi import SlackRequestHandler

                app = self._factory(self._settings)
                self._handler = SlackRequestHandler(app, path=SLACK_PATH)
                self._app = app
                self._build_error = None
                self._pid = str(os.getpid())
            except Exception as exc:
                self._build_error = f"slack app did not start: {type(exc).__name__}"
                _log.error(
                    "slack app did not start; will retry",
                    exc_info=True,
                    extra={"json_fields": {"event": "boot_error"}},
                )
                return None
            return self._handler

    def _redis_client(self) -> redis.Redis:
        if self._redis is None:
            import redis as redis_mod
            from redis.backoff import NoBackoff
            from redis.retry import Retry

            url = self._settings.redis_url
            if not url:
                raise RuntimeError("REDIS_URL is not set")
            # One retry: a pooled connection that died with a Redis restart reconnects once.
            self._redis = redis_mod.Redis.from_url(
                url,
                socket_connect_timeout=READY_TIMEOUT_S,
                socket_timeout=READY_TIMEOUT_S,
                retry=Retry(NoBackoff(), 1),
            )
        return self._redis

    # -- shutdown ---------------------------------------------------------------------------

    def drain(self) -> None:
        """Wait for Bolt's post-ack listener threads, then close our Redis client.

        Called from gunicorn's ``worker_exit`` hook, after the worker stopped accepting and
        finished its in-flight requests; the master's ``graceful_timeout`` bounds the wait.
        """
        app = self._app
        if app is not None:
            try:
                app.listener_runner.listener_executor.shutdown(wait=True)
            except Exception:
                _log.warning("could not drain Bolt's listener threads", exc_info=True)
        if self._redis is not None:
            with contextlib.suppress(Exception):
                self._redis.close()

    # -- routes -------------------------------------------------------------------------------

    def ready(self) -> tuple[bool, str]:
        """(ready?, reason): this worker's Bolt app is built and Redis answers PING in time."""
        if self._bolt() is None:
            return False, self._build_error or "slack app not started"
        try:
            if not self._redis_client().ping():
                return False, "redis: PING was not answered with PONG"
        except Exception as exc:
            return False, f"redis unreachable ({type(exc).__name__})"
        return True, "ok"

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "") or "/"
        method = environ.get("REQUEST_METHOD", "GET").upper()
        pid = (WORKER_HEADER, self._pid)

        if path == SLACK_PATH:
            if method != "POST":
                return _respond(start_response, 405, b"method not allowed\n", extra=[
                    ("Allow", "POST"), pid])
            handler = self._bolt()
            if handler is None:
                # 503: Slack retries the delivery; another worker or pod may be ready.
                return _json(start_response, 503, {"status": "unavailable",
                                                   "reason": self._build_error}, pid)

            def start_with_pid(
                status: str, headers: list[tuple[str, str]], exc_info: Any = None
            ) -> Callable[[bytes], object]:
                return start_response(status, [*headers, pid], exc_info)

            return handler(environ, start_with_pid)

        if path in (HEALTH_PATH, READY_PATH, METRICS_PATH) and method not in ("GET", "HEAD"):
            return _respond(start_response, 405, b"method not allowed\n",
                            extra=[("Allow", "GET, HEAD"), pid])
        if path == HEALTH_PATH:
            return _json(start_response, 200, {"status": "ok", "pid": os.getpid()}, pid)
        if path == READY_PATH:
            ok, reason = self.ready()
            body = {"status": "ready" if ok else "unavailable", "reason": reason}
            return _json(start_response, 200 if ok else 503, body, pid)
        if path == METRICS_PATH:
            data, content_type = metrics.render()
            return _respond(start_response, 200, data, content_type=content_type, extra=[pid])
        return _respond(start_response, 404, b"not found\n", extra=[pid])


def _respond(
    start_response: StartResponse,
    status: int,
    body: bytes,
    *,
    content_type: str = "text/plain; charset=utf-8",
    extra: Iterable[tuple[str, str]] = (),
) -> list[bytes]:
    reasons = {200: "OK", 404: "Not Found", 405: "Method Not Allowed", 503: "Service Unavailable"}
    headers = [
        ("Content-Type", content_type),
        ("Content-Length", str(len(body))),
        ("Cache-Control", "no-store"),
        *extra,
    ]
    start_response(f"{status} {reasons.get(status, '')}".strip(), headers)
    return [body]


def _json(
    start_response: StartResponse, status: int, payload: dict[str, Any], pid: tuple[str, str]
) -> list[bytes]:
    body = (json.dumps(payload) + "\n").encode()
    return _respond(start_response, status, body, content_type="application/json", extra=[pid])


def make_wsgi_app(settings: Settings, bolt_factory: BoltFactory | None = None) -> BotWsgi:
    """The WSGI app for one process; the Bolt app inside is built on first need or on warm()."""
    return BotWsgi(settings, bolt_factory)


# -- gunicorn ---------------------------------------------------------------------------------


class JsonGunicornLogger(glogging.Logger):  # type: ignore[misc]
    """gunicorn's own messages (boot, worker exits, timeouts) as the same JSON lines as ours."""

    def setup(self, cfg: Any) -> None:
        super().setup(cfg)
        for log in (self.error_log, self.access_log):
            for handler in list(log.handlers):
                log.removeHandler(handler)
            handler = logs.json_handler()
            handler._gunicorn = True  # type: ignore[attr-defined]  # gunicorn's reload removes it
            log.addHandler(handler)


def _prepare_multiproc_dir() -> tuple[str, bool]:
    """Create (or empty) PROMETHEUS_MULTIPROC_DIR in the master, before any worker forks.

    Files left by a previous run would be summed into this run's counters, so an operator-given
    directory is emptied; otherwise a fresh temporary one is made (and removed at exit).
    """
    given = os.environ.get(metrics.MULTIPROC_ENV)
    if given:
        os.makedirs(given, exist_ok=True)
        for name in os.listdir(given):
            if name.endswith(".db"):
                os.remove(os.path.join(given, name))
        return given, False
    path = tempfile.mkdtemp(prefix="gpubot-prom-")
    os.environ[metrics.MULTIPROC_ENV] = path
    return path, True


def gunicorn_options(settings: Settings) -> dict[str, Any]:
    """Every gunicorn setting we use, in one place (hooks are added by :class:`BotServer`)."""
    threads = int(getattr(settings, "web_threads", DEFAULT_THREADS) or DEFAULT_THREADS)
    graceful = int(getattr(settings, "graceful_timeout_seconds", GRACEFUL_TIMEOUT_S))
    return {
        "bind": [f"0.0.0.0:{settings.port}"],
        "workers": settings.web_concurrency,
        "worker_class": "gthread",
        "threads": threads,
        "graceful_timeout": graceful,
        "timeout": 30,  # a worker silent for this long is killed and replaced
        "keepalive": 5,
        "preload_app": False,  # the Bolt app and its sockets are built after the fork
        "proc_name": "gpu-sizing-bot",
        "loglevel": settings.log_level.lower(),
        "logger_class": JsonGunicornLogger,
        "accesslog": None,  # one line per turn comes from the bot; no access-log noise
        "errorlog": "-",
        # The heartbeat file: on tmpfs, so a slow disk never looks like a hung worker.
        "worker_tmp_dir": "/dev/shm" if os.path.isdir("/dev/shm") else None,
        # gunicorn >= 25 opens a control socket under $HOME by default: not wanted in a
        # read-only container, and two servers on one machine would fight over the path.
        "control_socket_disable": True,
    }


def _child_exit(server: Any, worker: Any) -> None:
    """In the master: a worker died; its live gauges must stop counting."""
    from prometheus_client import multiprocess

    if metrics.multiprocess_dir() is not None:
        multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]


def _worker_exit(server: Any, worker: Any) -> None:
    """In the worker, as it ends: let Bolt's post-ack threads finish their turns."""
    app = getattr(worker, "wsgi", None)
    if isinstance(app, BotWsgi):
        app.drain()


def _post_worker_init(worker: Any) -> None:
    logging.getLogger(__name__).info(
        "worker ready", extra={"json_fields": {"event": "worker_ready"}}
    )


class BotServer(BaseApplication):  # type: ignore[misc]
    """gunicorn configured from :class:`Settings`, without a config file or argv."""

    def __init__(self, settings: Settings, bolt_factory: BoltFactory | None = None) -> None:
        self._settings = settings
        self._factory = bolt_factory
        self._cleanup: Callable[[], None] = lambda: None
        super().__init__()

    def init(self, parser: Any, opts: Any, args: Any) -> None:  # pragma: no cover - unused
        return None

    def load_config(self) -> None:
        options = gunicorn_options(self._settings)
        options.update(
            child_exit=_child_exit,
            worker_exit=_worker_exit,
            post_worker_init=_post_worker_init,
            on_exit=lambda server: self._cleanup(),
        )
        for key, value in options.items():
            if value is not None:
                self.cfg.set(key, value)

    def set_cleanup(self, fn: Callable[[], None]) -> None:
        self._cleanup = fn

    def load(self) -> WSGIApplication:
        """Runs in each worker after the fork: one Bolt app (and Redis pool) per process."""
        app = make_wsgi_app(self._settings, self._factory)
        app.warm()
        return app


def main(settings: Settings, bolt_factory: BoltFactory | None = None) -> None:
    """Serve HTTP mode on 0.0.0.0:PORT with WEB_CONCURRENCY workers until SIGTERM/SIGINT."""
    logs.setup_logging(settings.log_level)
    for secret in (settings.slack_bot_token, settings.slack_signing_secret,
                   settings.slack_app_token):
        if secret is not None:
            logs.add_secret(secret.get_secret_value())
    path, created = _prepare_multiproc_dir()
    server = BotServer(settings, bolt_factory)
    master = os.getpid()

    def cleanup() -> None:
        # A worker's sys.exit() unwinds through server.run() too: only the master cleans up.
        if created and os.getpid() == master:
            shutil.rmtree(path, ignore_errors=True)

    server.set_cleanup(cleanup)
    _log.info(
        "serving HTTP",
        extra={"json_fields": {"event": "serve", "port": settings.port,
                               "workers": settings.web_concurrency, "metrics_dir": path}},
    )
    try:
        server.run()
    finally:
        cleanup()
