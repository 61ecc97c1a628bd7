"""The quote brief (bot/brief/): every number the engine gave, in both languages and both
formats; the customer's copy without the vendor's details; typed text inert in Markdown; the
PDF readable (pypdf), set in a font that draws French, with charts when there are any."""

from __future__ import annotations

import io
import logging
from collections.abc import Callable, Sequence

import pytest
from PIL import Image
from pypdf import PdfReader

from bot.brief import Contact, Requester, build_brief, render_markdown
from bot.brief.build import FIGURES
from bot.brief.content import Brief, Chart
from bot.brief.fonts import coverage, drawable, font_files, fonts_dir
from bot.brief.pdf import render_pdf
from bot.wording import catalog
from dialogue import Dialogue, MemoryStore, Reply
from engine import units
from engine.result import Numbers
from engine.units import Lang
from engine.wording import msg
from tests.bot.quoteflow import pdf_text

OPENINGS = {
    "single_node": "llama 3.1 70b inference 64 users 8k context no target",
    "replicas": "llama 3.1 70b inference 64 users 8k context 20000 tok/s",
    "multi_node": "llama 3.1 405b inference 64 users 32k context no target",
    "frontier": "llama 3.1 70b pretrain 15T tokens 30 days",
    "fr": "nous voulons llama 3.1 70b pour 64 utilisateurs, contexte 8k, sans objectif",
}
#: How a person would write each figure, straight from engine/units.py (not the catalog).
FORMAT: dict[str, Callable[[float, Lang], str]] = {
    "vram_total_gb": units.size_gb, "vram_nominal_gb": units.size_gb,
    "weights_gb": units.size_gb, "kv_cache_gb": units.size_gb, "decode_step_ms": units.milliseconds,
    "tp_across_nodes_efficiency": units.pct,
    "training_state_gb": units.size_gb, "activations_gb": units.size_gb,
    "reserve_gb": units.size_gb, "free_share": units.pct, "weights_share": units.pct,
    "max_concurrency": units.count, "kv_bytes_per_token": units.count,
    "node_tokens_per_s": units.rate, "total_tokens_per_s": units.rate,
    "per_user_tokens_per_s": units.rate, "requests_per_s": units.short,
    "ttft_s": units.seconds, "tpot_ms": units.milliseconds, "scaling_efficiency": units.pct,
    "mfu": units.pct, "gpu_months": units.short, "days": units.days,
    "gpus_needed": units.count, "min_gpus": units.count,
}
CONTACT = Contact(name="Zoë « Œ » O’Brien", email="zoe@example.fr", company="ACME | Co",
                  notes="# Not a title\n[click](http://evil.example) <b>bold</b> `code` 🧪 漢",
                  budget="over_1m", copy_requested=True)
FACTS = Requester(user="UCUST001", team="TEXT0001", internal=False, owner="UCUST001",
                  channel="CSHARED1", shared=True, key="TINT0001:CSHARED1:1.2:UCUST001",
                  audit="1700000000000-0")


def _result(opening: str) -> Reply:
    d = Dialogue(MemoryStore())
    key = "TINT0001:CSALES01:1700000001.000100:UREP0001"
    reply = d.start(key, opening, owner="UREP0001")
    for _ in range(20):
        if reply.kind == "result":
            return reply
        reply = d.handle(key, reply.choices[0].value if reply.choices else "no",
                         actor="UREP0001")
    raise AssertionError("no result")


@pytest.fixture(scope="module")
def results() -> dict[str, Reply]:
    return {name: _result(opening) for name, opening in OPENINGS.items()}


def _brief(reply: Reply, *, facts: Requester | None = FACTS,
           charts: Sequence[Chart] = ()) -> Brief:
    assert reply.recommendation is not None
    return build_brief(reply.recommendation, reply.answers, lang=reply.language,
                       purpose="quote", contact=CONTACT, requester=facts, at=1.8e9,
                       charts=charts)


def test_every_figure_the_engine_gave_is_in_both_formats(results: dict[str, Reply]) -> None:
    for name, reply in results.items():
        rec = reply.recommendation
        assert rec is not None
        brief = _brief(reply)
        markdown, text = render_markdown(brief), pdf_text(render_pdf(brief))
        figures = rec.numbers.model_dump(exclude_none=True, exclude={"memory"})
        assert figures, name
        for field, value in figures.items():
            assert field in FORMAT, f"a new figure, {field}: show it (bot/brief/build.py)"
            shown = FORMAT[field](float(value), reply.language)
            if field == "total_tokens_per_s" and value == rec.numbers.node_tokens_per_s:
                continue  # one copy: the same figure, shown once
            assert shown in markdown, (name, field, shown)
            assert shown in text, (name, field, shown)
        if rec.numbers.memory is not None:
            used = units.size_gb(rec.numbers.memory.per_copy.weights_gb, reply.language)
            assert used in markdown and used in text
        # the engine's own words: every step, caveat, assumption, alternative and formula
        say = catalog().render
        for m in [*rec.caveats, *rec.assumptions, *(a.label for a in rec.alternatives),
                  *(s.because for s in rec.questions), *rec.math]:
            assert say(m, reply.language) in markdown, (name, m.id)
        for a in reply.answers:
            assert say(a.shown, reply.language) in markdown


def test_the_brief_knows_every_figure_the_engine_defines() -> None:
    shown = {field for field, _, _ in FIGURES} | {"vram_total_gb", "weights_gb", "memory",
                                                    "weights_share"}
    assert set(Numbers.model_fields) <= shown
    assert set(Numbers.model_fields) - {"memory"} <= set(FORMAT)


def test_the_customer_copy_has_nothing_of_the_vendors_side(results: dict[str, Reply]) -> None:
    reply = results["single_node"]
    internal, customer = _brief(reply), _brief(reply, facts=None)
    assert internal.audience == "internal" and customer.audience == "customer"
    assert internal.section("internal") is not None and customer.section("internal") is None
    for rendered in (render_markdown(customer), pdf_text(render_pdf(customer))):
        for secret in (FACTS.team, FACTS.key, FACTS.audit, FACTS.channel, "TINT0001"):
            assert str(secret) not in rendered
        assert "zoe@example.fr" in rendered  # their own details are theirs to see
    rendered = render_markdown(internal)
    assert all(str(v) in rendered for v in (FACTS.team, FACTS.audit, FACTS.channel))


def test_typed_text_is_inert_markdown(results: dict[str, Reply]) -> None:
    markdown = render_markdown(_brief(results["single_node"]))
    contact = markdown[markdown.index("## Contact"):]
    assert "\\# Not a title" in contact and "\n# Not a title" not in contact
    assert "\\[click\\](http://evil.example)" in contact
    assert "\\<b\\>bold\\</b\\>" in contact and "\\`code\\`" in contact
    assert "ACME \\| Co" in contact  # a typed pipe does not split the table's row
    assert all(line.count(" | ") <= 2 for line in contact.splitlines()
               if line.startswith("| "))
    # the formulas are in one fenced block, read as written
    math = markdown[markdown.index("```"):]
    assert "P_emb" in math and "\\_" not in math.split("```")[1]


def test_french_brief_in_french_with_french_typography(results: dict[str, Reply]) -> None:
    reply = results["fr"]
    assert reply.language == "fr"
    brief = _brief(reply)
    data = render_pdf(brief)
    text = pdf_text(data)
    for ident in ("brief.section.figures", "brief.section.steps", "brief.section.math",
                  "brief.section.contact", "brief.contact.budget"):
        assert catalog().render(msg(ident), "fr") in text
    assert "œ" in text and "Œ" in text and "\u202f" in text  # nœud, the typed Œ, 1 000 000 €
    assert "Plus de 1\u202f000\u202f000\u202f€" in text
    assert catalog().render(msg("brief.section.figures"), "en") not in text
    reader = PdfReader(io.BytesIO(data))
    assert reader.metadata is not None and reader.metadata.title == catalog().render(
        brief.title, "fr")


def test_the_font_draws_french_and_what_it_cannot_draw_is_replaced(
    results: dict[str, Reply], caplog: pytest.LogCaptureFixture
) -> None:
    files = font_files()
    assert files.regular.is_file() and files.bold.is_file()
    # matplotlib's bundled DejaVu Sans (the charts' font too), with its licence
    assert files.regular.parent == fonts_dir() and "mpl-data" in files.regular.parts
    assert "Bitstream Vera" in files.license.read_text(encoding="utf-8")
    have = coverage()
    for ch in "éèêàçùœŒ«»€’\u202f\u00a0—…×█▓▒░":
        assert ord(ch) in have, hex(ord(ch))
    assert drawable("nœud 🧪\t漢") == "nœud \ufffd \ufffd"
    caplog.set_level(logging.DEBUG)
    text = pdf_text(render_pdf(_brief(results["single_node"])))
    assert "\ufffd" in text and "🧪" not in text
    assert not [r for r in caplog.records if "🧪" in r.getMessage()
                or "missing" in r.getMessage().lower()]


def test_charts_are_embedded_when_present(results: dict[str, Reply]) -> None:
    png = io.BytesIO()
    Image.new("RGB", (120, 60), (30, 120, 200)).save(png, format="PNG")
    chart = Chart(png=png.getvalue(), caption=msg("text", text="VRAM per GPU"), width_mm=80)
    brief = _brief(results["single_node"], charts=[chart])
    assert brief.section("charts") is not None
    data = render_pdf(brief)
    reader = PdfReader(io.BytesIO(data))
    assert sum(len(page.images) for page in reader.pages) == 1
    assert "VRAM per GPU" in pdf_text(data)
    assert "VRAM per GPU" in render_markdown(brief)
    plain = render_pdf(_brief(results["single_node"]))
    assert sum(len(p.images) for p in PdfReader(io.BytesIO(plain)).pages) == 0


def test_work_sized_on_fewer_gpus_says_so_in_the_brief() -> None:
    """Llama 3.1 70B for 64 users on H200 takes a few of the node's 8 GPUs: the VRAM quoted
    is theirs, and the brief says so rather than 'VRAM of 1 node'."""
    reply = _result("llama 3.1 70b inference 64 users 8k context no target on h200")
    rec = reply.recommendation
    assert rec is not None and rec.numbers.memory is not None
    gpus = rec.numbers.memory.scope_gpus
    assert gpus is not None and gpus < 8
    markdown = render_markdown(_brief(reply))
    say = catalog().render
    assert say(msg("brief.num.vram_gpus", gpus=gpus), "en") in markdown
    assert say(msg("brief.vram.one_copy_gpus", gpus=gpus), "en") in markdown
    assert say(msg("brief.num.vram", nodes=1), "en") not in markdown
