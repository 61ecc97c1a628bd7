"""Page one of a brief: what a rep forwards unedited.

Why a page of its own: the person reading a brief first wants the answer in plain words, the
speed each user will see, the first token, what was assumed for them, the load (or training)
curve and the options side by side; the engineering behind it (how each kernel was measured,
bytes per token, the formulas, catalog ids) is for the vendor's engineers and lives in the
internal copy's appendix only (bot/brief/build.py). Everything here is the engine's figures
and messages, or the answers with the source the dialogue recorded.

Which of the engine's assumptions reach a customer is a list of ids (:data:`CUSTOMER_SAFE`):
the ones that change what the customer gets (a context capped, a target carried by copies, a
speed no copy can reach, the budget or deadline the engine took). Any other, and any added
later, stays in the internal copy, so a new engineering note never reaches a customer by
default.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.brief.content import Chart, Row, Section
from bot.options import options_table
from dialogue.reply import AnswerView
from engine.catalog import catalog
from engine.result import Recommendation
from engine.wording import Message, msg, text

__all__ = ["CUSTOMER_SAFE", "PAGE_ONE_CHARTS", "customer_assumptions", "page_one"]

CUSTOMER_SAFE = frozenset({
    "assumption.context_capped", "assumption.request_shape", "assumption.target_replicas",
    "assumption.target_clusters", "assumption.tokens_pretrain", "assumption.tokens_finetune",
    "assumption.deadline", "assumption.little", "assumption.native",
    "assumption.bounds_unreachable",
})
#: The chart page one shows: the load curve (serving) or days against nodes (training).
PAGE_ONE_CHARTS = ("load", "training")
#: Width of page one's chart: the rest of the page must hold the options table.
CHART_MM = 100.0
#: Numbers field -> (label id, value id) of the key figures, in the order they are read.
_SERVING = (("per_user_tokens_per_s", "brief.key.per_user", "brief.val.rate"),
            ("ttft_s", "brief.key.ttft", "brief.val.seconds"),
            ("requests_per_s", "brief.key.requests", "brief.val.requests"),
            ("total_tokens_per_s", "brief.key.tokens", "brief.val.rate"))
_TRAINING = (("days", "brief.key.days", "brief.val.days"),
             ("gpu_months", "brief.key.gpu_months", "brief.val.short"),
             ("scaling_efficiency", "brief.key.efficiency", "brief.val.pct"))
_SOURCE = {"assumed": "brief.source.assumed", "default": "brief.source.default"}


def link_name(link: str) -> str:
    """A link as people name it ('InfiniBand HDR 200 Gb/s'), never its catalog id."""
    found = catalog().links.get(link)
    return found.name if found is not None else link


def customer_assumptions(rec: Recommendation) -> list[Message]:
    return [m for m in rec.assumptions if m.id in CUSTOMER_SAFE]


def _answer(rec: Recommendation) -> Section:
    return Section(id="answer", heading=msg("brief.section.answer"), kind="paragraphs",
                   lines=[rec.headline], dense=True)


def _key_figures(rec: Recommendation) -> Section:
    n = rec.numbers
    rows: list[Row] = []
    for field, label, value in (_TRAINING if rec.workload != "inference" else _SERVING):
        figure = getattr(n, field)
        if figure is not None:
            rows.append(Row(label=msg(label), value=msg(value, v=figure)))
    gpus = n.gpus_needed or rec.nodes * rec.gpus_per_node
    rows.append(Row(label=msg("brief.key.gpus"), value=msg("brief.val.count", v=gpus)))
    if n.weights_gb is not None:
        rows.append(Row(label=msg("brief.key.weights"),
                        value=msg("brief.val.weights", v=n.weights_gb,
                                  share=n.weights_share or 0.0,
                                  gpus=rec.layout.tp * rec.layout.pp)))
    # two figures a line: label, value, label, value
    pairs = [[r.label, r.value] for r in rows]
    grid = [[*a, *(b if b else [text(""), text("")])]
            for a, b in zip(pairs[::2], [*pairs[1::2], []], strict=False)]
    heading = msg("brief.section.key_training" if rec.workload != "inference"
                  else "brief.section.key")
    return Section(id="key", heading=heading, kind="grid", grid=grid,
                   numeric=[False, True, False, True], dense=True)


def _assumed(rec: Recommendation, answers: Sequence[AnswerView]) -> Section:
    lines: list[Message] = [msg("brief.assumed_answer", label=a.label, shown=a.shown,
                                source=msg(_SOURCE[a.source]))
                            for a in answers if a.source in _SOURCE]
    lines += customer_assumptions(rec)
    return Section(id="assumed", heading=msg("brief.section.assumed"), kind="bullets",
                   lines=lines or [msg("brief.assumed_none")], dense=True)


def _options(rec: Recommendation) -> Section:
    t = options_table(rec)
    return Section(id="options", heading=msg("options.heading"), kind="grid",
                   columns=list(t.columns), grid=[list(r) for r in t.rows],
                   numeric=list(t.numeric), lines=[t.power_note], dense=True)


def page_one(rec: Recommendation, answers: Sequence[AnswerView],
             charts: Sequence[Chart]) -> list[Section]:
    """The answer, the key figures, what was assumed, the curve and the options table."""
    curve = next((c for kind in PAGE_ONE_CHARTS for c in charts if c.kind == kind), None)
    sections = [_answer(rec), _key_figures(rec), _assumed(rec, answers)]
    if curve is not None:
        sections.append(Section(id="curve", heading=msg(f"brief.section.curve_{curve.kind}"),
                                kind="charts",
                                charts=[curve.model_copy(update={"width_mm": CHART_MM})],
                                dense=True))
    sections.append(_options(rec))
    return sections
