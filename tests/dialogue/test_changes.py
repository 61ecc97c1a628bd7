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
