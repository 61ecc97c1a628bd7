"""What the dialogue needs from storage, whatever keeps it (Redis in production, a dict for
the console and tests).

Any worker may receive the next click, so nothing that must survive a request stays in
process memory. The guarantees every implementation gives:

* **Compare-and-set.** :meth:`Store.write` applies a turn only if the stored version is the
  one the turn read; the loser of a race gets :class:`~dialogue.errors.Conflict` and nothing
  it did is kept. The same write repeated (a client retry after a lost reply) is a success.
* **Exactly once per delivery.** A write may carry the id of the delivery (a Slack event, a
  click) that caused it; the id is recorded *inside the same atomic write*, so it exists if
  and only if the turn was applied. :meth:`Store.read` reports whether a delivery was already
  applied (``Stored.applied``) and has no side effect: a read that times out leaves nothing
  behind that could make the retry look like a duplicate.
* **Claims.** :meth:`Store.claim` is Redis's ``SET NX EX``: the first caller of a token wins,
  for one-off side effects that are not conversation turns. The value set is the winner's
  ``holder`` (a delivery id), so a replay of the winning delivery is recognised as the winner.
* **The audit trail holds personal data** (requesters, teams, channels, what a quote form
  said), so it has a retention, an export and an erasure (:class:`AuditStore`, used by
  ``python -m bot audit``; ``docs/operations.md`` "Personal data"). Appending is idempotent:
  each record has a stable id (:func:`audit_id`) and the same record appended again within
  :data:`AUDIT_DEDUPE_SECONDS` (a client retry after a lost reply) is recorded once.

Errors: an unreachable store raises :class:`~dialogue.errors.StoreUnavailable` (the face
says "try again, nothing was lost"); nothing else about the backend leaks out.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

DELIVERY_TTL_SECONDS = 24 * 3600  # Slack retries within minutes; a day is generous
RECENT_TTL_SECONDS = 90 * 24 * 3600
RECENT_MAX = 20
AUDIT_MAXLEN = 100_000  # a size cap (memory), beside the time-based retention below
AUDIT_RETENTION_DAYS = 365  # the default of the AUDIT_RETENTION_DAYS setting
AUDIT_DEDUPE_SECONDS = 24 * 3600  # a retried append is recognised this long (the claim's TTL)
DAY_MS = 24 * 3600 * 1000


@dataclass(frozen=True)
class Stored:
    """What a read returns: the document, face metadata, and the version the CAS compares
    (kept outside the document so a conversation whose JSON no longer parses can still be
    replaced by a new one). ``applied``: the delivery id asked about is recorded here."""

    doc: str
    meta: dict[str, str]
    version: int
    applied: bool = False


@dataclass(frozen=True)
class Write:
    """One turn's effect on the store; applied entirely or not at all."""

    doc: str
    version: int
    expected: int | None  # the version read; None: the key must not exist
    ttl_seconds: int
    replace: bool = False  # start(): drop every field of what was there (old meta too)
    meta: dict[str, str] = field(default_factory=dict)
    delivery_id: str | None = None  # recorded atomically with the write
    audit: dict[str, Any] | None = None  # a finished sizing, for the audit stream
    owner: str | None = None
    recent: dict[str, Any] | None = None  # the owner's App Home entry


class Store(Protocol):
    """What the dialogue needs from storage. Implementations raise the dialogue's errors."""

    def read(self, key: str, delivery_id: str | None = None) -> Stored | None:
        """The stored conversation (None if absent); ``applied`` tells whether
        ``delivery_id`` was already applied to it. No side effect."""
        ...

    def write(self, key: str, w: Write) -> None:
        """Compare-and-set; raises Conflict when the stored version is not ``w.expected``,
        Duplicate when ``w.delivery_id`` was already applied."""
        ...

    def claim(self, token: str, ttl_seconds: int, holder: str | None = None) -> bool:
        """True for the first caller of ``token`` within ``ttl_seconds``, on any worker; with
        ``holder`` (a delivery id), also for that holder's later calls: a replay of the same
        delivery (a turn retried after its worker died) keeps the claim it won."""
        ...

    def release(self, token: str, holder: str) -> bool:
        """Give up a claim ``holder`` won, so the next caller may take it (what it guarded
        did not happen after all); False if the claim is gone or someone else's."""
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


@dataclass(frozen=True)
class Purged:
    """What an erasure removed for one person (``python -m bot audit purge`` prints it)."""

    user: str
    audit_ids: tuple[str, ...] = ()  # stream ids of the audit records removed
    recent_entries: int = 0  # entries of the person's App Home list
    conversations: tuple[str, ...] = ()  # keys of the conversations they owned, deleted
    meta_fields: int = 0  # face metadata fields about them in others' conversations
    claims: int = 0  # one-off claims whose token names them
    pending: int = 0  # cluster only: records not yet copied out of a conversation

    @property
    def total(self) -> int:
        return (len(self.audit_ids) + self.recent_entries + len(self.conversations)
                + self.meta_fields + self.claims + self.pending)


class AuditStore(Protocol):
    """Retention, export and erasure of what the store keeps about people."""

    def set_audit_retention(self, days: int) -> None:
        """Records older than ``days`` are trimmed from now on, by every append."""
        ...

    def apply_retention(self) -> int:
        """Trim now what is older than the retention; how many records and entries went."""
        ...

    def export_audit(self, since_ms: int, until_ms: int,
                     user: str | None = None) -> Iterator[dict[str, Any]]:
        """Records appended in [since_ms, until_ms) (Unix ms), oldest first, each with its
        ``id`` (the stream id) and ``rid`` (its stable id); only ``user``'s when given."""
        ...

    def purge_person(self, user: str, meta_fields: tuple[str, ...] = ()) -> Purged:
        """Remove ``user``'s audit records (as owner or requester), their recent list, the
        conversations they own, the ``meta_fields`` of other conversations and the claims
        that name them."""
        ...


def audit_id(record: dict[str, Any]) -> str:
    """A record's stable id: the same record (whenever it was stamped) has the same id."""
    stable = {k: v for k, v in record.items() if k not in ("at", "id", "rid")}
    return hashlib.sha256(dumps(stable).encode()).hexdigest()[:32]


def concerns(record: dict[str, Any], user: str) -> bool:
    """The record is about ``user``: they own the sizing or requested the quote."""
    return user in (record.get("owner"), record.get("requester"))


def dumps(obj: Any) -> str:
    """The one JSON encoding of stored records (compact, keys sorted: stable for equality)."""
    return json.dumps(obj, separators=(",", ":"), sort_keys=True)
