"""Conversations in Redis: one hash per conversation, compare-and-set by one Lua script.

A turn costs at most two round trips on one server (three behind Sentinel, below):

1. read: ``HGETALL`` of the conversation (no side effect on the turn: whether its delivery was
   already applied is read from the hash, never marked by the read);
2. write: one Lua script that compares the stored version with the one read, and only if
   they match writes the new document, records the delivery id and slides the TTL. A script
   runs atomically, so no reader ever sees half a turn, and the delivery id exists if and
   only if its turn was applied. The script is idempotent (the same document at the same
   version is a success), because redis-py retries a command whose reply was lost.

A conversation is one hash ``{prefix}:conv:{key}``: ``v`` (the version the script compares),
``doc`` (the Conversation JSON), ``m:<name>`` fields for face metadata (the Slack message ts,
set by ``set_meta`` without touching the version), ``d:<delivery id>`` for each delivery
applied, and, in a cluster only, ``o:<record id>`` for finished sizings not yet copied out.

**The finished sizing: audit stream and the owner's recent list.** When a turn finishes a
sizing, its record goes to the audit stream ``{prefix}:audit`` and an entry to the owner's list
``{prefix}:recent:<owner>``. Guarantee, per topology (``dialogue/store/connect.py``):

* *One server or Sentinel*: both are written by the same script as the turn (all keys on one
  server): they exist if and only if the turn was applied, exactly once.
* *Cluster*: a script may only touch one hash slot, and putting every conversation in the audit
  stream's slot would make one node hold them all. So the script writes the record and the
  entry into the conversation's own hash (``o:<record id>``), atomically with the turn; right
  after, the store copies them to the stream and the list, each copy idempotent by the record
  id (a marker ``{<audit key>}:seen:<id>`` in the stream's slot; the list entry carries the id),
  and deletes the ``o:`` field only once both copies landed. If the worker dies or Redis fails
  in between, the record stays in the conversation's hash and is copied by the next read or
  write of that conversation, which the durable turn queue guarantees (a turn that was not
  acknowledged is replayed, and its replay reads the conversation). A record can be lost only
  with its conversation: if the conversation expires (its TTL, 7 days by default) before
  anything reads it again after such a crash. It is never copied twice.

Behind Sentinel, a write is followed by ``WAIT`` for one replica (``connect.Link``), so a
failover right after a turn does not roll it back. Redis errors of any topology (connection
refused, timeouts, a loading or read-only server, a cluster re-sharding) become
``StoreUnavailable``.

The audit stream's own functions (idempotent appends, retention, export, erasure) are
``dialogue/store/redisaudit.py``'s; the methods below delegate to it.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Iterator
from typing import Any

import redis

from dialogue.errors import Conflict, Duplicate
from dialogue.store.base import (
    AUDIT_MAXLEN,
    AUDIT_RETENTION_DAYS,
    RECENT_MAX,
    RECENT_TTL_SECONDS,
    Purged,
    Stored,
    Write,
    dumps,
)
from dialogue.store.connect import Link, Lua, connect, guard
from dialogue.store.redisaudit import RedisAudit

_log = logging.getLogger(__name__)

# KEYS: conv [, audit stream, recent list]; with one key (the cluster layout) the finished
# sizing goes into the hash's outbox field instead. ARGV: 1 expected ('' = must not exist),
# 2 version, 3 doc, 4 ttl ms, 5 replace '1'/'0', 6 audit json or '', 7 recent json or '',
# 8 audit maxlen, 9 recent max, 10 recent ttl s, 11 delivery id or '', 12 record id,
# 13 outbox json or '', then meta name/value pairs from 14.
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
if ARGV[5] == '1' then
  local keep = {}
  local all = redis.call('HGETALL', KEYS[1])
  for i = 1, #all, 2 do
    if string.sub(all[i], 1, 2) == 'o:' then
      keep[#keep + 1] = all[i]
      keep[#keep + 1] = all[i + 1]
    end
  end
  redis.call('DEL', KEYS[1])
  if #keep > 0 then redis.call('HSET', KEYS[1], unpack(keep)) end
end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'doc', ARGV[3])
if ARGV[11] ~= '' then redis.call('HSET', KEYS[1], 'd:' .. ARGV[11], '1') end
for i = 14, #ARGV, 2 do redis.call('HSET', KEYS[1], 'm:' .. ARGV[i], ARGV[i + 1]) end
if #KEYS == 1 then
  if ARGV[13] ~= '' then redis.call('HSET', KEYS[1], 'o:' .. ARGV[12], ARGV[13]) end
else
  if ARGV[6] ~= '' then
    redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[8], '*', 'record', ARGV[6], 'rid', ARGV[12])
  end
  if ARGV[7] ~= '' then
    redis.call('LPUSH', KEYS[3], ARGV[7])
    redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[9]) - 1)
    redis.call('EXPIRE', KEYS[3], ARGV[10])
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
"""

# KEYS: claim. ARGV: holder. Deletes the claim only while that holder holds it.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
_SET_META = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
for i = 1, #ARGV, 2 do redis.call('HSET', KEYS[1], 'm:' .. ARGV[i], ARGV[i + 1]) end
return 1
"""

def _s(v: Any) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


class RedisStore:
    """Conversations in Redis (one server, Sentinel or Cluster): CAS by Lua, audit stream."""

    def __init__(
        self,
        url_or_client: str | Link | redis.Redis,
        *,
        prefix: str = "gpusizing",
        socket_timeout: float = 2.0,
        audit_maxlen: int = AUDIT_MAXLEN,
        audit_retention_days: int = AUDIT_RETENTION_DAYS,
    ) -> None:
        if isinstance(url_or_client, str):
            self.link = connect(url_or_client, socket_timeout=socket_timeout)
        elif isinstance(url_or_client, Link):
            self.link = url_or_client
        else:
            from dialogue.store.connect import Target

            self.link = Link(url_or_client, Target("single", ""))
        self.client = self.link.client
        self.prefix = prefix
        self.audit_maxlen = audit_maxlen
        self._cas = Lua(self.client, _CAS)
        self._set_meta = Lua(self.client, _SET_META)
        self._release = Lua(self.client, _RELEASE)
        self.audit = RedisAudit(self.link, prefix, maxlen=audit_maxlen,
                                retention_days=audit_retention_days)

    def _conv(self, key: str) -> str:
        return f"{self.prefix}:conv:{key}"

    def _recent_key(self, owner: str) -> str:
        return self.audit.recent_key(owner)

    @property
    def audit_key(self) -> str:
        return self.audit.key

    def _seen_key(self, rid: str) -> str:
        return self.audit.seen_key(rid)

    def read(self, key: str, delivery_id: str | None = None) -> Stored | None:
        with guard():
            raw = self.client.hgetall(self._conv(key))
        fields = {_s(k): _s(v) for k, v in raw.items()}
        outbox = {k[2:]: v for k, v in fields.items() if k.startswith("o:")}
        if outbox:
            self._flush(key, outbox)
        if "doc" not in fields:
            return None
        meta = {k[2:]: v for k, v in fields.items() if k.startswith("m:")}
        applied = delivery_id is not None and f"d:{delivery_id}" in fields
        return Stored(fields["doc"], meta, int(fields.get("v", "0")), applied=applied)

    def write(self, key: str, w: Write) -> None:
        rid = uuid.uuid4().hex
        audit = "" if w.audit is None else dumps(w.audit)
        recent = "" if (w.recent is None or w.owner is None) else dumps(w.recent)
        outbox = ""
        if self.link.cluster and (audit or recent):
            outbox = dumps({"audit": w.audit, "owner": w.owner,
                            "recent": None if not recent else w.recent})
        args: list[str | int] = [
            "" if w.expected is None else str(w.expected), str(w.version), w.doc,
            max(1, int(w.ttl_seconds * 1000)), "1" if w.replace else "0", audit, recent,
            self.audit_maxlen, RECENT_MAX, RECENT_TTL_SECONDS, w.delivery_id or "", rid, outbox,
        ]
        for name, value in w.meta.items():
            args += [name, value]
        keys = [self._conv(key)]
        if not self.link.cluster:
            keys += [self.audit_key, self._recent_key(w.owner or "-")]
        with guard():
            result = self._cas(keys=keys, args=args)
        if result == 2:
            raise Duplicate(w.delivery_id or "")
        if not result:
            raise Conflict(key, w.expected)
        if outbox:
            self._flush(key, {rid: outbox})
        if self.link.target.replica_acks:
            self.link.wait_replicas()

    def _flush(self, key: str, outbox: dict[str, str]) -> None:
        """Copy cluster outbox records to the audit stream and recent lists, then drop them.

        Each copy is idempotent by record id, and a field is deleted only after its copies
        landed, so a failure anywhere leaves it for the next read or write to finish."""
        for rid, raw in outbox.items():
            try:
                rec = json.loads(raw)
                if rec.get("audit") is not None:
                    self.audit.append(rec["audit"], rid=rid, ttl_s=RECENT_TTL_SECONDS)
                if rec.get("recent") is not None and rec.get("owner"):
                    self.audit.put_recent(str(rec["owner"]), rec["recent"], rid)
                with guard():
                    self.client.hdel(self._conv(key), f"o:{rid}")
            except Exception as exc:  # left in the hash: the next read or write retries it
                _log.warning("finished sizing not copied yet; kept with its conversation",
                             extra={"json_fields": {"event": "outbox_pending",
                                                    "error": type(exc).__name__}})

    def claim(self, token: str, ttl_seconds: int, holder: str | None = None) -> bool:
        """``SET NX EX`` with the holder as the value; when taken, a ``GET`` tells whether
        this holder took it (the value never changes while the claim lives)."""
        name = f"{self.prefix}:claim:{token}"
        with guard():
            if self.client.set(name, (holder or "1").encode(), nx=True,
                               ex=max(1, int(ttl_seconds))):
                return True
            if holder is None:
                return False
            return _s(self.client.get(name) or b"") == holder

    def release(self, token: str, holder: str) -> bool:
        """Delete the claim only if ``holder`` still holds it (compare and delete, atomic)."""
        with guard():
            return bool(self._release(keys=[f"{self.prefix}:claim:{token}"], args=[holder]))

    def set_meta(self, key: str, meta: dict[str, str]) -> bool:
        args: list[str] = []
        for name, value in meta.items():
            args += [name, value]
        with guard():
            return bool(self._set_meta(keys=[self._conv(key)], args=args))

    # -- the audit trail and recent lists (dialogue/store/redisaudit.py) ---------------------

    def append_audit(self, record: dict[str, Any]) -> str:
        """Append ``record`` once (idempotent by its stable id); its stream id."""
        return self.audit.append(record)

    def audit_log(self, count: int = 100) -> list[dict[str, Any]]:
        return self.audit.latest(count)

    def recent(self, owner: str, limit: int) -> list[dict[str, Any]]:
        return self.audit.recent(owner, limit)

    def set_audit_retention(self, days: int) -> None:
        self.audit.set_retention(days)

    def apply_retention(self) -> int:
        return self.audit.apply_retention()

    def export_audit(self, since_ms: int, until_ms: int,
                     user: str | None = None) -> Iterator[dict[str, Any]]:
        return self.audit.export(since_ms, until_ms, user)

    def purge_person(self, user: str, meta_fields: tuple[str, ...] = ()) -> Purged:
        return self.audit.purge(user, meta_fields, self._conv(""))
