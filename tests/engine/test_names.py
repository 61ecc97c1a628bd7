"""Name resolution (engine/catalog/names.py): how a text names a catalog model, and that sizes
agree everywhere, so no name silently becomes a model of another size or family (issue #10)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.catalog import catalog
from engine.catalog.names import known_word, lookup, resolve, sizes
from engine.errors import UnknownModel

MODELS = catalog().models


@pytest.mark.parametrize(("text", "model_id"), [
    ("llama 3.1 70b", "llama-3.1-70b"), ("Llama-3.1-70B-Instruct", "llama-3.1-70b"),
    ("meta-llama/Llama-3.1-70B-Instruct", "llama-3.1-70b"),
    ("hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4", "llama-3.1-70b"),
    ("llama-3.1-70b-instruct-awq", "llama-3.1-70b"), ("Qwen/Qwen2.5-72B-Instruct-GPTQ-Int4",
                                                      "qwen-2.5-72b"),
    ("deepseek v3", "deepseek-v3"), ("gpt-oss-120b", "gpt-oss-120b"), ("maverick",
                                                                      "llama-4-maverick"),
    ("kimi k2", "kimi-k2"), ("moonshotai/Kimi-K2-Instruct", "kimi-k2"), ("Kimi K2 1T", "kimi-k2"),
    ("Qwen/Qwen3-Coder-480B-A35B-Instruct", "qwen3-coder-480b-a35b"),
    ("qwen3-coder-480b-a35b", "qwen3-coder-480b-a35b"),
])
def test_an_id_a_name_an_alias_or_a_hub_id_is_exact(text: str, model_id: str) -> None:
    found = lookup(text, MODELS, "model")
    assert (found.how, found.entry_id) == ("exact", model_id)


@pytest.mark.parametrize(("text", "model_id"), [
    ("405b", "llama-3.1-405b"), ("qwen 2.5 72", "qwen-2.5-72b"), ("8x22b", "mixtral-8x22b"),
    ("qwen3 coder", "qwen3-coder-480b-a35b"), ("moonshot kimi", "kimi-k2"),
])
def test_a_unique_fragment_is_a_fragment_not_exact(text: str, model_id: str) -> None:
    found = lookup(text, MODELS, "model")
    assert (found.how, found.entry_id) == ("fragment", model_id)
    assert resolve(text, MODELS, "model").id == model_id  # the engine's CLI still takes it


@pytest.mark.parametrize(("text", "never"), [
    ("0.5b", "llama-3.1-405b"),  # its key ends in '05b'
    ("34b", "gemma-3-4b"),  # its key ends in '34b'
    ("yi 34b", "gemma-3-4b"),
    ("llama 3.2 11b vision", "llama-3.2-3b"),
    ("GLM-4.5", "llama-3.1-405b"),
    ("8b", "qwen-2.5-7b"),  # 7.6B is not 8B
])
def test_a_size_or_a_family_never_becomes_another(text: str, never: str) -> None:
    found = lookup(text, MODELS, "model")
    assert found.how != "exact" and never not in found.candidates
    with pytest.raises(UnknownModel) as exc:
        resolve(text, MODELS, "model")
    assert never not in exc.value.suggestions


@pytest.mark.parametrize(("text", "expected"), [
    ("llama 70b", {"llama-3.1-70b", "llama-3.3-70b", "llama-3-70b", "llama-2-70b"}),
    ("70b", {"llama-3.1-70b", "llama-3.3-70b"}), ("lama 3.1 70b", {"llama-3.1-70b"}),
    ("qewn2.5-72b", {"qwen-2.5-72b"}), ("mistral 8x7b", {"mixtral-8x7b"}),
    ("mistral large 3", {"mistral-large-2"}),  # a version apart: proposed, never taken
])
def test_near_names_are_candidates_of_the_same_size(text: str, expected: set[str]) -> None:
    found = lookup(text, MODELS, "model")
    assert found.how == "near" and found.entry_id is None
    assert expected <= set(found.candidates)
    wanted = sizes(text)
    for candidate in found.candidates:  # none of another size
        named = (*sizes(MODELS[candidate].name), MODELS[candidate].params_b)
        assert not wanted or any(abs(w - n) <= 0.03 * max(w, n) for w in wanted for n in named)


def test_the_plain_family_model_comes_before_a_distill_and_newer_first() -> None:
    found = lookup("llama 70b", MODELS, "model")
    assert found.candidates[:2] == ("llama-3.3-70b", "llama-3.1-70b")
    assert "deepseek-r1-distill-llama-70b" not in found.candidates[:4]


@pytest.mark.parametrize("text", ["GLM-4.5", "internlm 3", "claude 3.5 sonnet", "yi 34b", "0.5b"])
def test_a_family_or_size_the_catalog_lacks_suggests_nothing(text: str) -> None:
    assert lookup(text, MODELS, "model").candidates == ()


def test_sizes_are_read_from_names() -> None:
    assert sizes("llama 3.1 70b") == (70.0,) and sizes("0.5b") == (0.5,)
    assert sizes("Mixtral 8x22B") == (176.0,) and sizes("qwen3-30b-a3b") == (30.0,)
    assert sizes("1,5T") == (1500.0,) and sizes("gpt5") == ()


def test_known_words_are_what_a_name_is_made_of() -> None:
    for word in ("llama", "3.1", "70b", "qwen2.5", "lama"):
        assert known_word(word, MODELS), word
    # a checkpoint's word alone ('instruct') names no model; nor do other words
    for word in ("company", "hardware", "the", "50", "glm", "instruct"):
        assert not known_word(word, MODELS), word


def test_a_lookup_is_answered_from_its_memo_the_second_time() -> None:
    first = lookup("llama 70b chat please", MODELS, "model")
    assert lookup("llama 70b chat please", MODELS, "model") is first


@given(st.text(max_size=40))
def test_lookup_never_raises_and_an_exact_answer_is_a_catalog_id(text: str) -> None:
    found = lookup(text, MODELS, "model")
    assert found.how in ("exact", "fragment", "near", "none")
    assert (found.entry_id is not None) == (found.how in ("exact", "fragment"))
    assert all(c in MODELS for c in found.candidates)
