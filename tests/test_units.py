"""What "8k" means and how "1.41 TB" is written: one answer for every face (engine/units.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import units
from engine.units import Kind, UnitError


@pytest.mark.parametrize(("text", "kind", "value"), [
    ("6k", Kind.CONTEXT, 6144), ("8k", Kind.CONTEXT, 8192), ("128k", Kind.CONTEXT, 131072),
    ("1M", Kind.CONTEXT, 1048576), ("128000", Kind.CONTEXT, 128000),
    ("128 000", Kind.CONTEXT, 128000), ("6k", Kind.RATE, 6000), ("6k", Kind.COUNT, 6000),
    ("1.5T", Kind.TOKENS, 1.5e12), ("1,5T", Kind.TOKENS, 1.5e12), ("1B", Kind.TOKENS, 1e9),
    ("1 Md", Kind.TOKENS, 1e9), ("500 million", Kind.TOKENS, 5e8), ("70b", Kind.PARAMS, 70e9),
    ("500 millions", Kind.TOKENS, 5e8), ("5e8", Kind.TOKENS, 5e8),
    ("1.5E12", Kind.TOKENS, 1.5e12),
])
def test_one_meaning_per_kind(text: str, kind: Kind, value: float) -> None:
    assert units.parse(text, kind) == value


def test_french_billion_is_a_thousand_times_the_english_one() -> None:
    assert units.parse("1 billion", Kind.TOKENS, "en") == 1e9
    assert units.parse("1 billion", Kind.TOKENS, "fr") == 1e12


@pytest.mark.parametrize("text", ["-64", "−8k", "abc", "", "8 kilos", "nan"])
def test_refusals_say_what_was_expected(text: str) -> None:
    with pytest.raises(UnitError):
        units.parse(text, Kind.CONTEXT)


def test_one_format_for_bytes_whatever_the_size() -> None:
    assert [units.size(b) for b in (0.53e9, 9.87e9, 141e9, 577e9, 1410e9)] == [
        "0.53 GB", "9.87 GB", "141 GB", "577 GB", "1.41 TB"]
    assert units.size(1410e9, "fr") == "1,41\u202fTo"
    assert units.size_gb(141.2, "fr") == "141\u202fGo"


def test_context_written_as_people_write_it() -> None:
    assert [units.context(n) for n in (8192, 131072, 6144, 6000, 1048576)] == [
        "8k", "128k", "6k", "6,000", "1M"]


def test_numbers_in_each_language() -> None:
    assert units.count(1234567) == "1,234,567"
    assert units.count(1234567, "fr") == "1\u202f234\u202f567"
    assert units.pct(0.664) == "66%" and units.pct(0.664, "fr") == "66\u202f%"
    # a small share is never written as nothing (3.6 GB of weights on an 825 GB node)
    assert units.pct(0.0044) == "0.4%" and units.pct(0.0044, "fr") == "0,4\u202f%"
    assert units.pct(0.0001) == "<0.1%" and units.pct(0) == "0%"
    assert units.tokens(1.5e12) == "1.5T" and units.tokens(1e9, "fr") == "1\u202fMd"
    assert units.rate(1234.4) == "1,234 tok/s" and units.rate(31.47) == "31.5 tok/s"
    assert units.days(1) == "1 day" and units.days(1.5, "fr") == "1,5\u202fjour"
    assert units.days(12.5) == "12.5 days"
    assert units.days(0.0462) == "1.11 hours" and units.days(0.05, "fr") == "1,2\u202fheure"
    assert units.days(1 / 24) == "1 hour" and units.days(0.5, "fr") == "12\u202fheures"
    # a small fine-tune's run, in minutes rather than '0.0133 hours'
    assert units.days(0.8 / 1440) == "0.8 minutes" and units.days(1 / 1440, "fr") == (
        "1\u202fminute")
    assert units.seconds(0.35) == "350 ms" and units.seconds(1.234) == "1.23 s"
    assert units.factor(0.73) == "0.73x"


@given(st.integers(min_value=1, max_value=2**22))
def test_a_written_context_reads_back_as_itself(n: int) -> None:
    assert units.parse(units.context(n), Kind.CONTEXT) == n


@given(st.floats(min_value=1e6, max_value=1e15))
def test_a_written_budget_reads_back_within_rounding(n: float) -> None:
    back = units.parse(units.tokens(n), Kind.TOKENS)
    assert abs(back - n) / n < 0.01


def test_constants_in_formulas_and_huge_figures() -> None:
    """The math quotes its constants to four digits and FLOP counts in scientific notation."""
    assert units.precise(4 + 20 / 128) == "4.156" and units.precise(4.15625, "fr") == "4,156"
    assert units.precise(0.7) == "0.7" and units.precise(1597) == "1,597"
    assert units.sci(4.2345e20) == "4.23e20" and units.sci(9.996e20) == "1e21"
    assert units.sci(1.5e12, "fr") == "1,5e12"
    assert {"precise", "sci"} <= set(units.FORMATS)
