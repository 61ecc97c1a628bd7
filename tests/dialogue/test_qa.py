"""What sales reps and customers actually type, and what broke or confused before.

One test per fix found by using the dialogue as people do (console and ``Dialogue``): each
would have failed before its fix.
"""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dialogue import Dialogue, MemoryStore, parse
from dialogue.commands import command
from dialogue.opening import extract
from dialogue.service import MAX_ANSWER_CHARS, MAX_OPENING_CHARS
from dialogue.slots import show_context, show_model
from tests.dialogue.helpers import click

NUMERIC_STATES = {
    "concurrency": "llama 3.1 70b inference",
    "context": "llama 3.1 70b inference 64 users",
    "target": "llama 3.1 70b inference 64 users 8k context",
    "tokens": "llama 3.1 70b full fine-tune",
    "deadline": "llama 3.1 70b full fine-tune 1B tokens",
}


# -- crashes and slow turns ----------------------------------------------------------------


@pytest.mark.parametrize("state", list(NUMERIC_STATES))
@settings(max_examples=15, deadline=None)
@given(digits=st.integers(min_value=309, max_value=5000))
def test_a_number_too_large_for_a_float_is_refused_not_a_crash(state: str, digits: int) -> None:
    # '1' x 400 was float('inf'), and int(inf) raised OverflowError out of the turn
    d = Dialogue(MemoryStore())
    d.start("k", NUMERIC_STATES[state])
    r = d.handle("k", "1" * min(digits, MAX_ANSWER_CHARS))
    assert r.kind == "error" and r.state == state


def test_a_pasted_page_is_a_quick_refusal_and_a_long_opening_is_read_in_part() -> None:
    # a 10,000-character message took 20-40 s of catalog look-ups (one worker blocked)
    d = Dialogue(MemoryStore())
    t = time.perf_counter()
    r = d.start("k", "llama " * 1700)
    assert time.perf_counter() - t < 2.0
    assert any(f"first {MAX_OPENING_CHARS:,} characters" in n for n in r.notices)
    for state_opening in ("", "llama 3.1 70b inference"):
        d.start("k", state_opening)
        t = time.perf_counter()
        r = d.handle("k", "a b c d e f g " * 700)
        assert time.perf_counter() - t < 0.5
        assert r.kind == "error" and "characters" in (r.error or "")


def test_a_long_opening_of_words_stays_fast() -> None:
    t = time.perf_counter()
    extract(" ".join(f"w{i}" for i in range(150)) + " llama 3.1 70b")
    assert time.perf_counter() - t < 1.0


def test_an_empty_answer_says_so() -> None:
    d = Dialogue(MemoryStore())
    d.start("k")
    r = d.handle("k", "   ")
    assert r.kind == "error" and r.error == "I got an empty answer. Type one, or pick a choice."


# -- numbers as people write them ------------------------------------------------------------


@pytest.mark.parametrize(("text", "value"), [
    ("1,5T", 1.5e12), ("1,5T tokens", 1.5e12), ("2,5B", 2.5e9), ("1,500B tokens", 1.5e12),
])
def test_a_decimal_comma_is_a_decimal(text: str, value: float) -> None:
    assert parse.tokens(text) == value


def test_a_decimal_comma_at_the_model_question_is_not_a_5000b_model() -> None:
    d = Dialogue(MemoryStore())
    d.start("k")
    r = d.handle("k", "1,5T")  # was 'a 5000B-parameter dense model' (the '1,' was dropped)
    assert r.answers["Model"] == "a 1500B-parameter dense model"
    assert extract("pretrain 7b on 1,5T tokens")[0]["tokens"] == 1.5e12


def test_a_bare_small_context_asks_whether_k_was_meant() -> None:
    d = Dialogue(MemoryStore())
    d.start("k", "llama 3.1 70b inference 64 users")
    r = d.handle("k", "64")  # was sized as 64 tokens of context
    assert r.kind == "error" and "did you mean 64k (65,536 tokens)?" in (r.error or "")
    assert d.handle("k", "64 tokens").answers["Context per request"] == "64 tokens"


def test_context_shown_as_typed() -> None:
    assert show_context(128_000) == "128,000 tokens"  # was '(125k)'
    assert show_context(32_768) == "32,768 tokens (32k)"
    assert show_model(0.35) == "a 350M-parameter dense model"  # was 'a 0.35B-...'


# -- choices typed -------------------------------------------------------------------------


def test_every_choice_label_typed_does_what_the_click_does() -> None:
    # 'NVIDIA L40S (48 GB)' read on screen and typed was "I don't know the GPU"
    probe = Dialogue(MemoryStore())
    probe.start("k", "llama 3.1 70b inference")
    r = probe.handle("k", "change gpu")
    for choice in r.choices:
        a, b = Dialogue(MemoryStore()), Dialogue(MemoryStore())
        for d in (a, b):
            d.start("k", "llama 3.1 70b inference")
            d.handle("k", "change gpu")
        ra, rb = a.handle("k", choice.label), b.handle("k", choice.value)
        assert ra.kind != "error", (choice.label, ra.error)
        assert (ra.state, ra.answers) == (rb.state, rb.answers)


@pytest.mark.parametrize(("text", "gpu"), [
    ("H100s", "h100-sxm"), ("8x h100", "h100-sxm"), ("8 x H200", "h200"), ("rtx 5090", "rtx-5090"),
    ("l40s", "l40s"), ("NVIDIA L4 (24 GB)", "l4"), ("b200s", "b200"),
])
def test_gpus_typed_loosely(text: str, gpu: str) -> None:
    assert parse.gpu(text) == gpu


@pytest.mark.parametrize("text", ["not sure", "don't know", "no idea", "default", "dunno?"])
def test_an_unsure_interconnect_takes_the_default_and_shows_it(text: str) -> None:
    d = Dialogue(MemoryStore())
    r = d.start("k", "llama 3.1 70b full fine-tune 1B tokens 30 days")
    assert r.state == "interconnect" and "Not sure?" in r.text
    r = d.handle("k", text)
    assert r.kind == "result" and r.answers["Interconnect"].startswith("InfiniBand HDR 200")


def test_nvlink_for_the_interconnect_is_explained() -> None:
    with pytest.raises(parse.ParseError) as exc:
        parse.interconnect("nvlink")
    assert "inside a node" in exc.value.message


# -- openings ------------------------------------------------------------------------------


def test_a_digit_of_a_version_does_not_pick_a_model() -> None:
    # 'llama 3 70b' once became Llama 3.3 70B: the window '3 70b' matched the end of
    # '3.3-70b'. It names Llama 3 70B, and nothing else.
    answers, _, _ = extract("llama 3 70b")
    assert answers.get("model") == "llama-3-70b"
    d = Dialogue(MemoryStore())
    r = d.start("k", "llama 3 70b inference")
    assert r.answers["Model"].startswith("Llama 3 70B")
    assert r.answers["Workload"] == "Inference (serving)"


@pytest.mark.parametrize(("opening", "model"), [
    ("qwen 3 32b", "qwen3-32b"), ("llama 3.1 70b", "llama-3.1-70b"),
    ("gpt oss 120b", "gpt-oss-120b"),
    ("Mixtral 8x22B inference 32k context", "mixtral-8x22b"), ("llama3.1 70b", "llama-3.1-70b"),
    ("https://huggingface.co/meta-llama/Llama-3.1-70B-Instruct", "llama-3.1-70b"),
    ("serve https://huggingface.co/meta-llama/Llama-3.1-70B-Instruct", "llama-3.1-70b"),
    ("our own 30B dense model", 30.0), ("llama 4 maverick", "llama-4-maverick"),
])
def test_model_names_in_openings_still_resolve(opening: str, model: str | float) -> None:
    assert extract(opening)[0]["model"] == model


def test_a_gpu_in_the_opening_is_an_answer() -> None:
    answers, leftovers, _ = extract("serve llama 3.1 70b on 8x H100s to 64 users")
    assert answers["gpu"] == "h100-sxm" and answers["model"] == "llama-3.1-70b"
    assert leftovers == []
    # and it no longer hides the model: 'llama 70b on rtx 5090' asks which 70B
    answers, _, hint = extract("llama 70b on rtx 5090")
    assert answers == {"gpu": "rtx-5090"} and hint is not None
    d = Dialogue(MemoryStore())
    r = d.start("k", "llama 3.1 8b inference on l40s")
    assert "L40S" in r.answers["GPU"]


def test_users_or_a_rate_mean_inference() -> None:
    d = Dialogue(MemoryStore())
    r = d.start("k", "deepseek r1 for 50 concurrent users")
    assert r.answers["Workload"] == "Inference (serving)" and r.state == "context"


@pytest.mark.parametrize(("opening", "model"), [
    ("llama-3.1-70b-instruct-awq", "llama-3.1-70b"),
    ("hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4", "llama-3.1-70b"),
    ("Qwen/Qwen2.5-72B-Instruct-GPTQ-Int4", "qwen-2.5-72b"),
])
def test_a_quantized_checkpoint_name_is_int4_consent(opening: str, model: str) -> None:
    answers, leftovers, _ = extract(opening)  # was "I don't know 'llama-3.1-70b-instruct-awq'"
    assert answers == {"model": model, "int4": True} and leftovers == []


def test_pretrain_from_scratch_leaves_nothing_unused() -> None:
    assert extract("pretrain a 7B from scratch on 2T tokens")[1] == []


def test_a_french_opening() -> None:
    answers, _, hint = extract("inférence llama 3.1 70b 64 utilisateurs 32k contexte")
    assert answers == {"workload": "inference", "model": "llama-3.1-70b", "concurrency": 64,
                       "context": 32768}
    # the ambiguous part is what the hint names, not the whole sentence
    _, _, hint = extract("inférence llama 70b 64 utilisateurs")
    assert hint is not None and "'llama 70b'" in hint.message


# -- navigation ----------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "slot", "value"), [
    ("change context to 32k", "context", "32k"), ("Change GPU to H100", "gpu", "H100"),
    ("set gpu = b200", "gpu", "b200"), ("change the model to Llama 3.1 405B!", "model",
                                        "Llama 3.1 405B"),
    ("change users to 64", "concurrency", "64"), ("change gpu: l40s", "gpu", "l40s"),
])
def test_change_with_its_new_answer(text: str, slot: str, value: str) -> None:
    cmd = command(text)
    assert cmd is not None and (cmd.kind, cmd.slot, cmd.value) == ("change", slot, value)


def test_change_to_a_value_recomputes_in_one_turn_and_a_bad_value_moves_nothing() -> None:
    d = Dialogue(MemoryStore())
    r = d.start("k", "llama 3.1 70b inference 64 users 8k no target")
    assert r.kind == "result"
    r = d.handle("k", "change gpu to H100s")
    assert r.kind == "result" and r.recommendation is not None
    assert r.recommendation.gpu == "h100-sxm"
    before = d.load("k")
    r = d.handle("k", "change context to 1m")  # beyond 131,072
    assert r.kind == "error" and "131,072" in (r.error or "")
    after = d.load("k")
    assert before is not None and after is not None
    assert (after.state, after.answers, after.version) == (before.state, before.answers,
                                                           before.version)


def test_change_of_an_answer_the_workload_has_not_says_what_can_change() -> None:
    d = Dialogue(MemoryStore())
    d.start("k", "llama 3.1 70b lora 1B tokens 7 days")
    r = d.handle("k", "change context")
    assert r.error == ("Context per request does not apply to LoRA fine-tune. "
                       "I can change: model, workload, tokens, deadline, gpu.")


def test_several_answers_typed_at_one_question() -> None:
    d = Dialogue(MemoryStore())
    d.start("k", "llama 3.1 70b inference")
    r = d.handle("k", "64 users, 32k context")  # was refused as not a number
    assert r.state == "target"
    assert r.answers["Concurrent requests"] == "64"
    assert r.answers["Context per request"].startswith("32,768")
    assert "Noted: concurrent requests 64; context per request 32,768 tokens (32k)." in r.notices


def test_another_answer_typed_at_a_question_never_overwrites_one_given() -> None:
    d = Dialogue(MemoryStore())
    d.start("k", "llama 3.1 70b inference 64 users 8k context")
    r = d.handle("k", "no target: 1k")
    assert r.answers["Context per request"].startswith("8,192")


# -- what the steps say --------------------------------------------------------------------


def test_the_link_is_asked_before_any_step_claims_one() -> None:
    # step 4 used to say 'on InfiniBand HDR 200 Gb/s ... yes' and then ask for the network
    d = Dialogue(MemoryStore())
    r = d.start("k", "qwen 72b full fine-tune 2B tokens 2 weeks")
    assert r.state == "interconnect"
    steps = [n for n in r.notices if n.startswith("Step ")]
    assert [s.split(":")[0] for s in steps] == ["Step 1", "Step 2"]
    assert not any("InfiniBand" in n for n in r.notices)
    r = d.handle("k", "25 GbE")
    assert r.recommendation is not None
    assert [n.split(":")[0] for n in r.notices if n.startswith("Step ")] == [
        f"Step {q.step}" for q in r.recommendation.questions]
    assert "25 GbE" in next(n for n in r.notices if n.startswith(f"Step {r.recommendation.step}"))


def test_the_int4_question_says_what_it_decides() -> None:
    d = Dialogue(MemoryStore())
    r = d.start("k", "deepseek v3 inference 32 users 8k no target")
    assert r.state == "int4"
    assert "with room for its KV cache" not in r.text  # DeepSeek fails on the 70 % rule
    assert r.notices[-1] == ("What this decides: with INT4 weights, one node; keeping FP8, "
                             "a 2-node cluster.")
    r = click(d, "k", r, "no")
    assert r.state == "interconnect"


def test_a_context_the_new_model_cannot_take_is_re_asked_and_not_shown_as_current() -> None:
    d = Dialogue(MemoryStore())
    d.start("k", "llama 3.1 70b inference 64 users 128k no target int4 ok")
    r = d.handle("k", "change model to gemma 2 9b")
    assert r.state == "context"
    assert "(was 131,072 tokens (128k): more than it takes)" in r.text  # was '(now: ...)'
    assert "Context per request" not in r.answers  # the summary shows only what holds


def test_back_never_returns_to_a_question_that_no_longer_applies() -> None:
    # after a change of model, 'back' walked to the INT4 question, which then claimed that
    # Gemma 2 9B 'does not fit one node in FP8', and from the first question to a later one
    d = Dialogue(MemoryStore())
    d.start("k", "llama 3.1 70b inference 64 users 128k no target int4 ok")
    d.handle("k", "change model to gemma 2 9b")
    seen = [d.handle("k", "back").state for _ in range(4)]
    assert "int4" not in seen and "interconnect" not in seen
    assert seen[0] == "model"


@given(texts=st.lists(st.sampled_from([
    "back", "change model to gemma 2 9b", "change model to 405b", "change context to 128k",
    "change workload to lora", "change workload to inference", "8k", "yes", "no", "ib 200",
    "1B tokens", "30 days", "change gpu to l4", "change gpu to b200", "64",
]), min_size=1, max_size=10))
@settings(max_examples=40, deadline=None)
def test_every_question_reached_is_one_the_sizing_needs(texts: list[str]) -> None:
    """Wander with back and change: an INT4 question only when INT4 changes the answer, a
    link question only when the answer crosses nodes."""
    from dialogue.sizing import Plan, needs_link

    d = Dialogue(MemoryStore())
    d.start("k", "llama 3.1 70b inference 64 users 32k no target")
    for text in texts:
        r = d.handle("k", text)
        conv = d.load("k")
        assert conv is not None
        if r.state == "int4":
            assert Plan(conv.answers).recommendation(allow_int4=True).precision == "int4"
        if r.state == "interconnect" and r.kind != "error":
            plan = Plan(conv.answers)
            assert needs_link(plan.recommendation()) or "interconnect" in conv.answers


def test_int4_and_the_link_are_not_reopened_when_they_no_longer_matter() -> None:
    # 'change int4' on a sizing that fits in FP8 asked "... does not fit one node in FP8"
    d = Dialogue(MemoryStore())
    d.start("k", "llama 3.1 405b inference 48 users 16k no target int4 ok over 100 GbE")
    r = d.handle("k", "change model to llama 3.1 8b")
    assert r.kind == "result"
    assert {c.value for c in r.nav}.isdisjoint({"change int4", "change interconnect"})
    for text in ("change int4", "change interconnect"):
        r = d.handle("k", text)
        assert r.kind == "error" and r.state == "done" and "I can change:" in (r.error or "")
    r = d.handle("k", "change model to llama 3.1 405b")
    assert "change int4" in {c.value for c in r.nav}


def test_start_over_on_an_old_card_starts_over() -> None:
    # a 'Start a new sizing' button on a card from an earlier version was refused as stale
    d = Dialogue(MemoryStore())
    old = d.start("k", "llama 3.1 70b inference 64 users 8k no target")
    d.handle("k", "change gpu to h100")
    r = d.handle("k", "restart", version=old.version)
    assert r.kind == "question" and r.state == "model" and r.error is None
    stale = d.handle("k", "64", version=old.version)  # an answer still is refused
    assert stale.kind == "error" and "already answered" in (stale.error or "")


@pytest.mark.parametrize("text", ["why?", "what?", "help?"])
def test_questions_about_the_question_are_help(text: str) -> None:
    d = Dialogue(MemoryStore())
    r = d.start("k", "llama 3.1 70b inference")
    r2 = d.handle("k", text)
    assert r2.kind == "question" and r2.version == r.version and "KV cache" in r2.notices[0]


@pytest.mark.parametrize("text", ["∞", "🚀", "<!channel>", "yes"])
def test_symbols_are_not_an_unsure_interconnect(text: str) -> None:
    with pytest.raises(parse.ParseError):
        parse.interconnect(text)


def test_a_context_beyond_the_model_names_the_model_and_its_limit() -> None:
    d = Dialogue(MemoryStore())
    d.start("k", "llama 3.1 70b inference 64 users")
    r = d.handle("k", "200k")  # was the generic "between 1 and 131,072; '200k' isn't one"
    assert r.error == "Llama 3.1 70B takes at most 131,072 tokens of context; '200k' is 204,800"


@pytest.mark.parametrize(("text", "value"), [
    ("sixty four", 64), ("sixty-four users", 64), ("two hundred", 200), ("a hundred users", 100),
    ("seventy five thousand", 75_000), ("twelve", 12),
])
def test_numbers_spelled_out(text: str, value: int) -> None:
    assert parse.concurrency(text) == value


@given(n=st.integers(min_value=1, max_value=999))
def test_spelled_numbers_read_as_their_digits(n: int) -> None:
    units = parse._UNITS_WORDS
    tens = parse._TENS_WORDS
    words = []
    if n >= 100:
        words += [units[n // 100], "hundred"]
    r = n % 100
    if r >= 20:
        words.append(tens[r // 10 - 2])
        if r % 10:
            words.append(units[r % 10])
    elif r:
        words.append(units[r])
    assert parse.concurrency(" ".join(words)) == n
