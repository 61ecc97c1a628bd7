"""What typed text means, in English and French: numbers with units, yes/no with negation,
workloads, names, navigation, the language asked for, openings."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dialogue import command
from dialogue.conversation import Proposal
from dialogue.errors import ParseError
from dialogue.readings import Fetch, Reading, Refusal
from dialogue.understand import gpus, language, models, names, negation, numbers
from dialogue.understand.opening import extract
from engine.units import Kind, parse
from engine.wording import text

LLAMA = text("Llama 3.1 70B")


@pytest.mark.parametrize(("said", "value"), [
    ("64", 64), ("64 users", 64), ("64 concurrent", 64), ("1,000", 1000), ("2k", 2000),
    ("about 32 requests at once", 32), ("100000", 100_000), ("1", 1), ("sixty four", 64),
    ("sixty-four users", 64), ("two hundred", 200), ("a hundred users", 100),
    ("seventy five thousand", 75_000), ("twelve", 12), ("64 utilisateurs", 64),
    ("soixante-quatre utilisateurs simultanés", 64), ("quatre-vingt-dix", 90),
    ("deux cents", 200), ("environ 40 requêtes en parallèle", 40), ("deux mille", 2000),
    ("１２", 12),
])
def test_concurrency(said: str, value: int) -> None:
    assert numbers.concurrency(said) == value


@pytest.mark.parametrize("said", ["0", "100001", "3O", "1.5", "", "many", "64 tokens"])
def test_concurrency_refused_says_the_bounds(said: str) -> None:
    with pytest.raises(ParseError) as exc:
        numbers.concurrency(said)
    assert exc.value.message.id == "dialogue.error.concurrency"
    assert (exc.value.message.params["lo"], exc.value.message.params["hi"]) == (1, 100_000)


@pytest.mark.parametrize("said", ["-4", "-64 users", "\u22128"])
def test_a_minus_sign_is_refused_by_name_never_read_as_its_absolute_value(said: str) -> None:
    with pytest.raises(ParseError) as exc:
        numbers.concurrency(said)
    assert exc.value.message.id == "dialogue.error.negative"


@pytest.mark.parametrize(("said", "value"), [
    ("32k", 32768), ("8k", 8192), ("128 000", 128_000), ("8192", 8192), ("16k tokens", 16384),
    ("4k context", 4096), ("128k", 131072), ("32k de contexte", 32768), ("16 384", 16384),
])
def test_context(said: str, value: int) -> None:
    assert numbers.context(said, 131072, LLAMA) == value


@pytest.mark.parametrize("said", ["6k", "3k", "12k", "1.5k", "0.5M"])
def test_a_context_shorthand_means_what_engine_units_says(said: str) -> None:
    # one meaning of '6k' for every layer: the dialogue reads what the engine CLI reads
    assert numbers.context(said, 10**7, LLAMA) == int(parse(said, Kind.CONTEXT))
    assert numbers.context("6k", 10**7, LLAMA) == 6144


def test_context_beyond_the_model_names_the_model_and_its_limit() -> None:
    with pytest.raises(ParseError) as exc:
        numbers.context("200k", 131072, LLAMA)
    m = exc.value.message
    assert m.id == "dialogue.error.context_beyond"
    assert (m.params["model"], m.params["limit"], m.params["tokens"]) == (LLAMA, 131072, 204800)


def test_a_bare_small_context_asks_whether_k_was_meant_and_offers_both() -> None:
    with pytest.raises(ParseError) as exc:
        numbers.context("64", 131072, LLAMA)
    assert exc.value.message.id == "dialogue.error.context_bare"
    assert exc.value.message.params["tokens"] == 65536
    assert exc.value.refusal.retry == ("64k", "64 tokens")
    assert numbers.context("64 tokens", 131072, LLAMA) == 64


@pytest.mark.parametrize(("said", "value"), [
    ("no target", None), ("none", None), ("6000 tok/s", 6000.0), ("6k tokens per second", 6000.0),
    ("6000", 6000.0), ("1.5k tps", 1500.0), ("6000 t/s", 6000.0), ("pas d'objectif", None),
    ("pas d’objectif", None), ("aucun", None), ("non", None), ("2000 jetons par seconde", 2000.0),
])
def test_target(said: str, value: float | None) -> None:
    assert numbers.target(said) == value


@pytest.mark.parametrize("said", ["yes", "oui"])
def test_yes_to_the_target_question_asks_which_target(said: str) -> None:
    with pytest.raises(ParseError) as exc:
        numbers.target(said)
    assert exc.value.message.id == "dialogue.error.target_which"


@pytest.mark.parametrize(("said", "lang", "value"), [
    ("1B tokens", "en", 1e9), ("1.5T tokens", "en", 1.5e12), ("500 million tokens", "en", 5e8),
    ("15T", "en", 15e12), ("1,5T", "en", 1.5e12), ("2,5B", "en", 2.5e9),
    ("1,500B tokens", "en", 1.5e12), ("2 Md de jetons", "fr", 2e9),
    ("deux milliards de jetons", "fr", 2e9), ("1 billion tokens", "en", 1e9),
    ("1 billion de jetons", "fr", 1e12),  # French long scale: un billion = 10^12
])
def test_tokens(said: str, lang: str, value: float) -> None:
    assert numbers.tokens(said, lang) == value  # type: ignore[arg-type]


@pytest.mark.parametrize(("said", "days"), [
    ("30 days", 30), ("2 weeks", 14), ("3 months", 90), ("45", 45), ("a month", 30),
    ("within 10 days", 10), ("1 year", 365), ("2 semaines", 14), ("un mois", 30),
    ("un an", 365), ("sous 10 jours", 10), ("deux semaines", 14), ("3 jours", 3),
])
def test_deadline(said: str, days: float) -> None:
    assert numbers.deadline(said) == days


@pytest.mark.parametrize(("said", "value"), [
    ("yes", True), ("y", True), ("ok", True), ("sure", True), ("Yes, INT4 is fine", True),
    ("Yes, 4-bit weights are fine", True), ("oui", True), ("d'accord", True),
    ("Oui, l'INT4 convient", True), ("Oui, les poids 4 bits conviennent", True),
    ("no", False), ("nope", False), ("No, keep FP8", False), ("not ok", False), ("non", False),
    ("avoid int4", False), ("we'd prefer to avoid INT4 because of quality concerns", False),
    ("int4 pas acceptable", False), ("sans int4", False), ("Non, garder le FP8", False),
])
def test_yes_no_a_negation_anywhere_wins(said: str, value: bool) -> None:
    assert negation.yes_no(said) is value


@pytest.mark.parametrize("said", ["what is int4?", "what does int4 change for quality?",
                                  "c'est quoi int4 ?", "maybe"])
def test_a_question_or_neither_is_never_consent(said: str) -> None:
    with pytest.raises(ParseError) as exc:
        negation.yes_no(said)
    assert exc.value.message.id == "dialogue.error.yes_no"


@pytest.mark.parametrize(("said", "value"), [
    ("serving", "inference"), ("inference", "inference"), ("full fine-tune", "full-finetune"),
    ("full finetuning", "full-finetune"), ("train from scratch", "pretrain"), ("QLoRA", "qlora"),
    ("lora fine-tune", "lora"), ("pre-training", "pretrain"), ("full-finetune", "full-finetune"),
    ("inférence", "inference"), ("affinage complet", "full-finetune"),
    ("pré-entraînement", "pretrain"), ("fine-tune it with LoRA", "lora"),
    ("Inférence (service)", "inference"), ("Pré-entraînement depuis zéro", "pretrain"),
    ("update all the weights", "full-finetune"), ("not a full fine-tune, LoRA", "lora"),
])
def test_workload(said: str, value: str) -> None:
    assert names.workload(said) == value


@pytest.mark.parametrize("said", ["fine-tune", "finetuning", "sft", "affinage", "fine tune it",
                                  "SFT on our data"])
def test_a_bare_fine_tune_asks_which_kind_never_full(said: str) -> None:
    asked = names.workload(said)
    assert isinstance(asked, Proposal)
    assert asked.text.id == "dialogue.confirm.finetune"
    assert [o.answers["workload"] for o in asked.options] == ["lora", "qlora",
                                                              "full-finetune"]


@pytest.mark.parametrize(("said", "value"), [
    ("llama 3.1 70b", {"model": "llama-3.1-70b"}), ("Llama-3.1-405B", {"model": "llama-3.1-405b"}),
    ("deepseek v3", {"model": "deepseek-v3"}), ("a 30B dense model", {"model": 30.0}),
    ("30b params", {"model": 30.0}), ("70 billion parameters", {"model": 70.0}),
    ("un modèle dense de 30 milliards de paramètres", {"model": 30.0}),
    ("1T total, 32B active MoE", {"model": 1000.0, "active_params_b": 32.0}),
    ("a 70B MoE with 12B active", {"model": 70.0, "active_params_b": 12.0}),
    ("30B-A3B", {"model": 30.0, "active_params_b": 3.0}),
    ("1000 milliards de paramètres dont 32 milliards actifs",
     {"model": 1000.0, "active_params_b": 32.0}),
])
def test_model(said: str, value: dict[str, object]) -> None:
    assert models.model(said, "fr" if "milliard" in said else "en") == Reading(value)


@pytest.mark.parametrize(("said", "offered"), [
    ("gpt5", {"gpt-oss-20b", "gpt-oss-120b"}),
    ("llama 70b", {"llama-3.1-70b", "llama-3.3-70b", "llama-3-70b", "llama-2-70b"}),
    ("405b", {"llama-3.1-405b"}), ("mistral large 3", {"mistral-large-2"}),
    ("qwen 72b", {"qwen-2.5-72b"}), ("lama 3.1 70b", {"llama-3.1-70b"}),
])
def test_a_name_only_near_one_is_proposed_never_taken(said: str, offered: set[str]) -> None:
    asked = models.model(said)
    assert isinstance(asked, Proposal)
    ids = {o.answers["model"] for o in asked.options if isinstance(o.answers.get("model"),
                                                                   str)}
    assert offered <= ids
    assert asked.options[-1].value == models.NONE_OF_THESE  # and a way out, always


@pytest.mark.parametrize(("said", "size"), [("0.5b", 0.5), ("34b", 34.0), ("yi 34b", 34.0),
                                            ("llama 3.2 11b vision", 11.0), ("1,5T", 1500.0)])
def test_a_size_no_catalog_model_has_is_offered_as_a_dense_model_of_that_size(
    said: str, size: float
) -> None:
    asked = models.model(said)
    assert isinstance(asked, Proposal)
    assert asked.text.id == "dialogue.confirm.model_dense"
    assert [o.answers for o in asked.options] == [{"model": size}, {}]


@pytest.mark.parametrize("said", ["GLM-4.5", "internlm 3", "claude 3.5 sonnet"])
def test_a_family_the_catalog_lacks_gets_the_ways_to_describe_it(said: str) -> None:
    refused = models.model(said)
    assert isinstance(refused, Refusal)
    assert refused.message.id == "dialogue.error.model_unknown"


def test_a_moe_without_its_active_count_is_asked_for_it() -> None:
    refused = models.model("a 100B MoE")
    assert isinstance(refused, Refusal)
    assert refused.message.id == "dialogue.error.moe_active"
    assert refused.message.params["total"] == 100e9


@pytest.mark.parametrize(("said", "repo"), [
    ("moonshotai/Kimi-K2-Thinking", "moonshotai/Kimi-K2-Thinking"),
    ("https://huggingface.co/zai-org/GLM-4.5", "zai-org/GLM-4.5"),
])
def test_a_hub_id_the_catalog_lacks_is_fetched(said: str, repo: str) -> None:
    assert models.model(said) == Fetch(repo)


@pytest.mark.parametrize(("said", "gpu"), [
    ("H100s", "h100-sxm"), ("8x h100", "h100-sxm"), ("8 x H200", "h200"), ("rtx 5090", "rtx-5090"),
    ("l40s", "l40s"), ("NVIDIA L4 (24 GB)", "l4"), ("b200s", "b200"),
    ("NVIDIA L40S (48 Go)", "l40s"),
])
def test_gpus_typed_loosely(said: str, gpu: str) -> None:
    assert gpus.gpu(said) == gpu


@pytest.mark.parametrize("said", ["not sure", "don't know", "no idea", "default", "dunno?",
                                  "je ne sais pas", "aucune idée", "par défaut"])
def test_unsure(said: str) -> None:
    assert names.unsure(said)


@pytest.mark.parametrize("said", ["∞", "🚀", "<!channel>", "yes", "ib-200"])
def test_symbols_and_names_are_not_unsure(said: str) -> None:
    assert not names.unsure(said)


def test_nvlink_for_the_interconnect_is_explained() -> None:
    with pytest.raises(ParseError) as exc:
        names.interconnect("nvlink")
    assert exc.value.message.id == "dialogue.error.link_inside"


@pytest.mark.parametrize(("said", "kind", "slot", "value"), [
    ("Back", "back", None, None), ("retour", "back", None, None), ("aide", "help", None, None),
    ("why?", "help", None, None), ("annuler", "cancel", None, None),
    ("recommencer", "restart", None, None), ("start over", "restart", None, None),
    ("change context", "change", "context", None), ("change users", "change", "concurrency", None),
    ("change context to 32k", "change", "context", "32k"),
    ("Change GPU to H100", "change", "gpu", "H100"), ("set gpu = b200", "change", "gpu", "b200"),
    ("change the model to Llama 3.1 405B!", "change", "model", "Llama 3.1 405B"),
    ("change users to 64", "change", "concurrency", "64"),
    ("change gpu: l40s", "change", "gpu", "l40s"),
    ("changer le contexte à 32k", "change", "context", "32k"),
    ("modifier le gpu pour H100", "change", "gpu", "H100"),
    ("changer l'objectif", "change", "target_tokens_per_s", None),
    ("changer contexte 32k", "change", "context", "32k"),
    ("change GPU H100", "change", "gpu", "H100"),
    ("change users 128", "change", "concurrency", "128"),
])
def test_navigation(said: str, kind: str, slot: str | None, value: str | None) -> None:
    cmd = command(said)
    assert cmd is not None and (cmd.kind, cmd.slot, cmd.value) == (kind, slot, value)


@pytest.mark.parametrize("said", ["64", "no", "non", "oui", "llama 3.1 70b", "8k"])
def test_answers_are_not_commands(said: str) -> None:
    assert command(said) is None


@pytest.mark.parametrize(("said", "lang", "rest"), [
    ("in French", "fr", None), ("en français", "fr", None), ("français", "fr", None),
    ("in English please", "en", None), ("en anglais", "en", None),
    ("en français : 64 utilisateurs", "fr", "64 utilisateurs"),
    ("change language to french", "fr", None),
])
def test_a_language_asked_for(said: str, lang: str, rest: str | None) -> None:
    cmd = command(said)
    assert cmd is not None and (cmd.kind, cmd.language, cmd.value) == ("language", lang, rest)


@pytest.mark.parametrize(("said", "lang"), [
    ("nous voulons faire tourner Llama 70B pour 50 utilisateurs", "fr"),
    ("inférence llama 3.1 70b", "fr"), ("je veux servir deepseek v3", "fr"),
    ("we want to serve llama 3.1 70b for 64 users", "en"), ("llama 3.1 70b", None),
    ("405b inference 64 users 32k context", "en"), ("a french customer wants llama", "en"),
])
def test_language_detected_from_words_and_accents(said: str, lang: str | None) -> None:
    assert language.detect(said) == lang


def test_opening_from_the_issue() -> None:
    # '405b' alone names a size, not a model: Llama 3.1 405B is proposed, never taken
    found = extract("405b inference 64 users 32k context int4 ok")
    assert found.answers == {"workload": "inference", "users_total": 64, "concurrency": 64,
                             "context": 32768, "int4": True}
    assert [o.answers for o in found.unsure["model"].options] == [
        {"model": "llama-3.1-405b"}, {"model": 405.0}, {}]
    assert found.leftovers == [] and found.hint is None
    assert found.inferred == {"concurrency"}  # all 64 at once: a headcount's, assumed
    found = extract("llama 3.1 405b inference 64 users 32k context int4 ok")
    assert found.answers == {"model": "llama-3.1-405b", "workload": "inference",
                             "users_total": 64, "concurrency": 64, "context": 32768,
                             "int4": True}


def test_a_french_opening_gives_the_same_answers() -> None:
    found = extract("inférence llama 3.1 70b pour 64 utilisateurs, contexte 32k", "fr")
    assert found.answers == {"workload": "inference", "model": "llama-3.1-70b",
                             "users_total": 64, "concurrency": 64, "context": 32768}
    found = extract("affinage complet de llama 3.1 8b sur 2 milliards de jetons en 2 semaines",
                    "fr")
    assert found.answers == {"workload": "full-finetune", "model": "llama-3.1-8b",
                             "train_tokens": 2e9, "deadline_days": 14.0}
    found = extract("affinage de llama 3.1 8b sur 2 milliards de jetons en 2 semaines", "fr")
    assert "workload" not in found.answers  # which kind of fine-tune: asked
    assert found.unsure["workload"].text.id == "dialogue.confirm.finetune"


@pytest.mark.parametrize("said, lang", [
    ("mistral large 2 pour 50 personnes en même temps avec des contextes de 16k", "fr"),
    ("mistral large 2 for 50 users at once, contexts of 16k", "en"),
    ("mistral large 2 for 50 users at once, 16k contexts", "en"),
])
def test_a_plural_context_is_read_and_not_reported_unused(said: str, lang: str) -> None:
    found = extract(said, lang)
    assert found.answers["context"] == 16384 and found.answers["concurrency"] == 50
    assert found.leftovers == []


@pytest.mark.parametrize("said, lang", [
    ("llama 3.3 70b, 64 utilisateurs, 8k, vitesse 50 tok/s par utilisateur", "fr"),
    ("llama 3.3 70b, 64 users, 8k, speed 50 tok/s per user", "en"),
])
def test_a_speed_said_with_its_lead_in_word_leaves_nothing_unused(said: str, lang: str) -> None:
    found = extract(said, lang)
    assert found.answers["per_user_tokens_per_s"] == 50 and found.leftovers == []


@pytest.mark.parametrize("said, lang, rate", [
    ("llama 3.3 70b, 64 users, 8k, 300 tok/s in total", "en", 300),
    ("llama 3.3 70b, 64 users, 8k, a throughput of 3000 tok/s", "en", 3000),
    ("llama 3.3 70b, 64 utilisateurs, 8k, un débit de 300 tok/s", "fr", 300),
    ("llama 3.3 70b, 64 utilisateurs, 8k, 2000 jetons par seconde au total", "fr", 2000),
])
def test_a_total_said_with_its_words_is_a_total_and_leaves_nothing_unused(
        said: str, lang: str, rate: float) -> None:
    found = extract(said, lang)
    assert found.answers["target_tokens_per_s"] == rate and found.leftovers == []
    assert "target_tokens_per_s" not in found.unsure


@pytest.mark.parametrize("said, lang", [
    ("llama 3.3 70b, 200 users, 8k, at 20 tok/s", "en"),
    ("llama 3.3 70b, 200 utilisateurs, 8k, 20 jetons par seconde", "fr"),
])
def test_a_small_rate_said_of_no_one_is_asked_whose_it_is(said: str, lang: str) -> None:
    found = extract(said, lang)
    assert "target_tokens_per_s" not in found.answers
    assert "per_user_tokens_per_s" not in found.answers
    asked = found.unsure["target_tokens_per_s"]
    assert [o.answers for o in asked.options] == [{"per_user_tokens_per_s": 20},
                                                  {"target_tokens_per_s": 20}]


@pytest.mark.parametrize("said, lang", [
    ("training llama 3.1 8b on 1B tokens in 5 days", "en"),
    ("entraîner llama 3.1 8b sur 1 milliard de jetons", "fr"),
])
def test_training_of_no_kind_asks_which_among_the_training_workloads(said: str,
                                                                      lang: str) -> None:
    # never sized, never offered as inference: the person said training
    found = extract(said, lang)
    assert "workload" not in found.answers and found.leftovers == []
    unsure = found.unsure["workload"]
    assert unsure.text.id == "dialogue.confirm.training"
    assert [o.answers for o in unsure.options] == [
        {"workload": w} for w in ("lora", "qlora", "full-finetune", "pretrain")]


@pytest.mark.parametrize("said, lang, workload", [
    ("training llama 3.1 8b from scratch on 1T tokens", "en", "pretrain"),
    ("je voudrais entraîner un lora sur mistral 7b avec 500M de tokens", "fr", "lora"),
    ("full training of llama 3.1 8b", "en", "full-finetune"),
])
def test_training_with_its_kind_said_takes_it_and_uses_every_word(said: str, lang: str,
                                                                  workload: str) -> None:
    found = extract(said, lang)
    assert found.answers["workload"] == workload and found.leftovers == []



@pytest.mark.parametrize("said, lang, workload, tokens, days", [
    ("On voudrait fine-tuner Qwen 2.5 72B en LoRA sur 500 millions de tokens, en 10 jours "
     "max, serveurs reliés en 100 GbE", "fr", "lora", 5e8, 10),
    ("We'd like to fine-tune Llama 3.1 8B with QLoRA on 200 million tokens within 3 days "
     "at most", "en", "qlora", 2e8, 3),
    ("fine-tuner mistral 7b en lora sur 2 milliards de jetons, 2 semaines maximum", "fr",
     "lora", 2e9, 14),
])
def test_a_training_request_in_everyday_words_uses_every_word(
        said: str, lang: str, workload: str, tokens: float, days: float) -> None:
    """A plural scale ('500 millions'), a deadline with its 'max', the French verb
    'fine-tuner' and a contraction ('we'd') are all read: nothing is reported unused."""
    found = extract(said, lang)
    assert found.answers["workload"] == workload
    assert found.answers["train_tokens"] == tokens
    assert found.answers["deadline_days"] == days
    assert found.leftovers == []


def test_a_french_fine_tune_with_few_words_is_french() -> None:
    assert language.detect("on aimerait fine-tuner mistral 7b") == "fr"
    # the kind of fine-tune is asked, not guessed
    assert isinstance(names.workload("fine-tuner"), Proposal)

@pytest.mark.parametrize("said, lang, fmt", [
    ("llama 3.1 70b en bf16 pour 32 utilisateurs", "fr", "bf16"),
    ("llama 3.1 70b in FP16, 32 users", "en", "fp16"),
    ("llama 3.1 70b with 16-bit weights", "en", "bf16"),
    ("llama 3.1 70b in nvfp4", "en", "nvfp4"),
    ("llama 3.1 70b en 8 bits", "fr", "fp8"),
])
def test_a_weight_format_is_read(said: str, lang: str, fmt: str) -> None:
    found = extract(said, lang)
    assert found.answers["precision"] == fmt and found.leftovers == []


@pytest.mark.parametrize("said", [
    "llama 3.1 70b for 32 users with an fp8 kv cache",  # the cache's format, not the weights'
    "llama 3.1 70b pour 32 utilisateurs, cache KV en fp8",
    "llama-3.1-70b-instruct-fp8 for 32 users",  # a checkpoint's name
    "llama 3.1 70b for 32 users, not in bf16",  # refused
])
def test_a_format_that_is_not_the_weights_is_not_taken(said: str) -> None:
    assert "precision" not in extract(said).answers


@pytest.mark.parametrize("said, lang, weights, kv", [
    ("llama 3.1 70b for 32 users with an fp8 kv cache", "en", None, "fp8"),
    ("llama 3.1 70b pour 32 utilisateurs, cache KV en fp8, poids en bf16", "fr", "bf16", "fp8"),
    ("llama 3.1 70b in fp8 with a bf16 kv cache", "en", "fp8", "bf16"),
])
def test_the_kv_caches_format_is_its_own_answer(said: str, lang: str, weights: str | None,
                                                kv: str) -> None:
    found = extract(said, lang)
    assert found.answers.get("precision") == weights and found.answers["kv_precision"] == kv
    assert found.leftovers == []


def test_what_the_opening_inferred_is_marked() -> None:
    found = extract("deepseek r1 for our 50 employees")
    assert found.answers["workload"] == "inference" and "workload" in found.inferred
    found = extract("llama-3.1-70b-instruct-awq")
    assert found.answers == {"model": "llama-3.1-70b", "int4": True}
    assert found.inferred == {"int4"}


def test_a_refusal_of_int4_in_an_opening_is_a_no() -> None:
    found = extract("llama 3.1 405b inference, we'd prefer to avoid int4 for quality")
    assert found.answers["int4"] is False


def test_a_negative_count_in_an_opening_is_not_taken() -> None:
    found = extract("llama 3.1 8b inference -64 users")
    assert "concurrency" not in found.answers and any("64" in w for w in found.leftovers)


@given(n=st.integers(min_value=1, max_value=999))
def test_spelled_numbers_read_as_their_digits(n: int) -> None:
    units, tens = numbers._EN_UNITS, numbers._EN_TENS
    spoken = []
    if n >= 100:
        spoken += [units[n // 100], "hundred"]
    r = n % 100
    if r >= 20:
        spoken.append(tens[r // 10 - 2])
        if r % 10:
            spoken.append(units[r % 10])
    elif r:
        spoken.append(units[r])
    assert numbers.concurrency(" ".join(spoken)) == n


@pytest.mark.parametrize("said, lang", [
    ("Nous devons résumer 2 millions de documents de 3000 tokens chacun en une semaine avec "
     "Llama 3.3 70B", "fr"),
    ("we must summarize 2M docs of 3k tokens in a week with llama 3.3 70b", "en"),
    ("2M documents of 3k tokens in 7 days with llama 3.3 70b", "en"),
])
def test_a_batch_due_in_a_week_is_read_whole(said: str, lang: str) -> None:
    """'en une semaine' / 'in a week' is one week; '3k tokens in 7 days' is the documents'
    size and the deadline, not a prompt of 3k tokens 'in'; 'résumer' is serving."""
    found = extract(said, lang)
    assert found.answers["documents"] == 2_000_000 and found.answers["batch_days"] == 7.0
    assert found.answers["document_tokens"] in (3000, 3072)
    assert found.answers["workload"] == "inference"
    assert found.leftovers == [] and found.refusals == []


def test_a_rate_a_day_is_not_read_as_one_day() -> None:
    found = extract("10k requests a day with llama 3.1 8b", "en")
    assert found.answers["requests_per_s"] == pytest.approx(10_000 / 86_400, rel=1e-4)
    assert "deadline_days" not in found.answers


def test_tokens_in_and_out_of_a_request() -> None:
    found = extract("llama 3.1 8b 50 users 2k tokens in, 500 out", "en")
    assert (found.answers["prompt_tokens"], found.answers["output_tokens"]) == (2048, 500)
    assert found.leftovers == []


def test_words_that_size_nothing_are_not_reported_unused() -> None:
    found = extract("chatbot interne pour 2000 salariés avec llama 3.3 70b, contexte 16k", "fr")
    assert found.answers["users_total"] == 2000 and found.leftovers == []


def test_an_elided_article_alone_is_not_reported_unused() -> None:
    found = extract("On veut pré-entraîner un modèle de 7B sur 2T de tokens en 30 jours sur "
                    "des H100 avec de l'InfiniBand", "fr")
    assert found.answers["interconnect"] == "ib-200" and found.answers["workload"] == "pretrain"
    assert found.leftovers == []


@pytest.mark.parametrize("said, key, value", [
    ("llama 3.1 70b between 40 and 60 users", "concurrency", 60),
    ("llama 3.1 70b 40-60 users", "concurrency", 60),
    ("llama 3.1 70b, entre 40 et 60 utilisateurs", "concurrency", 60),
    ("llama 3.1 70b, 2 à 3 requêtes par seconde", "requests_per_s", 3.0),
    ("llama 3.1 70b, une cinquantaine d'utilisateurs en même temps", "concurrency", 50),
    ("llama 3.1 70b pour une centaine de personnes en simultané", "concurrency", 100),
    ("a dozen users on llama 3.1 70b", "concurrency", 12),
    ("qwen 2.5 7b 1k-2k users", "concurrency", 2000),
])
def test_a_range_or_an_approximate_count_is_read_as_its_peak(said: str, key: str,
                                                             value: float) -> None:
    """A sizing carries the peak: a range is read as its upper end, 'une cinquantaine' as
    50; the model beside it stays what it is ('70b, 2 à 3' is no 'Llama 2')."""
    found = extract(said, "fr")
    assert found.answers[key] == value
    assert "model" in found.answers and found.leftovers == [] and not found.unsure


@pytest.mark.parametrize("said", ["3.1-70b", "2026-12-15", "3 to 2"])
def test_what_is_no_rising_range_is_left_alone(said: str) -> None:
    assert numbers.approximate(said) == said


def test_controls_and_invisible_characters_are_never_read_nor_quoted_back() -> None:
    """A right-to-left override, a zero-width space or a bell typed (or pasted) in a message
    means nothing: the words around it are read, and the 'did not use' list never carries
    one (it was quoted back as a word of its own)."""
    found = extract("llama 3.1 70b \u202e inference 64 us\u200bers\x07 8k context blah", "en")
    assert found.answers["concurrency"] == 64 and found.answers["workload"] == "inference"
    assert found.leftovers == ["blah"]


@pytest.mark.parametrize("said, lang", [
    ("deepseek-v3 for our support team of 300 agents", "en"),
    ("deepseek-v3 pour notre équipe de 300 développeurs", "fr"),
])
def test_a_team_of_people_is_a_headcount_with_nothing_left_over(said: str, lang: str) -> None:
    found = extract(said, lang)
    assert found.answers["users_total"] == 300
    assert [w for w in found.leftovers if w not in ("support",)] == []


@pytest.mark.parametrize("said, lang", [
    ("Client veut un serveur pour faire du RAG avec Llama 3.3 70B, 100 utilisateurs, "
     "contexte 32k", "fr"),
    ("the customer wants llama 3.3 70b for 100 users, 32k context", "en"),
    ("llama 3.3 70b for 100 users, 32k context, at least 30 tok/s per user", "en"),
    ("llama 3.3 70b pour 100 utilisateurs, contexte 32k, au moins 30 tok/s par utilisateur",
     "fr"),
])
def test_a_sales_reps_words_about_the_customer_are_not_reported_unused(said: str,
                                                                      lang: str) -> None:
    found = extract(said, lang)
    assert found.answers["concurrency"] == 100 and found.leftovers == []


@pytest.mark.parametrize("said, lang", [
    ("un modèle MoE de 120B dont 12B actifs, inférence, 50 utilisateurs, 8k", "fr"),
    ("an MoE of 120B with 12B active, inference, 50 users, 8k", "en"),
])
def test_an_moe_said_before_its_counts_is_read_whole_and_shown_with_its_units(
        said: str, lang: str) -> None:
    """'MoE' before the counts was quoted back unused; the summary said 'a 120B-parameter
    dense model' and 'Active parameters: 12' (no unit)."""
    from dialogue.keys import KEYS
    from dialogue.wording import catalog as words

    found = extract(said, lang)
    assert (found.answers["model"], found.answers["active_params_b"]) == (120, 12)
    assert found.leftovers == []
    model = words().render(KEYS["model"].show(120.0), lang)
    active = words().render(KEYS["active_params_b"].show(12.0), lang)
    assert "dense" not in model and "120" in model
    assert active in ("12B", "12\u202fMd")


@pytest.mark.parametrize("said, lang, total, at_once", [
    ("llama 3.1 8b pour 3000 de nos employés", "fr", 3000, 3000),
    ("llama 3.1 8b for 3000 of our employees", "en", 3000, 3000),
    ("llama 3.1 8b for 64 of our users at once", "en", None, 64),
    ("llama 3.1 8b pour 64 de nos utilisateurs en même temps", "fr", None, 64),
])
def test_people_said_as_of_our_are_read(said: str, lang: str, total: int | None,
                                        at_once: int) -> None:
    found = extract(said, lang)
    assert found.answers.get("users_total") == total
    assert found.answers["concurrency"] == at_once and found.leftovers == []


@pytest.mark.parametrize(("said", "int4", "assumed"), [
    ("llama3.1 70b 4bit, 32 concurrent, 8k", True, True),  # named beside the model: asked
    ("llama 3.1 70b, 32 concurrent, 8k, int 4 ok", True, False),
    ("llama 3.1 70b, 32 concurrent, 8k, we dont want 4-bit", False, False),
    ("llama 3.1 70b, 32 concurrent, 8k, we do not want 4-bit", False, False),
    ("llama 3.1 70b, 32 concurrent, 8k, nous refusons toute quantification en 4 bits", False,
     False),
])
def test_four_bit_said_beside_a_model_is_read_and_a_refusal_wins(
        said: str, int4: bool, assumed: bool) -> None:
    """4-bit named beside a model is its consent (confirmed by a question where it matters),
    never part of the model's name; any refusal of it is a no."""
    found = extract(said)
    assert found.answers["model"] == "llama-3.1-70b"
    assert found.answers["int4"] is int4 and ("int4" in found.inferred) is assumed


def test_a_count_of_gpus_past_one_node_is_whole_nodes() -> None:
    """'we have 16 H100' is two nodes of eight (no HGX board holds 16), '4x L40S' one of 4."""
    found = extract("llama 3.1 8b training, we have 16 H100")
    assert (found.answers["gpus_per_node"], found.answers["nodes_owned"]) == (8, 2)
    found = extract("llama 3.1 8b inference 30 concurrent 8k on 32 H200")
    assert (found.answers["gpus_per_node"], found.answers["nodes_owned"]) == (8, 4)
    found = extract("llama 3.1 8b inference 30 concurrent 8k on our 4x L40S")
    assert found.answers["gpus_per_node"] == 4
