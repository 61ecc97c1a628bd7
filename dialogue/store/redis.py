"""Conversations in Redis: one hash per conversation, compare-and-set by one Lua script.

A turn costs at most two round trips:

1. read: ``HGETALL`` of the conversation (no side effect: whether the turn's delivery was
   already applied is read from the hash, never marked by the read);
2. write: one Lua script that compares the stored version with the one read, and only if
   they match writes the new document, records the delivery id, slides the TTL, and (when the
   turn finished a sizing) appends to the audit stream and the owner's recent list. A script
   runs atomically, so no reader ever sees half a turn, and the delivery id exists if and
   only if its turn was applied. The script is idempotent (the same document at the same
   version is a success), because redis-py retries a command whose reply was lost.

A conversation is one hash ``{prefix}:conv:{key}``: ``v`` (the version the script compares),
``doc`` (the Conversation JSON), ``m:<name>`` fields for face metadata (the Slack message ts,
set by ``set_meta`` without touching the version) and ``d:<delivery id>`` for each delivery
applied.

Redis errors (connection refused, timeouts, a loading replica) become ``StoreUnavailable``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from dialogue.errors import Conflict, Duplicate, StoreUnavailable
from dialogue.store.base import (
    AUDIT_MAXLEN,
    RECENT_MAX,
    RECENT_TTL_SECONDS,
    Stored,
    Write,
    dumps,
)

# KEYS: conv, audit stream, recent list. ARGV: expected ('' = must not exist), version, doc,
# ttl ms, replace '1'/'0', audit json or '', recent json or '', audit maxlen, recent max,
# recent ttl s, delivery id or '', then meta name/value pairs.
# Returns 1 (written, or this very write already landed), 0 (version mismatch), 2 (the
# delivery was already applied by another write).
_CAS = """
local cur = redis.call('HGET', KEYS[1], 'v')
if cur == ARGV[2] and redis.call('HGET', KEYS[1], 'doc') == ARGV[3] then
  return 1
end
if ARGV[11] ~= '' and redis.call('HEXISTS', KEYS[1], 'd:' .. ARGV[11]) == 1 then
  return 2
end
if ARGV[1] == '' then
  if cur then return 0 end
elseif cur ~= ARGV[1] then
  return 0
end
if ARGV[5] == '1' then redis.call('DEL', KEYS[1]) end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'doc', ARGV[3])
if ARGV[11] ~= '' then redis.call('HSET', KEYS[1], 'd:' .. ARGV[11], '1') end
for i = 12, #ARGV, 2 do redis.call('HSET', KEYS[1], 'm:' .. ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
if ARGV[6] ~= '' then
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[8], '*', 'record', ARGV[6])
end
if ARGV[7] ~= '' then
  redis.call('LPUSH', KEYS[3], ARGV[7])
  redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[9]) - 1)
  redis.call('EXPIRE', KEYS[3], ARGV[10])
end
return 1
"""

_SET_META = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
for i = 1, #ARGV, 2 do redis.call('HSET', KEYS[1], 'm:' .. ARGV[i], ARGV[i + 1]) end
return 1
"""

_UNAVAILABLE = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError,
                redis.exceptions.ReadOnlyError)


def _s(v: Any) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


@contextmanager
def _guard() -> Iterator[None]:
    try:
        yield
    except _UNAVAILABLE as exc:
        raise StoreUnavailable(type(exc).__name__) from exc


class RedisStore:
    """Conversations in Redis: one hash per conversation, CAS by Lua, a stream for audit."""

    def __init__(
        self,
        url_or_client: str | redis.Redis,
        *,
        prefix: str = "gpusizing",
        socket_timeout: float = 2.0,
        audit_maxlen: int = AUDIT_MAXLEN,
    ) -> None:
        if isinstance(url_or_client, str):
            # Fail fast: a face must answer within Slack's 3 s, so two quick retries at most.
            self.client = redis.Redis.from_url(
                url_or_client,
                socket_timeout=socket_timeout,
                socket_connect_timeout=socket_timeout,
                retry=Retry(ExponentialBackoff(cap=0.2, base=0.02), 2),
                health_check_interval=0,
            )
        else:
            self.client = url_or_client
        self.prefix = prefix
        self.audit_maxlen = audit_maxlen
        self._cas = self.client.register_script(_CAS)
        self._set_meta = self.client.register_script(_SET_META)

    def _conv(self, key: str) -> str:
        return f"{self.prefix}:conv:{key}"

    def _recent_key(self, owner: str) -> str:
        return f"{self.prefix}:recent:{owner}"

    @property
    def audit_key(self) -> str:
        return f"{self.prefix}:audit"

    def read(self, key: str, delivery_id: str | None = None) -> Stored | None:
        with _guard():
            raw = self.client.hgetall(self._conv(key))
        fields = {_s(k): _s(v) for k, v in raw.items()}
        if "doc" not in fields:
            return None
        meta = {k[2:]: v for k, v in fields.items() if k.startswith("m:")}
        applied = delivery_id is not None and f"d:{delivery_id}" in fields
        return Stored(fields["doc"], meta, int(fields.get("v", "0")), applied=applied)

    def write(self, key: str, w: Write) -> None:
        args: list[str | int] = [
            "" if w.expected is None else str(w.expected), str(w.version), w.doc,
            max(1, int(w.ttl_seconds * 1000)), "1" if w.replace else "0",
            "" if w.audit is None else dumps(w.audit),
            "" if (w.recent is None or w.owner is None) else dumps(w.recent),
            self.audit_maxlen, RECENT_MAX, RECENT_TTL_SECONDS, w.delivery_id or "",
        ]
        for name, value in w.meta.items():
            args += [name, value]
        keys = [self._conv(key), self.audit_key, self._recent_key(w.owner or "-")]
        with _guard():
            result = self._cas(keys=keys, args=args)
        if result == 2:
            raise Duplicate(w.delivery_id or "")
        if not result:
            raise Conflict(key, w.expected)

    def claim(self, token: str, ttl_seconds: int) -> bool:
        with _guard():
            return bool(self.client.set(f"{self.prefix}:claim:{token}", b"1", nx=True,
                                        ex=max(1, int(ttl_seconds))))

    def set_meta(self, key: str, meta: dict[str, str]) -> bool:
        args: list[str] = []
        for name, value in meta.items():
            args += [name, value]
        with _guard():
            return bool(self._set_meta(keys=[self._conv(key)], args=args))

    def append_audit(self, record: dict[str, Any]) -> str:
        with _guard():
            rid = self.client.xadd(self.audit_key, {"record": dumps(record)},
                                   maxlen=self.audit_maxlen, approximate=True)
        return _s(rid)

    def audit_log(self, count: int = 100) -> list[dict[str, Any]]:
        with _guard():
            rows = self.client.xrevrange(self.audit_key, count=count)
        out: list[dict[str, Any]] = []
        for _rid, fields in rows or []:
            data = {_s(k): _s(v) for k, v in (fields or {}).items()}
            out.append(json.loads(data["record"]))
        return out

    def recent(self, owner: str, limit: int) -> list[dict[str, Any]]:
        with _guard():
            rows = self.client.lrange(self._recent_key(owner), 0, max(0, limit - 1))
        return [json.loads(_s(r)) for r in rows]
