"""The audit trail's personal data (issue 11, item 5), against real redis-server processes:
retention by age (``XTRIM MINID``) at start, on append and hourly; ``python -m bot audit
export`` and ``purge`` as an operator runs them; appends that a lost reply cannot double.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import redis

from bot import audit
from bot.ops.health import RedisMonitor
from bot.ops.settings import Settings
from dialogue import Dialogue, MemoryStore, RedisStore
from dialogue.errors import StoreUnavailable
from dialogue.store import redisaudit
from dialogue.store.base import Write, audit_id, dumps
from dialogue.store.connect import parse
from tests.redisproc import ClusterGroup, RedisProcess

ROOT = Path(__file__).resolve().parents[2]
DAY_MS = 24 * 3600 * 1000
OPENING = "llama 3.1 70b inference"
CONTACT = {"name": "Élodie Martin", "email": "elodie@client.example", "company": "Société X"}


def _bot(redis_url: str | None, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``python -m bot audit ...`` as an operator runs it, with only these settings."""
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith(("SLACK_", "REDIS_", "AUDIT_", "LOG_HASH"))}
    clean.update({"PYTHONPATH": str(ROOT), **env})
    if redis_url:
        clean["REDIS_URL"] = redis_url
    return subprocess.run([sys.executable, "-m", "bot", "audit", *args], env=clean, cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False)


def _jsonl(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def _finish(d: Dialogue, key: str, owner: str) -> None:
    """A whole sizing, each question's default or first choice, to its card."""
    r = d.start(key, OPENING, owner=owner)
    for _ in range(15):
        if r.kind != "question":
            break
        pick = r.default or r.choices[0]
        r = d.handle(key, pick.value, version=r.version)
    assert r.kind == "result", r


def _old(client: redis.Redis, days: float, **record: Any) -> str:
    """A record appended ``days`` ago (the stream id is the append time, as XADD * makes it)."""
    ms = int(time.time() * 1000 - days * DAY_MS)
    return str(client.xadd("gpusizing:audit", {"record": dumps(record), "rid": audit_id(record)},
                           id=f"{ms}-0"), "ascii")


def _ids(client: redis.Redis) -> list[str]:
    return [str(i, "ascii") for i, _ in client.xrange("gpusizing:audit")]


@pytest.fixture
def client(redis_url: str) -> Iterator[redis.Redis]:
    c = redis.Redis.from_url(redis_url)
    yield c
    c.close()


# -- export -------------------------------------------------------------------------------------

def test_a_sizing_and_its_quote_are_exported_as_json_lines_with_their_ids(
        redis_url: str, client: redis.Redis) -> None:
    d = Dialogue(RedisStore(redis_url))
    key = "T1:C1:1700000000.000100:UALICE001"
    _finish(d, key, "UALICE001")
    note = json.dumps({"contact": CONTACT}, ensure_ascii=False)
    quote = d.record_quote(key, "UBOB00002", note=note)
    today = datetime.now(UTC).date().isoformat()
    done = _bot(redis_url, "export", "--since", today)
    assert done.returncode == 0, done.stderr
    sizing, quoted = _jsonl(done.stdout)
    assert [sizing["kind"], quoted["kind"]] == ["sizing", "quote"]  # oldest first
    assert [sizing["id"], quoted["id"]] == _ids(client)  # the stream ids, as stored
    assert quoted["id"] == quote["id"]  # the audit id the quote summary shows
    assert sizing["owner"] == "UALICE001" and quoted["requester"] == "UBOB00002"
    assert json.loads(quoted["note"])["contact"] == CONTACT  # the person's own data, intact
    assert sizing["rid"] and quoted["rid"] and sizing["rid"] != quoted["rid"]
    assert sizing["inputs"] and sizing["numbers"]
    assert "2 records" in done.stderr


def test_export_keeps_to_the_days_asked_and_to_one_person(
        redis_url: str, client: redis.Redis) -> None:
    today = datetime.now(UTC).date()
    for days, owner in ((30, "UALICE001"), (20, "UBOB00002"), (10, "UALICE001"), (1, "UBOB00002")):
        _old(client, days, kind="sizing", owner=owner, n=days)
    since, until = today - timedelta(days=25), today - timedelta(days=10)
    done = _bot(redis_url, "export", "--since", since.isoformat(), "--until", until.isoformat())
    assert done.returncode == 0, done.stderr
    assert [r["n"] for r in _jsonl(done.stdout)] == [20, 10]  # --until's day included
    mine = _bot(redis_url, "export", "--since", (today - timedelta(days=40)).isoformat(),
                "--user", "UALICE001")
    assert [r["n"] for r in _jsonl(mine.stdout)] == [30, 10]
    bad = _bot(redis_url, "export", "--since", until.isoformat(), "--until", since.isoformat())
    assert bad.returncode == 2 and "before" in bad.stderr and not bad.stdout


def test_the_command_says_what_is_wrong_and_never_half_does_it(own_redis: RedisProcess) -> None:
    assert _bot(own_redis.url, "export", "--since", "2026-13-01").returncode == 2
    assert _bot(own_redis.url, "purge", "--user", "not-a-user").returncode == 2
    unset = _bot(None, "export", "--since", "2026-01-01")
    assert unset.returncode == 2 and "REDIS_URL" in unset.stderr
    own_redis.stop()
    down = _bot(own_redis.url, "purge", "--user", "UALICE001")
    assert down.returncode == 1 and "unreachable" in down.stderr and "Traceback" not in down.stderr


# -- retention ----------------------------------------------------------------------------------

def test_records_older_than_the_retention_go_at_start(redis_url: str, client: redis.Redis) -> None:
    ancient = _old(client, 400, owner="UALICE001")
    year_old = _old(client, 300, owner="UALICE001")
    recent = _old(client, 1, owner="UALICE001")
    client.lpush("gpusizing:recent:UALICE001",
                 dumps({"n": 1, "finished_at": time.time() - 400 * 86400}),
                 dumps({"n": 2, "finished_at": time.time() - 86400}))
    removed = audit.apply_at_start(Settings(redis_url=redis_url))  # AUDIT_RETENTION_DAYS=365
    assert removed == 2  # one record, one App Home entry
    assert _ids(client) == [year_old, recent] and ancient not in _ids(client)
    assert [json.loads(e)["n"] for e in client.lrange("gpusizing:recent:UALICE001", 0, -1)] == [2]
    done = _bot(redis_url, "retention", AUDIT_RETENTION_DAYS="200")
    assert done.returncode == 0 and "retention 200 days: removed 1" in done.stdout, done.stderr
    assert _ids(client) == [recent]


def test_every_append_applies_the_retention_the_deployment_set(
        redis_url: str, client: redis.Redis) -> None:
    """The setting is stored with the stream at start: a store built anywhere (with its own
    default of 365 days) trims by it when it appends."""
    audit.apply_at_start(Settings(redis_url=redis_url, audit_retention_days=30))
    stale = _old(client, 45, owner="UALICE001")
    kept = _old(client, 20, owner="UALICE001")
    new = RedisStore(redis_url).append_audit({"kind": "quote", "requester": "UBOB00002"})
    assert _ids(client) == [kept, new] and stale not in _ids(client)


def test_each_worker_applies_the_retention_hourly(redis_url: str, client: redis.Redis) -> None:
    """A worker that runs for months still drops what ages past the retention, including the
    sizing records the conversation's own script appends (issue 11, item 5)."""
    aged = _old(client, 366, kind="sizing", owner="UALICE001")  # appended a year ago
    monitor = RedisMonitor(parse(redis_url), interval_s=0.02, retention_interval_s=0.2)
    monitor.start()
    try:
        store = RedisStore(redis_url)
        store.write("T1:C1:1.1:UALICE001", Write(
            doc="{}", version=1, expected=None, ttl_seconds=60, audit={"kind": "sizing"},
            owner="UALICE001", recent={"finished_at": time.time()}))
        deadline = time.monotonic() + 10
        while aged in _ids(client):
            assert time.monotonic() < deadline, "the worker never trimmed"
            time.sleep(0.05)
        assert len(_ids(client)) == 1 and client.llen("gpusizing:recent:UALICE001") == 1
    finally:
        monitor.stop()


# -- idempotent records -------------------------------------------------------------------------

def _append_while_paused(proc: RedisProcess, client: Any, append: Any) -> None:
    """Send on a live connection while Redis hangs: the client gives up waiting for the reply
    (its command stays in Redis's socket buffer), then Redis resumes and runs it."""
    client.ping()  # the connection is up: the command itself is sent, not only a handshake
    proc.pause()
    try:
        with pytest.raises(StoreUnavailable):
            append()
    finally:
        proc.resume()
    time.sleep(0.3)


def test_a_quote_retried_after_a_lost_reply_is_recorded_once(own_redis: RedisProcess) -> None:
    client = redis.Redis.from_url(own_redis.url)
    # The defect, reproduced: a plain XADD whose reply was lost, retried, lands twice.
    raw = RedisStore(own_redis.url, socket_timeout=0.2).client
    _append_while_paused(own_redis, raw, lambda: _plain_xadd(raw))
    _plain_xadd(raw)  # the caller was told "unavailable": it tries again
    assert client.xlen("plain") == 2, "the fault did not reproduce"

    store = RedisStore(own_redis.url, socket_timeout=0.2)
    store.client.script_load(redisaudit.APPEND)  # loaded, as on any Redis that served a quote
    record = {"kind": "quote", "key": "T1:C1:1.1:UALICE001", "requester": "UBOB00002",
              "at": 1.0, "note": json.dumps({"contact": CONTACT})}
    _append_while_paused(own_redis, store.client, lambda: store.append_audit(record))
    assert client.xlen("gpusizing:audit") == 1  # the lost attempt did land
    # record_quote tried again by the person, stamped anew: the same request, one record
    again = store.append_audit({**record, "at": 2.0})
    assert client.xlen("gpusizing:audit") == 1
    assert again == str(client.xrange("gpusizing:audit")[0][0], "ascii")
    other = store.append_audit({**record, "requester": "UCAROL003"})  # another request
    assert other != again and client.xlen("gpusizing:audit") == 2


def _plain_xadd(client: Any) -> None:
    from dialogue.store.connect import guard

    with guard():
        client.xadd("plain", {"record": "x"})


# -- erasure ------------------------------------------------------------------------------------

def test_purge_removes_everything_kept_about_a_person_and_nothing_else(
        redis_url: str, client: redis.Redis) -> None:
    store = RedisStore(redis_url)
    d = Dialogue(store)
    mine, theirs = "T1:C1:1700000000.000100:UALICE001", "T1:C2:1700000000.000200:UBOB00002"
    _finish(d, mine, "UALICE001")
    _finish(d, theirs, "UBOB00002")
    # UALICE001 asks sales to quote UBOB00002's sizing and typed their contact details into the form
    d.record_quote(theirs, "UALICE001", note=json.dumps({"contact": CONTACT}))
    d.update_meta(theirs, {audit.QUOTE_CONTACT + "UALICE001": json.dumps(CONTACT),
                           audit.QUOTE_CONTACT + "UBOB00002": "{}", "ts": "1700000000.000300"})
    d.record_quote(theirs, "UBOB00002", note="{}")
    assert store.claim("quote-form:V123:UALICE001", 3600) and store.claim("home:UBOB00002:17", 60)
    before = {r["id"] for r in store.export_audit(0, 2**62)}
    before_dump = _everything(client)

    done = _bot(redis_url, "purge", "--user", "UALICE001")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "audit records: 2" in out and "recent list entries: 1" in out
    assert "conversations they owned: 1" in out and "quote contact details" in out

    left = list(store.export_audit(0, 2**62))
    assert {r["kind"] for r in left} == {"sizing", "quote"} and len(left) == 2
    assert all("UALICE001" not in (r.get("owner"), r.get("requester")) for r in left)
    assert {r["id"] for r in left} < before
    assert not client.exists(f"gpusizing:conv:{mine}") and not store.recent("UALICE001", 10)
    conv = d.load(theirs)
    assert conv is not None and conv.owner == "UBOB00002"
    assert audit.QUOTE_CONTACT + "UALICE001" not in conv.meta
    assert conv.meta[audit.QUOTE_CONTACT + "UBOB00002"] == "{}" and conv.meta["ts"]
    assert store.recent("UBOB00002", 10)
    claims = sorted(str(k, "ascii") for k in client.scan_iter("gpusizing:claim:*"))
    assert claims == ["gpusizing:claim:home:UBOB00002:17"]
    assert CONTACT["email"] in before_dump and CONTACT["email"] not in _everything(client)

    again = _bot(redis_url, "purge", "--user", "UALICE001", "--json")
    assert json.loads(again.stdout) == {
        "user": "UALICE001", "audit_records": [], "recent_entries": 0, "conversations": [],
        "quote_contacts": 0, "claims": 0, "pending_records": 0}


def _everything(client: redis.Redis) -> str:
    """Every value Redis holds under the bot's prefix, decoded (hashes, lists, streams)."""
    parts: list[str] = []
    for key in client.scan_iter("gpusizing:*"):
        kind = client.type(key)
        if kind == b"hash":
            parts += [v.decode() for v in client.hgetall(key).values()]
        elif kind == b"list":
            parts += [v.decode() for v in client.lrange(key, 0, -1)]
        elif kind == b"stream":
            parts += [v.decode() for _id, f in client.xrange(key) for v in f.values()]
    return "\n".join(parts)


def test_the_purge_knows_where_the_quote_form_keeps_contact_details() -> None:
    from bot.slack.flows import quote

    assert audit.QUOTE_CONTACT == quote.DRAFT_FIELD


@pytest.mark.slow
def test_export_and_purge_cover_every_node_of_a_cluster() -> None:
    group = ClusterGroup().start()
    try:
        store = RedisStore(group.url)
        people = ["UALICE001", "UBOB00002", "UCAROL003"]
        keys = [f"T1:C{i}:17000000{i:02d}.000100:{people[i % 3]}" for i in range(12)]
        for i, key in enumerate(keys):
            owner = people[i % 3]
            store.write(key, Write(doc=json.dumps({"owner": owner}), version=1, expected=None,
                                   ttl_seconds=600, audit={"kind": "sizing", "owner": owner,
                                                           "n": i},
                                   owner=owner, recent={"n": i}))
        nodes = {str(store.client.get_node_from_key(store._conv(k)).name)  # type: ignore[union-attr]
                 for k in keys}
        assert len(nodes) > 1, "the conversations should live on several nodes"
        # a record still waiting in a conversation of UBOB00002 (a worker died before the copy)
        store.client.hset(store._conv(keys[1]), "o:pending1", dumps(
            {"audit": {"kind": "quote", "requester": "UALICE001"}, "owner": "UBOB00002"}))
        done = store.purge_person("UALICE001", (audit.QUOTE_CONTACT + "UALICE001",))
        assert len(done.audit_ids) == 4 and len(done.conversations) == 4 and done.pending == 1
        assert {r["owner"] for r in store.export_audit(0, 2**62)} == {"UBOB00002", "UCAROL003"}
        assert store.read(keys[0]) is None and store.read(keys[1]) is not None
        assert [r["n"] for r in store.export_audit(0, 2**62, user="UBOB00002")] == [1, 4, 7, 10]
        assert not store.recent("UALICE001", 20) and len(store.recent("UBOB00002", 20)) == 4
    finally:
        group.cleanup()


# -- the in-process store keeps the same promises ---------------------------------------------

def test_the_memory_store_keeps_the_same_promises() -> None:
    now = [time.time()]
    store = MemoryStore(clock=lambda: now[0], audit_retention_days=30)
    record = {"kind": "quote", "owner": "UBOB00002", "requester": "UALICE001", "at": 1.0}
    first = store.append_audit(record)
    assert store.append_audit({**record, "at": 2.0}) == first  # a retry: one record
    now[0] += 40 * 86400
    kept = store.append_audit({"kind": "quote", "owner": "UBOB00002", "requester": "UBOB00002"})
    assert [r["id"] for r in store.export_audit(0, 2**62)] == [kept]  # the old one trimmed
    store.write("T1:C1:1.1:UALICE001", Write(
        doc='{"owner":"UALICE001"}', version=1, expected=None, ttl_seconds=60,
        audit={"kind": "sizing", "owner": "UALICE001"}, owner="UALICE001",
        recent={"finished_at": now[0]}))
    done = store.purge_person("UALICE001")
    assert done.conversations == ("T1:C1:1.1:UALICE001",) and len(done.audit_ids) == 1
    assert done.recent_entries == 1 and store.read("T1:C1:1.1:UALICE001") is None


def test_hash_prints_the_ids_as_the_turn_logs_show_them(redis_url: str) -> None:
    import hashlib
    import hmac

    done = _bot(redis_url, "hash", "C0SALES42", LOG_HASH_KEY="k-e-y of this deployment")
    key = hmac.new(b"k-e-y of this deployment", b"gpu-sizing-bot log ids v1",
                   hashlib.sha256).digest()
    expected = hmac.new(key, b"C0SALES42", hashlib.sha256).hexdigest()[:16]
    assert done.stdout.split() == ["C0SALES42", expected], done.stderr


def test_export_days_are_utc_days() -> None:
    assert audit._ms(date(2026, 1, 2)) - audit._ms(date(2026, 1, 1)) == DAY_MS
    assert audit._ms(date(1970, 1, 2)) == DAY_MS
