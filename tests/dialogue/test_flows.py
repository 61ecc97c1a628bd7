"""Whole conversations, as a person would have them, against the real engine (no Redis)."""

from __future__ import annotations

import pytest

from dialogue import Dialogue, Duplicate, MemoryStore, NotFinished, NotOwner
from tests.dialogue.helpers import click, run

# verdict -> (button values, the same answers typed the way people write them, states visited)
FLOWS = {
    "single_node": (
        ["llama-3.1-70b", "inference", "64", "8k", "no target"],
        ["Llama 3.1 70B", "serving", "64 users", "8192", "none"],
        ["model", "workload", "concurrency", "context", "target"],
    ),
    "single_node_int4": (
        ["llama-3.1-405b", "inference", "48", "16k", "no target", "yes"],
        ["llama 3.1 405b", "inference", "48 concurrent", "16 384", "no target", "ok"],
        ["model", "workload", "concurrency", "context", "target", "int4"],
    ),
    "replicas": (
        ["llama-3.1-70b", "inference", "64", "8k", "6000 tok/s"],
        ["meta-llama/Llama-3.1-70B-Instruct", "inference", "64", "8k", "6k tokens per second"],
        ["model", "workload", "concurrency", "context", "target"],
    ),
    "multi_node": (
        ["llama-3.1-70b", "full-finetune", "1B tokens", "30 days", "ib-200"],
        ["llama 3.1 70b", "full fine-tune", "1 billion tokens", "a month", "IB 200"],
        ["model", "workload", "tokens", "deadline", "interconnect"],
    ),
    "frontier": (
        ["llama-3.1-70b", "pretrain", "1.5T tokens", "30 days", "ib-400"],
        ["llama 3.1 70b", "train from scratch", "1.5T tokens", "4 weeks", "InfiniBand NDR"],
        ["model", "workload", "tokens", "deadline", "interconnect"],
    ),
}


def _walk(d: Dialogue, key: str, script: list[str], buttons: bool) -> tuple[list[str], object]:
    from tests.dialogue.helpers import answer

    reply = d.start(key)
    states = []
    for value in script:
        states.append(reply.state)
        assert reply.kind == "question", (reply.state, reply.error)
        reply = answer(d, key, reply, value, buttons=buttons)
    return states, reply


@pytest.mark.parametrize("buttons", [True, False], ids=["buttons", "typed"])
@pytest.mark.parametrize("verdict", list(FLOWS))
def test_each_verdict_is_reached(verdict: str, buttons: bool) -> None:
    clicks, typed, visited = FLOWS[verdict]
    d = Dialogue(MemoryStore())
    states, reply = _walk(d, "k", clicks if buttons else typed, buttons)
    assert states == visited  # only what the decision needs, in tree order
    assert reply.kind == "result" and reply.state == "done"
    assert reply.recommendation is not None
    assert reply.recommendation.verdict == verdict
    # each step the engine reached is told, in order, with its evidence; the last says yes
    steps = [n for n in reply.notices if n.startswith("Step ")]
    assert [int(s.split()[1].rstrip(":")) for s in steps] == [
        q.step for q in reply.recommendation.questions
    ]
    assert steps[-1].endswith(": yes")
    assert reply.answers["Model"].startswith("Llama 3.1")
    assert "GPU" in reply.answers


def test_button_and_typed_text_take_the_same_path() -> None:
    a, b = Dialogue(MemoryStore()), Dialogue(MemoryStore())
    ra, rb = a.start("k", "llama 3.1 70b inference"), b.start("k", "llama 3.1 70b inference")
    for value in ("32", "8k"):
        ra, rb = click(a, "k", ra, value), b.handle("k", value)
        assert (ra.state, ra.answers, ra.version) == (rb.state, rb.answers, rb.version)


def test_int4_and_interconnect_are_asked_only_when_they_matter() -> None:
    d = Dialogue(MemoryStore())
    opening = "llama 3.1 70b inference 32 users 8k context"
    r = run(d, "k", ["no target"], buttons=False, opening=opening)
    assert r.recommendation is not None and r.recommendation.verdict == "single_node"
    assert "INT4 weights acceptable" not in r.answers and "Interconnect" not in r.answers
    r = d.start("k", "405b inference 48 users 16k context no target")
    assert r.state == "int4"
    assert r.notices[-2].startswith("Step 1:") and r.notices[-2].endswith(": no")
    # what the answer trades is said before the question is asked
    assert r.notices[-1] == ("What this decides: with INT4 weights, one node; keeping FP8, "
                             "2 copies of one node (2 nodes).")
    r = d.handle("k", "no")  # FP8 replicas behind a load balancer: no link to ask about
    assert r.recommendation is not None and r.recommendation.verdict == "replicas"
    assert "Interconnect" not in r.answers
    r = d.start("k", "405b inference 64 users 32k context no target")
    assert r.notices[-1] == ("What this decides: with INT4 weights, a 2-node cluster; "
                             "keeping FP8, a 3-node cluster.")
    r = d.handle("k", "no")  # no INT4: FP8 across nodes, so now the link matters
    assert r.state == "interconnect"
    r = d.handle("k", "100 GbE")
    assert r.recommendation is not None and r.recommendation.verdict == "multi_node"
    assert r.recommendation.interconnect == "eth-100"


def test_opening_prefills_and_skips_questions() -> None:
    d = Dialogue(MemoryStore())
    r = d.start("k", "405b inference 64 users 32k context int4 ok")
    assert r.state == "target"  # five answers given, the sixth is asked
    assert r.answers["Model"] == "Llama 3.1 405B"
    assert r.answers["Concurrent requests"] == "64"
    assert r.answers["Context per request"].startswith("32,768")
    assert r.answers["INT4 weights acceptable"] == "yes"
    assert any("From your message" in n for n in r.notices)
    r = d.start("k", "full fine-tune of llama-3.1-70b on 1B tokens in 2 weeks over 100 GbE")
    assert r.kind == "result" and r.recommendation is not None
    assert r.answers["Deadline"] == "14 days" and r.answers["Interconnect"].startswith("100 GbE")


def test_opening_with_an_ambiguous_model_offers_the_candidates() -> None:
    d = Dialogue(MemoryStore())
    r = d.start("k", "pretrain 70b 1.5T tokens")
    assert r.state == "model" and r.error and "several models" in r.error
    offered = {c.value for c in r.choices}
    assert {"llama-3.1-70b", "llama-3.3-70b"} <= offered
    assert all("70b" in v for v in offered)
    r = click(d, "k", r, "llama-3.3-70b")
    assert r.state == "deadline"  # workload and tokens were kept from the opening


def test_unknown_model_suggests_and_accepts_a_parameter_count() -> None:
    d = Dialogue(MemoryStore())
    r = d.start("k")
    r = d.handle("k", "gpt5")
    assert r.kind == "error" and r.state == "model"
    assert "I don't know 'gpt5'; did you mean" in (r.error or "")
    assert "30b params" in (r.error or "")
    assert {"gpt-oss-20b", "gpt-oss-120b"} <= {c.value for c in r.choices}
    r = d.handle("k", "a 30B dense model")
    assert r.state == "workload" and "30B" in r.answers["Model"]


def test_invalid_answer_is_explained_and_nothing_is_lost() -> None:
    d = Dialogue(MemoryStore())
    r = d.start("k", "llama 3.1 70b inference")
    before = (r.version, r.answers)
    r = d.handle("k", "3O")
    assert r.kind == "error" and r.state == "concurrency"
    assert r.error == "I need a number of concurrent requests between 1 and 100,000; '3O' isn't one"
    assert (r.version, r.answers) == before
    assert r.text.startswith("How many requests")  # the same question again
    r = d.handle("k", "200000")
    assert r.kind == "error" and "100,000" in (r.error or "")
    r = d.handle("k", "64")
    r = d.handle("k", "1m")  # beyond Llama 3.1's 131,072
    assert r.kind == "error" and "131,072" in (r.error or "")


def test_back_returns_to_the_previous_question_with_its_answer_editable() -> None:
    d = Dialogue(MemoryStore())
    r = run(d, "k", ["llama 3.1 70b", "inference", "64"], buttons=False)
    assert r.state == "context"
    r = d.handle("k", "back")
    assert r.state == "concurrency" and "(now: 64)" in r.text
    assert r.answers["Concurrent requests"] == "64"  # kept until replaced
    r = d.handle("k", "32")
    assert r.state == "context" and r.answers["Concurrent requests"] == "32"
    r = d.handle("k", "back")
    r = d.handle("k", "back")
    r = d.handle("k", "back")
    assert r.state == "model"
    r = d.handle("k", "back")
    assert r.kind == "error" and "first question" in (r.error or "")


def test_back_after_a_prefilled_opening_reaches_the_prefilled_answer() -> None:
    d = Dialogue(MemoryStore())
    r = d.start("k", "llama 3.1 70b inference")
    r = d.handle("k", "back")
    assert r.state == "workload" and "(now: Inference (serving))" in r.text


def test_change_after_the_result_recomputes() -> None:
    d = Dialogue(MemoryStore())
    r = run(d, "k", ["no target"], buttons=False, opening="llama 3.1 70b inference 64 users 8k")
    assert r.recommendation is not None
    kv_before = r.recommendation.numbers.kv_cache_gb
    assert "change concurrency" in [c.value for c in r.nav]
    r = click(d, "k", r, "change concurrency")
    assert r.state == "concurrency"
    r = d.handle("k", "16")
    assert r.kind == "result" and r.recommendation is not None
    assert r.recommendation.numbers.kv_cache_gb is not None and kv_before is not None
    assert r.recommendation.numbers.kv_cache_gb < kv_before
    r = d.handle("k", "change gpu")
    r = d.handle("k", "RTX 5090")
    assert r.kind == "result" and r.recommendation is not None
    assert r.recommendation.gpu == "rtx-5090" and "5090" in r.answers["GPU"]


def test_change_of_workload_asks_what_the_new_workload_needs() -> None:
    d = Dialogue(MemoryStore())
    r = run(d, "k", ["no target"], buttons=False, opening="llama 3.1 70b inference 64 users 8k")
    r = d.handle("k", "change workload")
    r = d.handle("k", "lora")
    assert r.state == "tokens"
    r = d.handle("k", "change users")
    assert r.kind == "error" and "does not apply" in (r.error or "")
    r = d.handle("k", "change the flux capacitor")
    assert r.kind == "error" and "Change what?" in (r.error or "")


def test_help_explains_and_stays() -> None:
    d = Dialogue(MemoryStore())
    r = d.start("k", "llama 3.1 70b inference 64 users")
    r2 = d.handle("k", "help")
    assert r2.state == "context" and r2.version == r.version
    assert any("KV cache" in n for n in r2.notices)
    assert r2.text == r.text


def test_cancel_then_restart() -> None:
    d = Dialogue(MemoryStore())
    d.start("k", "llama 3.1 70b inference")
    r = d.handle("k", "cancel")
    assert r.kind == "ended" and r.state == "cancelled"
    assert [c.value for c in r.choices] == ["restart"]
    r = d.handle("k", "64")
    assert r.state == "cancelled" and r.error
    r = click(d, "k", r, "restart")
    assert r.state == "model" and r.answers == {"GPU": r.answers["GPU"]}


def test_restart_clears_answers() -> None:
    d = Dialogue(MemoryStore())
    d.start("k", "llama 3.1 70b inference 64 users")
    r = d.handle("k", "start over")
    assert r.state == "model" and set(r.answers) == {"GPU"}


def test_stale_click_changes_nothing_and_says_so() -> None:
    d = Dialogue(MemoryStore())
    first = d.start("k", "llama 3.1 70b inference")
    r = click(d, "k", first, "64")
    assert r.state == "context"
    stale = d.handle("k", "32", version=first.version)
    assert stale.kind == "error" and "already answered" in (stale.error or "")
    assert stale.state == "context" and stale.version == r.version
    assert stale.answers["Concurrent requests"] == "64"


def test_missing_and_expired_conversations_offer_a_new_start() -> None:
    now = [1000.0]
    store = MemoryStore(clock=lambda: now[0])
    d = Dialogue(store, ttl_seconds=60, clock=lambda: now[0])
    r = d.handle("nope", "64")
    assert r.kind == "ended" and [c.value for c in r.choices] == ["restart"]
    d.start("k", "llama 3.1 70b")
    now[0] += 59
    assert d.handle("k", "inference").state == "concurrency"  # the TTL slides with each answer
    now[0] += 61
    r = d.handle("k", "64")
    assert r.kind == "ended" and "expired" in r.text
    r = d.handle("k", "restart")
    assert r.kind == "question" and r.state == "model"


def test_only_the_owner_answers() -> None:
    d = Dialogue(MemoryStore())
    d.start("k", "llama 3.1 70b", owner="U1")
    with pytest.raises(NotOwner) as exc:
        d.handle("k", "inference", actor="U2")
    assert exc.value.owner == "U1"
    assert d.handle("k", "inference", actor="U1").state == "concurrency"


def test_duplicate_delivery_is_refused_in_memory_too() -> None:
    d = Dialogue(MemoryStore())
    d.start("k", "llama 3.1 70b inference", delivery_id="e0")
    d.handle("k", "64", delivery_id="e1")
    with pytest.raises(Duplicate):
        d.handle("k", "32", delivery_id="e1")
    conv = d.load("k")
    assert conv is not None and conv.answers["concurrency"] == 64


def test_finished_sizings_are_audited_quoted_and_listed() -> None:
    store = MemoryStore()
    d = Dialogue(store)
    d.start("k", "llama 3.1 70b inference", owner="U1")
    with pytest.raises(NotFinished):
        d.record_quote("k", "U1")
    for text in ("64", "8k", "no target"):
        d.handle("k", text)
    d.start("k2", "llama 3.1 405b inference 48 users 16k context no target int4 ok", owner="U1")
    d.handle("k", "change concurrency")
    d.handle("k", "32")  # the same conversation finishes again: listed once
    recent = d.recent("U1")
    assert [r["key"] for r in recent] == ["k", "k2"]
    assert recent[1]["verdict"] == "single_node_int4" and recent[0]["model"] == "Llama 3.1 70B"
    quote = d.record_quote("k", "U9", "for ACME")
    assert quote["kind"] == "quote" and quote["requester"] == "U9"
    assert quote["inputs"]["concurrency"] == 32 and quote["numbers"]["weights_gb"] > 0
    log = store.audit_log()
    assert log[0]["kind"] == "quote"
    assert sum(1 for r in log if r["kind"] == "sizing") == 3


def test_update_meta_keeps_buttons_valid() -> None:
    d = Dialogue(MemoryStore())
    r = d.start("k", "llama 3.1 70b inference", meta={"channel": "C1"})
    d.update_meta("k", {"ts": "123.456"})
    conv = d.load("k")
    assert conv is not None and conv.meta == {"channel": "C1", "ts": "123.456"}
    assert click(d, "k", r, "64").state == "context"  # the version did not move


def test_stored_conversation_is_small_json() -> None:
    store = MemoryStore()
    d = Dialogue(store)
    run(d, "k", ["64", "8k", "no target"], buttons=False, opening="llama 3.1 70b inference")
    for w in ("change concurrency", "32", "change context", "4k", "back", "back", "back"):
        d.handle("k", w)
    stored = store.read("k")
    assert stored is not None
    assert stored.doc.startswith("{") and len(stored.doc.encode()) < 4096
