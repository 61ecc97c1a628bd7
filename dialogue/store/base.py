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
  for one-off side effects that are not conversation turns.

Errors: an unreachable store raises :class:`~dialogue.errors.StoreUnavailable` (the face
says "try again, nothing was lost"); nothing else about the backend leaks out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

DELIVERY_TTL_SECONDS = 24 * 3600  # Slack retries within minutes; a day is generous
RECENT_TTL_SECONDS = 90 * 24 * 3600
RECENT_MAX = 20
AUDIT_MAXLEN = 100_000


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

    def claim(self, token: str, ttl_seconds: int) -> bool:
        """True for the first caller of ``token`` within ``ttl_seconds``, on any worker."""
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


def dumps(obj: Any) -> str:
    """The one JSON encoding of stored records (compact, keys sorted: stable for equality)."""
    return json.dumps(obj, separators=(",", ":"), sort_keys=True)
