"""Where conversations live between turns: Redis in production, a dict for the console.

Any worker may receive the next click, so nothing that must survive a request stays in
process memory. A turn costs at most two round trips to Redis:

1. read: ``SET delivery NX EX`` (is this a redelivered event?) pipelined with ``HGETALL``
   of the conversation;
2. write: one Lua script that compares the stored version with the one read, and only if
   they match writes the new document, slides the TTL, and (when the turn finished a
   sizing) appends to the audit stream and the owner's recent list. All or nothing: a
   script runs atomically, so no reader ever sees half a turn. The script is idempotent
   (the same document at the same version is a success), because redis-py retries a
   command whose reply was lost, and that retry must not report a lost race.

A conversation is one hash ``{prefix}:conv:{key}``: ``v`` (the version, what the script
compares), ``doc`` (the Conversation JSON) and ``m:<name>`` fields for face metadata (the
Slack message ts), which ``update_meta`` sets without touching the version, so a button
rendered before the ts was saved is not mistaken for a stale one.

Redis errors (connection refused, timeouts, a loading replica) become
``StoreUnavailable``: the face says "try again, nothing was lost".
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from dialogue.errors import Conflict, Duplicate, StoreUnavailable

DELIVERY_TTL_SECONDS = 24 * 3600  # Slack retries within minutes; a day is generous
RECENT_TTL_SECONDS = 90 * 24 * 3600
RECENT_MAX = 20
AUDIT_MAXLEN = 100_000


@dataclass(frozen=True)
class Stored:
    """What a read returns: the document, face metadata, and the version the CAS compares
    (kept outside the document so a conversation whose JSON no longer parses can still be
    replaced by a new one)."""

    doc: str
    meta: dict[str, str]
    version: int


@dataclass(frozen=True)
class Write:
    """One turn's effect on the store; applied entirely or not at all."""

    doc: str
    version: int
    expected: int | None  # the version read; None: the key must not exist
    ttl_seconds: int
    replace: bool = False  # start(): drop every field of what was there (old meta too)
    meta: dict[str, str] = field(default_factory=dict)
    audit: dict[str, Any] | None = None  # a finished sizing, for the audit stream
    owner: str | None = None
    recent: dict[str, Any] | None = None  # the owner's App Home entry


class Store(Protocol):
    """What the dialogue needs from storage. Implementations raise the dialogue's errors."""

    def read(self, key: str, delivery_id: str | None = None) -> Stored | None:
        """The stored conversation (None if absent); raises Duplicate for a seen delivery."""
        ...

    def write(self, key: str, w: Write) -> None:
        """Compare-and-set; raises Conflict when the stored version is not ``w.expected``."""
        ...

    def set_meta(self, key: str, meta: dict[str, str]) -> bool:
        """Set face metadata on an existing conversation; False if there is none."""
        ...

    def append_audit(self, record: dict[str, Any]) -> str:
        """Append a record (a quote request) to the audit trail; returns its id."""
        ...

    def audit_log(self, count: int = 100) -> list[dict[str, Any]]:
        """The latest audit records, newest first."""
        ...

    def recent(self, owner: str, limit: int) -> list[dict[str, Any]]:
        """The owner's latest finished sizings, newest first."""
        ...


def _dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), sort_keys=True)


# -- in process ----------------------------------------------------------------------------


class MemoryStore:
    """A dict with the same semantics (CAS, TTL, dedupe, audit), for the console and tests."""

    def __init__(self, *, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._convs: dict[str, tuple[int, str, dict[str, str], float]] = {}
        self._deliveries: dict[str, float] = {}
        self._audit: deque[dict[str, Any]] = deque(maxlen=AUDIT_MAXLEN)
        self._recent: dict[str, deque[str]] = {}

    def _live(self, key: str, now: float) -> tuple[int, str, dict[str, str], float] | None:
        item = self._convs.get(key)
        if item is not None and item[3] <= now:
            del self._convs[key]
            return None
        return item

    def read(self, key: str, delivery_id: str | None = None) -> Stored | None:
        with self._lock:
            now = self._clock()
            if delivery_id is not None:
                seen = self._deliveries.get(delivery_id)
                if seen is not None and seen > now:
                    raise Duplicate(delivery_id)
                self._deliveries[delivery_id] = now + DELIVERY_TTL_SECONDS
            item = self._live(key, now)
            return None if item is None else Stored(item[1], dict(item[2]), item[0])

    def write(self, key: str, w: Write) -> None:
        with self._lock:
            now = self._clock()
            item = self._live(key, now)
            current = None if item is None else item[0]
            if item is not None and (current, item[1]) == (w.version, w.doc):
                return  # the same write again: already applied
            if current != w.expected:
                raise Conflict(key, w.expected)
            meta = {} if (item is None or w.replace) else dict(item[2])
            meta.update(w.meta)
            self._convs[key] = (w.version, w.doc, meta, now + w.ttl_seconds)
            if w.audit is not None:
                self._audit.append(json.loads(_dumps(w.audit)))
            if w.owner is not None and w.recent is not None:
                lst = self._recent.setdefault(w.owner, deque(maxlen=RECENT_MAX))
                lst.appendleft(_dumps(w.recent))

    def set_meta(self, key: str, meta: dict[str, str]) -> bool:
        with self._lock:
            item = self._live(key, self._clock())
            if item is None:
                return False
            self._convs[key] = (item[0], item[1], {**item[2], **meta}, item[3])
            return True

    def append_audit(self, record: dict[str, Any]) -> str:
        with self._lock:
            self._audit.append(json.loads(_dumps(record)))
            return str(len(self._audit))

    def audit_log(self, count: int = 100) -> list[dict[str, Any]]:
        with self._lock:
            return list(reversed(self._audit))[:count]

    def recent(self, owner: str, limit: int) -> list[dict[str, Any]]:
        with self._lock:
            return [json.loads(e) for e in list(self._recent.get(owner, ()))[:limit]]


# -- Redis ---------------------------------------------------------------------------------

# KEYS: conv, audit stream, recent list. ARGV: expected ('' = must not exist), version, doc,
# ttl ms, replace '1'/'0', audit json or '', recent json or '', audit maxlen, recent max,
# recent ttl s, then meta name/value pairs.
_CAS = """
local cur = redis.call('HGET', KEYS[1], 'v')
if cur == ARGV[2] and redis.call('HGET', KEYS[1], 'doc') == ARGV[3] then
  return 1  -- this very write already landed (a client retry after a lost reply)
end
if ARGV[1] == '' then
  if cur then return 0 end
elseif cur ~= ARGV[1] then
  return 0
end
if ARGV[5] == '1' then redis.call('DEL', KEYS[1]) end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'doc', ARGV[3])
for i = 11, #ARGV, 2 do redis.call('HSET', KEYS[1], 'm:' .. ARGV[i], ARGV[i + 1]) end
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
            if delivery_id is None:
                raw = self.client.hgetall(self._conv(key))
            else:
                pipe = self.client.pipeline(transaction=False)
                pipe.set(f"{self.prefix}:delivery:{delivery_id}", b"1", nx=True,
                         ex=DELIVERY_TTL_SECONDS)
                pipe.hgetall(self._conv(key))
                fresh, raw = pipe.execute()
                if not fresh:
                    raise Duplicate(delivery_id)
        fields = {_s(k): _s(v) for k, v in raw.items()}
        if "doc" not in fields:
            return None
        meta = {k[2:]: v for k, v in fields.items() if k.startswith("m:")}
        return Stored(fields["doc"], meta, int(fields.get("v", "0")))

    def write(self, key: str, w: Write) -> None:
        args: list[str | int] = [
            "" if w.expected is None else str(w.expected), str(w.version), w.doc,
            max(1, int(w.ttl_seconds * 1000)), "1" if w.replace else "0",
            "" if w.audit is None else _dumps(w.audit),
            "" if (w.recent is None or w.owner is None) else _dumps(w.recent),
            self.audit_maxlen, RECENT_MAX, RECENT_TTL_SECONDS,
        ]
        for name, value in w.meta.items():
            args += [name, value]
        keys = [self._conv(key), self.audit_key, self._recent_key(w.owner or "-")]
        with _guard():
            ok = self._cas(keys=keys, args=args)
        if not ok:
            raise Conflict(key, w.expected)

    def set_meta(self, key: str, meta: dict[str, str]) -> bool:
        args: list[str] = []
        for name, value in meta.items():
            args += [name, value]
        with _guard():
            return bool(self._set_meta(keys=[self._conv(key)], args=args))

    def append_audit(self, record: dict[str, Any]) -> str:
        with _guard():
            rid = self.client.xadd(self.audit_key, {"record": _dumps(record)},
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
