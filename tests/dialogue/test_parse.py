"""What typed text means: numbers with units, yes/no, workloads, names, openings."""

from __future__ import annotations

import pytest

from dialogue import parse
from dialogue.commands import command
from dialogue.opening import extract


@pytest.mark.parametrize(("text", "value"), [
    ("64", 64), ("64 users", 64), ("64 concurrent", 64), ("1,000", 1000), ("2k", 2000),
    ("about 32 requests at once", 32), ("100000", 100_000), ("1", 1),
])
def test_concurrency(text: str, value: int) -> None:
    assert parse.concurrency(text) == value


@pytest.mark.parametrize("text", ["0", "100001", "3O", "1.5", "-4", "", "many", "64 tokens"])
def test_concurrency_refused(text: str) -> None:
    with pytest.raises(parse.ParseError) as exc:
        parse.concurrency(text)
    assert "between 1 and 100,000" in exc.value.message


@pytest.mark.parametrize(("text", "value"), [
    ("32k", 32768), ("8k", 8192), ("128 000", 128_000), ("8192", 8192), ("16k tokens", 16384),
    ("4k context", 4096), ("128k", 131072),
])
def test_context(text: str, value: int) -> None:
    assert parse.context(text, 131072) == value


def test_context_beyond_the_model_is_refused() -> None:
    with pytest.raises(parse.ParseError) as exc:
        parse.context("200k", 131072)
    assert "131,072" in exc.value.message


@pytest.mark.parametrize(("text", "value"), [
    ("no target", None), ("none", None), ("6000 tok/s", 6000.0), ("6k tokens per second", 6000.0),
    ("6000", 6000.0), ("1.5k tps", 1500.0),
])
def test_target(text: str, value: float | None) -> None:
    assert parse.target(text) == value


@pytest.mark.parametrize(("text", "value"), [
    ("1B tokens", 1e9), ("1.5T tokens", 1.5e12), ("500 million tokens", 5e8), ("15T", 15e12),
])
def test_tokens(text: str, value: float) -> None:
    assert parse.tokens(text) == value


@pytest.mark.parametrize(("text", "days"), [
    ("30 days", 30), ("2 weeks", 14), ("3 months", 90), ("45", 45), ("a month", 30),
    ("within 10 days", 10), ("1 year", 365),
])
def test_deadline(text: str, days: float) -> None:
    assert parse.deadline(text) == days


@pytest.mark.parametrize(("text", "value"), [
    ("yes", True), ("y", True), ("ok", True), ("sure", True), ("Yes, INT4 is fine", True),
    ("no", False), ("nope", False), ("No, keep FP8", False), ("not ok", False),
])
def test_yes_no(text: str, value: bool) -> None:
    assert parse.yes_no(text) is value


@pytest.mark.parametrize(("text", "value"), [
    ("serving", "inference"), ("inference", "inference"), ("fine-tune", "full-finetune"),
    ("finetuning", "full-finetune"), ("train from scratch", "pretrain"), ("QLoRA", "qlora"),
    ("lora fine-tune", "lora"), ("pre-training", "pretrain"), ("full-finetune", "full-finetune"),
])
def test_workload(text: str, value: str) -> None:
    assert parse.workload(text) == value


@pytest.mark.parametrize(("text", "value"), [
    ("llama 3.1 70b", "llama-3.1-70b"), ("Llama-3.1-405B", "llama-3.1-405b"),
    ("deepseek v3", "deepseek-v3"), ("a 30B dense model", 30.0), ("30b params", 30.0),
    ("70 billion parameters", 70.0),
])
def test_model(text: str, value: str | float) -> None:
    assert parse.model(text) == value


def test_navigation_words() -> None:
    assert command("Back") is not None and command("back").kind == "back"  # type: ignore[union-attr]
    c = command("change context")
    assert c is not None and (c.kind, c.slot) == ("change", "context")
    c = command("change users")
    assert c is not None and c.slot == "concurrency"
    assert command("64") is None and command("no") is None


def test_opening_from_the_issue() -> None:
    answers, leftovers, hint = extract("405b inference 64 users 32k context int4 ok")
    assert answers == {"model": "llama-3.1-405b", "workload": "inference", "concurrency": 64,
                       "context": 32768, "int4": True}
    assert leftovers == [] and hint is None
