"""Whole conversations, as a person would have them, against the real engine (no Redis).

Replies are read as data: the slot asked, the request the engine is sent with each answer's
source, message ids and their numbers, the engine's steps."""

from __future__ import annotations

import pytest

from bot.wording import catalog
from dialogue import Dialogue, Duplicate, MemoryStore, NotFinished, NotOwner, Reply
from tests.dialogue.helpers import answer, click, notice_ids, run

# verdict -> (button values, the same answers typed the way people write them, states visited)
# Once the context is known the per-user speed is assumed and the card shown ('done'): a
# speed is then typed after it ('none'), or its question reached by its change button.
FLOWS = {
    "single_node": (
        ["llama-3.1-70b", "inference", "64", "8k", "no target"],
        ["Llama 3.1 70B", "serving", "64 users", "8192", "none"],
        ["model", "workload", "concurrency", "context", "done"],
    ),
    "single_node_int4": (
        ["llama-3.1-405b", "inference", "48", "16k", "yes"],
        ["llama 3.1 405b", "inference", "48 concurrent", "16 384", "ok"],
        ["model", "workload", "concurrency", "context", "int4"],
    ),
    "replicas": (
        ["llama-3.1-70b", "inference", "64", "8k", "change target", "6000 tok/s"],
        ["meta-llama/Llama-3.1-70B-Instruct", "inference", "64", "8k", "change speed",
         "6k tokens per second"],
        ["model", "workload", "concurrency", "context", "done", "target_tokens_per_s"],
    ),
    "multi_node": (
        ["llama-3.1-70b", "full-finetune", "1B tokens", "30 days", "ib-200"],
        ["llama 3.1 70b", "full fine-tune", "1 billion tokens", "a month", "IB 200"],
        ["model", "workload", "train_tokens", "deadline_days", "interconnect"],
    ),
    "frontier": (
        ["llama-3.1-70b", "pretrain", "1.5T tokens", "30 days", "ib-400"],
        ["llama 3.1 70b", "train from scratch", "1.5T tokens", "4 weeks", "InfiniBand NDR"],
        ["model", "workload", "train_tokens", "deadline_days", "interconnect"],
    ),
}


def _walk(d: Dialogue, key: str, script: list[str], buttons: bool) -> tuple[list[str], Reply]:
    reply = d.start(key)
    states = []
    for value in script:
        states.append(reply.asking or reply.state)
        assert reply.kind == "question" or reply.state == "done", (reply.state, reply.error)
        reply = answer(d, key, reply, value, buttons=buttons)
    return states, reply


@pytest.mark.parametrize("buttons", [True, False], ids=["buttons", "typed"])
@pytest.mark.parametrize("verdict", list(FLOWS))
def test_each_verdict_is_reached(verdict: str, buttons: bool) -> None:
    clicks, typed, visited = FLOWS[verdict]
    d = Dialogue(MemoryStore())
    states, reply = _walk(d, "k", clicks if buttons else typed, buttons)
    assert states == visited  # only what the decision needs, in tree order
    assert reply.kind == "result" and reply.state == "done" and reply.asking is None
    rec = reply.recommendation
    assert rec is not None and rec.verdict == verdict
    # every step the engine walked is on the reply, in order, and the last one said yes
    assert [q.step for q in reply.steps] == [q.step for q in rec.questions]
    assert reply.steps[-1].answer == "yes"
    assert reply.request["model"] == "llama-3.1-70b" or reply.request["model"].startswith(
        "llama-3.1")
    assert reply.sources["gpu"] == "default" and reply.request["gpu"] == rec.gpu


def test_button_and_typed_text_take_the_same_path() -> None:
    a, b = Dialogue(MemoryStore()), Dialogue(MemoryStore())
    ra, rb = a.start("k", "llama 3.1 70b inference"), b.start("k", "llama 3.1 70b inference")
    for value in ("32", "8k"):
        ra, rb = click(a, "k", ra, value), b.handle("k", value)
        assert (ra.state, ra.request, ra.version) == (rb.state, rb.request, rb.version)


def test_the_request_names_answers_as_the_engine_cli_does_with_their_sources() -> None:
    d = Dialogue(MemoryStore())
    r = d.start("k", "llama 3.1 70b for 50 users 8k context")
    # a headcount was given: serving was inferred, and what the sizing rests on is confirmed
    assert r.asking == "workload" and r.text.id == "dialogue.question.assumed"
    assert r.sources["workload"] == "assumed" and r.default is not None
    r = d.handle("k", "")  # Enter keeps what was inferred: confirmed
    assert r.kind == "result"
    assert r.request == {"model": "llama-3.1-70b", "workload": "inference", "concurrency": 50,
                         "users_total": 50,
                         "context": 8192, "per_user_tokens_per_s": 20.0,
                         "gpu": "rtx-pro-6000-server", "gpus_per_node": 8,
                         "interconnect": "ib-200",
                         # a speed the bot assumed: a preference, never a requirement
                         "assumed": ["per_user_tokens_per_s"]}
    assert r.sources["workload"] == "confirmed" and r.sources["concurrency"] == "assumed"
    assert r.sources["per_user_tokens_per_s"] == "assumed"  # shown, one click to change
    assert {a.slot: a.source for a in r.answers}["per_user_tokens_per_s"] == "assumed"
    # the assumptions' changes come first: all 50 at once, the speed
    assert [n.slot for n in r.nav[:2]] == ["concurrency", "target_tokens_per_s"]
    assert "dialogue.notice.confirmed" in notice_ids(r)


def test_int4_and_interconnect_are_asked_only_when_they_matter() -> None:
    d = Dialogue(MemoryStore())
    opening = "llama 3.1 70b inference 32 users 8k context no target"
    r = run(d, "k", [], buttons=False, opening=opening)
    assert r.recommendation is not None and r.recommendation.verdict == "single_node"
    assert "int4" not in r.request and r.sources["interconnect"] == "default"
    r = d.start("k", "llama 3.1 405b inference 48 users 16k context no target")
    assert r.asking == "int4"
    # step 1 said no, and what the answer trades is said before the question is asked
    assert [(q.step, q.answer) for q in r.steps] == [(1, "no")]
    trade = r.notices[-1]
    assert trade.kind == "tradeoff" and trade.text.id == "dialogue.notice.int4_tradeoff"
    assert trade.text.params["int4"].id == "dialogue.shape.node"  # type: ignore[union-attr]
    fp8 = trade.text.params["fp8"]
    assert fp8.id == "dialogue.shape.copies_node"  # type: ignore[union-attr]
    assert (fp8.params["copies"], fp8.params["nodes"]) == (2, 2)  # type: ignore[union-attr]
    # French elides the article: "2 copies d'un nœud", never "2 copies de un nœud"
    said = catalog().render(fp8, "fr")  # type: ignore[arg-type]
    assert "2 copies d'un nœud de 8 GPU" in said and " de un " not in said
    r = d.handle("k", "no")  # FP8 replicas behind a load balancer: no link to ask about
    assert r.recommendation is not None and r.recommendation.verdict == "replicas"
    assert r.request["int4"] is False and r.sources["interconnect"] == "default"
    # FP8 across nodes whatever INT4 would do (the engine's answer): INT4 is not asked, the
    # link is (the steps it decides are shown first)
    r = d.start("k", "llama 3.1 405b inference 64 users 32k context no target")
    assert r.asking == "interconnect" and "int4" not in r.request
    assert [q.step for q in r.steps] == [1, 2]
    r = d.handle("k", "100 GbE")
    assert r.recommendation is not None and r.recommendation.verdict == "multi_node"
    assert r.recommendation.interconnect == "eth-100" and r.sources["interconnect"] == "said"


def test_int4_never_asked_is_not_reported_as_refused() -> None:
    """4-bit weights that would not change the answer are not asked about, so the card's
    step 2 says why they do not help, never "INT4 quality is not acceptable"; a person who
    refused them reads the refusal."""
    d = Dialogue(MemoryStore())
    opening = "mistral large 2 inference 200 users 32k context on h200"
    r = d.start("k", opening)
    assert r.recommendation is not None and r.recommendation.verdict == "replicas"
    assert "int4" not in r.request
    step2 = r.recommendation.questions[1]
    assert (step2.step, step2.answer) == (2, "no")
    assert step2.because.id == "evidence.no_room"  # 4-bit weights fit, the KV cache does not
    r = d.start("k", opening + " no int4")
    assert r.recommendation is not None and r.request["int4"] is False
    assert r.recommendation.questions[1].because.id == "evidence.int4_refused"


def test_a_first_token_bound_said_alone_survives_the_speed_question() -> None:
    """A first-token bound is no speed: the speed is still assumed (and its question
    reached by 'change speed'), but the assumed speed and answering it (the shown value, or
    a speed typed) keep the bound, shown among the answers and sized."""
    d = Dialogue(MemoryStore())
    r = run(d, "k", ["8k"], buttons=False, opening=(
        "Combien de GPU pour servir gpt-oss-120b à 500 utilisateurs, avec un premier jeton "
        "en moins de 2 secondes ?"))
    assert r.kind == "result" and r.request["ttft_s"] == 2
    assert r.sources["per_user_tokens_per_s"] == "assumed"
    r = d.handle("k", "change speed")
    assert r.asking == "target_tokens_per_s" and r.request["ttft_s"] == 2
    assert r.text.id == "dialogue.question.now"  # the speed now, not "was 2 s: too much"
    assert r.text.params["question"].id == "dialogue.slot.target_tokens_per_s.ask"  # type: ignore[union-attr]
    assert "ttft_s" in {a.slot for a in r.answers}
    r = d.handle("k", "")  # the speed shown
    assert r.recommendation is not None
    assert r.request["ttft_s"] == 2 and r.request["per_user_tokens_per_s"] == 20
    assert "ttft_s" in {a.slot for a in r.answers}
    assert r.recommendation.numbers.ttft_s is not None and r.recommendation.numbers.ttft_s <= 2
    r = d.handle("k", "change speed")
    r = d.handle("k", "40 tok/s per user")
    assert r.request["ttft_s"] == 2 and r.request["per_user_tokens_per_s"] == 40


def test_opening_prefills_and_skips_questions() -> None:
    d = Dialogue(MemoryStore())
    r = d.start("k", "llama 3.1 405b inference 64 users 32k context int4 ok over 100 GbE")
    assert r.kind == "result"  # model, workload, load and context: the card at once
    assert {k: r.request[k] for k in ("model", "concurrency", "context", "int4")} == {
        "model": "llama-3.1-405b", "concurrency": 64, "context": 32768, "int4": True}
    assert notice_ids(r)[0] == "dialogue.notice.understood"  # then what was assumed
    assert {"dialogue.notice.assumed", "dialogue.notice.headcount"} <= set(notice_ids(r))
    assert r.sources["per_user_tokens_per_s"] == "assumed"
    first = r.request
    r = d.start("k", "llama 3.1 405b inference 64 users int4 ok")
    assert r.asking == "context"  # the context was not given: asked
    r = d.handle("k", "32k")  # the speed assumed and said as the opening does, then the link
    assert r.asking == "interconnect" and r.sources["per_user_tokens_per_s"] == "assumed"
    assert "dialogue.notice.assumed" in notice_ids(r)
    r = d.handle("k", "100 GbE")
    assert r.kind == "result" and r.request == first  # the same answers, the same card
    r = d.handle("k", "change speed")  # its question is one 'change' away, Enter keeps
    assert r.asking == "target_tokens_per_s"
    assert r.default is not None and r.default.value == "20 tok/s per user"
    r = d.start("k", "full fine-tune of llama-3.1-70b on 1B tokens in 2 weeks over 100 GbE")
    assert r.kind == "result" and r.recommendation is not None
    assert r.request["deadline_days"] == 14 and r.request["interconnect"] == "eth-100"


def test_opening_with_an_ambiguous_model_offers_the_candidates_and_keeps_the_rest() -> None:
    d = Dialogue(MemoryStore())
    r = d.start("k", "pretrain 70b 1.5T tokens")
    assert r.asking == "model" and r.kind == "question" and r.error is None
    assert r.text.id == "dialogue.confirm.model_which"
    offered = [c.value for c in r.choices]
    assert {"llama-3.1-70b", "llama-3.3-70b"} <= set(offered)
    assert offered[-2:] == ["a 70B dense model", "none of these"]  # and a way out
    assert all("70b" in v or "70B" in v or v == "none of these" for v in offered)
    assert r.request["workload"] == "pretrain" and r.request["train_tokens"] == 1.5e12
    r = click(d, "k", r, "llama-3.3-70b")
    assert r.asking == "deadline_days"  # workload and tokens were kept from the opening
    assert r.sources["model"] == "confirmed"


def test_unknown_model_suggests_and_accepts_a_parameter_count() -> None:
    d = Dialogue(MemoryStore())
    d.start("k")
    r = d.handle("k", "gpt5")
    assert r.kind == "question" and r.asking == "model"
    assert r.text.id == "dialogue.confirm.model_which"
    assert {"gpt-oss-20b", "gpt-oss-120b"} <= {c.value for c in r.choices}
    r = d.handle("k", "none of these")  # then the ways to describe it
    assert r.asking == "model" and "dialogue.notice.none_model" in notice_ids(r)
    r = d.handle("k", "a 30B dense model")
    assert r.asking == "workload" and r.request["params_b"] == 30.0 and "model" not in r.request


def test_invalid_answer_is_explained_and_nothing_is_lost() -> None:
    d = Dialogue(MemoryStore())
    r = d.start("k", "llama 3.1 70b inference")
    before = (r.version, r.request)
    r = d.handle("k", "3O")
    assert r.kind == "error" and r.asking == "concurrency"
    assert r.error is not None and r.error.id == "dialogue.error.concurrency"
    assert r.error.params["text"] == "3O" and r.error.params["hi"] == 100_000
    assert (r.version, r.request) == before
    assert r.text.id == "dialogue.slot.concurrency.ask"  # the same question again
    r = d.handle("k", "64")
    r = d.handle("k", "1m")  # beyond Llama 3.1's window, which the engine states
    assert r.error is not None and r.error.id == "dialogue.error.context_beyond"
    assert r.error.params["limit"] == 131072 and r.error.params["tokens"] == 1048576


def test_a_model_known_by_its_size_has_the_engines_context_limit() -> None:
    import engine

    d = Dialogue(MemoryStore())
    r = d.start("k", "a 30B dense model inference 16 users")
    limit = engine.max_context(None, 30.0)
    assert r.asking == "context" and r.text.params["limit"] == limit
    r = d.handle("k", "1M")  # refused here, by the same limit the engine enforces
    assert r.error is not None and r.error.id == "dialogue.error.context_beyond"
    assert r.error.params["limit"] == limit
    r = d.handle("k", f"{limit}")
    assert r.error is None and r.request["context"] == limit


def test_back_returns_to_the_previous_question_with_its_answer_editable() -> None:
    d = Dialogue(MemoryStore())
    r = run(d, "k", ["llama 3.1 70b", "inference", "64"], buttons=False)
    assert r.asking == "context"
    r = d.handle("k", "back")
    assert r.asking == "concurrency" and r.text.id == "dialogue.question.now"
    assert r.request["concurrency"] == 64  # kept until replaced
    r = d.handle("k", "32")
    assert r.asking == "context" and r.request["concurrency"] == 32
    for _ in range(3):
        r = d.handle("k", "back")
    assert r.asking == "model"
    r = d.handle("k", "back")
    assert r.error is not None and r.error.id == "dialogue.error.first_question"


def test_back_after_a_prefilled_opening_reaches_the_prefilled_answer() -> None:
    d = Dialogue(MemoryStore())
    d.start("k", "llama 3.1 70b inference")
    r = d.handle("k", "back")
    assert r.asking == "workload" and r.text.id == "dialogue.question.now"
    assert r.text.params["now"].id == "workload.inference"  # type: ignore[union-attr]


def test_change_after_the_result_recomputes() -> None:
    d = Dialogue(MemoryStore())
    r = run(d, "k", ["no target"], buttons=False, opening="llama 3.1 70b inference 64 users 8k")
    assert r.recommendation is not None
    kv_before = r.recommendation.numbers.kv_cache_gb
    change = next(n for n in r.nav if n.kind == "change" and n.slot == "concurrency")
    r = click(d, "k", r, change.value)
    assert r.asking == "concurrency"
    r = d.handle("k", "16")
    assert r.kind == "result" and r.recommendation is not None
    assert r.recommendation.numbers.kv_cache_gb is not None and kv_before is not None
    assert r.recommendation.numbers.kv_cache_gb < kv_before
    d.handle("k", "change gpu")
    r = d.handle("k", "RTX 5090")
    assert r.recommendation is not None and r.recommendation.gpu == "rtx-5090"
    assert r.request["gpu"] == "rtx-5090" and r.sources["gpu"] == "said"


def test_a_weight_format_said_is_sized_shown_and_changeable() -> None:
    d = Dialogue(MemoryStore())
    r = d.start("k", "llama 3.1 70b inference en bf16, 32 users, 8k")
    assert r.kind == "result" and r.recommendation is not None
    assert r.request["precision"] == "bf16" and r.sources["precision"] == "said"
    assert r.recommendation.precision == "bf16"
    assert "precision" in {a.slot for a in r.answers}
    change = next(n for n in r.nav if n.kind == "change" and n.slot == "precision")
    r = click(d, "k", r, change.value)
    assert r.asking == "precision"
    assert [c.value for c in r.choices] == ["fp8", "bf16", "fp16", "nvfp4"]  # a Blackwell GPU
    r = click(d, "k", r, "fp8")
    assert r.kind == "result" and r.recommendation is not None
    assert r.recommendation.precision == "fp8" and r.request["precision"] == "fp8"


def test_an_fp8_kv_cache_said_is_sized_and_kept_when_the_weights_change() -> None:
    d = Dialogue(MemoryStore())
    r = d.start("k", "llama 3.1 70b inference, 32 users, 8k, with an fp8 kv cache")
    assert r.kind == "result" and r.recommendation is not None
    assert r.request["kv_precision"] == "fp8" and "precision" not in r.request
    assert r.recommendation.kv_precision == "fp8"
    kv = r.recommendation.numbers.kv_cache_gb
    assert kv is not None and kv == pytest.approx(32 * 8192 * 163840 / 1e9, abs=0.1)
    d.handle("k", "change weight format")
    r = d.handle("k", "bf16")
    assert r.recommendation is not None
    assert (r.recommendation.precision, r.recommendation.kv_precision) == ("bf16", "fp8")


def test_without_a_format_said_none_is_sent_and_a_native_checkpoint_is_sized() -> None:
    d = Dialogue(MemoryStore())
    r = d.start("k", "gpt-oss 120b inference 32 users 8k")
    assert r.recommendation is not None and "precision" not in r.request
    assert r.recommendation.precision == "mxfp4"  # as it ships, not FP8


def test_a_format_the_gpu_cannot_run_is_asked_again_before_anything_is_sized() -> None:
    d = Dialogue(MemoryStore())
    r = d.start("k", "llama 3.1 70b inference with nvfp4 on L40S, 32 users, 8k, no target")
    assert r.kind == "question" and r.asking == "precision" and r.error is None
    assert r.text.id == "dialogue.question.was_format"
    assert "nvfp4" not in [c.value for c in r.choices]  # no FP4 tensor cores on L40S
    r = click(d, "k", r, "fp8")
    assert r.kind == "result" and r.recommendation is not None
    assert (r.recommendation.gpu, r.recommendation.precision) == ("l40s", "fp8")


def test_change_of_workload_asks_what_the_new_workload_needs() -> None:
    d = Dialogue(MemoryStore())
    run(d, "k", ["no target"], buttons=False, opening="llama 3.1 70b inference 64 users 8k")
    d.handle("k", "change workload")
    r = d.handle("k", "lora")
    assert r.asking == "train_tokens"
    r = d.handle("k", "change users")
    assert r.error is not None and r.error.id == "dialogue.error.change_not_here"
    r = d.handle("k", "change the flux capacitor")
    assert r.error is not None and r.error.id == "dialogue.error.change_what"


def test_help_explains_and_stays() -> None:
    d = Dialogue(MemoryStore())
    r = d.start("k", "llama 3.1 70b inference 64 users")
    r2 = d.handle("k", "help")
    assert r2.asking == "context" and r2.version == r.version and r2.text == r.text
    assert r2.notices[0].text.model_dump() == {
        "id": "dialogue.help.question",
        "params": {"help": {"id": "dialogue.slot.context.help", "params": {}}}}


def test_cancel_then_restart() -> None:
    d = Dialogue(MemoryStore())
    d.start("k", "llama 3.1 70b inference")
    r = d.handle("k", "cancel")
    assert r.kind == "ended" and r.state == "cancelled"
    assert [c.value for c in r.choices] == ["restart"]
    r = d.handle("k", "64")
    assert r.state == "cancelled" and r.error is not None
    assert r.error.id == "dialogue.error.cancelled"
    r = click(d, "k", r, "restart")
    assert r.asking == "model" and [a.slot for a in r.answers] == ["gpu", "gpus_per_node"]


def test_restart_clears_answers_and_keeps_the_language() -> None:
    d = Dialogue(MemoryStore())
    d.start("k", "llama 3.1 70b pour 64 utilisateurs")
    r = d.handle("k", "recommencer")
    assert r.asking == "model" and [a.slot for a in r.answers] == ["gpu", "gpus_per_node"]
    assert r.language == "fr"


def test_stale_click_changes_nothing_and_says_so() -> None:
    d = Dialogue(MemoryStore())
    first = d.start("k", "llama 3.1 70b inference")
    r = click(d, "k", first, "64")
    assert r.asking == "context"
    stale = d.handle("k", "32", version=first.version)
    assert stale.error is not None and stale.error.id == "dialogue.error.stale"
    assert stale.asking == "context" and stale.version == r.version
    assert stale.request["concurrency"] == 64


def test_missing_and_expired_conversations_offer_a_new_start() -> None:
    now = [1000.0]
    store = MemoryStore(clock=lambda: now[0])
    d = Dialogue(store, ttl_seconds=60, clock=lambda: now[0])
    r = d.handle("nope", "64")
    assert r.kind == "ended" and r.text.id == "dialogue.reply.missing"
    assert [c.value for c in r.choices] == ["restart"]
    d.start("k", "llama 3.1 70b")
    now[0] += 59
    assert d.handle("k", "inference").asking == "concurrency"  # the TTL slides with each answer
    now[0] += 61
    r = d.handle("k", "64")  # the store let it go with its TTL: gone, said as such
    assert r.kind == "ended" and r.text.id == "dialogue.reply.missing"
    r = d.handle("k", "restart")
    assert r.kind == "question" and r.asking == "model"


def test_only_the_owner_answers() -> None:
    d = Dialogue(MemoryStore())
    d.start("k", "llama 3.1 70b", owner="U1")
    with pytest.raises(NotOwner) as exc:
        d.handle("k", "inference", actor="U2")
    assert exc.value.owner == "U1" and exc.value.message.id == "dialogue.failure.not_owner"
    assert d.handle("k", "inference", actor="U1").asking == "concurrency"


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
    for said in ("64", "8k"):
        d.handle("k", said)
    d.start("k2", "llama 3.1 405b inference 48 users 16k context no target int4 ok", owner="U1")
    d.handle("k", "change concurrency")
    d.handle("k", "32")  # the same conversation finishes again: listed once
    recent = d.recent("U1")
    assert [r["key"] for r in recent] == ["k", "k2"]
    assert recent[1]["verdict"] == "single_node_int4"
    assert recent[0]["model"] == {"id": "text", "params": {"text": "Llama 3.1 70B"}}
    quote = d.record_quote("k", "U9", "for ACME")
    assert quote["kind"] == "quote" and quote["requester"] == "U9"
    assert quote["inputs"]["concurrency"] == 32 and quote["sources"]["concurrency"] == "said"
    assert quote["numbers"]["weights_gb"] > 0
    log = store.audit_log()
    assert log[0]["kind"] == "quote"
    assert sum(1 for r in log if r["kind"] == "sizing") == 3


def test_update_meta_keeps_buttons_valid() -> None:
    d = Dialogue(MemoryStore())
    r = d.start("k", "llama 3.1 70b inference", meta={"channel": "C1"})
    d.update_meta("k", {"ts": "123.456"})
    conv = d.load("k")
    assert conv is not None and conv.meta == {"channel": "C1", "ts": "123.456"}
    assert click(d, "k", r, "64").asking == "context"  # the version did not move


def test_stored_conversation_is_small_json() -> None:
    store = MemoryStore()
    d = Dialogue(store)
    run(d, "k", ["64", "8k", "no target"], buttons=False, opening="llama 3.1 70b inference")
    for said in ("change concurrency", "32", "change context", "4k", "back", "back", "back"):
        d.handle("k", said)
    stored = store.read("k")
    assert stored is not None
    assert stored.doc.startswith("{") and len(stored.doc.encode()) < 4096


@pytest.mark.parametrize("unsure", ["not sure", "je ne sais pas", "no idea?"])
def test_not_knowing_takes_the_default_where_there_is_one_else_says_how_to_estimate(
        unsure: str) -> None:
    d = Dialogue(MemoryStore())
    r = d.start("k", "llama 3.1 70b inference")
    assert r.asking == "concurrency"
    r = d.handle("k", unsure)  # no default load: how to estimate it, the question kept
    assert r.asking == "concurrency" and r.error is not None
    assert r.error.id == "dialogue.error.unsure"
    r = d.handle("k", "64")
    r = d.handle("k", "8k")  # the speed assumed: its question is reached by 'change'
    assert r.kind == "result" and r.sources["per_user_tokens_per_s"] == "assumed"
    r = d.handle("k", "change speed")
    assert r.asking == "target_tokens_per_s"
    r = d.handle("k", unsure)  # the speed has a default: taken, shown as assumed
    assert r.recommendation is not None
    assert r.sources["per_user_tokens_per_s"] == "assumed"
    assert "dialogue.notice.assumed" in notice_ids(r)


def test_another_answer_typed_at_a_word_question_is_offered_as_a_change() -> None:
    """At the workload's confirmation, '100 users' answers the load already given: the bot
    asks whether to change it (it is not refused as 'not a workload')."""
    d = Dialogue(MemoryStore())
    r = d.start("k", "llama 3.1 70b for 64 users 8k context no target")
    assert r.asking == "workload"
    r = d.handle("k", "100 users")
    assert r.error is None and r.asking == "workload"
    assert r.text.id == "dialogue.confirm.change"
    r = click(d, "k", r, r.choices[0].value)  # change it
    assert r.request["concurrency"] == 100


@pytest.mark.parametrize("said", ["plutôt 100 utilisateurs", "actually 100 users",
                                  "sorry, 100 users"])
def test_another_answer_corrected_at_a_question_is_changed_and_said(said: str) -> None:
    """'actually 100 users' at the workload's confirmation is a change the person said: made
    and said ('Changed: ...'), with the question still asked."""
    d = Dialogue(MemoryStore())
    r = d.start("k", "llama 3.1 70b for 64 users 8k context no target")
    r = d.handle("k", said)
    assert r.error is None and r.asking == "workload"
    assert r.request["concurrency"] == 100
    assert "dialogue.notice.changed" in notice_ids(r)


def test_an_answer_typed_beside_another_that_would_change_a_given_one_is_said() -> None:
    """'8k, 100 users' answers the context; the 100 users, which would change the 64 given,
    is not taken silently nor dropped silently: the reply says it kept 64 and how to change
    it."""
    d = Dialogue(MemoryStore())
    r = d.start("k", "llama 3.1 70b inference for 64 users no target")
    assert r.asking == "context"
    r = d.handle("k", "8k, 100 users")
    assert r.recommendation is not None and r.request["concurrency"] == 64
    kept = [n.text for n in r.notices if n.text.id == "dialogue.notice.kept"]
    assert len(kept) == 1
    assert kept[0].params["said"].params["value"].params == {"n": 100}  # type: ignore[union-attr]


def test_a_change_typed_at_a_pending_question_is_acknowledged() -> None:
    """'change gpu to l40s' while the workload waits for its confirmation: the change is
    said ('Changed: GPU: NVIDIA L40S') before the same question is asked again."""
    d = Dialogue(MemoryStore())
    r = d.start("k", "llama 3.1 70b for 64 users 8k context no target")
    assert r.asking == "workload"
    r = d.handle("k", "change gpu to l40s")
    assert r.asking == "workload" and r.request["gpu"] == "l40s"
    assert "dialogue.notice.changed" in notice_ids(r)


def test_a_sentence_naming_another_model_at_a_word_question_sizes_nothing_on_the_first() -> None:
    """Found by the safety property: at the workload question, 'llama 3.1 8b lora 1B tokens
    7 days' names another model; its tokens and deadline are not taken on to size the first
    model (R1 Distill 70B) behind the person's back."""
    d = Dialogue(MemoryStore())
    r = d.start("k", "r1 distill, 70b")
    assert r.asking == "workload"
    r = d.handle("k", "llama 3.1 8b lora 1B tokens 7 days")
    assert r.recommendation is None and r.asking == "train_tokens"


def test_not_knowing_at_a_word_question_without_a_default_gets_its_own_question_again() -> None:
    """No estimate can stand for a workload: 'not sure' there is answered by the workload's
    own message and choices, never 'an estimate will do'."""
    d = Dialogue(MemoryStore())
    r = d.start("k", "llama 3.1 70b")
    assert r.asking == "workload"
    r = d.handle("k", "not sure")
    assert r.asking == "workload" and r.error is not None
    assert r.error.id != "dialogue.error.unsure" and r.choices
