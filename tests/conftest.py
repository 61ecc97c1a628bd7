"""Fixtures shared by every test package."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.redisproc import RedisProcess


@pytest.fixture(scope="session")
def redis_proc() -> Iterator[RedisProcess]:
    """One throwaway redis-server for the session (started on a free port)."""
    proc = RedisProcess()
    proc.start()
    yield proc
    proc.cleanup()


@pytest.fixture
def redis_url(redis_proc: RedisProcess) -> Iterator[str]:
    """A clean database on the throwaway server; restarted if a previous test killed it."""
    import redis

    redis_proc.start()
    client = redis.Redis.from_url(redis_proc.url)
    client.flushdb()
    client.close()
    yield redis_proc.url


@pytest.fixture
def own_redis() -> Iterator[RedisProcess]:
    """A redis-server of this test's own, for tests that kill and restart it."""
    proc = RedisProcess()
    proc.start()
    yield proc
    proc.cleanup()


@pytest.fixture
def aof_redis() -> Iterator[RedisProcess]:
    """A redis-server of this test's own with the append-only file (fsync every second), as
    deployed: for tests that kill it and expect what was acknowledged to survive."""
    proc = RedisProcess(appendonly=True, appendfsync="everysec")
    proc.start()
    yield proc
    proc.cleanup()
