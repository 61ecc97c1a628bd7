"""Run ``python -m bot`` (HTTP mode) for real, and talk to each of its workers on purpose.

Shared by the end-to-end tests (``tests/ops/test_serve.py``, ``tests/ops/test_front.py``) and
the benches (``bench/serve.py``, ``bench/faults.py``).

Why pinned connections: through one port the kernel decides which worker accepts a new
connection, and sequential requests often all land on the same one. A kept-alive HTTP/1.1
connection stays with the worker that accepted it, so opening connections until each worker
holds one (every response names its worker in ``X-Worker-Pid``) lets a test alternate requests
between workers deterministically.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from tests.slackreq import sign

ROOT = Path(__file__).resolve().parents[2]
WORKER_HEADER = "X-Worker-Pid"


def bot_env(*, slack_url: str, redis_url: str, port: int, secret: str, token: str,
            workers: int = 2, metrics_port: int | None = None, **extra: str) -> dict[str, str]:
    """The environment of an HTTP-mode bot: only what these settings say, no stray SLACK_*.
    ``METRICS_PORT`` is a free port unless given."""
    from tests.redisproc import free_port

    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SLACK_", "PROMETHEUS_MULTIPROC"))}
    env.update({
        "SLACK_BOT_TOKEN": token,
        "SLACK_SIGNING_SECRET": secret,
        "SLACK_API_URL": slack_url,
        "REDIS_URL": redis_url,
        "WEB_CONCURRENCY": str(workers),
        "PORT": str(port),
        "METRICS_PORT": str(metrics_port or free_port()),
        "LOG_LEVEL": "INFO",
        "PYTHONPATH": str(ROOT),
        **extra,
    })
    return env


class ServerProcess:
    """A server subprocess with its stderr (JSON log lines) kept in a file."""

    def __init__(self, argv: list[str], env: dict[str, str], port: int, log_path: Path) -> None:
        self.argv = argv
        self.env = env
        self.port = port
        self.metrics_port = int(env.get("METRICS_PORT", "9100"))
        self.log_path = log_path
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, ready_path: str = "/readyz", timeout: float = 30.0) -> ServerProcess:
        self._log = self.log_path.open("wb")
        self.proc = subprocess.Popen(self.argv, env=self.env, cwd=ROOT, stdin=subprocess.DEVNULL,
                                     stdout=self._log, stderr=self._log)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}:\n{self.log_text()}")
            with contextlib.suppress(OSError, http.client.HTTPException):
                status, _, _ = get(self.port, ready_path)
                if status == 200:
                    return self
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"server not ready on {ready_path} in {timeout}s:\n{self.log_text()}")

    def terminate(self) -> None:
        """SIGTERM, as Docker and Kubernetes send: a graceful stop."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)

    def wait(self, timeout: float = 45.0) -> int:
        assert self.proc is not None
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
            raise

    def stop(self, timeout: float = 45.0) -> int | None:
        if self.proc is None:
            return None
        self.terminate()
        try:
            code = self.wait(timeout)
        finally:
            self._log.close()
        return code

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def log_lines(self) -> list[dict[str, Any]]:
        """The JSON log lines (a line that is not JSON would fail the format check)."""
        out = []
        for line in self.log_text().splitlines():
            if line.strip():
                out.append(json.loads(line))
        return out


class Headers(dict[str, str]):
    """Response headers, looked up without regard to case (the front sends them lower-case)."""

    def __init__(self, pairs: list[tuple[str, str]]) -> None:
        super().__init__((k.lower(), v) for k, v in pairs)

    def __getitem__(self, key: str) -> str:
        return super().__getitem__(key.lower())

    def __contains__(self, key: object) -> bool:
        return super().__contains__(str(key).lower())

    def get(self, key: str, default: Any = None) -> Any:
        return super().get(key.lower(), default)


def get(port: int, path: str, timeout: float = 5.0) -> tuple[int, dict[str, str], bytes]:
    """One GET on a fresh connection."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        return resp.status, Headers(resp.getheaders()), resp.read()
    finally:
        conn.close()


class WorkerConn:
    """A kept-alive connection, hence bound to the one worker that accepted it."""

    def __init__(self, port: int, timeout: float = 10.0, *, probe: bool = True) -> None:
        self.port = port
        self.pid: str | None = None
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        if probe:
            status, headers, _ = self.request("GET", "/healthz")
            assert status == 200
            self.pid = headers[WORKER_HEADER]

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        self.conn.request(method, path, body=body, headers=headers or {})
        resp = self.conn.getresponse()
        data = resp.read()
        got = Headers(resp.getheaders())
        pid = got.get(WORKER_HEADER)
        if self.pid is not None and pid != self.pid:
            raise AssertionError(f"connection moved from worker {self.pid} to {pid}")
        return resp.status, got, data

    def post_signed(self, secret: str, form: dict[str, str],
                    path: str = "/slack/events") -> tuple[int, dict[str, str], bytes]:
        """A form-encoded request signed exactly as Slack signs it (tests.slackreq.sign)."""
        body = urlencode(form).encode()
        ts = str(int(time.time()))
        return self.request("POST", path, body, {
            "Content-Type": "application/x-www-form-urlencoded",
            "X-Slack-Request-Timestamp": ts,
            "X-Slack-Signature": sign(secret, ts, body),
        })

    def close(self) -> None:
        self.conn.close()


class FreshConn:
    """Each request on a new connection, as the kernel hands it to whichever worker accepts."""

    def __init__(self, port: int, timeout: float = 10.0) -> None:
        self.port = port
        self.timeout = timeout

    def post_signed(self, secret: str, form: dict[str, str],
                    path: str = "/slack/events") -> tuple[int, dict[str, str], bytes]:
        conn = WorkerConn(self.port, self.timeout, probe=False)
        try:
            return conn.post_signed(secret, form, path)
        finally:
            conn.close()


def pin_workers(port: int, workers: int, timeout: float = 20.0) -> list[WorkerConn]:
    """One kept-alive connection per worker process.

    Retries until ``timeout``: a worker that is still booting (or being replaced) accepts
    nothing yet, so all connections land on the others for a while.
    """
    deadline = time.monotonic() + timeout
    pinned: dict[str, WorkerConn] = {}
    while True:
        spare: list[WorkerConn] = []
        try:
            for _ in range(50):
                conn = WorkerConn(port)
                assert conn.pid is not None
                if conn.pid in pinned:
                    spare.append(conn)  # held open so the next accept may go elsewhere
                else:
                    pinned[conn.pid] = conn
                if len(pinned) == workers:
                    return list(pinned.values())
        finally:
            for conn in spare:
                conn.close()
        if time.monotonic() > deadline:
            for conn in pinned.values():
                conn.close()
            raise AssertionError(f"only reached workers {sorted(pinned)} in {timeout}s")
        time.sleep(0.1)


def python_m_bot() -> list[str]:
    return [sys.executable, "-m", "bot"]


def mini_app() -> list[str]:
    """The real front around a bare Bolt app (tests/ops/miniapp.py)."""
    return [sys.executable, "-m", "tests.ops.miniapp"]


def steady_metrics(text: str) -> str:
    """A scrape without the Redis command timings, which move on their own between two
    scrapes (the readiness probe and the turn consumers keep talking to Redis)."""
    return "\n".join(line for line in text.splitlines()
                     if not line.startswith("gpubot_redis_command_duration_seconds"))


def metric_sum(text: str, name: str, **labels: str) -> float:
    """Sum of the samples of ``name`` whose labels include ``labels``."""
    total = 0.0
    for line in text.splitlines():
        m = re.match(r"^(\w+)(?:\{(.*)\})? (\S+)$", line)
        if not m or m.group(1) != name:
            continue
        got = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2) or ""))
        if all(got.get(k) == v for k, v in labels.items()):
            total += float(m.group(3))
    return total
