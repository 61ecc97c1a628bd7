"""The brief a rep forwards unedited: ``python -m bot brief`` in both languages and copies.

Page one holds the answer, the speed each user sees, the first token and the options side
by side; the customer's copy carries none of the engineering behind them (how the kernels
were measured, bytes per token, the formulas, catalog ids), which only the internal copy's
appendix holds."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest
from pypdf import PdfReader

from bot.brief.command import main, sized
from bot.options import options_table
from bot.wording import catalog
from engine import units
from engine.catalog import catalog as engine_catalog
from engine.result import Recommendation
from engine.units import Lang
from engine.wording import Message, msg

OPENINGS: dict[Lang, str] = {
    "en": "llama 3.1 70b inference for 200 employees, 8k context",
    "fr": "nous voulons servir Llama 3.3 70B à 50 utilisateurs, contexte 8k",
}


def _say(m: Message, lang: Lang) -> str:
    return catalog().render(m, lang)


def _fold(words: str) -> str:
    return re.sub(r"[ \t\n\u00a0]+", " ", words)


def _run(*args: str) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        rc = main(list(args))
    return rc, err.getvalue()


def _engineering(rec: Recommendation, lang: Lang) -> list[str]:
    """What a customer's copy must not carry, as each language writes it."""
    terms = ["aiconfigurator", "TensorRT-LLM",
             _say(msg("brief.num.decode_step"), lang), _say(msg("brief.num.kv_per_token"), lang),
             _say(msg("brief.section.math"), lang), _say(msg("brief.section.appendix"), lang)]
    terms += [lk for lk in engine_catalog().links]  # raw ids: ib-200, eth-25, pcie5...
    terms += [_say(m, lang) for m in rec.math]
    terms += [_say(m, lang) for m in rec.assumptions
              if m.id in ("assumption.estimated", "assumption.measured",
                          "assumption.serving_model", "assumption.reserve")]
    return [t for t in terms if t]


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[Lang, str, str], Path]:
    out = tmp_path_factory.mktemp("briefs")
    files = {}
    for lang, opening in OPENINGS.items():
        for copy in ("customer", "internal"):
            for fmt in ("pdf", "md"):
                path = out / f"{lang}-{copy}.{fmt}"
                rc, err = _run(opening, "--lang", lang, "--copy", copy, "--format", fmt,
                               "-o", str(path))
                assert rc == 0, err
                files[(lang, copy, fmt)] = path
    return files


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_customer_copy_carries_no_engineering_detail(
        made: dict[tuple[Lang, str, str], Path], lang: Lang) -> None:
    rec = sized(OPENINGS[lang], lang).recommendation
    assert rec is not None
    terms = _engineering(rec, lang)
    assert any("aiconfigurator" in _say(m, lang) for m in rec.assumptions)  # there to leave out
    pdf = PdfReader(made[(lang, "customer", "pdf")])
    customer = [_fold(made[(lang, "customer", "md")].read_text(encoding="utf-8")),
                _fold("\n".join(p.extract_text() for p in pdf.pages))]
    for words in customer:
        for term in terms:
            assert _fold(term) not in words, term
    # the internal copy keeps it all, in its appendix
    internal = _fold(made[(lang, "internal", "md")].read_text(encoding="utf-8"))
    for term in (_say(msg("brief.section.math"), lang), "aiconfigurator",
                 _say(msg("brief.num.kv_per_token"), lang)):
        assert term in internal, term
    # with where each board power of the options table comes from
    for gpu in {rec.gpu, *(a.gpu for a in rec.alternatives)}:
        assert _fold(engine_catalog().gpus[gpu].board_power_source) in internal, gpu


@pytest.mark.parametrize(("lang", "copy"), [("en", "customer"), ("fr", "customer"),
                                            ("en", "internal"), ("fr", "internal")])
def test_page_one_holds_the_answer_speeds_and_options(
        made: dict[tuple[Lang, str, str], Path], lang: Lang, copy: str) -> None:
    rec = sized(OPENINGS[lang], lang).recommendation
    assert rec is not None and rec.numbers.per_user_tokens_per_s and rec.numbers.ttft_s
    reader = PdfReader(made[(lang, copy, "pdf")])
    one = _fold(reader.pages[0].extract_text())
    assert _fold(_say(rec.headline, lang)) in one
    assert units.rate(rec.numbers.per_user_tokens_per_s, lang) in one
    assert units.seconds(rec.numbers.ttft_s, lang) in one
    table = options_table(rec)
    assert _say(msg("options.heading"), lang) in one
    squashed = re.sub(r"\s+", "", one)  # a heading may wrap in its cell
    for column in table.columns:
        assert re.sub(r"\s+", "", _say(column, lang)) in squashed
    for row in table.rows:  # every option's speed per user and its power
        assert _fold(_say(row[3], lang)) in one and _fold(_say(row[-2], lang)) in one
    assert len(reader.pages[0].images) == 1  # the load curve
    # what was assumed is on page one too
    assert _say(msg("brief.section.assumed"), lang) in one
    assert _say(msg("brief.source.assumed"), lang) in one


def test_a_sentence_that_leaves_a_question_without_default_is_refused(tmp_path: Path) -> None:
    rc, err = _run("we need some GPUs", "-o", str(tmp_path / "b.pdf"))
    assert rc == 2 and "Traceback" not in err and err.startswith("error:")
    assert not (tmp_path / "b.pdf").exists()


def test_a_training_clusters_customer_copy_carries_no_engineering_detail(tmp_path: Path) -> None:
    opening = "llama 3.1 70b full fine-tune on 2B tokens in 10 days"
    rec = sized(opening, "en").recommendation
    assert rec is not None and rec.nodes > 1 and rec.interconnect is not None
    terms = [*_engineering(rec, "en"),
             *(_say(m, "en") for m in rec.assumptions if m.id in (
                 "assumption.train_shape", "assumption.adam", "assumption.fabric_documented"))]
    for fmt in ("pdf", "md"):
        path = tmp_path / f"c.{fmt}"
        rc, err = _run(opening, "--format", fmt, "-o", str(path))
        assert rc == 0, err
        words = (_fold(path.read_text(encoding="utf-8")) if fmt == "md" else
                 _fold("\n".join(p.extract_text() for p in PdfReader(path).pages)))
        for term in terms:
            assert _fold(term) not in words, term
        if fmt == "pdf":  # page one: the run's days and the options, the training curve
            one = _fold(PdfReader(path).pages[0].extract_text())
            assert units.days(rec.numbers.days or 0, "en") in one
            assert _say(msg("options.heading"), "en") in one
