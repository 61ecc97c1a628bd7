"""Throwaway Redis processes for tests and benches: a server, Sentinels, a 3-primary cluster.

Tests never touch the machine's Redis on 6379: each starts its own on free ports, with its own
empty data directory, and may pause it (SIGSTOP: a Redis that hangs), kill it (SIGKILL: a crash;
with ``appendonly=True`` it restarts with what its AOF kept) and start it again. Sentinels are
``redis-server --sentinel`` (the ``redis-sentinel`` name is only a link to it); the cluster is
made with ``redis-cli --cluster create``, as an operator would.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def free_cluster_port() -> int:
    """A free port whose cluster bus port (port + 10000, below 65536) is free too."""
    while True:
        port = free_port()
        if port + 10000 > 65535:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port + 10000))
            except OSError:
                continue
        return port


def _exe(name: str) -> str:
    exe = shutil.which(name)
    if exe is None:
        raise RuntimeError(
            f"{name} is not installed; install it with: apt-get install redis-server")
    return exe


def _ping(port: int, timeout: float = 0.2) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


class RedisProcess:
    """One redis-server. ``appendonly``: AOF with ``appendfsync`` (production: everysec)."""

    def __init__(self, port: int | None = None, *, appendonly: bool = False,
                 appendfsync: str = "everysec", save: str = "", replicaof: int | None = None,
                 extra: tuple[str, ...] = ()) -> None:
        self.exe = _exe("redis-server")
        self.port = port or free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="test-redis-"))
        self.appendonly = appendonly
        self.appendfsync = appendfsync
        self.save = save
        self.replicaof = replicaof
        self.extra = extra
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def argv(self) -> list[str]:
        argv = [
            self.exe, "--port", str(self.port), "--bind", "127.0.0.1",
            "--save", self.save, "--appendonly", "yes" if self.appendonly else "no",
            "--appendfsync", self.appendfsync, "--dir", str(self.dir),
        ]
        if self.replicaof is not None:
            argv += ["--replicaof", "127.0.0.1", str(self.replicaof)]
        return argv + list(self.extra)

    def start(self, timeout: float = 10.0) -> None:
        if self.proc is not None and self.proc.poll() is None:
            return
        self.proc = subprocess.Popen(self.argv(), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if _ping(self.port):
                return
            time.sleep(0.05)
        raise RuntimeError(f"redis-server did not start on port {self.port}")

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def stop(self) -> None:
        """SIGKILL: a crash. What survives is what persistence kept."""
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.proc.pid, signal.SIGCONT)  # a paused one must die too
            self.proc.kill()
            self.proc.wait(timeout=10)
            self.proc = None

    kill9 = stop

    def pause(self) -> None:
        """SIGSTOP: the server hangs; connections stay open, nothing is answered."""
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGSTOP)

    def resume(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGCONT)

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Paused for the duration of the ``with`` body (resumed even if it raises)."""
        self.pause()
        try:
            yield
        finally:
            self.resume()

    def cleanup(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


class SentinelGroup:
    """A primary, one replica and three Sentinels watching them (quorum 2), all local.

    ``down_after_ms`` is how long the Sentinels wait before calling the primary down; a
    failover then takes about a second more.
    """

    MASTER = "mymaster"

    def __init__(self, *, down_after_ms: int = 1000, appendonly: bool = True) -> None:
        self.primary = RedisProcess(appendonly=appendonly)
        self.replica = RedisProcess(appendonly=appendonly, replicaof=self.primary.port)
        self.down_after_ms = down_after_ms
        self.ports = [free_port() for _ in range(3)]
        self.dir = Path(tempfile.mkdtemp(prefix="test-sentinel-"))
        self.procs: list[subprocess.Popen[bytes]] = []

    @property
    def url(self) -> str:
        hosts = ",".join(f"127.0.0.1:{p}" for p in self.ports)
        return f"redis+sentinel://{hosts}/{self.MASTER}/0"

    def start(self) -> SentinelGroup:
        """Start the primary, the replica and the Sentinels; on failure, stop them all."""
        try:
            return self._start()
        except BaseException:
            self.cleanup()
            raise

    def _start(self) -> SentinelGroup:
        self.primary.start()
        self.replica.start()
        exe = _exe("redis-server")
        for port in self.ports:
            conf = self.dir / f"sentinel-{port}.conf"
            conf.write_text(
                f"port {port}\nbind 127.0.0.1\ndir {self.dir}\n"
                f"sentinel monitor {self.MASTER} 127.0.0.1 {self.primary.port} 2\n"
                f"sentinel down-after-milliseconds {self.MASTER} {self.down_after_ms}\n"
                f"sentinel failover-timeout {self.MASTER} 5000\n"
                f"sentinel parallel-syncs {self.MASTER} 1\n"
            )
            self.procs.append(subprocess.Popen([exe, str(conf), "--sentinel"],
                                               stdout=subprocess.DEVNULL,
                                               stderr=subprocess.DEVNULL))
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if all(_ping(p) for p in self.ports) and self._replica_seen():
                return self
            time.sleep(0.1)
        raise RuntimeError("the Sentinels did not come up")

    def _replica_seen(self) -> bool:
        import redis

        try:  # the replica has finished its first sync and follows the primary
            info = redis.Redis(port=self.replica.port, socket_timeout=0.5).info("replication")
            return bool(info.get("master_link_status") == "up")
        except redis.RedisError:
            return False

    def current_primary_port(self) -> int | None:
        import redis

        for port in self.ports:
            try:
                addr = redis.Redis(port=port, socket_timeout=0.5).execute_command(  # type: ignore[no-untyped-call]
                    "SENTINEL", "get-master-addr-by-name", self.MASTER)
                if addr:
                    return int(addr[1])
            except redis.RedisError:
                continue
        return None

    def wait_failover(self, old_port: int, timeout: float = 20.0) -> int:
        """Wait until the Sentinels name a new primary that answers as one; its port."""
        import redis

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            port = self.current_primary_port()
            if port and port != old_port:
                with contextlib.suppress(redis.RedisError):
                    role = redis.Redis(port=port, socket_timeout=0.5).execute_command(  # type: ignore[no-untyped-call]
                        "ROLE")
                    if role and role[0] in (b"master", "master"):
                        return port
            time.sleep(0.1)
        raise AssertionError("no failover happened")

    def cleanup(self) -> None:
        for proc in self.procs:
            proc.kill()
            proc.wait(10)
        self.procs.clear()
        self.primary.cleanup()
        self.replica.cleanup()
        shutil.rmtree(self.dir, ignore_errors=True)


class ClusterGroup:
    """Three primaries with ``cluster-enabled yes``, joined by ``redis-cli --cluster create``."""

    def __init__(self, size: int = 3) -> None:
        self.nodes: list[RedisProcess] = []
        for _ in range(size):
            node = RedisProcess(free_cluster_port(), appendonly=True)
            node.extra = ("--cluster-enabled", "yes", "--cluster-config-file",
                          str(node.dir / "nodes.conf"), "--cluster-node-timeout", "5000")
            self.nodes.append(node)

    @property
    def url(self) -> str:
        return "redis+cluster://" + ",".join(f"127.0.0.1:{n.port}" for n in self.nodes)

    def start(self) -> ClusterGroup:
        """Start and join the nodes; on any failure, stop those already started."""
        try:
            return self._start()
        except BaseException:
            self.cleanup()
            raise

    def _start(self) -> ClusterGroup:
        for node in self.nodes:
            node.start()
        subprocess.run(
            [_exe("redis-cli"), "--cluster", "create",
             *[f"127.0.0.1:{n.port}" for n in self.nodes], "--cluster-yes"],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
        import redis

        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            states = []
            for node in self.nodes:
                with contextlib.suppress(redis.RedisError):
                    info = redis.Redis(port=node.port, socket_timeout=0.5).cluster("info")
                    states.append(info.get("cluster_state"))
            if states == ["ok"] * len(self.nodes):
                return self
            time.sleep(0.1)
        raise RuntimeError("the cluster did not reach cluster_state:ok")

    def cleanup(self) -> None:
        for node in self.nodes:
            node.cleanup()


def counting_connection() -> Any:
    """A redis-py connection class that counts round trips: one packed send is one trip
    (a pipeline or a script call is one send). Each call gives a fresh counter."""
    import redis

    class CountingConnection(redis.Connection):
        sent = 0

        def send_packed_command(self, command: Any, check_health: bool = True) -> None:
            type(self).sent += 1
            super().send_packed_command(command, check_health)  # type: ignore[no-untyped-call]

    return CountingConnection
