"""The answer and its alternatives side by side: one table, for the card and the brief.

Why one room for both faces: "Compare with another GPU" on the card and the brief's options
table must show the same rows with the same figures. Each row is the engine's own numbers
(``Recommendation.numbers`` for the answer, ``Alternative.numbers`` for each alternative):
the GPUs it runs on, per-user speed, first token and requests/s for serving, days and
GPU-months for training, and its power at the cards' rated board power (``board_power_w``
of engine/data/gpus.toml, each with its source): GPUs x watts, nothing estimated beyond the
datasheet figure. Every cell is a message (bot/messages/options.*.toml), so the table reads
the same in English and French wherever it is drawn.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.catalog import catalog
from engine.result import Alternative, Numbers, Recommendation, verdict_name
from engine.wording import Message, msg, text

__all__ = ["OptionsTable", "options_table"]


@dataclass(frozen=True)
class OptionsTable:
    """Column headings, one row of cells per option (the answer first), which row is the
    answer, and the note that says where the power figures come from."""

    columns: tuple[Message, ...]
    rows: tuple[tuple[Message, ...], ...]
    power_note: Message
    numeric: tuple[bool, ...]


def _gpus(numbers: Numbers, nodes: int, per_node: int) -> int:
    return numbers.gpus_needed or nodes * per_node


def _figure(value: float | None, ident: str) -> Message:
    return msg("options.cell.none") if value is None else msg(ident, v=value)


def _row(gpu: str, nodes: int, gpus: int, numbers: Numbers, verdict: Message,
         training: bool, option: Message) -> tuple[Message, ...]:
    watts = catalog().gpus[gpu].board_power_w
    cells: list[Message] = [option, msg("options.cell.count", v=nodes),
                            msg("options.cell.count", v=gpus)]
    if training:
        cells += [_figure(numbers.days, "options.cell.days"),
                  _figure(numbers.gpu_months, "options.cell.short")]
    else:
        cells += [_figure(numbers.per_user_tokens_per_s, "options.cell.rate"),
                  _figure(numbers.ttft_s, "options.cell.seconds"),
                  _figure(numbers.requests_per_s, "options.cell.requests")]
    cells += [msg("options.cell.kw", v=gpus * watts / 1000.0, gpus=gpus, watts=watts), verdict]
    return tuple(cells)


def _option(a: Alternative, rec: Recommendation) -> tuple[Message, ...]:
    per_node = rec.gpus_per_node
    verdict = (verdict_name(a.verdict, per_node) if a.verdict is not None
               else msg("options.cell.same_verdict"))
    return _row(a.gpu, a.nodes, _gpus(a.numbers, a.nodes, per_node), a.numbers, verdict,
                rec.workload != "inference", a.label)


def options_table(rec: Recommendation) -> OptionsTable:
    """The answer and its alternatives, one row each (the answer first)."""
    training = rec.workload != "inference"
    gpus = _gpus(rec.numbers, rec.nodes, rec.gpus_per_node)
    answer = _row(rec.gpu, rec.nodes, gpus, rec.numbers,
                  verdict_name(rec.verdict, rec.gpus_per_node), training,
                  msg("options.cell.answer", gpu=text(rec.gpu_name)))
    rows = [answer, *(_option(a, rec) for a in rec.alternatives)]
    kinds = ("days", "gpu_months") if training else ("per_user", "ttft", "requests")
    columns = tuple(msg(f"options.col.{c}")
                    for c in ("option", "nodes", "gpus", *kinds, "power", "verdict"))
    numeric = (False, True, True, *(True for _ in kinds), True, False)
    return OptionsTable(columns=columns, rows=tuple(rows),
                        power_note=msg("options.power_note"), numeric=numeric)
