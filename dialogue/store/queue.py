"""The durable turn queue: a delivery Slack was told "got it" is kept until a worker applied it.

Why (``docs/architecture.md``, "How one turn flows", step 2: an acked delivery is never
lost, and any worker may finish it): the
listener records each delivery here and only then acks Slack; any worker's consumer takes it;
a worker that dies mid-turn leaves it pending, and another worker reclaims it. Only Redis's
own primitives are used: a Stream with a consumer group (``XADD``, ``XREADGROUP``, ``XACK``,
``XAUTOCLAIM``) and one Lua script for the submit. No home-made lock or lease protocol.

Guarantees (the in-memory :class:`dialogue.store.memqueue.MemoryTurnQueue` gives the same):

* **Submit is atomic and retry-safe.** One script checks the delivery's dedupe marker, and
  only if it is absent ``XADD``s the entry and sets the marker (``SET EX``) to the entry's id.
  A marker exists if and only if its entry was added: an attempt that fails leaves nothing, and
  an attempt whose reply was lost (Redis paused, the client timed out, the script ran when
  Redis resumed) is recognised by the retry as *already queued* (``Submitted.fresh`` False,
  same entry id), which is the truth: the entry is there and will be consumed. Slack's own
  redeliveries (``X-Slack-Retry-Num``) and replays of a signed request are recognised the same
  way for :data:`DEDUPE_TTL_S`.
* **Delivered as new once.** ``take`` reads with ``XREADGROUP ... >``: each entry is handed as
  new to one consumer of the group, once. Anything else a consumer sees is flagged
  ``redelivered``: its own pending entries (``pending``, ``XREADGROUP ... 0``: what it was
  handed but may never have received, e.g. a read whose reply was lost) and entries reclaimed
  from a consumer idle for ``min_idle_ms`` (``XAUTOCLAIM``). A consumer acknowledges an entry
  (``XACK``) only after its turn was applied; the turn's own idempotence (the delivery id
  recorded inside the conversation's write, ``dialogue/store/base.py``) makes a replay a no-op.
* **Gone once applied.** ``ack`` deletes the entry with its acknowledgement (``XACK`` and
  ``XDEL`` in one script): the typed text of a turn is kept only until the turn is applied.
* **Bounded, never by dropping.** The stream is trimmed only below the oldest entry some group
  still needs (its smallest pending id, or past its last delivered id): ``XTRIM MINID``, never
  ``MAXLEN``, which would drop unconsumed entries. When the backlog itself reaches ``maxlen``,
  ``submit`` refuses with :class:`QueueFull` (the face says "try again"; Slack retries).
* **Fast enough to ack.** A submit runs before the listener acks, inside Slack's 3 s: a 0.5 s
  socket timeout and two quick retries bound it to about 1.7 s when Redis hangs, after which
  it raises ``StoreUnavailable`` and Slack's redelivery (recognised by its marker) tries again.
* **Cluster.** The stream and its markers share the hash tag ``{<prefix>:turns}``, so the submit
  script touches one slot; the whole queue lives on one node (a few commands per turn).

Durability across a Redis crash is Redis's: with AOF a killed Redis restarts with the stream,
the group and its pending list (``dialogue/store/health.py`` checks and reports it); behind
Sentinel each submit waits for one replica (``dialogue/store/connect.py``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Protocol

import redis

from dialogue.errors import StoreUnavailable
from dialogue.store.connect import Link, Lua, connect, guard

_log = logging.getLogger(__name__)

DEDUPE_TTL_S = 24 * 3600  # Slack retries within minutes and replays within 5 minutes
MAXLEN = 10_000  # entries not yet needed by nobody; at ~2 kB each about 20 MB
GROUP = "turns"
MIN_IDLE_MS = 30_000  # longer than any turn: only a dead (or stuck) consumer's entries


class QueueFull(StoreUnavailable):
    """The backlog reached its bound; nothing was queued (try again later)."""


@dataclass(frozen=True)
class Submitted:
    """``fresh``: added by this call; False: this delivery was already queued (same entry)."""

    entry_id: str
    fresh: bool


@dataclass(frozen=True)
class Entry:
    """One queued delivery as a consumer gets it."""

    entry_id: str
    delivery_id: str
    payload: str
    redelivered: bool  # not handed as new by this read: own pending, or reclaimed

    @property
    def queued_at_ms(self) -> int:
        """When it was submitted (Redis's clock), from the entry id."""
        return int(self.entry_id.split("-", 1)[0])


class TurnQueue(Protocol):
    """What the listener and the consumers need; implementations raise StoreUnavailable."""

    def submit(self, delivery_id: str, payload: str) -> Submitted:
        """Record a delivery durably, once; QueueFull when the backlog is at its bound."""
        ...

    def take(self, consumer: str, count: int = 10, block_ms: int = 1000) -> list[Entry]:
        """New entries for ``consumer`` (waiting up to ``block_ms`` for one)."""
        ...

    def pending(self, consumer: str, count: int = 100) -> list[Entry]:
        """Entries handed to ``consumer`` and not acknowledged (all ``redelivered``)."""
        ...

    def reclaim(self, consumer: str, min_idle_ms: int = MIN_IDLE_MS,
                count: int = 100) -> list[Entry]:
        """Take over entries another consumer left unacknowledged for ``min_idle_ms``."""
        ...

    def ack(self, entry_id: str) -> bool:
        """The entry's turn was applied; True if it was pending."""
        ...

    def backlog(self) -> int:
        """Entries submitted and not yet acknowledged (pending or never taken)."""
        ...


# KEYS: stream, marker. ARGV: delivery id, payload, marker ttl s, maxlen.
# Returns {1, id} added, {0, id} already queued, {-1, ''} full.
_SUBMIT = """
local got = redis.call('GET', KEYS[2])
if got then return {0, got} end
local function id_lt(a, b)
  local am, as = string.match(a, '(%d+)-(%d+)')
  local bm, bs = string.match(b, '(%d+)-(%d+)')
  am, as, bm, bs = tonumber(am), tonumber(as), tonumber(bm), tonumber(bs)
  return am < bm or (am == bm and as < bs)
end
local function safe_trim()
  local ok, groups = pcall(redis.call, 'XINFO', 'GROUPS', KEYS[1])
  if not ok or #groups == 0 then return end
  local floor = nil
  for _, g in ipairs(groups) do
    local name, last
    for i = 1, #g, 2 do
      if g[i] == 'name' then name = g[i + 1] end
      if g[i] == 'last-delivered-id' then last = g[i + 1] end
    end
    local p = redis.call('XPENDING', KEYS[1], name)
    local keep
    if p[1] > 0 then
      keep = p[2]
    else
      local ms, seq = string.match(last, '(%d+)-(%d+)')
      keep = ms .. '-' .. string.format('%d', tonumber(seq) + 1)
    end
    if floor == nil or id_lt(keep, floor) then floor = keep end
  end
  redis.call('XTRIM', KEYS[1], 'MINID', floor)
end
local limit = tonumber(ARGV[4])
if redis.call('XLEN', KEYS[1]) >= math.floor(limit / 2) then
  safe_trim()
  if redis.call('XLEN', KEYS[1]) >= limit then return {-1, ''} end
end
local id = redis.call('XADD', KEYS[1], '*', 'd', ARGV[1], 'p', ARGV[2])
redis.call('SET', KEYS[2], id, 'EX', ARGV[3])
return {1, id}
"""

# KEYS: stream. ARGV: group, entry id. Acknowledges, then deletes the entry; returns XACK's count.
_ACK = """
local n = redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
redis.call('XDEL', KEYS[1], ARGV[2])
return n
"""


def _s(v: Any) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


class RedisTurnQueue:
    """The queue on a Redis Stream (one server, Sentinel or Cluster)."""

    def __init__(
        self,
        url_or_link: str | Link,
        *,
        prefix: str = "gpusizing",
        maxlen: int = MAXLEN,
        socket_timeout: float = 0.5,
        block_ms: int = 1000,
    ) -> None:
        if isinstance(url_or_link, str):
            self.link = connect(url_or_link, socket_timeout=socket_timeout)
            # Blocking reads get their own client: its timeout must outlast BLOCK.
            self.reader = connect(self.link.target,
                                  socket_timeout=socket_timeout + block_ms / 1000).client
        else:
            self.link = url_or_link
            self.reader = url_or_link.client
        self.client = self.link.client
        self.stream = f"{{{prefix}:turns}}"
        self.maxlen = maxlen
        self._submit = Lua(self.client, _SUBMIT)
        self._ack = Lua(self.client, _ACK)
        self._group_ready = False

    def _marker(self, delivery_id: str) -> str:
        return f"{self.stream}:d:{delivery_id}"

    def submit(self, delivery_id: str, payload: str) -> Submitted:
        if not delivery_id:
            raise ValueError("a delivery needs an id")
        with guard():
            status, entry_id = self._submit(
                keys=[self.stream, self._marker(delivery_id)],
                args=[delivery_id, payload, DEDUPE_TTL_S, self.maxlen])
        if int(status) < 0:
            raise QueueFull(f"backlog at {self.maxlen}")
        if int(status) == 1 and self.link.target.replica_acks:
            self.link.wait_replicas()
        return Submitted(_s(entry_id), fresh=int(status) == 1)

    def ensure_group(self) -> None:
        """Create the consumer group (from the stream's start: nothing submitted is missed)."""
        with guard():
            try:
                self.client.xgroup_create(self.stream, GROUP, id="0", mkstream=True)
            except redis.exceptions.ResponseError as exc:
                if "BUSYGROUP" not in str(exc):
                    raise
        self._group_ready = True

    def _read(self, consumer: str, start: str, count: int, block_ms: int | None) -> list[Entry]:
        if not self._group_ready:
            self.ensure_group()
        try:
            with guard():
                rows: Any = self.reader.xreadgroup(GROUP, consumer, {self.stream: start},
                                              count=count, block=block_ms)
        except redis.exceptions.ResponseError as exc:
            if "NOGROUP" not in str(exc):
                raise
            # The group is gone (a Redis that restarted without persistence): make it again.
            self._group_ready = False
            return []
        out: list[Entry] = []
        for _stream, entries in rows or []:
            out += self._entries(entries, redelivered=start != ">")
        return out

    def _entries(self, entries: Any, *, redelivered: bool) -> list[Entry]:
        out: list[Entry] = []
        for entry_id, fields in entries or []:
            if not fields:  # pending, but trimmed away: cannot happen with our trimming
                self.ack(_s(entry_id))
                continue
            data = {_s(k): _s(v) for k, v in fields.items()}
            out.append(Entry(_s(entry_id), data.get("d", ""), data.get("p", ""), redelivered))
        return out

    def take(self, consumer: str, count: int = 10, block_ms: int = 1000) -> list[Entry]:
        return self._read(consumer, ">", count, block_ms if block_ms > 0 else None)

    def pending(self, consumer: str, count: int = 100) -> list[Entry]:
        return self._read(consumer, "0", count, None)

    def reclaim(self, consumer: str, min_idle_ms: int = MIN_IDLE_MS,
                count: int = 100) -> list[Entry]:
        if not self._group_ready:
            self.ensure_group()
        out: list[Entry] = []
        cursor = "0-0"
        while len(out) < count:
            with guard():
                reply = self.client.xautoclaim(self.stream, GROUP, consumer, min_idle_ms,
                                               start_id=cursor, count=count - len(out))
            cursor = _s(reply[0])
            out += self._entries(list(reply[1]), redelivered=True)
            if cursor == "0-0":
                break
        return out

    def ack(self, entry_id: str) -> bool:
        """Acknowledge and delete the entry in one transaction: what a person typed stays in
        the stream only while a turn still needs it (it is not personal data kept for the
        audit, and ``python -m bot audit purge`` could not reach it otherwise). Deleting an
        entry the group already delivered keeps the group's ``lag`` valid."""
        with guard():
            return bool(self._ack(keys=[self.stream], args=[GROUP, entry_id]))

    def backlog(self) -> int:
        """Pending entries plus those never delivered (the group's lag)."""
        with guard():
            try:
                groups = self.client.xinfo_groups(self.stream)
            except redis.exceptions.ResponseError:
                return 0
        for g in groups:
            if _s(g.get("name")) == GROUP:
                lag = g.get("lag")
                return int(g.get("pending") or 0) + int(lag if lag is not None else 0)
        return int(self.client.xlen(self.stream))
