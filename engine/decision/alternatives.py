"""The alternatives: other GPUs and other precisions worth showing beside the verdict.

Each walks the same tree (engine/decision/tree.py, the trap avoided) on the facts of the
same request with one thing changed: another GPU of the catalog (the two best the vendor
builds, and the best part it only compares against), or INT4 weights on the same node. The
facts are built once per GPU and reuse the model already resolved; an alternative needs
only the deployment the walk ends on, so no other answer is written up, and nothing calls
``recommend`` again. At most four alternatives are shown, the runner-up layout (or the
request as asked, when the trap moved it) first.
"""

from __future__ import annotations

from typing import Literal

from engine.decision.facts import Facts
from engine.decision.trap import final
from engine.errors import UnsizableRequest
from engine.result import VERDICT_IDS, Alternative, Numbers, Recommendation, Verdict
from engine.wording import Message, msg

Kind = Literal["gpu", "precision"]

__all__ = ["MAX_ALTERNATIVES", "alternatives", "summary"]

MAX_ALTERNATIVES = 4


def summary(verdict: Verdict, nodes: int, n: Numbers) -> Message:
    """An answer in a few figures: 'One 8-GPU node, 1,203 tok/s per node, up to 220 ...'."""
    parts: list[Message] = [msg(VERDICT_IDS[verdict])]
    if nodes > 1:
        parts.append(msg("summary.nodes", nodes=nodes))
    if n.node_tokens_per_s:
        parts.append(msg("summary.rate", tokens_per_s=n.node_tokens_per_s))
    if n.max_concurrency:
        parts.append(msg("summary.concurrency", concurrency=n.max_concurrency))
    if n.days is not None and verdict != "frontier":
        parts.append(msg("summary.days", days=n.days))
    if n.gpu_months and verdict == "frontier":
        parts.append(msg("summary.gpu_months", gpu_months=n.gpu_months))
    return msg("alternative.summary", parts=parts)


def _option(facts: Facts, kind: Kind, label: Message) -> tuple[tuple[int, int], Alternative]:
    """The answer on ``facts`` as an alternative, with its rank (step, then GPUs)."""
    decided_on, step, d = final(facts)
    alt = Alternative(kind=kind, label=label, verdict=d.verdict, gpu=decided_on.gpu.id,
                      nodes=d.total_nodes, precision=d.precision, layout=d.layout,
                      summary=summary(d.verdict, d.total_nodes, d.numbers), numbers=d.numbers)
    return (step, d.total_nodes * decided_on.gpn), alt


def _other_gpus(facts: Facts) -> list[Alternative]:
    ranked: list[tuple[tuple[int, int, int], Alternative]] = []
    for gpu in facts.catalog.gpus.values():
        if gpu.id == facts.gpu.id:
            continue
        label_id = "hardware.node" if gpu.vendor_builds else "hardware.comparison"
        try:
            rank, alt = _option(facts.other(gpu=gpu.id), "gpu",
                                msg(label_id, gpus=facts.gpn, gpu=gpu.name))
        except UnsizableRequest:
            continue
        ranked.append(((*rank, 0 if gpu.vendor_builds else 1), alt))
    ranked.sort(key=lambda c: c[0])
    vendor = [a for key, a in ranked if key[2] == 0][:2]
    compare = [a for key, a in ranked if key[2] == 1][:1]
    return [*vendor, *compare]


def _int4(facts: Facts, rec: Recommendation) -> list[Alternative]:
    r = facts.request
    if r.is_training or rec.verdict != "single_node" or not r.allow_int4 \
            or rec.precision == "int4":
        return []
    _, alt = _option(facts.other(precision="int4"), "precision", msg("alternative.int4"))
    return [alt.model_copy(update={
        "precision": "int4", "summary": msg("alternative.int4_summary", summary=alt.summary)})]


def alternatives(facts: Facts, rec: Recommendation) -> list[Alternative]:
    """``rec``'s own alternatives (runner-up or as asked), then other GPUs, then INT4."""
    out = list(rec.alternatives)
    seen = {a.label for a in out}
    for option in _other_gpus(facts):
        if option.label not in seen:
            out.append(option)
            seen.add(option.label)
    out.extend(_int4(facts, rec))
    return out[:MAX_ALTERNATIVES]
