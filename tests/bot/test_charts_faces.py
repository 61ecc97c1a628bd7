"""The charts in the other faces (issue #12): drawn once per result and language and kept
(``bot/charts.py``); the quote brief embeds the very images the thread shows, and goes out
without them when they cannot be drawn; the console's card action writes them and prints
their paths."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from pypdf import PdfReader

from bot import charts as bot_charts
from bot import console
from bot.brief import Requester, brief_charts, build_brief, render_markdown
from bot.brief.pdf import render_pdf
from bot.wording import say
from dialogue import Dialogue, MemoryStore, Reply
from engine.charts import render
from engine.decision import recommend
from engine.wording import msg
from tests.bot.harness import INTERNAL_TEAM, QUOTES, REP, SALES, BotServer
from tests.bot.quoteflow import open_form, submit
from tests.bot.test_quote import GOOD
from tests.bot.threads import finished_card
from tests.fakeslack import FakeSlack

KEY = "TINT0001:CSALES01:1700000001.000100:UREP0001"
FACTS = Requester(user=REP, team=INTERNAL_TEAM, internal=True, owner=REP, channel=SALES,
                  shared=False, key=KEY)


@pytest.fixture(autouse=True)
def _fresh_charts() -> None:
    with bot_charts._LOCK:
        bot_charts._KEPT.clear()


def _result(opening: str, key: str = KEY) -> Reply:
    d = Dialogue(MemoryStore())
    reply = d.start(key, opening, owner=REP)
    for _ in range(20):
        if reply.kind == "result":
            return reply
        reply = d.handle(key, reply.choices[0].value if reply.choices else "no", actor=REP)
    raise AssertionError("no result")


def _images(pdf: bytes) -> int:
    return sum(len(page.images) for page in PdfReader(io.BytesIO(pdf)).pages)


def test_charts_are_the_engines_for_the_cards_request_and_drawn_once() -> None:
    reply = _result("nous voulons llama 3.1 70b pour 64 utilisateurs, contexte 8k, sans objectif")
    assert reply.language == "fr" and reply.recommendation is not None
    req = bot_charts.request_of(reply)
    assert recommend(req) == reply.recommendation  # the card's own answer
    drawn = bot_charts.charts_of(reply)
    assert [i.png for i in drawn.images] == [i.png for i in render(req, lang="fr")]
    assert bot_charts.charts_of(reply) is drawn  # kept: not drawn again
    assert bot_charts.charts_of(reply, "en") is not drawn  # another language, other labels
    names = [name for name, _ in drawn.files()]
    assert names[0].endswith(f"-v{reply.version}-load.png") and names[0].startswith(
        "llama-3.1-70b-inference-")


@pytest.mark.parametrize("opening", [
    "mistral large 2 inference 200 users 32k context on h200",  # 4-bit never asked
    "mistral large 2 inference 200 users 32k context on h200 no int4",  # 4-bit refused
])
def test_the_charts_request_weighs_4_bit_weights_as_the_card_did(opening: str) -> None:
    reply = _result(opening)
    assert recommend(bot_charts.request_of(reply)) == reply.recommendation


def test_a_result_whose_request_no_longer_gives_it_draws_nothing() -> None:
    reply = _result("llama 3.1 70b inference 64 users 8k context no target")
    other = _result("llama 3.1 405b inference 64 users 32k context no target", key="other")
    mixed = reply.model_copy(update={"recommendation": other.recommendation})
    with pytest.raises(bot_charts.ChartsFailed):
        bot_charts.charts_of(mixed)


def test_the_brief_embeds_the_same_images_and_survives_without_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reply = _result("llama 3.1 70b full fine-tune 2B tokens 7 days")
    rec = reply.recommendation
    assert rec is not None
    charts = brief_charts(reply, "en")
    assert [c.png for c in charts] == [i.png for i in bot_charts.charts_of(reply).images]
    assert [c.caption for c in charts] == [msg("chart.caption.memory"),
                                           msg("chart.caption.training")]
    brief = build_brief(rec, reply.answers, lang="en", purpose="export", requester=FACTS,
                        charts=charts)
    section, curve = brief.section("charts"), brief.section("curve")
    assert section is not None and [c.kind for c in section.charts] == ["memory"]
    assert curve is not None and [c.kind for c in curve.charts] == ["training"]  # page one
    assert _images(render_pdf(brief)) == 2
    assert say(msg("chart.caption.training")) in render_markdown(brief)
    # drawing fails: the brief goes out all the same, without the charts
    with bot_charts._LOCK:
        bot_charts._KEPT.clear()
    import engine.charts

    def broken(*args: object, **kwargs: object) -> object:
        raise RuntimeError("a drawing defect")

    monkeypatch.setattr(engine.charts, "render", broken)
    assert brief_charts(reply, "en") == []
    bare = build_brief(rec, reply.answers, lang="en", purpose="export", requester=FACTS,
                       charts=brief_charts(reply, "en"))
    assert bare.section("charts") is None and bare.section("curve") is None
    assert _images(render_pdf(bare)) == 0


def test_the_quote_brief_sales_receives_embeds_the_charts(bot: BotServer, fake: FakeSlack) -> None:
    root, q_ts, card = finished_card(bot, fake)
    view = open_form(bot, card, user=REP, ts=q_ts, root=root, channel=SALES)
    status, _ = submit(bot, view, GOOD, user=REP)
    assert status == 200
    fake.wait_for("files.completeUploadExternal", 2, timeout=30)  # sales, the copy
    pdfs = [f for f in fake.files.shared() if f["filename"].endswith(".pdf")]
    assert {f["channel"] for f in pdfs} >= {QUOTES}
    for f in pdfs:  # the vendor's brief and the requester's copy: the load curve, the memory
        assert _images(fake.files.content(f["id"])) == 2


def test_the_console_writes_the_charts_and_prints_their_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(bot_charts.CHARTS_DIR_ENV, str(tmp_path / "out"))
    out = io.StringIO()
    rc = console.main(io.StringIO("4\n"), out, ["llama", "3.1", "8b", "inference", "64",
                                               "users", "8k", "no", "target"])
    assert rc == 0
    text = out.getvalue()
    assert say(msg("console.action.charts")) in text and say(msg("console.charts.written")) in text
    written = sorted((tmp_path / "out").glob("*.png"))
    assert [p.name.rsplit("-", 1)[-1] for p in written] == ["load.png", "memory.png"]
    for p in written:
        assert str(p) in text and p.read_bytes().startswith(b"\x89PNG")
    # a folder that cannot be written is said, in the conversation's language
    monkeypatch.setenv(bot_charts.CHARTS_DIR_ENV, "/proc/no/such")
    out = io.StringIO()
    console.main(io.StringIO("4\n"), out, ["inférence", "llama", "3.1", "8b", "pour", "64",
                                          "utilisateurs", "8k", "sans", "objectif"])
    assert "/proc/no/such" in out.getvalue() and "n'ont pas pu être écrits" in out.getvalue()
