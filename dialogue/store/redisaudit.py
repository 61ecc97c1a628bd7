"""The audit stream and the owners' recent lists in Redis: idempotent appends, retention by
age, export and erasure of one person's data.

Why a module of its own: the audit trail holds personal data (who asked, in which team and
channel, what their quote form said), so a French vendor's GDPR review asks three things of it,
and each is answered here, next to the keys it touches (``dialogue/store/redis.py`` keeps the
conversations and delegates to :class:`RedisAudit`):

* **Retention.** Records older than the retention (``AUDIT_RETENTION_DAYS``, 365 by default)
  are trimmed with the stream's ``XTRIM MINID``: stream ids are the append time in ms (Redis's
  clock), so "older than N days" is one id. The retention is stored *with the stream* (a key
  in its hash slot, written by every start from the setting), so every worker and every
  append applies the same one, whoever built the store. Each :meth:`RedisAudit.append` trims
  in the same script; :meth:`RedisAudit.apply_retention` trims the stream and the recent lists
  at start and every hour (``bot/ops/health.py``), which also covers the sizing records the
  conversation's own script appends (``dialogue/store/redis.py``).
* **Idempotent appends.** A record's stable id is the hash of its content without its time
  stamp (``dialogue/store/base.py``: ``audit_id``). One script checks a marker for that id, and
  only if it is absent adds the record and sets the marker to the new stream id. redis-py
  resends a command whose reply was lost; the resend, or a second ``record_quote`` of the same
  request within :data:`~dialogue.store.base.AUDIT_DEDUPE_SECONDS`, returns the first record's
  id and adds nothing. The cluster's outbox copies use the same script with their own ids.
* **Export and erasure**: :meth:`RedisAudit.export` reads the stream by time range (ids and
  stable ids included); :meth:`RedisAudit.purge` removes one person's records, recent list,
  conversations, face metadata about them and the claims that name them.

Keys (cluster: the stream, its markers and its retention share one hash slot, the stream's
name as hash tag): ``{prefix}:audit`` (fields ``record``, ``rid``),
``{<prefix>:audit}:seen:<rid>`` (the stream id of that record), ``{<prefix>:audit}:retention``
(days), ``{prefix}:recent:<owner>`` (a list, newest first).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from dialogue.store.base import (
    AUDIT_DEDUPE_SECONDS,
    AUDIT_RETENTION_DAYS,
    RECENT_MAX,
    RECENT_TTL_SECONDS,
    Purged,
    audit_id,
    concerns,
    dumps,
)
from dialogue.store.connect import Link, Lua, guard

RID = "_rid"  # the record id inside a cluster's recent entry; never shown to callers
BATCH = 500

# KEYS: stream, marker, retention. ARGV: rid, record json, maxlen, marker ttl s, default days.
# Returns the stream id of the record (the earlier one when the marker was there).
APPEND = """
local got = redis.call('GET', KEYS[2])
if got then return got end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[3], '*',
                      'record', ARGV[2], 'rid', ARGV[1])
redis.call('SET', KEYS[2], id, 'EX', ARGV[4])
local days = tonumber(redis.call('GET', KEYS[3]) or ARGV[5])
local now = redis.call('TIME')
local cutoff = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) - days * 86400000
if cutoff > 0 then redis.call('XTRIM', KEYS[1], 'MINID', string.format('%d', cutoff)) end
return id
"""

# KEYS: stream, retention. ARGV: default days. Returns {records trimmed, cutoff ms}.
TRIM = """
local days = tonumber(redis.call('GET', KEYS[2]) or ARGV[1])
local now = redis.call('TIME')
local cutoff = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) - days * 86400000
if cutoff <= 0 then return {0, 0} end
return {redis.call('XTRIM', KEYS[1], 'MINID', string.format('%d', cutoff)), cutoff}
"""

# KEYS: the owner's list. ARGV: entry json (unique: it carries the record id), max, ttl s.
RECENT_PUT = """
if redis.call('LPOS', KEYS[1], ARGV[1]) then return 0 end
redis.call('LPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[2]) - 1)
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1
"""


def _s(v: Any) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def _glob(text: str) -> str:
    """``text`` with SCAN's pattern characters escaped."""
    return re.sub(r"([*?\[\]\\])", r"\\\1", text)


class RedisAudit:
    """The audit stream and recent lists of one store prefix."""

    def __init__(self, link: Link, prefix: str, *, maxlen: int,
                 retention_days: int = AUDIT_RETENTION_DAYS) -> None:
        self.link = link
        self.client = link.client
        self.prefix = prefix
        self.key = f"{prefix}:audit"
        self.maxlen = maxlen
        self.default_days = retention_days
        self._append = Lua(self.client, APPEND)
        self._trim = Lua(self.client, TRIM)
        self._recent_put = Lua(self.client, RECENT_PUT)

    def seen_key(self, rid: str) -> str:
        # A key whose hash tag is the stream's whole name hashes to the stream's slot.
        return f"{{{self.key}}}:seen:{rid}"

    @property
    def retention_key(self) -> str:
        return f"{{{self.key}}}:retention"

    def recent_key(self, owner: str) -> str:
        return f"{self.prefix}:recent:{owner}"

    # -- writing ----------------------------------------------------------------------------

    def append(self, record: dict[str, Any], *, rid: str | None = None,
               ttl_s: int = AUDIT_DEDUPE_SECONDS) -> str:
        """Add ``record`` once (by ``rid``, else its stable id); its stream id."""
        rid = rid or audit_id(record)
        with guard():
            got = self._append(keys=[self.key, self.seen_key(rid), self.retention_key],
                               args=[rid, dumps(record), self.maxlen, ttl_s, self.default_days])
        self._replicated()
        return _s(got)

    def _replicated(self) -> None:
        """Behind Sentinel, as a turn's write does: a failover now must not undo it."""
        if self.link.target.replica_acks:
            self.link.wait_replicas()

    def put_recent(self, owner: str, entry: dict[str, Any], rid: str) -> None:
        """Add ``entry`` to the owner's list once (the entry carries ``rid``)."""
        with guard():
            self._recent_put(keys=[self.recent_key(owner)],
                             args=[dumps({**entry, RID: rid}), RECENT_MAX, RECENT_TTL_SECONDS])

    # -- reading ----------------------------------------------------------------------------

    def latest(self, count: int) -> list[dict[str, Any]]:
        """The latest records, newest first."""
        with guard():
            rows = self.client.xrevrange(self.key, count=count)
        return [rec for _id, rec, _rid in map(self._row, rows or [])]

    def recent(self, owner: str, limit: int) -> list[dict[str, Any]]:
        with guard():
            rows = self.client.lrange(self.recent_key(owner), 0, max(0, limit - 1))
        out = []
        for row in rows:
            entry = json.loads(_s(row))
            entry.pop(RID, None)
            out.append(entry)
        return out

    @staticmethod
    def _row(row: Any) -> tuple[str, dict[str, Any], str | None]:
        entry_id, fields = row
        data = {_s(k): _s(v) for k, v in (fields or {}).items()}
        return _s(entry_id), json.loads(data["record"]), data.get("rid")

    def _range(self, start: str, end: str) -> Iterator[tuple[str, dict[str, Any], str | None]]:
        """Every record with a stream id in [start, end], oldest first, in batches."""
        while True:
            with guard():
                rows = self.client.xrange(self.key, min=start, max=end, count=BATCH)
            for row in rows or []:
                yield self._row(row)
            if not rows or len(rows) < BATCH:
                return
            start = "(" + _s(rows[-1][0])

    def export(self, since_ms: int, until_ms: int,
               user: str | None = None) -> Iterator[dict[str, Any]]:
        """Records appended in [since_ms, until_ms), oldest first, once per stable id."""
        if until_ms <= since_ms:
            return
        seen: set[str] = set()
        for entry_id, rec, rid in self._range(str(max(0, since_ms)), str(until_ms - 1)):
            if rid is not None and rid in seen:  # written before appends were idempotent
                continue
            if rid is not None:
                seen.add(rid)
            if user is None or concerns(rec, user):
                yield {**rec, "id": entry_id, "rid": rid}

    # -- retention and erasure --------------------------------------------------------------

    def set_retention(self, days: int) -> None:
        with guard():
            self.client.set(self.retention_key, str(int(days)))

    def retention_days(self) -> int:
        with guard():
            got = self.client.get(self.retention_key)
        return int(_s(got)) if got is not None else self.default_days

    def apply_retention(self) -> int:
        """Trim the stream (``XTRIM MINID``) and drop recent entries older than the retention;
        how many records and entries were removed."""
        with guard():
            trimmed, cutoff_ms = self._trim(keys=[self.key, self.retention_key],
                                            args=[self.default_days])
        removed = int(trimmed)
        cutoff_s = int(cutoff_ms) / 1000 if int(cutoff_ms) else None
        if cutoff_s is None:
            return removed
        for key in self._scan(f"{_glob(self.prefix)}:recent:*"):
            with guard():
                rows = self.client.lrange(key, 0, -1)
            for row in rows:
                try:
                    at = float(json.loads(_s(row)).get("finished_at") or 0)
                except (ValueError, TypeError, AttributeError):
                    continue
                if 0 < at < cutoff_s:
                    with guard():
                        removed += int(self.client.lrem(key, 1, _s(row)))
        return removed

    def _scan(self, pattern: str) -> Iterator[str]:
        with guard():
            keys = [_s(k) for k in self.client.scan_iter(match=pattern, count=BATCH)]
        yield from keys

    def purge(self, user: str, meta_fields: tuple[str, ...], conv_prefix: str) -> Purged:
        """Remove everything kept about ``user`` (see :class:`~dialogue.store.base.Purged`)."""
        ids = [i for i, rec, _rid in self._range("-", "+") if concerns(rec, user)]
        for start in range(0, len(ids), BATCH):
            with guard():
                self.client.xdel(self.key, *ids[start:start + BATCH])
        with guard():
            recent = int(self.client.llen(self.recent_key(user)))
            self.client.delete(self.recent_key(user))
        owned: list[str] = []
        meta = pending = 0
        for key in self._scan(f"{_glob(conv_prefix)}*"):
            with guard():
                fields = {_s(k): v for k, v in self.client.hgetall(key).items()}
            if _owner(fields.get("doc")) == user:
                with guard():
                    self.client.delete(key)
                owned.append(key[len(conv_prefix):])
                continue
            drop = [f"m:{name}" for name in meta_fields if f"m:{name}" in fields]
            outbox = [k for k, v in fields.items()
                      if k.startswith("o:") and _pending_about(v, user)]
            if drop or outbox:
                with guard():
                    self.client.hdel(key, *drop, *outbox)
            meta, pending = meta + len(drop), pending + len(outbox)
        claims = [k for k in self._scan(f"{_glob(self.prefix)}:claim:*")
                  if user in k.split(":")[2:]]
        for key in claims:
            with guard():
                self.client.delete(key)
        self._replicated()
        return Purged(user, tuple(ids), recent, tuple(owned), meta, len(claims), pending)


def _owner(doc: Any) -> str | None:
    try:
        owner = json.loads(_s(doc)).get("owner") if doc is not None else None
    except (ValueError, AttributeError):
        return None
    return str(owner) if owner else None


def _pending_about(raw: Any, user: str) -> bool:
    """A cluster outbox field (``dialogue/store/redis.py``) holding a record about ``user``."""
    try:
        rec = json.loads(_s(raw))
    except ValueError:
        return False
    audit = rec.get("audit") if isinstance(rec, dict) else None
    return (isinstance(rec, dict) and rec.get("owner") == user) or (
        isinstance(audit, dict) and concerns(audit, user))
