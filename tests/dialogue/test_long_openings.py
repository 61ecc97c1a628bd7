"""Long, formal or chatty openings read as their writer meant (issue 24): a value corrected
in the middle of a sentence, a share said in words, a model named beside prose, by its size
for a pre-training, beside its own counts; words of prose that are no answer block nothing.
Each kind in both languages, with other values than the corpus lines it was fixed for."""

from __future__ import annotations

from typing import Any

import pytest

from dialogue.understand.opening import extract


@pytest.mark.parametrize(("said", "lang", "want"), [
    # a count corrected by a bare number, a dash closing the aside, a clause after it
    ("llama 3.1 8b for 30 concurrent users, sorry, I mean 45 - the interns too", "en",
     {"concurrency": 45}),
    ("Load: 12 simultaneous users, no, make that 20 once sales joins", "en",
     {"concurrency": 20}),
    ("llama 3.1 8b pour 40 utilisateurs simultanés, non attends, 70, j'oubliais", "fr",
     {"concurrency": 70}),
    # the same words again after the new number
    ("LoRA on llama 3.1 8b, 10k examples of 4k tokens, sorry, 2,500 tokens on average", "en",
     {"example_tokens": 2500}),
    ("llama 3.1 8b pour 200 agents du siège, non, à 260 agents", "fr",
     {"users_total": 260}),
    ("llama 3.1 8b, un contexte de 4 000 tokens, pardon, de 12 000 tokens", "fr",
     {"context": 12000}),
    # a bare number corrected by another
    ("llama 3.1 8b, 20 users, context 4k, or rather 8k because of long mails", "en",
     {"context": 8192}),
    ("llama 3.1 8b, 20 users, contexte de 4k, enfin plutôt 32k parce que", "fr",
     {"context": 32768}),
])
def test_a_value_corrected_inside_a_long_message_is_the_new_one(
        said: str, lang: str, want: dict[str, Any]) -> None:
    found = extract(said, lang)  # type: ignore[arg-type]
    assert {k: found.answers.get(k) for k in want} == want


def test_a_corrected_number_is_read_whole_never_its_first_digits() -> None:
    found = extract("full fine-tune of llama 3.1 8b on 20k examples of 3k tokens, sorry, "
                    "1,200 tokens, 2 epochs")
    assert found.answers.get("example_tokens") == 1200


@pytest.mark.parametrize(("said", "lang", "total", "at_once"), [
    ("llama 3.1 8b for 400 employees, probably one in four at once", "en", 400, 100),
    ("llama 3.1 8b pour 300 salariés, je dirais qu'un salarié sur trois en même temps", "fr",
     300, 100),
    ("llama 3.1 8b pour 400 employés, un utilisateur sur quatre en même temps", "fr", 400, 100),
])
def test_a_share_said_in_words_divides_the_headcount(said: str, lang: str, total: int,
                                                     at_once: int) -> None:
    found = extract(said, lang)  # type: ignore[arg-type]
    assert (found.answers.get("users_total"), found.answers.get("concurrency")) == (
        total, at_once)


@pytest.mark.parametrize(("said", "lang", "model"), [
    ("pour la prod : Qwen3 8B en inférence, 20 users", "fr", "qwen3-8b"),
    ("we'd like to deploy Gemma 3 27B for 20 users", "en", "gemma-3-27b"),
    ("classify 10k emails with Qwen2.5 7B, a one-word label out", "en", "qwen-2.5-7b"),
    ("size mixtral 8x22 for 10 users", "en", "mixtral-8x22b"),
    ("lora on llama2 13b chat, 10k examples of 1k tokens", "en", "llama-2-13b"),
])
def test_a_model_named_beside_prose_is_taken(said: str, lang: str, model: str) -> None:
    found = extract(said, lang)  # type: ignore[arg-type]
    assert found.answers.get("model") == model
    assert "model" not in found.unsure


def test_a_word_before_an_unknown_family_still_joins_its_size() -> None:
    found = extract("yi 34b for 20 users")
    assert "model" not in found.answers and "model" in found.unsure  # confirmed, never taken


@pytest.mark.parametrize(("said", "lang", "size"), [
    ("pre-training a 1b from scratch on 100B tokens in 30 days", "en", 1.0),
    ("pre-train a 2B model from scratch on 500B tokens", "en", 2.0),
    ("pré-entraîner un 7b à partir de zéro sur 1T tokens", "fr", 7.0),
])
def test_a_model_to_pre_train_said_by_its_size_is_that_size(said: str, lang: str,
                                                            size: float) -> None:
    found = extract(said, lang)  # type: ignore[arg-type]
    assert found.answers.get("workload") == "pretrain"
    assert found.answers.get("model") == size


def test_a_size_alone_to_serve_is_still_confirmed() -> None:
    found = extract("serve a 7b to 20 users")
    assert "model" not in found.answers


@pytest.mark.parametrize(("said", "lang", "model"), [
    ("DeepSeek-R1 (the full 671B-parameter model) for 50 users", "en", "deepseek-r1"),
    ("Llama 3.1 405B, le modèle de 405 milliards de paramètres, 20 utilisateurs", "fr",
     "llama-3.1-405b"),
])
def test_a_model_named_beside_its_own_counts_is_the_named_one(said: str, lang: str,
                                                              model: str) -> None:
    found = extract(said, lang)  # type: ignore[arg-type]
    assert found.answers.get("model") == model
    assert "active_params_b" not in found.answers


def test_counts_that_disagree_with_the_name_beside_them_are_kept() -> None:
    found = extract("Llama 3.1 8B, well our own 30B dense model, for 20 users")
    assert found.answers.get("model") == 30.0


@pytest.mark.parametrize(("said", "lang", "int4"), [
    ("qwen3 8b, 20 users, int4 pas ok", "fr", False),
    ("qwen3 8b, 20 users, le 4-bit c'est correct", "fr", True),
    ("qwen3 8b, 20 users, le 4-bit c'est pas correct", "fr", False),
])
def test_four_bit_said_in_chatty_french(said: str, lang: str, int4: bool) -> None:
    assert extract(said, lang).answers.get("int4") is int4  # type: ignore[arg-type]


@pytest.mark.parametrize(("said", "lang"), [
    ("on est en train de monter un chatbot avec Llama 3.1 8B, 20 users", "fr"),
    ("we'd like a self-hosted Llama 3.1 8B for 20 users", "en"),
])
def test_prose_that_holds_a_workload_word_reads_as_meant(said: str, lang: str) -> None:
    found = extract(said, lang)  # type: ignore[arg-type]
    assert found.answers.get("workload") == "inference"
    assert "workload" not in found.unsure
    assert not any(c.endswith("-") for c in found.leftovers)  # never half a word


@pytest.mark.parametrize(("said", "lang", "rate"), [
    ("gpt-oss-20b, 10 users, each person should get at least 35 tokens/s", "en", 35.0),
    ("gpt-oss-20b, 10 users, chaque utilisateur devrait voir au moins 25 tokens/s", "fr", 25.0),
])
def test_a_speed_whose_owner_is_said_first_is_per_user(said: str, lang: str,
                                                       rate: float) -> None:
    found = extract(said, lang)  # type: ignore[arg-type]
    assert found.answers.get("per_user_tokens_per_s") == rate


@pytest.mark.parametrize(("said", "want"), [
    ("We already own one 8-GPU H100 node.", {"nodes_owned": 1, "gpus_per_node": 8,
                                            "gpu": "h100-sxm"}),
    ("on the 2xH100 box we already own", {"nodes_owned": 1, "gpus_per_node": 2,
                                          "gpu": "h100-sxm"}),
    ("We'd rent H200s.", {"gpu": "h200"}),
])
def test_hardware_said_in_a_long_message(said: str, want: dict[str, Any]) -> None:
    found = extract(said)
    assert {k: found.answers.get(k) for k in want} == want


def test_a_dash_between_words_is_no_minus_sign() -> None:
    found = extract("gpt-oss-20b for our engineers - 25 of them at once - with 8k context")
    assert found.answers.get("concurrency") == 25 and not found.refusals


@pytest.mark.parametrize(("said", "lang"), [
    ("Qwen2.5 72B, 60 users. La quantification en 4 bits n'est pas souhaitée.", "fr"),
    ("Qwen2.5 72B, 60 users, une quantification sur 4 bits n'est pas envisageable", "fr"),
    ("Qwen2.5 72B, 60 users, 4-bit quantisation isn't an option", "en"),
])
def test_four_bit_refused_in_formal_words_is_a_no(said: str, lang: str) -> None:
    assert extract(said, lang).answers.get("int4") is False  # type: ignore[arg-type]


@pytest.mark.parametrize(("said", "lang"), [
    ("Qwen2.5 72B, 60 users. La quantification en 4 bits, nous n'en voulons pas.", "fr"),
    ("Qwen2.5 72B, 60 users, quantized to 4-bit? we do not want that", "en"),
])
def test_four_bit_named_then_denied_is_never_a_consent(said: str, lang: str) -> None:
    assert extract(said, lang).answers.get("int4") is not True  # type: ignore[arg-type]
