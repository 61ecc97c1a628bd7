"""Every message the bot can produce, checked against Block Kit's limits (bot/slack/blockkit.py)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from bot.slack import blockkit, cards
from bot.slack.escape import clip_escaped, escape, unescape
from bot.slack.turns import HELP, NOT_OWNER, STALE, compare_gpus
from dialogue import Choice, Dialogue, MemoryStore, Reply
from engine import SizingRequest, recommend
from engine.result import Recommendation

KEY = "TINT0001:CSALES01:1700000001.000100:UREP0001"

VERDICT_OPENINGS = {
    "single_node": "llama 3.1 70b inference 64 users 8k context no target",
    "single_node_int4": "deepseek-v3 inference 8 users 8k context no target int4 ok",
    "replicas": "llama 3.1 70b inference 64 users 8k context 20000 tok/s",
    "multi_node": "llama 3.1 405b inference 64 users 32k context no target",
    "frontier": "llama 3.1 70b pretrain 15T tokens 30 days",
}


def valid(msg: dict[str, Any]) -> dict[str, Any]:
    errors = blockkit.validate_message(msg)
    assert not errors, errors
    return msg


def drive(d: Dialogue, key: str, opening: str, answers: list[str] | None = None) -> list[Reply]:
    """Start, then answer with ``answers`` (or the first choice) until a result."""
    replies = [d.start(key, opening, owner="U1")]
    queue = list(answers or [])
    while replies[-1].kind != "result" and len(replies) < 20:
        last = replies[-1]
        text = queue.pop(0) if queue else last.choices[0].value
        replies.append(d.handle(key, text, actor="U1"))
    return replies


@pytest.fixture
def dialogue() -> Dialogue:
    return Dialogue(MemoryStore())


def test_every_question_and_every_verdict_card(dialogue: Dialogue) -> None:
    states: set[str] = set()
    verdicts: set[str] = set()
    for n, opening in enumerate(["", *VERDICT_OPENINGS.values(),
                                 "mistral large 2 full fine-tune", "qwen3 8b lora"]):
        key = f"{KEY}{n}"
        for reply in drive(dialogue, key, opening):
            msg = valid(cards.render(reply, key, compare_gpus(), "UREP0001"))
            states.add(reply.state)
            if reply.kind == "result":
                assert reply.recommendation is not None
                verdicts.add(reply.recommendation.verdict)
                assert msg["blocks"][0]["type"] == "header"
                valid(cards.math_message(reply.recommendation))
                valid(cards.quote_summary(
                    {"id": "1-0"}, requester="UCUST001", requester_team="TEXT0001",
                    internal=False, channel="CSHARED1", shared=True, key=key,
                    rec=reply.recommendation, answers=reply.answers))
                # change an answer, compare, and the questions those reopen
                for nav in reply.nav:
                    again = dialogue.handle(key, nav.value, actor="U1")
                    valid(cards.render(again, key, compare_gpus(), "UREP0001"))
                    states.add(again.state)
                    dialogue.handle(key, "back", actor="U1")
    assert set(VERDICT_OPENINGS) <= verdicts
    assert {"model", "workload", "concurrency", "context", "target", "gpu", "done"} <= states


def test_int4_interconnect_tokens_deadline_questions(dialogue: Dialogue) -> None:
    seen: set[str] = set()
    for n, (opening, answers) in enumerate([
        ("llama 3.1 405b inference 64 users 32k context no target", []),
        ("llama 3.1 405b full fine-tune", []),
    ]):
        for reply in drive(dialogue, f"{KEY}x{n}", opening, answers):
            valid(cards.render(reply, KEY, compare_gpus()))
            seen.add(reply.state)
    assert {"int4", "interconnect", "tokens", "deadline"} <= seen, seen


def test_errors_ended_and_stale(dialogue: Dialogue) -> None:
    dialogue.start(KEY, "llama 3.1 70b inference", owner="U1")
    bad = dialogue.handle(KEY, "<!channel> lots & lots", actor="U1")
    assert bad.kind == "error"
    msg = valid(cards.render(bad, KEY))
    assert "<!channel>" not in json.dumps(msg)
    stale = dialogue.handle(KEY, "64", version=1, actor="U1")
    valid(cards.render(stale, KEY))
    cancelled = dialogue.handle(KEY, "cancel", actor="U1")
    assert cancelled.kind == "ended"
    valid(cards.render(cancelled, KEY))
    missing = dialogue.handle(KEY + "nope", "64", actor="U1")
    valid(cards.render(missing, KEY + "nope"))
    for text in (cards.STORE_DOWN, STALE, NOT_OWNER.format(owner="<@U1>"), HELP):
        valid(cards.note_message(text, start=("C1", "1.2")))
    valid(cards.start_message("UREP0001"))


def test_home_view() -> None:
    recent = [{"key": KEY, "model": "Llama 3.1 70B <!here>", "workload": "inference",
               "verdict": v, "headline": "h" * 5000, "finished_at": 1764540000.5}
              for v in VERDICT_OPENINGS]
    for view in (cards.home_view(recent), cards.home_view([]),
                 cards.home_view([], store_ok=False), cards.home_view(recent * 30)):
        assert not blockkit.validate_view(view), blockkit.validate_view(view)
        assert "<!here>" not in json.dumps(view)


def _huge_recommendation() -> Recommendation:
    rec = recommend(SizingRequest(model="llama-3.1-405b", concurrency=64, context=32768))
    long = "x<&>" * 2000
    data = rec.model_dump()
    data["headline"] = long
    data["caveats"] = [long] * 40
    data["assumptions"] = [long] * 40
    data["math"] = [long] * 200
    data["model"]["name"] = "M" * 400
    data["questions"] = [{**q, "because": long, "question": long} for q in data["questions"]]
    data["alternatives"] = [{**a, "label": long, "summary": long} for a in data["alternatives"]]
    return Recommendation.model_validate(data)


def test_oversized_content_is_clipped_within_limits() -> None:
    rec = _huge_recommendation()
    many = [Choice(value=f"v{i}", label="L" * 200) for i in range(250)]
    long_values = [Choice(value="V" * 100 + str(i), label=f"c{i}") for i in range(60)]
    nav = [Choice(value=f"change s{i}", label=f"Change {i}") for i in range(40)]
    for reply in (
        Reply(kind="result", conversation_id="c", version=3, state="done", text="t",
              recommendation=rec, nav=nav, answers={"A" * 100: "<!channel>" * 500}),
        Reply(kind="question", conversation_id="c", version=3, state="model", text="q" * 9000,
              help="h" * 9000, notices=["n" * 4000] * 10, error="e" * 5000, choices=many,
              nav=nav, answers={f"k{i}": "v" * 300 for i in range(30)}),
        Reply(kind="question", conversation_id="c", version=3, state="model", text="q",
              choices=long_values),
    ):
        valid(cards.render(reply, "K" * 300, [("G" * 100, f"g{i}") for i in range(150)]))
    valid(cards.math_message(rec))
    valid(cards.quote_summary({"id": "1"}, requester="U1", requester_team="T" * 500,
                              internal=True, channel="C1", shared=False, key="k" * 4000,
                              rec=rec, answers={"a" * 300: "b" * 3000}))


def test_vram_bar_shapes() -> None:
    fits = recommend(SizingRequest(model="llama-3.1-70b", concurrency=64, context=8192))
    bar = cards.vram_bar(fits.numbers)
    assert bar is not None and "free of" in bar and "█" in bar and "░" in bar
    big = recommend(SizingRequest(model="llama-3.1-405b", concurrency=64, context=32768))
    bar = cards.vram_bar(big.numbers)
    assert bar is not None


def test_block_id_round_trip_and_limits() -> None:
    bid = cards.block_id(7, KEY, 2)
    assert cards.parse_block_id(bid) == (KEY, 7)
    assert cards.parse_block_id("b") is None
    assert cards.parse_block_id(None) is None
    assert len(cards.block_id(1, "k" * 1000)) <= blockkit.MAX_ID


def test_escape() -> None:
    assert escape("<!channel> & <@U1>") == "&lt;!channel&gt; &amp; &lt;@U1&gt;"
    assert unescape(escape("a<b>&c")) == "a<b>&c"
    clipped = clip_escaped("&" * 100, 10)
    assert len(clipped) <= 10 and not clipped.rstrip("…").endswith(("&a", "&am", "&amp"[:3]))


def test_validator_catches_violations() -> None:
    assert blockkit.validate_message({"text": "", "blocks": []})
    too_many = {"text": "t", "blocks": [{"type": "divider"}] * 51}
    assert any("51 > 50" in e for e in blockkit.validate_message(too_many))
    long_header = {"text": "t", "blocks": [cards.header("x")]}
    long_header["blocks"][0]["text"]["text"] = "x" * 151
    assert blockkit.validate_message(long_header)
    dup = {"text": "t", "blocks": [{"type": "actions", "elements": [
        cards.button("a", "same"), cards.button("b", "same")]}]}
    assert any("not unique" in e for e in blockkit.validate_message(dup))


def test_home_view_never_cuts_an_entity_in_half() -> None:
    for n in range(190, 201):
        item = {"model": "M" * n + "&<>" * 5, "workload": "w" * 45 + "<&>" * 5,
                "headline": "h" * 390 + "&" * 20, "verdict": "single_node",
                "finished_at": 1700000000}
        view = cards.home_view([item])
        assert not blockkit.validate_view(view)
        text = json.dumps(view, ensure_ascii=False)
        assert not re.search(r"&[a-z]{0,3}…", text), text


@pytest.mark.parametrize("workload", [
    "inference 256 users 128k context 20000 tok/s int4 ok",
    "full fine-tune 1T tokens 7 days",
    "pretrain 15T tokens 30 days",
])
def test_every_catalog_model_card_math_and_quote_are_valid(workload: str) -> None:
    """The real worst cases: every model of the catalog (the longest names), the heaviest
    loads (most caveats and alternatives, every step answered), the last choice each time."""
    from engine.catalog import catalog

    d = Dialogue(MemoryStore())
    for mid in catalog().models:
        key = f"TINT0001:CSALES01:1700000001.000100:{mid}"
        reply = d.start(key, f"{mid} {workload}", owner="U1")
        for _ in range(12):
            if reply.kind == "result" or not reply.choices:
                break
            reply = d.handle(key, reply.choices[-1].value, actor="U1")
        valid(cards.render(reply, key, compare_gpus(), "U1"))
        if reply.recommendation is not None:
            valid(cards.math_message(reply.recommendation))
            valid(cards.quote_summary({"id": "1-0"}, requester="U1", requester_team="TEXT0001",
                                      internal=False, channel="CSHARED1", shared=True, key=key,
                                      rec=reply.recommendation, answers=reply.answers))


def test_ended_message_says_why_an_answer_changed_nothing(dialogue: Dialogue) -> None:
    dialogue.start(KEY, "llama 3.1 70b inference", owner="U1")
    dialogue.handle(KEY, "cancel", actor="U1")
    reply = dialogue.handle(KEY, "64 <users>", actor="U1")
    assert reply.kind == "ended" and reply.error
    msg = valid(cards.render(reply, KEY))
    assert escape(reply.error) in json.dumps(msg["blocks"], ensure_ascii=False)


@pytest.mark.parametrize("kw", [
    {"model": "llama-3.1-70b", "workload": "full-finetune"},
    {"model": "llama-3.1-70b", "workload": "lora"},
    {"model": "llama-3.1-405b", "concurrency": 64, "context": 32768},
    {"model": "llama-3.1-70b", "concurrency": 64, "context": 8192},
])
def test_the_vram_bar_of_a_plan_that_fits_never_says_it_overflows(kw: dict[str, Any]) -> None:
    """The training state includes the weights and activations: count them once."""
    from engine import SizingRequest, recommend

    rec = recommend(SizingRequest(**kw), alternatives=False)
    bar = cards.vram_bar(rec.numbers, scope=cards.vram_scope(rec))
    assert bar is not None
    assert "needs" not in bar and "free of" in bar
