"""A change said after the card is applied: the next card shows it (a refused GPU is not the
card's GPU, a format chosen is the card's format), through the JSON console's code path."""

from __future__ import annotations

from bot import jsonface
from dialogue import Dialogue, MemoryStore, Reply

FIXED = 1764590400.0


def converse(*lines: str) -> list[Reply]:
    d = Dialogue(MemoryStore(), clock=lambda: FIXED)
    return list(jsonface.converse(d, lines[0], list(lines[1:])))


def test_keeping_fp8_after_accepting_4_bit_gives_an_fp8_card() -> None:
    *_, accepted, _, card = converse("DeepSeek-R1 inference 64 users 8k context", "yes",
                                        "no, keep FP8 instead", "")
    assert accepted.recommendation is not None
    assert accepted.recommendation.precision == "nvfp4"
    assert card.recommendation is not None and card.state == "done"
    assert card.recommendation.precision == "fp8"


def test_the_cards_gpu_refused_is_asked_again_and_never_the_cards() -> None:
    first, refused, card = converse("llama 3.3 70b inference 32 users 8k context on h200",
                                    "not on h200 actually", "")
    assert first.recommendation is not None and first.recommendation.gpu == "h200"
    assert refused.state == "gpu"
    assert card.recommendation is not None and card.recommendation.gpu != "h200"


def _answers(reply: Reply) -> dict[str, object]:
    return dict(jsonface.view(reply)["answers"])


def test_a_change_said_relative_to_the_card_multiplies_its_values_and_says_both() -> None:
    *_, doubled, halved = converse("serve llama 3.1 8b for 50 concurrent users, 8k context",
                                   "Thanks, very clear! And what if 2x the concurrency?",
                                   "Et avec un contexte deux fois moins long ? Merci !")
    assert _answers(doubled)["concurrency"] == 100
    assert "users_total" not in _answers(doubled)  # requests at once stay requests
    assert "50 -> 100" in str(jsonface.view(doubled)["text"])
    assert _answers(halved)["context"] == 4096


def test_a_relative_change_of_a_training_set_keeps_its_other_parts() -> None:
    *_, card = converse("LoRA on Mistral 7B, 20k examples of 1k tokens, 3 epochs, in 2 weeks",
                        "Et si on a 2 fois plus d'exemples ?")
    got = _answers(card)
    assert got["examples"] == 40000 and got["epochs"] == 3
    assert got["train_tokens"] == 120_000_000


def test_a_why_inside_a_polite_message_is_answered_and_changes_nothing() -> None:
    *_, why = converse("serve llama 3.1 8b for 500 concurrent users, 8k context", "",
                             "C'est parfait, merci. Par simple curiosité, pourquoi autant "
                             "de GPU ? Je voudrais pouvoir l'expliquer au client.")
    assert any(n.text.id == "dialogue.notice.why" for n in why.notices)
    assert _answers(why)["concurrency"] == 500


def test_a_clause_restating_the_card_is_not_the_change() -> None:
    *_, card = converse("serve llama 3.1 8b for 80 concurrent users, 16k context",
                        "Ils trouvent que 20 tokens par seconde, c'est un peu lent : et avec "
                        "40 tokens par seconde par utilisateur ?")
    assert _answers(card)["per_user_tokens_per_s"] == 40


def _stepwise(d: Dialogue, lang: str = "en") -> Reply:
    """Model, workload, load and context, one question at a time."""
    if lang == "fr":
        d.start("k", "on veut servir llama 3.1 8b")
        for said in ("inférence", "25 utilisateurs"):
            d.handle("k", said)
        return d.handle("k", "8k")
    d.start("k", "llama 3.1 8b")
    for said in ("inference", "25 users"):
        d.handle("k", said)
    return d.handle("k", "8k")


def test_the_same_answers_give_the_same_card_at_once_or_one_at_a_time() -> None:
    once = Dialogue(MemoryStore()).start("k", "llama 3.1 8b inference 25 users 8k")
    step = _stepwise(Dialogue(MemoryStore()))
    assert once.kind == step.kind == "result" and once.request == step.request
    assert step.sources["per_user_tokens_per_s"] == "assumed"
    assert "dialogue.notice.assumed" in [n.text.id for n in step.notices]
    # what was assumed (the speed, the headcount all at once) is one click to change, first
    assert [n.value for n in step.nav[:2]] == ["change concurrency", "change target"]


def test_what_the_speed_question_reads_is_read_after_the_card() -> None:
    """Typed after a card that assumed the speed, each reads as at the speed question."""
    cases = [("en", "30 tok/s per user", {"per_user_tokens_per_s": 30.0}, "said"),
             ("en", "as fast as ChatGPT", {"per_user_tokens_per_s": 40.0}, "assumed"),
             ("fr", "aussi rapide que ChatGPT", {"per_user_tokens_per_s": 40.0}, "assumed"),
             ("en", "none", {"target_tokens_per_s": None}, "said"),
             ("en", "no target", {"target_tokens_per_s": None}, "said"),
             ("fr", "pas d'objectif", {"target_tokens_per_s": None}, "said"),
             ("fr", "aucun", {"target_tokens_per_s": None}, "said")]
    for lang, said, want, source in cases:
        d = Dialogue(MemoryStore())
        _stepwise(d, lang)
        r = d.handle("k", said)
        assert r.kind == "result" and r.language == lang, (said, r.error)
        assert {k: r.request.get(k) for k in want} == want, said
        assert r.sources[next(iter(want))] == source, said
        assert "dialogue.notice.changed" in [n.text.id for n in r.notices], said
    d = Dialogue(MemoryStore())
    _stepwise(d)
    r = d.handle("k", "30 tok/s")  # per user or in total: asked at the speed question
    assert r.asking == "target_tokens_per_s" and r.text.id == "dialogue.confirm.speed"
    d = Dialogue(MemoryStore())
    _stepwise(d)
    assert d.handle("k", "change speed").asking == "target_tokens_per_s"


def test_a_bare_no_or_number_after_the_card_is_no_speed() -> None:
    for said in ("no", "non", "30"):
        d = Dialogue(MemoryStore())
        _stepwise(d)
        r = d.handle("k", said)
        assert r.request["per_user_tokens_per_s"] == 20.0, said
        assert r.sources["per_user_tokens_per_s"] == "assumed", said
