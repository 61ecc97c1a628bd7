"""The in-process store: a dict with the same semantics as Redis (CAS, TTL, exactly-once
deliveries, claims, audit), for the console, Socket Mode in development and tests."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dialogue.errors import Conflict, Duplicate
from dialogue.store.base import AUDIT_MAXLEN, RECENT_MAX, Stored, Write, dumps


@dataclass
class _Item:
    version: int
    doc: str
    meta: dict[str, str]
    expires_at: float
    deliveries: set[str] = field(default_factory=set)


class MemoryStore:
    """Conversations in a dict, guarded by one lock."""

    def __init__(self, *, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._convs: dict[str, _Item] = {}
        self._claims: dict[str, float] = {}
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
            if w.audit is not None:
                self._append(w.audit)
            if w.owner is not None and w.recent is not None:
                lst = self._recent.setdefault(w.owner, deque(maxlen=RECENT_MAX))
                lst.appendleft(dumps(w.recent))

    def claim(self, token: str, ttl_seconds: int) -> bool:
        with self._lock:
            now = self._clock()
            until = self._claims.get(token)
            if until is not None and until > now:
                return False
            self._claims[token] = now + ttl_seconds
            return True

    def set_meta(self, key: str, meta: dict[str, str]) -> bool:
        with self._lock:
            item = self._live(key, self._clock())
            if item is None:
                return False
            item.meta.update(meta)
            return True

    def _append(self, record: dict[str, Any]) -> str:
        self._audit_seq += 1
        rid = f"{int(self._clock() * 1000)}-{self._audit_seq}"
        self._audit.append({**json.loads(dumps(record)), "_id": rid})
        return rid

    def append_audit(self, record: dict[str, Any]) -> str:
        with self._lock:
            return self._append(record)

    def audit_log(self, count: int = 100) -> list[dict[str, Any]]:
        with self._lock:
            rows = list(reversed(self._audit))[:count]
        return [{k: v for k, v in r.items() if k != "_id"} for r in rows]

    def recent(self, owner: str, limit: int) -> list[dict[str, Any]]:
        with self._lock:
            return [json.loads(e) for e in list(self._recent.get(owner, ()))[:limit]]
