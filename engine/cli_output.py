"""The command line's readable output: the recommendation, the memory table, the rest.

Why its own room beside engine/cli.py: the command line parses and checks; this says the
answer in ``--lang``, from the same data ``--json`` prints, with the engine's messages
(engine/data/messages, the ``cli.*`` ids). No figure is computed here.
"""

from __future__ import annotations

import json
from typing import Any

from engine import units
from engine.decision import terms
from engine.result import Recommendation, verdict_name
from engine.units import Lang
from engine.wording import Message, msg, render

__all__ = ["render_recommendation", "render_result"]


def _table(rows: list[tuple[str, str]]) -> str:
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k.ljust(width)}  {v}" for k, v in rows)


def _fmt(v: Any, lang: Lang) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool) or not isinstance(v, int | float):
        return str(v)
    return units.short(v, lang) if abs(v) < 100 else units.count(v, lang)


_ANSWER_IDS = {"yes": "answer.yes", "no": "answer.no", "not applicable": "answer.not_applicable"}


def render_recommendation(rec: Recommendation, lang: Lang) -> str:
    """The recommendation as a person reads it in a terminal, in ``lang``."""
    def say(m: Message) -> str:
        return render(m, lang)

    lines = [say(rec.headline), ""]
    for q in rec.questions:
        lines.append(say(msg("cli.step", step=q.step, question=q.question)))
        lines.append("  " + say(msg("cli.answer", answer=msg(_ANSWER_IDS[q.answer]),
                                    because=q.because)))
    lines.append("")
    lay = rec.layout
    hardware = msg("hardware.node", gpus=rec.gpus_per_node, gpu=rec.gpu_name)
    rows = [
        (say(msg("cli.verdict")),
         say(msg("cli.verdict_value", verdict=verdict_name(rec.verdict, rec.gpus_per_node),
                                  step=rec.step))),
        (say(msg("cli.hardware")),
         say(msg("cli.hardware_value", nodes=rec.nodes, hardware=hardware))),
        (say(msg("cli.precision")), say(terms.precision(rec.precision))),
        (say(msg("cli.layout")), lay.written),
    ]
    pic = rec.numbers.memory
    if pic is not None:
        seg = pic.per_copy
        value = say(msg("cli.memory_value", weights=seg.weights_gb, work=seg.work_gb,
                        kind=msg(f"cli.work_{seg.work}"), reserve=seg.reserve_gb,
                        used=seg.used_gb, vram=seg.vram_gb, free=seg.free_share))
        if pic.copies > 1:
            value += "; " + say(msg("cli.copies", copies=pic.copies, total=pic.total.used_gb,
                                    total_vram=pic.total.vram_gb))
        rows.append((say(msg("cli.memory")), value))
    rows += [(k, _fmt(v, lang)) for k, v in rec.numbers.model_dump().items()
             if v is not None and k != "memory"]
    lines.append(_table(rows))
    for title, items in (("cli.caveats", rec.caveats), ("cli.assumptions", rec.assumptions),
                         ("cli.math", rec.math)):
        if items:
            lines += ["", say(msg(title))] + [f"  - {say(c)}" for c in items]
    if rec.alternatives:
        lines += ["", say(msg("cli.alternatives"))] + [
            f"  - {say(msg('cli.alternative', label=a.label, summary=a.summary))}"
            for a in rec.alternatives
        ]
    return "\n".join(lines)


def render_result(command: str, d: dict[str, Any], lang: Lang) -> str:
    if command == "recommend":
        return render_recommendation(Recommendation.model_validate(d), lang)
    if command == "catalog":
        out = []
        for kind, key in (("GPUs", "gpus"), ("Links", "links"), ("Models", "models")):
            out.append(f"{kind}:")
            out += [f"  {e['id']:<24} {e['name']}" for e in d[key]]
        return "\n".join(out)
    notes = [render(Message.model_validate(n), lang) for n in d.get("assumptions", [])]
    if command == "memory":
        return _table(memory_rows(d, lang)) + "".join(f"\n  - {n}" for n in notes)
    rows = [(k, _fmt(v, lang)) for k, v in d.items() if not isinstance(v, list | dict)]
    rows += [(k, json.dumps(v)) for k, v in d.items() if isinstance(v, dict)]
    return _table(rows) + "".join(f"\n  - {n}" for n in notes)


def memory_rows(d: dict[str, Any], lang: Lang) -> list[tuple[str, str]]:
    """``memory``'s answer as labelled rows: the weights in the workload's format, the KV
    cache at the load given, the training state when training."""
    def row(label: str, value: Message) -> tuple[str, str]:
        return render(msg(f"cli.mem.{label}"), lang), render(value, lang)

    rows = [
        row("model", msg("text", text=d["model"])),
        row("params", msg("cli.mem.count", v=d["params"])),
    ]
    if d["active_params"] != d["params"]:
        rows.append(row("active", msg("cli.mem.count", v=d["active_params"])))
    rows += [
        row("precision", terms.precision(d["precision"])),
        row("weights", msg("cli.mem.gb", v=d["weights_gb"])),
    ]
    if d.get("training_state_gb") is not None:
        rows += [row("training_state", msg("cli.mem.gb", v=d["training_state_gb"])),
                 row("activations", msg("cli.mem.gb", v=d["activations_gb_per_gpu"]))]
    else:
        rows += [
            row("kv_precision", terms.precision(d["kv_precision"])),
            row("kv_per_token", msg("cli.mem.bytes", v=d["kv_bytes_per_token"])),
            row("kv_cache", msg("cli.mem.kv_cache_value", gb=d["kv_cache_gb"],
                                concurrency=d["concurrency"], context=d["context"])),
        ]
    return rows
