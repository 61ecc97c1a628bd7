"""The answer and its alternatives side by side: the card's table and the figures in it."""

from __future__ import annotations

import pytest

from bot.options import options_table
from bot.slack import cards
from bot.slack.cards.words import Words
from bot.slack.keys import ConversationKey
from dialogue.reply import Reply
from engine import units
from engine.catalog import catalog
from engine.decision import recommend
from engine.request import SizingRequest
from engine.result import Recommendation
from tests.bot.test_cards import valid

KEY = ConversationKey.thread("T1", "C1", "1.1", "U1")


def _card_table(rec: Recommendation, lang: units.Lang) -> list[list[str]]:
    reply = Reply(kind="result", conversation_id="c", version=2, state="done", language=lang,
                  text=rec.headline, recommendation=rec)
    message = valid(cards.render(reply, KEY))
    (table,) = [b for b in message["blocks"] if b["type"] == "table"]
    return [[c["text"] for c in row] for row in table["rows"]]


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_card_sets_the_answer_beside_each_alternative(lang: units.Lang) -> None:
    rec = recommend(SizingRequest(model="llama-3.1-70b", concurrency=64))
    w = Words(lang)
    head, answer, *others = _card_table(rec, lang)
    assert len(others) == len(rec.alternatives) >= 3
    assert head[0] == w.plain(options_table(rec).columns[0]) and len(head) == 8
    assert rec.gpu_name in answer[0]
    n = rec.numbers
    assert answer[1:6] == [units.count(rec.nodes, lang), units.count(n.gpus_needed or 0, lang),
                           units.rate(n.per_user_tokens_per_s or 0, lang),
                           units.seconds(n.ttft_s or 0, lang),
                           units.short(n.requests_per_s or 0, lang)]
    # power: the GPUs at the cards' rated board power (8 x 600 W)
    watts = catalog().gpus[rec.gpu].board_power_w
    assert answer[6].startswith(units.short((n.gpus_needed or 0) * watts / 1000, lang))
    for row, alt in zip(others, rec.alternatives, strict=True):
        assert row[0] == w.plain(alt.label)
        assert row[3] == units.rate(alt.numbers.per_user_tokens_per_s or 0, lang)


def test_a_training_table_shows_days_and_gpu_months() -> None:
    rec = recommend(SizingRequest(model="llama-3.1-70b", workload="full-finetune"))
    head, answer, *_ = _card_table(rec, "en")
    w = Words("en")
    assert w.plain(options_table(rec).columns[3]) == head[3]
    assert answer[3] == units.days(rec.numbers.days or 0, "en")
    assert answer[4] == units.short(rec.numbers.gpu_months or 0, "en")


def test_every_gpu_has_a_sourced_board_power() -> None:
    for gpu in catalog().gpus.values():
        assert gpu.board_power_w > 0 and f"{gpu.board_power_w:.0f} W" in gpu.board_power_source
