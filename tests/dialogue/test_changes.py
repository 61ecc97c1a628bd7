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
