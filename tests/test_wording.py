"""Every message exists in English and French, with the same fields, and every id the code
uses is in a catalog: a missing translation fails here, not in front of a French customer."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.wording import say
from engine.wording import Catalog, Message, WordingError, msg, render, text

ROOT = Path(__file__).resolve().parent.parent
LAYERS = {
    "engine": [ROOT / "engine" / "data" / "messages"],
    "dialogue": [ROOT / "engine" / "data" / "messages", ROOT / "dialogue" / "messages"],
    "bot": [ROOT / "engine" / "data" / "messages", ROOT / "dialogue" / "messages",
            ROOT / "bot" / "messages"],
}
# msg("some.id", ...) / Message(id="some.id" ...) literals in the code
_USE = re.compile(
    r"""\b(?:msg|Message)\(\s*(?:id\s*=\s*)?["']([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+)["']""")


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_every_id_has_every_language_with_the_same_fields(layer: str) -> None:
    assert Catalog(LAYERS[layer]).problems() == []


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_every_id_the_code_uses_is_in_a_catalog(layer: str) -> None:
    ids = Catalog(LAYERS[layer]).ids()
    missing: list[str] = []
    for path in sorted((ROOT / layer).rglob("*.py")):
        for found in _USE.findall(path.read_text(encoding="utf-8")):
            if found not in ids:
                missing.append(f"{path.relative_to(ROOT)}: {found}")
    assert missing == []


def test_templates_format_units_plurals_lists_and_nested_messages(tmp_path: Path) -> None:
    for lang, (node, nodes, of) in {"en": ("node", "nodes", "of"),
                                   "fr": ("nœud", "nœuds", "de")}.items():
        (tmp_path / f"{lang}.toml").write_text(
            f'[t]\nm = "{{n:count}} {{n:plural({node}|{nodes})}} {of} {{x:size}}: '
            f'{{items:list}}; {{inner}}"\ninner = "<{{who}}>"\n', encoding="utf-8")
    cat = Catalog([tmp_path])
    m = msg("t.m", n=1, x=1.41e12, items=[text("A"), text("B"), msg("t.inner", who="C")],
            inner=msg("t.inner", who="D"))
    assert cat.render(m, "en") == "1 node of 1.41 TB: A, B and <C>; <D>"
    assert cat.render(m, "fr") == "1 nœud de 1,41\u202fTo: A, B et <C>; <D>"
    two = m.model_copy(update={"params": {**m.params, "n": 2}})
    assert "2 nodes" in cat.render(two, "en")
    assert "2 nœuds" in cat.render(two, "fr")
    # French counts 0 and 1 as singular; English only 1
    zero = m.model_copy(update={"params": {**m.params, "n": 0}})
    assert "0 nodes" in cat.render(zero, "en") and "0 nœud " in cat.render(zero, "fr")


def test_a_broken_catalog_names_the_file_and_the_id(tmp_path: Path) -> None:
    (tmp_path / "en.toml").write_text('[a]\nb = "x"\n', encoding="utf-8")
    (tmp_path / "fr.toml").write_text('[a]\nb = "x {y}"\nc = "z"\n', encoding="utf-8")
    problems = Catalog([tmp_path]).problems()
    assert any("'a.c'" in p for p in problems)
    assert any("'a.b'" in p and "fields" in p for p in problems)
    (tmp_path / "dup.en.toml").write_text('[a]\nb = "again"\n', encoding="utf-8")
    with pytest.raises(WordingError, match=r"a\.b"):
        Catalog([tmp_path])
    with pytest.raises(WordingError, match="no message 'nope'"):
        render(Message(id="nope"), "en")


def test_messages_survive_json() -> None:
    m = msg("a.b", n=3, share=0.5, name="Llama", ok=True, nested=msg("c.d", x=1.5),
            items=[text("x")])
    assert Message.model_validate_json(m.model_dump_json()) == m


@pytest.mark.parametrize(("params_b", "en", "fr"), [
    (8000, "an 8T dense model", "un modèle dense de 8T"), (11, "an 11B dense model", None),
    (18, "an 18B", None), (80, "an 80B", None), (70, "a 70B dense model", None),
    (110, "a 110B", None), (180, "a 180B", None), (1.5, "a 1.5B", None),
])
def test_an_english_article_is_the_one_the_figure_is_read_with(
        params_b: float, en: str, fr: str | None) -> None:
    """'a 8T dense model' read wrong: the article before a figure follows how it is said."""
    name = msg("model.synthetic", params=params_b * 1e9)
    assert en in render(name, "en")
    if fr is not None:
        assert fr in render(name, "fr").replace("\u202f", "")


def test_an_article_opening_a_sentence_is_capitalised() -> None:
    assert render(msg("headline.multi_node", nodes=2, hardware="8x H100", link="IB",
                      model="Llama", workload="inference"), "en").startswith("A 2-node cluster")
    assert say(msg("dialogue.choice.dense", params=80e9)) == "An 80B-parameter dense model"


def test_one_copy_is_singular_in_the_math() -> None:
    line = msg("math.throughput", batch=1, osl=1024, copies=1, tokens_per_s=29.7,
               requests_per_s=0.029)
    assert "x 1 copy =" in render(line, "en") and "x 1 copie =" in render(line, "fr")
