"""The dialogue as a face calls it: load, turn, compare-and-set save, reply.

``Dialogue`` holds no conversation in memory (any worker may get the next click): each call
reads the conversation from the store (``dialogue/store/base.py`` states the guarantees),
applies the text with the pure turn (``dialogue/turn.py``), and writes the result back only if
the stored version is still the one it read, recording the delivery id in the same atomic
write. The loser of a race gets ``Conflict`` and nothing it did is kept; a delivery already
applied is ``Duplicate``.

Turns that change nothing (help, an invalid answer, a stale click) are not written: the
version stays, so the buttons on screen stay valid.

The Hugging Face Hub is the one network dependency besides the store, and is injected the
same way (``hub``: ``dialogue/hub.py``'s :class:`Hub`): when a turn names a Hub model the
catalog lacks, the service fetches its config.json between the pure steps (``turn.take``
returns ``fetch``, ``turn.fetched`` reads the result), so the turn stays pure and a fake Hub
serves the tests. :meth:`Dialogue.attach` is the entry point for a file or snippet a face
receives (a config.json): the same turn as typed text, without the length limit of an answer.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Any

from pydantic import ValidationError

from dialogue import present, turn, understand
from dialogue.conversation import SCHEMA_VERSION, Conversation
from dialogue.errors import Duplicate, NotFinished, NotOwner
from dialogue.flow import Plan, request
from dialogue.hub import Hub, NoHub
from dialogue.keys import show_model
from dialogue.machine import DONE, INITIAL
from dialogue.reply import Reply
from dialogue.store import Store, Stored, Write
from dialogue.understand import config
from engine.result import Recommendation
from engine.units import Lang
from engine.wording import msg

DEFAULT_TTL_SECONDS = 7 * 24 * 3600


class Dialogue:
    """The guided sizing conversation, over a ``Store``. Thread-safe; holds no conversation."""

    def __init__(
        self,
        store: Store,
        *,
        ttl_seconds: int = DEFAULT_TTL_SECONDS,
        clock: Callable[[], float] = time.time,
        hub: Hub | None = None,
    ) -> None:
        self.store = store
        self.ttl_seconds = ttl_seconds
        self.clock = clock
        self.hub: Hub = hub or NoHub()
        understand.warm()  # the catalog indexes, once per process: no first message pays

    # -- public API ------------------------------------------------------------------------

    def start(
        self,
        key: str,
        opening: str = "",
        *,
        owner: str | None = None,
        delivery_id: str | None = None,
        meta: dict[str, str] | None = None,
        language: Lang | None = None,
    ) -> Reply:
        """A new sizing at ``key`` (replacing whatever was there), pre-filled from ``opening``.

        ``language`` is the face's hint (a person's locale): the opening's own words, or an
        explicit choice, override it."""
        stored = self._read(key, delivery_id)
        old_version = stored.version if stored is not None else None
        now = self.clock()
        conv = Conversation(
            id=uuid.uuid4().hex[:12], key=key, state=INITIAL, owner=owner,
            meta=dict(meta or {}), version=(old_version or 0) + 1, language=language or "en",
            created_at=now, updated_at=now, expires_at=now + self.ttl_seconds,
        )
        out = turn.begin(conv, opening, self._today())
        if out.fetch is not None:
            out = self._fetch(conv, out, opening=True)
        self.store.write(key, Write(
            doc=out.conv.to_json(), version=out.conv.version, expected=old_version,
            ttl_seconds=self.ttl_seconds, replace=True, meta=out.conv.meta,
            delivery_id=delivery_id, **self._finish_records(out, now),
        ))
        return present.reply(out)

    def handle(
        self,
        key: str,
        text: str,
        *,
        version: int | None = None,
        delivery_id: str | None = None,
        actor: str | None = None,
    ) -> Reply:
        """Apply a typed answer or a button value (the same path) to the sizing at ``key``."""
        stored = self._read(key, delivery_id)
        conv = self._decode(stored)
        cmd = turn.command(text)
        if conv is None:
            if cmd is not None and cmd.kind == "restart":
                return self.start(key, owner=actor, delivery_id=delivery_id)
            return present.missing(key, expired=stored is not None)
        if actor is not None and conv.owner is not None and actor != conv.owner:
            raise NotOwner(conv.owner, actor)
        timeless = cmd is not None and cmd.kind in ("restart", "cancel", "help", "language")
        if version is not None and version != conv.version and not timeless:
            # an answer clicked on an old message; 'start over', 'cancel' and 'help' mean the
            # same whenever they are clicked, so they are not refused
            return present.reply(turn.Outcome(conv, error=msg("dialogue.error.stale")))
        out = turn.take(conv, text, self._today())
        if out.fetch is not None:
            out = self._fetch(conv, out, opening=False)
        if out.changed:
            now = self.clock()
            new = out.conv
            new.version = conv.version + 1
            new.updated_at, new.expires_at = now, now + self.ttl_seconds
            self.store.write(key, Write(
                doc=new.to_json(), version=new.version, expected=conv.version,
                ttl_seconds=self.ttl_seconds, delivery_id=delivery_id,
                **self._finish_records(out, now),
            ))
        return present.reply(out)

    def attach(
        self,
        key: str,
        content: str,
        *,
        name: str | None = None,
        version: int | None = None,
        delivery_id: str | None = None,
        actor: str | None = None,
    ) -> Reply:
        """A file or snippet a person shared (a Slack file's text, a pasted config.json):
        read as that person's answer, as typed text is, up to ``config.MAX_CONFIG_CHARS``.
        ``name`` (the file's) says nothing the content does not; it is kept for logs."""
        del name
        text = content if config.looks_like(content) else content[:turn.MAX_ANSWER_CHARS + 1]
        return self.handle(key, text, version=version, delivery_id=delivery_id, actor=actor)

    def current(self, key: str) -> Reply | None:
        """The current question or result, re-rendered (None when there is no sizing)."""
        conv = self.load(key)
        return None if conv is None else present.reply(turn.Outcome(conv))

    def load(self, key: str) -> Conversation | None:
        return self._decode(self.store.read(key))

    def update_meta(self, key: str, meta: dict[str, str]) -> None:
        """Attach face data (a Slack message ts) without changing the version."""
        self.store.set_meta(key, meta)

    def record_quote(self, key: str, requester: str, note: str = "") -> dict[str, Any]:
        """Append a quote request (inputs, numbers, requester) to the audit trail."""
        conv = self.load(key)
        if conv is None or conv.state != DONE:
            raise NotFinished(key, "missing" if conv is None else conv.state)
        rec = Plan.of(conv).recommendation()
        record = _record(conv, rec, self.clock())
        record.update(kind="quote", requester=requester, note=note)
        record["id"] = self.store.append_audit(record)
        return record

    def recent(self, owner: str, limit: int = 5) -> list[dict[str, Any]]:
        """The person's latest finished sizings, one per sizing, newest first.

        One per *conversation id*: a sizing whose result was recomputed ("change ...") is
        shown once, and successive sizings that share a key (a DM's) are each shown.
        """
        out: list[dict[str, Any]] = []
        seen: set[str] = set()
        for row in self.store.recent(owner, limit * 4):
            ident = str(row.get("conversation_id") or row.get("key"))
            if ident not in seen:
                seen.add(ident)
                out.append(row)
        return out[:limit]

    # -- helpers ---------------------------------------------------------------------------

    def _today(self) -> date:
        return datetime.fromtimestamp(self.clock(), UTC).date()

    def _fetch(self, before: Conversation, out: turn.Outcome, *, opening: bool) -> turn.Outcome:
        """Ask the Hub for the config.json the turn needs, then finish the turn with it."""
        assert out.fetch is not None
        got = self.hub.config(out.fetch)
        return turn.fetched(before, out, got.text, got.failure, opening=opening)

    def _read(self, key: str, delivery_id: str | None) -> Stored | None:
        stored = self.store.read(key, delivery_id)
        if stored is not None and stored.applied:
            raise Duplicate(delivery_id or "")
        return stored

    def _decode(self, stored: Stored | None) -> Conversation | None:
        """The stored conversation, or None if it is expired or from another schema (a
        deploy that changed the format says "start again" rather than guessing)."""
        if stored is None:
            return None
        try:
            conv = Conversation.from_json(stored.doc, stored.meta)
        except ValidationError:
            return None
        if conv.schema_version != SCHEMA_VERSION or conv.expires_at <= self.clock():
            return None
        return conv

    def _finish_records(self, out: turn.Outcome, now: float) -> dict[str, Any]:
        """The audit record and the owner's App Home entry of a sizing that just finished."""
        if not out.finished or out.plan is None or out.error is not None:
            return {}
        conv = out.conv
        rec = out.plan.recommendation()
        return {
            "audit": {**_record(conv, rec, now), "kind": "sizing"},
            "owner": conv.owner,
            "recent": {
                "key": conv.key, "conversation_id": conv.id,
                "model": show_model(conv.answers.get("model")).model_dump(mode="json"),
                "workload": str(conv.answers.get("workload", "")),
                "verdict": rec.verdict, "headline": rec.headline.model_dump(mode="json"),
                "language": conv.language, "finished_at": now,
            },
        }


def _record(conv: Conversation, rec: Recommendation, now: float) -> dict[str, Any]:
    """What the audit trail keeps of a sizing: the request as the engine CLI names it, with
    its sources, and the verdict with its numbers (messages as data, rendered by a face)."""
    req, src = request(conv.answers, conv.sources)
    return {
        "key": conv.key, "conversation_id": conv.id, "owner": conv.owner, "at": now,
        "language": conv.language, "inputs": req, "sources": src,
        "verdict": rec.verdict, "step": rec.step, "headline": rec.headline.model_dump(mode="json"),
        "nodes": rec.nodes, "gpus_per_node": rec.gpus_per_node, "gpu": rec.gpu,
        "precision": rec.precision, "replicas": rec.replicas, "interconnect": rec.interconnect,
        "numbers": rec.numbers.model_dump(mode="json", exclude_none=True),
    }
