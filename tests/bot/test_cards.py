"""Every message the bot can produce: within Block Kit's limits (bot/slack/blockkit.py), in the
conversation's language, drawn from the engine's typed data, and safe to show."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from bot.slack import blockkit, cards
from bot.slack.cards import ids, parts
from bot.slack.cards.home import home_view
from bot.slack.cards.math import math_message
from bot.slack.cards.notes import help_message, note_message
from bot.slack.cards.quote import quote_summary
from bot.slack.cards.start import root_message, start_message
from bot.slack.cards.vram import bar
from bot.slack.cards.words import Words
from bot.slack.keys import ConversationKey
from dialogue import AnswerView, Choice, Dialogue, MemoryStore, Nav, Notice, Reply
from engine import SizingRequest, recommend
from engine.result import Recommendation
from engine.units import size_gb
from engine.wording import msg, text

KEY = ConversationKey.thread("TINT0001", "CSALES01", "1700000001.000100", "UREP0001")
EN, FR = Words("en"), Words("fr")

VERDICT_OPENINGS = {
    "single_node": "llama 3.1 70b inference 64 users 8k context no target",
    "single_node_int4": "deepseek-v3 inference 8 users 8k context no target int4 ok",
    "replicas": "llama 3.1 70b inference 64 users 8k context 20000 tok/s",
    "multi_node": "llama 3.1 405b inference 64 users 32k context no target",
    "frontier": "llama 3.1 70b pretrain 15T tokens 30 days",
}


def valid(message: dict[str, Any]) -> dict[str, Any]:
    errors = blockkit.message_problems(message)
    assert not errors, errors
    return message


def key_for(n: int | str) -> ConversationKey:
    return ConversationKey.thread("TINT0001", "CSALES01", f"17000000{n:0>2}.000100", "UREP0001")


def drive(d: Dialogue, key: ConversationKey, opening: str) -> list[Reply]:
    """Start, then answer with the first choice until a result."""
    replies = [d.start(key.format(), opening, owner="UREP0001")]
    while replies[-1].kind != "result" and len(replies) < 20:
        last = replies[-1]
        answer = last.choices[0].value if last.choices else "no"
        replies.append(d.handle(key.format(), answer, actor="UREP0001"))
    return replies


def quote(rec: Recommendation, key: ConversationKey, answers: list[AnswerView],
          w: Words = EN) -> dict[str, Any]:
    return quote_summary({"id": "1-0"}, requester="UCUST001", requester_team="TEXT0001",
                         internal=False, channel="CSHARED1", shared=True, key=key, rec=rec,
                         answers=answers, w=w)


def texts(message: dict[str, Any]) -> str:
    return json.dumps(message, ensure_ascii=False)


def field_texts(message: dict[str, Any]) -> list[str]:
    """The text of every two-column field of a message (the card's numbers)."""
    return [f["text"] for b in message.get("blocks") or [] for f in b.get("fields") or []]


@pytest.fixture
def dialogue() -> Dialogue:
    return Dialogue(MemoryStore())


def test_every_question_and_every_verdict_card(dialogue: Dialogue) -> None:
    states: set[str] = set()
    verdicts: set[str] = set()
    for n, opening in enumerate(["", *VERDICT_OPENINGS.values(),
                                 "mistral large 2 full fine-tune", "qwen3 8b lora"]):
        key = key_for(n)
        for reply in drive(dialogue, key, opening):
            message = valid(cards.render(reply, key))
            states.add(reply.state)
            if reply.kind != "result":
                continue
            assert reply.recommendation is not None
            verdicts.add(reply.recommendation.verdict)
            assert message["blocks"][0]["type"] == "header"
            valid(math_message(reply.recommendation, EN))
            valid(quote(reply.recommendation, key, reply.answers))
            # every change the card offers, and the question it reopens
            for nav in reply.nav:
                again = dialogue.handle(key.format(), nav.value, actor="UREP0001")
                valid(cards.render(again, key))
                states.add(again.state)
                dialogue.handle(key.format(), "back", actor="UREP0001")
    assert set(VERDICT_OPENINGS) <= verdicts
    assert {"model", "workload", "concurrency", "context", "gpu", "done"} <= states


def test_the_card_follows_the_typed_navigation_and_the_reply_language(
    dialogue: Dialogue,
) -> None:
    """Start over and Change come from the nav's kind and slot; every word is French."""
    reply = dialogue.start(KEY.format(), "nous voulons llama 3.1 70b en inférence pour 64 "
                           "utilisateurs, contexte 8k, sans objectif", owner="UREP0001")
    assert reply.kind == "result" and reply.language == "fr"
    message = valid(cards.render(reply, KEY))
    (row,) = [b for b in message["blocks"] if b["type"] == "actions"]
    by_id = {el["action_id"]: el for el in row["elements"]}
    restart = next(n for n in reply.nav if n.kind == "restart")
    assert by_id[ids.A_RESTART]["value"] == restart.value
    assert by_id[ids.A_RESTART]["text"]["text"] == FR.plain(msg("slack.button.start_over"))
    changes = [n for n in reply.nav if n.kind == "change"]
    assert [o["value"] for o in by_id[ids.A_CHANGE]["options"]] == [n.value for n in changes]
    assert [o["text"]["text"] for o in by_id[ids.A_CHANGE]["options"]] == [
        FR.plain(n.label) for n in changes]
    assert by_id[ids.A_MATH]["text"]["text"] == FR.plain(msg("slack.button.math"))
    assert by_id[ids.A_QUOTE]["text"]["text"] == FR.plain(msg("slack.button.quote"))
    text = "\n".join(b["text"]["text"] for b in message["blocks"]
                     if b["type"] == "section" and "text" in b)
    alternatives = text.split(f"*{FR.md(msg('slack.card.alternatives'))}*")[1]
    listed = alternatives.split(f"*{FR.md(msg('options.heading'))}*")[0].strip().split("\n")
    assert listed and all(line.startswith("• *") and "*\u00a0: " in line for line in listed)
    rec = reply.recommendation
    assert rec is not None
    assert message["blocks"][0]["text"]["text"] == FR.plain(
        msg("slack.card.header", verdict=msg("verdict.single_node", gpus=8), model=rec.model.name))
    # the GPU on the card is not offered for comparison
    assert rec.gpu not in [o["value"] for o in by_id[ids.A_COMPARE]["options"]]
    # what the bot assumed or defaulted is marked on the card
    defaulted = next(a for a in reply.answers if a.source == "default")
    assert FR.md(msg("slack.answers.default", label=defaulted.label,
                     shown=defaulted.shown)) in texts(message)
    # the math and the quote summary speak the conversation's language too
    math = valid(math_message(rec, FR))
    assert math["blocks"][0]["text"]["text"] == FR.plain(
        msg("slack.math.header", verdict=msg("verdict.single_node", gpus=8)))
    summary = valid(quote(rec, KEY, reply.answers, FR))
    assert FR.plain(msg("slack.quote.header")) == summary["blocks"][0]["text"]["text"]


def test_the_card_says_when_fewer_gpus_than_the_node_would_do(dialogue: Dialogue) -> None:
    """An 8B model for 20 users fits on a fraction of an 8-GPU node: the card says how few
    (the engine's ``numbers.min_gpus``, as the console and the brief say it), in the reply's
    language; a 405B model that needs every GPU of its nodes says nothing of the kind."""
    for n, (opening, w) in enumerate([
        ("llama 3.1 8b inference 20 users 8k context no target", EN),
        ("llama 3.1 8b en inférence pour 20 utilisateurs, contexte 8k, sans objectif", FR),
    ]):
        reply = drive(dialogue, key_for(40 + n), opening)[-1]
        rec = reply.recommendation
        assert reply.kind == "result" and rec is not None and reply.language == w.lang
        assert rec.numbers.min_gpus is not None and rec.numbers.min_gpus < rec.gpus_per_node
        shown = w.md(msg("slack.num.min_gpus", n=rec.numbers.min_gpus, gpus=rec.gpus_per_node))
        card = valid(cards.render(reply, key_for(40 + n)))
        assert shown in field_texts(card)
        assert f"{rec.numbers.min_gpus}" in shown and f"{rec.gpus_per_node}" in shown
        # the VRAM drawn is that of the GPUs it is sized on, and says so (not "one node")
        assert rec.numbers.memory is not None
        assert rec.numbers.memory.scope_gpus == rec.numbers.min_gpus
        assert w.md(msg("slack.vram.title", scope=msg(
            "slack.vram.gpus", n=rec.numbers.min_gpus))) in json.dumps(card, ensure_ascii=False)
    big = drive(dialogue, key_for(42), VERDICT_OPENINGS["multi_node"])[-1]
    assert big.recommendation is not None and big.recommendation.numbers.min_gpus in (
        None, big.recommendation.gpus_per_node)
    assert big.recommendation.numbers.memory is not None
    assert big.recommendation.numbers.memory.scope_gpus is None  # whole nodes
    label = EN.md(msg("slack.num.min_gpus", n=1, gpus=8)).split("\n")[0]
    assert not [f for f in field_texts(cards.render(big, key_for(42))) if label in f]


def test_the_vram_bar_is_the_engines_picture() -> None:
    """Per copy and in total, the figures of numbers.memory, never recomputed: the free space
    the bar states is the one step 1 quotes."""
    rec = recommend(SizingRequest(model="llama-3.1-70b", concurrency=64, context=8192))
    picture = rec.numbers.memory
    assert picture is not None
    s = picture.per_copy
    drawn = bar(picture, EN)
    cells = drawn.split("`")[1]
    assert len(cells) == 30
    assert cells.count("█") == round(s.weights_gb * 30 / s.vram_gb)
    assert cells.count("▓") == round(s.work_gb * 30 / s.vram_gb)
    assert cells.count("▒") == round(s.reserve_gb * 30 / s.vram_gb)
    assert EN.md(msg("slack.vram.free", free=s.free_gb, vram=s.vram_gb)) in drawn
    assert size_gb(s.free_gb) in drawn and size_gb(s.weights_gb) in drawn
    if picture.copies > 1:
        t = picture.total
        assert EN.md(msg("slack.vram.total", copies=picture.copies, used=t.used_gb,
                         vram=t.vram_gb, free=t.free_share)) in drawn
    # the same free share as step 1 and the numbers
    assert rec.numbers.free_share == pytest.approx(s.free_share, abs=1e-3)


def test_a_plan_that_does_not_fit_marks_where_the_vram_ends() -> None:
    rec = recommend(SizingRequest(model="llama-3.1-405b", concurrency=64, context=32768),
                    alternatives=False)
    picture = rec.numbers.memory
    assert picture is not None
    over = picture.per_copy.model_copy(update={"vram_gb": picture.per_copy.used_gb / 2})
    drawn = bar(picture.model_copy(update={"per_copy": over, "copies": 1}), EN)
    assert "┃" in drawn and "░" not in drawn
    assert EN.md(msg("slack.vram.needs", used=over.used_gb, vram=over.vram_gb)) in drawn


@pytest.mark.parametrize("kw", [
    {"model": "llama-3.1-70b", "workload": "full-finetune"},
    {"model": "llama-3.1-70b", "workload": "lora"},
    {"model": "llama-3.1-405b", "concurrency": 64, "context": 32768},
    {"model": "llama-3.1-70b", "concurrency": 64, "context": 8192},
])
def test_the_vram_bar_of_a_plan_that_fits_never_says_it_overflows(kw: dict[str, Any]) -> None:
    rec = recommend(SizingRequest(**kw), alternatives=False)
    assert rec.numbers.memory is not None
    drawn = bar(rec.numbers.memory, EN)
    assert "┃" not in drawn and "░" in drawn


def test_errors_ended_and_stale(dialogue: Dialogue) -> None:
    dialogue.start(KEY.format(), "llama 3.1 70b inference", owner="UREP0001")
    bad = dialogue.handle(KEY.format(), "<!channel> lots & lots", actor="UREP0001")
    assert bad.error is not None
    message = valid(cards.render(bad, KEY))
    assert "<!channel>" not in texts(message)
    stale = dialogue.handle(KEY.format(), "64", version=1, actor="UREP0001")
    valid(cards.render(stale, KEY))
    cancelled = dialogue.handle(KEY.format(), "cancel", actor="UREP0001")
    assert cancelled.kind == "ended"
    ended = valid(cards.render(cancelled, KEY))
    assert any(el["action_id"] in (ids.A_START, ids.A_RESTART) or el["action_id"]
               .startswith(ids.A_ANSWER) for b in ended["blocks"] if b["type"] == "actions"
               for el in b["elements"])
    why = dialogue.handle(KEY.format(), "64 <users>", actor="UREP0001")
    assert why.kind == "ended" and why.error is not None
    assert EN.md(why.error) in texts(valid(cards.render(why, KEY)))
    missing = key_for(99)
    valid(cards.render(dialogue.handle(missing.format(), "64", actor="UREP0001"), missing))
    for note in ("slack.stale", "slack.conflict", "slack.out_of_date", "slack.refused"):
        valid(note_message(EN.md(msg(note)), EN, start=("CSALES01", "1700000001.000100")))
    valid(help_message(EN))
    valid(help_message(FR))
    valid(start_message("UREP0001", FR))
    valid(root_message("UREP0001", EN))


def test_home_view() -> None:
    recent = [{"key": KEY.format(), "model": text("Llama 3.1 70B <!here>").model_dump(),
               "workload": "inference", "verdict": v, "language": "fr",
               "headline": text("h" * 5000).model_dump(), "finished_at": 1764540000.5}
              for v in VERDICT_OPENINGS]
    for view in (home_view(recent, EN), home_view([], EN), home_view([], FR, store_ok=False),
                 home_view(recent * 30, EN), home_view([], EN, problem="x" * 5000)):
        assert not blockkit.view_problems(view), blockkit.view_problems(view)
        assert "<!here>" not in json.dumps(view)
    # each recent sizing in its own language
    view = home_view(recent[:1], EN)
    assert FR.md(msg("verdict.single_node", gpus=8)) in texts(view)


def _huge_recommendation() -> Recommendation:
    rec = recommend(SizingRequest(model="llama-3.1-405b", concurrency=64, context=32768))
    long = text("x<&>" * 2000)
    data = rec.model_dump()
    data["headline"] = long.model_dump()
    data["caveats"] = [long.model_dump()] * 40
    data["assumptions"] = [long.model_dump()] * 40
    data["math"] = [long.model_dump()] * 200
    data["model"]["name"] = "M" * 400
    data["questions"] = [{**q, "because": long.model_dump(), "question": long.model_dump()}
                         for q in data["questions"]]
    data["alternatives"] = [{**a, "label": long.model_dump(), "summary": long.model_dump()}
                            for a in data["alternatives"]]
    return Recommendation.model_validate(data)


def test_oversized_content_is_clipped_within_limits() -> None:
    rec = _huge_recommendation()
    many = [Choice(value=f"v{i}", label=text("L" * 200)) for i in range(250)]
    long_values = [Choice(value="V" * 100 + str(i), label=text(f"c{i}")) for i in range(60)]
    nav = [Nav(kind="change", slot=f"s{i}", label=text(f"Change {i}"), value=f"change s{i}")
           for i in range(40)] + [Nav(kind="restart", label=text("R"), value="restart")]
    answers = [AnswerView(slot=f"k{i}", label=text("A" * 100),
                          shown=text("<!channel>" * 300), source="assumed") for i in range(30)]
    long = text("q" * 9000)
    for reply in (
        Reply(kind="result", conversation_id="c", version=3, state="done", text=long,
              recommendation=rec, nav=nav, answers=answers),
        Reply(kind="question", conversation_id="c", version=3, state="model", text=long,
              help=long, notices=[Notice(kind="info", text=text("n" * 4000))] * 10,
              error=text("e" * 5000), choices=many, nav=nav, answers=answers),
        Reply(kind="question", conversation_id="c", version=3, state="model", text=text("q"),
              choices=long_values),
    ):
        message = valid(cards.render(reply, KEY))
        assert "<!channel>" not in texts(message)
    valid(math_message(rec, EN))
    valid(quote_summary({"id": "1"}, requester="U1", requester_team="T" * 500, internal=True,
                        channel="C1", shared=False, key=KEY, rec=rec, answers=answers, w=EN))


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
    for n, mid in enumerate(catalog().models):
        key = key_for(n)
        reply = d.start(key.format(), f"{mid} {workload}", owner="UREP0001")
        for _ in range(12):
            if reply.kind == "result" or not reply.choices:
                break
            reply = d.handle(key.format(), reply.choices[-1].value, actor="UREP0001")
        valid(cards.render(reply, key))
        if reply.recommendation is not None:
            valid(math_message(reply.recommendation, EN))
            valid(quote(reply.recommendation, key, reply.answers))


def test_block_ids_round_trip_and_refuse_forgeries() -> None:
    bid = ids.block_id(7, KEY, 2)
    assert ids.parse_block_id(bid) == (KEY, 7)
    assert len(bid) <= parts.MAX_ID
    for forged in (None, "", "b", "gs1|²|0|" + KEY.format(), "gs1|-1|0|" + KEY.format(),
                   "gs1|7|0|TINT0001:CSALES01:notats:UREP0001", "gs1|7|0|a:b:c:d",
                   "gs1|7|0|" + KEY.format() + ":extra", "gs2|7|0|" + KEY.format()):
        assert ids.parse_block_id(forged) is None, forged
    assert ids.parse_start_value(ids.start_value("CSALES01", "1700000001.000100")) == (
        "CSALES01", "1700000001.000100")
    for forged in ("", "{", "[1]", '{"c": "#general", "t": "1.2"}', '{"c": "C1", "t": "x"}'):
        assert ids.parse_start_value(forged) is None


def test_typed_text_is_inert_in_every_message() -> None:
    """Broadcasts, mentions, links and bidi controls a person typed reach Slack as text."""
    hostile = "<!channel> <@U0000123|bob> <https://evil.example|safe> \u202eevil\u202c & ok"
    said = EN.md(msg("slack.slack_failed", what=text(hostile)))
    assert "<!channel>" not in said and "<@U0000123" not in said and "<https:" not in said
    assert "\u202e" not in said and "\u202c" not in said
    assert "&lt;!channel&gt;" in said and "&amp; ok" in said
    assert "\u202e" not in EN.plain(text(hostile))
    # a mention the bot makes survives; a placeholder a person types cannot forge one
    forged = "\ufdd00\ufdd1"
    note = EN.md(msg("slack.not_owner"), owner=EN.user("UREP0001"))
    assert "<@UREP0001>" in note
    assert EN.md(text(forged)) == "0"  # the placeholder marks are dropped from typed text
    assert EN.user("not an id") == EN.md(msg("slack.someone"))
    # clipping never leaves half an entity
    clipped = parts.section(EN.md(text("&" * 4000)))["text"]["text"]
    assert len(clipped) <= parts.MAX_SECTION_TEXT and not re.search(r"&[a-z]{0,3}…$", clipped)


def test_home_view_never_cuts_an_entity_in_half() -> None:
    for n in range(190, 201):
        item = {"model": text("M" * n + "&<>" * 5).model_dump(), "workload": "w" * 45 + "<&>",
                "headline": text("h" * 390 + "&" * 20).model_dump(), "verdict": "single_node",
                "finished_at": 1700000000}
        view = home_view([item], EN)
        assert not blockkit.view_problems(view)
        assert not re.search(r"&[a-z]{0,3}…", texts(view))


def test_the_check_catches_what_slack_refuses() -> None:
    assert blockkit.message_problems({"text": "", "blocks": []})
    too_many = {"text": "t", "blocks": [parts.divider()] * 51}
    assert any("51 > 50" in e for e in blockkit.message_problems(too_many))
    long_header: dict[str, Any] = {"text": "t", "blocks": [parts.header("x")]}
    long_header["blocks"][0]["text"]["text"] = "x" * 151
    assert blockkit.message_problems(long_header)
    empty = {"text": "t", "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": ""}}]}
    assert blockkit.message_problems(empty)
    dup = {"text": "t", "blocks": [parts.actions([parts.button("a", "same"),
                                                  parts.button("b", "same")])]}
    assert any("not unique" in e for e in blockkit.message_problems(dup))
    huge = {"text": "t", "blocks": [parts.section("x" * 2900)] * 5}
    assert any("characters of text" in e for e in blockkit.message_problems(huge))
    assert not blockkit.message_problems(
        {"text": "t", "blocks": blockkit.fit([parts.section("x" * 2900) for _ in range(5)])})


@pytest.mark.parametrize("verdict, w", [("single_node", EN), ("replicas", EN),
                                        ("multi_node", FR)])
def test_the_throughput_says_whose_it_is(dialogue: Dialogue, verdict: str, w: Words) -> None:
    """A card's tokens/s is the deployment's when it is one copy (a node holding DP=4 copies
    of the model is not 'one copy'), and one replica's beside all replicas' when replicated,
    on the card, the console and the brief alike."""
    from bot import console
    from bot.brief.build import build_brief

    opening = VERDICT_OPENINGS[verdict]
    if w is FR:
        opening = "llama 3.1 405b en inférence pour 64 utilisateurs, contexte 32k, sans objectif"
    reply = drive(dialogue, key_for(f"5{len(verdict)}"), opening)[-1]
    rec = reply.recommendation
    assert rec is not None and rec.verdict == verdict and reply.language == w.lang
    own = "tokens_copy" if rec.replicas else "tokens"
    other = "tokens" if rec.replicas else "tokens_copy"
    fields = [f.split("\n")[0] for f in field_texts(cards.render(reply, key_for(50)))]
    assert w.md(msg(f"slack.num.{own}", rate=0.0)).split("\n")[0] in fields
    assert w.md(msg(f"slack.num.{other}", rate=0.0)).split("\n")[0] not in fields
    row = "throughput_replica" if rec.replicas else "throughput"
    assert f"  {w.plain(msg(f'console.row.{row}'))}  " in "\n".join(console.card(reply))
    brief = build_brief(rec, reply.answers, lang=w.lang, purpose="export",
                        audience="internal")  # the figures table is the appendix's
    (figures,) = [s for s in brief.sections if s is not None and s.id == "figures"]
    assert msg(f"brief.num.{own}") in [r.label for r in figures.rows]
