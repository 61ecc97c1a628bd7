"""A chart says "Asked" only for what the person asked: a bound the bot assumed is labelled
assumed, in both languages, in the engine's drawing and in the faces' charts."""

from __future__ import annotations

import pytest
from matplotlib.figure import Figure

from bot import charts as bot_charts
from bot.brief.command import sized
from bot.wording import say
from engine.charts import figures, render
from engine.decision.curves import curves
from engine.request import SizingRequest
from engine.units import Lang
from engine.wording import msg

BOUNDS = SizingRequest(model="llama-3.1-70b", concurrency=64, context=8192,
                       per_user_tokens_per_s=20, ttft_s=4)


def _legend(req: SizingRequest, lang: Lang, assumed: frozenset[str]) -> list[str]:
    fig = figures(curves(req), lang, assumed)["load"]
    return [" ".join(t.get_text().split()) for t in fig.legends[0].get_texts()]


def _line(ident: str, lang: Lang, **params: float) -> str:
    return " ".join(say(msg(ident, **params), lang).split())


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_an_assumed_speed_is_labelled_assumed_and_an_asked_one_asked(lang: Lang) -> None:
    asked = _legend(BOUNDS, lang, frozenset())
    assert _line("chart.load.speed_target", lang, speed=20) in asked
    assert _line("chart.load.ttft_target", lang, ttft=4) in asked
    mixed = _legend(BOUNDS, lang, frozenset({"per_user_tokens_per_s"}))
    assert _line("chart.load.speed_assumed", lang, speed=20) in mixed
    assert _line("chart.load.speed_target", lang, speed=20) not in mixed
    assert _line("chart.load.ttft_target", lang, ttft=4) in mixed  # the bound they gave


@pytest.mark.parametrize(("lang", "opening"), [
    ("en", "llama 3.1 70b inference for 200 employees, 8k context"),
    ("fr", "nous voulons servir Llama 3.3 70B à 50 utilisateurs, contexte 8k"),
])
def test_the_bots_charts_say_assumed_for_the_speed_it_assumed(lang: Lang, opening: str) -> None:
    reply = sized(opening, lang, ["no"])  # keep FP8 if 4-bit is asked about
    assert reply.sources["per_user_tokens_per_s"] in ("assumed", "default")
    req, rec = bot_charts.request_of(reply), reply.recommendation
    assert "per_user_tokens_per_s" in req.assumed  # the request says what was assumed
    c = curves(req, rec)
    assert c.load is not None and c.load.per_user_target is not None
    speed = c.load.per_user_target
    # the images the faces show, drawn from that request
    with bot_charts._LOCK:
        bot_charts._KEPT.clear()
    drawn = bot_charts.charts_of(reply, lang)
    assert drawn.images[0].png == render(req, rec, lang)[0].png
    legend = _legend_of(figures(c, lang, req.assumed)["load"])
    assert _line("chart.load.speed_assumed", lang, speed=speed) in legend
    assert _line("chart.load.speed_target", lang, speed=speed) not in legend
    asked = _legend_of(figures(c, lang, ())["load"])  # the same speed, had it been asked
    assert _line("chart.load.speed_target", lang, speed=speed) in asked


def _legend_of(fig: Figure) -> list[str]:
    return [" ".join(t.get_text().split()) for t in fig.legends[0].get_texts()]
