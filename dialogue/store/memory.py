"""The in-process store: a dict with the same semantics as Redis (CAS, TTL, exactly-once
deliveries, claims, audit), for the console, Socket Mode in development and tests.

The audit trail behaves as ``dialogue/store/redisaudit.py``'s: appends idempotent by the
record's stable id, records older than the retention dropped on every append, export by time
range, erasure of one person's data.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from dialogue.errors import Conflict, Duplicate
from dialogue.store.base import (
    AUDIT_DEDUPE_SECONDS,
    AUDIT_MAXLEN,
    AUDIT_RETENTION_DAYS,
    DAY_MS,
    RECENT_MAX,
    Purged,
    Stored,
    Write,
    audit_id,
    concerns,
    dumps,
)


@dataclass
class _Item:
    version: int
    doc: str
    meta: dict[str, str]
    expires_at: float
    deliveries: set[str] = field(default_factory=set)


class MemoryStore:
    """Conversations in a dict, guarded by one lock."""

    def __init__(self, *, clock: Callable[[], float] = time.time,
                 audit_retention_days: int = AUDIT_RETENTION_DAYS) -> None:
        self._clock = clock
        self._retention_days = audit_retention_days
        self._seen: dict[str, tuple[str, float]] = {}  # stable id -> (record id, until)
        self._lock = threading.Lock()
        self._convs: dict[str, _Item] = {}
        self._claims: dict[str, float] = {}
        self._holders: dict[str, str] = {}  # claim token -> the holder that won it
        self._audit: deque[dict[str, Any]] = deque(maxlen=AUDIT_MAXLEN)
        self._audit_seq = 0
        self._recent: dict[str, deque[str]] = {}

    def _live(self, key: str, now: float) -> _Item | None:
        item = self._convs.get(key)
        if item is not None and item.expires_at <= now:
            del self._convs[key]
            return None
        return item

    def read(self, key: str, delivery_id: str | None = None) -> Stored | None:
        with self._lock:
            item = self._live(key, self._clock())
            if item is None:
                return None
            return Stored(item.doc, dict(item.meta), item.version,
                          applied=delivery_id is not None and delivery_id in item.deliveries)

    def write(self, key: str, w: Write) -> None:
        with self._lock:
            now = self._clock()
            item = self._live(key, now)
            if item is not None and (item.version, item.doc) == (w.version, w.doc):
                return  # the same write again: already applied
            if item is not None and w.delivery_id is not None and w.delivery_id in item.deliveries:
                raise Duplicate(w.delivery_id)
            current = None if item is None else item.version
            if current != w.expected:
                raise Conflict(key, w.expected)
            keep = item is not None and not w.replace
            meta = dict(item.meta) if keep and item is not None else {}
            meta.update(w.meta)
            deliveries = set(item.deliveries) if keep and item is not None else set()
            if w.delivery_id is not None:
                deliveries.add(w.delivery_id)
            self._convs[key] = _Item(w.version, w.doc, meta, now + w.ttl_seconds, deliveries)
            if w.audit is not None:  # one record per applied turn, as Redis's script does
                self._append(w.audit, rid=uuid.uuid4().hex)
            if w.owner is not None and w.recent is not None:
                lst = self._recent.setdefault(w.owner, deque(maxlen=RECENT_MAX))
                lst.appendleft(dumps(w.recent))

    def claim(self, token: str, ttl_seconds: int, holder: str | None = None) -> bool:
        with self._lock:
            now = self._clock()
            until = self._claims.get(token)
            if until is not None and until > now:
                return holder is not None and self._holders.get(token) == holder
            self._claims[token] = now + ttl_seconds
            if holder is not None:
                self._holders[token] = holder
            else:
                self._holders.pop(token, None)
            return True

    def release(self, token: str, holder: str) -> bool:
        with self._lock:
            if self._holders.get(token) != holder or self._claims.get(token, 0) <= self._clock():
                return False
            del self._claims[token], self._holders[token]
            return True

    def set_meta(self, key: str, meta: dict[str, str]) -> bool:
        with self._lock:
            item = self._live(key, self._clock())
            if item is None:
                return False
            item.meta.update(meta)
            return True

    def _append(self, record: dict[str, Any], rid: str | None = None) -> str:
        now = self._clock()
        rid = rid or audit_id(record)
        seen = self._seen.get(rid)
        if seen is not None and seen[1] > now:
            return seen[0]
        self._audit_seq += 1
        ident = f"{int(now * 1000)}-{self._audit_seq}"
        self._audit.append({**json.loads(dumps(record)), "_id": ident, "_rid": rid})
        self._seen[rid] = (ident, now + AUDIT_DEDUPE_SECONDS)
        self._trim(now)
        return ident

    def _trim(self, now: float) -> int:
        cutoff_ms = int(now * 1000) - self._retention_days * DAY_MS
        removed = 0
        while self._audit and int(self._audit[0]["_id"].split("-")[0]) < cutoff_ms:
            self._audit.popleft()
            removed += 1
        for owner, entries in list(self._recent.items()):
            kept = deque((e for e in entries
                          if float(json.loads(e).get("finished_at") or now) * 1000 >= cutoff_ms),
                         maxlen=RECENT_MAX)
            removed += len(entries) - len(kept)
            self._recent[owner] = kept
        self._seen = {k: v for k, v in self._seen.items() if v[1] > now}
        return removed

    def append_audit(self, record: dict[str, Any]) -> str:
        with self._lock:
            return self._append(record)

    def audit_log(self, count: int = 100) -> list[dict[str, Any]]:
        with self._lock:
            rows = list(reversed(self._audit))[:count]
        return [{k: v for k, v in r.items() if k not in ("_id", "_rid")} for r in rows]

    def recent(self, owner: str, limit: int) -> list[dict[str, Any]]:
        with self._lock:
            return [json.loads(e) for e in list(self._recent.get(owner, ()))[:limit]]

    # -- retention, export, erasure (dialogue/store/base.py: AuditStore) ---------------------

    def set_audit_retention(self, days: int) -> None:
        with self._lock:
            self._retention_days = int(days)

    def apply_retention(self) -> int:
        with self._lock:
            return self._trim(self._clock())

    def export_audit(self, since_ms: int, until_ms: int,
                     user: str | None = None) -> Iterator[dict[str, Any]]:
        with self._lock:
            rows = list(self._audit)
        for r in rows:
            if since_ms <= int(r["_id"].split("-")[0]) < until_ms and (
                    user is None or concerns(r, user)):
                rec = {k: v for k, v in r.items() if k not in ("_id", "_rid")}
                yield {**rec, "id": r["_id"], "rid": r["_rid"]}

    def purge_person(self, user: str, meta_fields: tuple[str, ...] = ()) -> Purged:
        with self._lock:
            ids = tuple(r["_id"] for r in self._audit if concerns(r, user))
            self._audit = deque((r for r in self._audit if not concerns(r, user)),
                                maxlen=AUDIT_MAXLEN)
            recent = len(self._recent.pop(user, ()))
            owned = tuple(k for k, item in self._convs.items() if _owner(item.doc) == user)
            for key in owned:
                del self._convs[key]
            meta = 0
            for item in self._convs.values():
                for name in meta_fields:
                    meta += item.meta.pop(name, None) is not None
            claims = [t for t in self._claims if user in t.split(":")]
            for token in claims:
                del self._claims[token]
        return Purged(user, ids, recent, owned, meta, len(claims))


def _owner(doc: str) -> object:
    try:
        data = json.loads(doc)
    except ValueError:
        return None
    return data.get("owner") if isinstance(data, dict) else None
