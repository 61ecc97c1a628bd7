"""The engine's JSON stands alone: every message object carries its words, in the language
asked, beside the id and parameters a program that translates still reads."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any

import pytest

from bot import jsonface
from engine.wording import Message, render
from tests.engine.test_cli import run


def messages(data: Any) -> Iterator[dict[str, Any]]:
    """Every message object in a JSON dump (an object with an id and params), nested ones too."""
    if isinstance(data, list):
        for v in data:
            yield from messages(v)
    elif isinstance(data, dict):
        if {"id", "params"} <= data.keys():
            yield data
        for v in data.values():
            yield from messages(v)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_every_message_of_the_recommendation_has_its_text(lang: str) -> None:
    p = run("recommend", "--model", "llama-3.1-70b", "--concurrency", "64", "--json",
            "--lang", lang)
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    found = list(messages(d))
    assert len(found) > 40
    for m in found:
        said = render(Message.model_validate({"id": m["id"], "params": m["params"]}), lang)
        assert m["text"] == said and said, m["id"]
    # the parts a page shows, each in words
    assert d["headline"]["text"].startswith("One 8x" if lang == "en" else "Un nœud 8x")
    assert all(c["text"] for c in d["caveats"]) and all(a["text"] for a in d["assumptions"])
    assert all(q["question"]["text"] and q["because"]["text"] for q in d["questions"])
    assert all(a["label"]["text"] and a["summary"]["text"] for a in d["alternatives"])
    assert all(m["text"] for m in d["math"])


def test_the_french_text_is_french_and_the_ids_stay() -> None:
    en = json.loads(run("recommend", "--model", "llama-3.1-70b", "--json").stdout)
    fr = json.loads(run("recommend", "--model", "llama-3.1-70b", "--json", "--lang", "fr").stdout)
    assert en["headline"]["id"] == fr["headline"]["id"] == "headline.single"
    assert en["headline"]["params"].keys() == fr["headline"]["params"].keys()
    assert "inférence" in fr["headline"]["text"] and "inference" in en["headline"]["text"]


def test_the_json_console_recommendation_carries_its_text(
        monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("REDIS_URL", "REDIS_SENTINELS", "REDIS_CLUSTER"):
        monkeypatch.delenv(name, raising=False)
    out = io.StringIO()
    opening = "nous voulons servir Llama 3.3 70B à 50 utilisateurs, contexte 8k, 20 tok/s chacun"
    # keep FP8 at the 4-bit question; any other open question takes its default
    assert jsonface.main(io.StringIO("non\n" + "\n" * 3), out, [opening]) == 0
    last = next(o for o in map(json.loads, reversed(out.getvalue().splitlines()))
                if o["recommendation"] is not None)
    rec = last["recommendation"]
    assert rec is not None and last["language"] == "fr"
    assert "inférence" in rec["headline"]["text"]
    assert all("text" in m for m in messages(rec))
