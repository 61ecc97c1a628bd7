"""The shared machine stays what it was built as: no registrations, no growth, no queue."""

from __future__ import annotations

import json

from dialogue import Dialogue, MemoryStore
from dialogue.machine import MACHINE, STATES
from dialogue.store import Stored, Write


def test_machine_is_shared_and_never_grows() -> None:
    before = (len(MACHINE.states), sum(len(e.transitions) for e in MACHINE.events.values()))
    d = Dialogue(MemoryStore())
    for i in range(30):
        d.start(f"k{i}", "llama 3.1 70b inference")
        for text in ("64", "back", "help", "change context", "8k", "cancel", "restart"):
            d.handle(f"k{i}", text)
    after = (len(MACHINE.states), sum(len(e.transitions) for e in MACHINE.events.values()))
    assert MACHINE.models == []  # pattern C: turns are never registered, so nothing leaks
    assert before == after
    assert not MACHINE.has_queue and not MACHINE.auto_transitions
    assert set(MACHINE.states) == set(STATES)


def test_stored_form_is_json_without_the_machine() -> None:
    store = MemoryStore()
    d = Dialogue(store)
    d.start("k", "llama 3.1 70b inference 64 users", owner="U1", meta={"ts": "1.2"})
    stored = store.read("k")
    assert stored is not None
    doc = json.loads(stored.doc)
    assert set(doc) == {"schema_version", "id", "key", "state", "answers", "sources",
                        "proposals", "reask", "language", "language_source", "history", "owner",
                        "version", "created_at", "updated_at", "expires_at"}
    assert doc["state"] == "context" and doc["answers"]["concurrency"] == 64
    assert doc["sources"]["concurrency"] == "assumed" and doc["language"] == "en"
    assert stored.meta == {"ts": "1.2"} and stored.version == doc["version"]


def test_an_unreadable_conversation_is_treated_as_gone_and_can_be_replaced() -> None:
    store = MemoryStore()
    d = Dialogue(store)
    d.start("k", "llama 3.1 70b")
    stored = store.read("k")
    assert isinstance(stored, Stored)
    store.write("k", Write(doc='{"schema_version": 99}', version=stored.version + 1,
                           expected=stored.version, ttl_seconds=60))
    r = d.handle("k", "inference")
    assert r.kind == "ended" and [c.value for c in r.choices] == ["restart"]
    r = d.handle("k", "restart")
    assert r.kind == "question" and r.state == "model"


def test_a_conversation_of_the_previous_schema_is_gone_not_misread() -> None:
    store = MemoryStore()
    d = Dialogue(store)
    d.start("k", "llama 3.1 70b")
    stored = store.read("k")
    assert stored is not None
    old = json.loads(stored.doc) | {"schema_version": 1}
    store.write("k", Write(doc=json.dumps(old), version=stored.version + 1,
                           expected=stored.version, ttl_seconds=60))
    r = d.handle("k", "inference")
    assert r.kind == "ended" and r.text.id == "dialogue.reply.expired"
