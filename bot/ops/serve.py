"""HTTP mode in production: gunicorn managing uvicorn workers, each serving the ASGI front.

Why it is built this way:

* **gunicorn, programmatically.** ``python -m bot`` stays the one entry point (Docker, compose,
  Kubernetes, ``make run``); :class:`BotServer` is a ``BaseApplication``, so no config file or
  command line has to agree with :class:`bot.ops.settings.Settings`. gunicorn stays for what it
  does well: ``WEB_CONCURRENCY`` worker processes, a dead or hung one replaced, SIGTERM as a
  graceful stop, and hooks (below).
* **An event loop per worker** (``bot/ops/uvworker.py``, the ``uvicorn-worker`` package), so a
  slow or hostile client holds a coroutine, never a thread; Bolt's sync dispatch runs on a
  bounded pool of ``WEB_THREADS`` threads (``bot/ops/asgi.py``).
* **Two listeners.** ``0.0.0.0:PORT`` for Slack and the probes, ``0.0.0.0:METRICS_PORT`` for
  Prometheus; every worker serves both, and the front routes by the connection's local port,
  so ``/metrics`` never answers on the public port (it names what the bot does, by count).
* **Workers are stateless and warm before they accept.** The Bolt app, its Slack client and its
  Redis connections are built *in each worker after the fork* (``preload_app`` off; sockets
  shared across a fork interleave bytes), and :meth:`BotServer.load` also runs the warm-up
  (``bot/ops/warmup.py``) before the worker's loop starts accepting: the first turn pays for
  nothing.
* **Graceful shutdown, no half-written answer.** On SIGTERM the master stops accepting, each
  worker finishes its requests in flight, then, at the ASGI lifespan's shutdown, drains the
  dispatch pool and Bolt's listener executor (Bolt acks first and runs the turn after the
  response), so a turn that wrote Redis also updates its Slack message. ``graceful_timeout``
  bounds it; the ``worker_exit`` hook drains again for a worker that ends another way.
* **Metrics across workers.** ``PROMETHEUS_MULTIPROC_DIR`` is created (or emptied) in the master
  before any fork and removed at exit; ``child_exit`` marks a dead worker's live gauges gone,
  its counters keep counting in the sum (see :mod:`bot.ops.metrics`).
* **Persistence checked once.** Before forking, the master asks Redis what it would keep across
  a crash and logs it in one line, a WARNING without AOF (``bot/ops/health.py``).
* **Secrets never logged.** Settings hold them as ``SecretStr``; their literal values are also
  registered with :func:`bot.ops.logs.add_secret` so any accidental echo is redacted.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gunicorn import glogging
from gunicorn.app.base import BaseApplication

from bot.ops import health, logs, metrics, warmup
from bot.ops.asgi import BoltFactory, Front
from bot.ops.health import redis_target

if TYPE_CHECKING:
    from bot.ops.settings import Settings

__all__ = ["BotServer", "gunicorn_options", "main", "make_front", "redis_target"]

_log = logging.getLogger(__name__)

GRACEFUL_TIMEOUT_S = 30  # in-flight requests + Bolt's listener threads, after SIGTERM


def make_front(settings: Settings, bolt_factory: BoltFactory | None = None,
               steps: list[warmup.Step] | None = None) -> Front:
    """The ASGI app for one worker process (not built or warmed yet: call ``warm()``)."""
    return Front(settings, bolt_factory, steps=steps, redis_target=redis_target(settings))


class JsonGunicornLogger(glogging.Logger):  # type: ignore[misc]
    """gunicorn's (and uvicorn's) own messages as the same JSON lines as ours."""

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
    from bot.ops.uvworker import BotUvicornWorker

    metrics_port = int(getattr(settings, "metrics_port", 9100))
    if metrics_port == settings.port:
        raise ValueError("METRICS_PORT must differ from PORT: /metrics is not public")
    return {
        "bind": [f"0.0.0.0:{settings.port}", f"0.0.0.0:{metrics_port}"],
        "workers": settings.web_concurrency,
        "worker_class": BotUvicornWorker,
        "graceful_timeout": GRACEFUL_TIMEOUT_S,
        "timeout": 30,  # a worker whose loop is silent this long is killed and replaced
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
    """In the worker, as it ends: let dispatches and Bolt's post-ack turns finish."""
    app = getattr(worker, "wsgi", None)
    if isinstance(app, Front):
        app.drain()


def _post_worker_init(worker: Any) -> None:
    logging.getLogger(__name__).info(
        "worker ready", extra={"json_fields": {"event": "worker_ready"}}
    )


class BotServer(BaseApplication):  # type: ignore[misc]
    """gunicorn configured from :class:`Settings`, without a config file or argv."""

    def __init__(self, settings: Settings, bolt_factory: BoltFactory | None = None,
                 steps: list[warmup.Step] | None = None) -> None:
        self._settings = settings
        self._factory = bolt_factory
        self._steps = steps
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

    def load(self) -> Front:
        """Runs in each worker after the fork: its Bolt app, warmed, before it accepts."""
        front = make_front(self._settings, self._factory, self._steps)
        front.warm()
        return front


def main(settings: Settings, bolt_factory: BoltFactory | None = None,
         steps: list[warmup.Step] | None = None) -> None:
    """Serve HTTP mode on PORT (and METRICS_PORT) with WEB_CONCURRENCY workers until SIGTERM.

    ``bolt_factory`` and ``steps`` replace the Slack face's app and its warm-up (benches and
    tests serve a bare app through the same front)."""
    logs.setup_logging(settings.log_level)
    for secret in (settings.slack_bot_token, settings.slack_signing_secret,
                   settings.slack_app_token):
        if secret is not None:
            logs.add_secret(secret.get_secret_value())
    target = redis_target(settings)
    health.startup_check(target)
    path, created = _prepare_multiproc_dir()
    server = BotServer(settings, bolt_factory, steps)
    master = os.getpid()

    def cleanup() -> None:
        # A worker's sys.exit() unwinds through server.run() too: only the master cleans up.
        if created and os.getpid() == master:
            shutil.rmtree(path, ignore_errors=True)

    server.set_cleanup(cleanup)
    _log.info(
        "serving HTTP",
        extra={"json_fields": {"event": "serve", "port": settings.port,
                               "metrics_port": int(getattr(settings, "metrics_port", 9100)),
                               "workers": settings.web_concurrency,
                               "threads": int(getattr(settings, "web_threads", 4)),
                               "redis": target.describe() if target else None,
                               "metrics_dir": path}},
    )
    try:
        server.run()
    finally:
        cleanup()
