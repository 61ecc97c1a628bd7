"""The alternatives: other GPUs, 4-bit weights and an FP8 KV cache, beside the verdict.

Each walks the same tree (engine/decision/tree.py, the trap avoided) on the facts of the
same request with one thing changed: another GPU of the catalog (the two best the vendor
builds, and the best part it only compares against), 4-bit weights on the same node, or an
FP8 KV cache when it changes the answer (serving stacks commonly run one; the article's
sizing is in BF16). The facts are built once per GPU and reuse the model already resolved;
an alternative needs only the deployment the walk ends on, so no other answer is written
up, and nothing calls ``recommend`` again.

Why it stays cheap: the other GPUs are first ranked by what memory alone decides (which
step would hold the model, on how many GPUs: no kernel is timed), and only the candidates
that can be shown are walked. Their facts are *brief* (engine/decision/facts.py): built from
the request's settled load, their questions not worded (an alternative shows its
deployment, never its evidence), their layouts not listed where the weights cannot fit.
The walks share the request's bytes, the layouts' geometry and the step models kept across
requests (engine/physics/inference.py), and each search times only what could win
(engine/physics/search.py). At most four alternatives are shown, the runner-up layout (or
the request as asked, when the trap moved it) first.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Literal

from engine.catalog.schema import GPUSpec
from engine.decision import terms
from engine.decision.evidence import bound_parts
from engine.decision.facts import Facts
from engine.decision.int4 import FOUR_BIT, four_bit
from engine.decision.trap import final
from engine.errors import UnsizableRequest
from engine.physics.inference import Bounds
from engine.physics.memory import kv_cache_bytes, weights_bytes
from engine.result import Alternative, Numbers, Recommendation, Verdict, verdict_name
from engine.wording import Message, msg

Kind = Literal["gpu", "precision", "kv_precision"]

__all__ = ["MAX_ALTERNATIVES", "alternatives", "summary"]

MAX_ALTERNATIVES = 4
#: Candidates walked per group (vendor-built, compare-only): as many as are shown.
_CANDIDATES = {True: 2, False: 1}


def summary(verdict: Verdict, nodes: int, n: Numbers, node_gpus: int) -> Message:
    """An answer in a few figures: 'One 8-GPU node, 1,203 tok/s per node, up to 220 ...';
    a single-node answer sized on fewer GPUs says on how many ('on 1 of its 8 GPUs')."""
    parts: list[Message] = [verdict_name(verdict, node_gpus)]
    if nodes > 1:
        parts.append(msg("summary.nodes", nodes=nodes))
    fewer = verdict == "single_node" and n.gpus_needed is not None and n.gpus_needed < node_gpus
    if fewer:
        parts.append(msg("summary.fewer_gpus", gpus=n.gpus_needed, node_gpus=node_gpus))
    if n.node_tokens_per_s:
        parts.append(msg("summary.rate_gpus" if fewer else "summary.rate",
                         tokens_per_s=n.node_tokens_per_s))
    if n.per_user_tokens_per_s:
        parts.append(msg("summary.per_user", per_user=n.per_user_tokens_per_s))
    if n.max_concurrency:
        parts.append(msg("summary.concurrency", concurrency=n.max_concurrency))
    if n.days is not None and verdict != "frontier":
        parts.append(msg("summary.days", days=n.days))
    if n.gpu_months and verdict == "frontier":
        parts.append(msg("summary.gpu_months", gpu_months=n.gpu_months))
    return msg("alternative.summary", parts=parts)


def _option(facts: Facts, kind: Kind, label: Message) -> tuple[tuple[int, int], Alternative]:
    """The answer on ``facts`` as an alternative, with its rank (step, then GPUs). When the
    per-user bounds asked cannot be met there (the facts were sized without them), its
    summary says so: it answers a looser question than the one asked."""
    decided_on, step, d = final(facts)
    said = summary(d.verdict, d.total_nodes, d.numbers, decided_on.gpn)
    dropped = _unreachable(facts, decided_on)
    if dropped.any:
        said = msg("alternative.bounds_unmet", summary=said,
                   bounds=msg("target.all", parts=bound_parts(dropped)))
    alt = Alternative.of(kind=kind, label=label, verdict=d.verdict, gpu=decided_on.gpu.id,
                      nodes=d.total_nodes, precision=d.precision, layout=d.layout,
                      summary=said, numbers=d.numbers)
    gpus = d.numbers.gpus_needed or d.total_nodes * decided_on.gpn
    return (step, gpus), alt


def _unreachable(facts: Facts, decided_on: Facts) -> Bounds:
    """The stated targets ``decided_on`` was sized without (no number of copies meets them
    there: engine/decision/facts.py ``_reachable``); empty when it holds every one."""
    stated, held = facts.load.bounds, decided_on.bounds
    return Bounds(
        tokens_per_s=stated.tokens_per_s if stated.tokens_per_s is not None
        and (held.tokens_per_s or 0.0) < stated.tokens_per_s else None,
        ttft_s=stated.ttft_s if stated.ttft_s is not None
        and (held.ttft_s is None or held.ttft_s > stated.ttft_s) else None)


def _memory_ranker(facts: Facts) -> Callable[[GPUSpec], tuple[int, float]]:
    """What memory alone says of another GPU for this request: the step that would hold it
    (1, 2 with 4-bit weights, 3 and beyond otherwise) and the nodes it takes. A ranking, not
    an answer (no kernel is timed, no facts are built): only the best-ranked GPUs are walked.
    The request's bytes (weights per format, KV cache, training state) are the same on every
    GPU, so they are counted once."""
    r, pol, m = facts.request, facts.policy, facts.model
    if r.is_training:
        need = facts.state.total

        def train_rank(gpu: GPUSpec) -> tuple[int, float]:
            node = (gpu.memory_bytes - facts.reserve_bytes) * facts.gpn
            return (1 if need <= node else 4), float(math.ceil(need / node))
        return train_rank
    kv = kv_cache_bytes(m, r.kv_precision, facts.shape.context, facts.concurrency)
    reserve = facts.reserve_bytes * facts.gpn
    w = {p: weights_bytes(facts.params, p, pol, m) for p in (facts.precision, "nvfp4", "int4")}

    def serve_rank(gpu: GPUSpec) -> tuple[int, float]:
        node = gpu.memory_bytes * facts.gpn
        cap = node * pol.max_weights_share
        for step, prec in ((1, facts.precision), (2, "nvfp4" if gpu.fp4_tflops else "int4")):
            if w[prec] <= cap and w[prec] + kv + reserve <= node:
                return step, 1.0
        return 3, max(1.0, (w[facts.precision] + kv) / max(1.0, node - reserve))
    return serve_rank


def _other_gpus(facts: Facts, room: int) -> list[Alternative]:
    """Up to ``room`` other GPUs: the two best the vendor builds, then the best compare-only
    part (walked only when there is room left for it); never one the customer refused."""
    pool: dict[bool, list[tuple[tuple[int, float, int], GPUSpec]]] = {True: [], False: []}
    by_memory = _memory_ranker(facts)
    cat = facts.catalog
    avoided = {(cat.gpus.get(g) or cat.gpu(g)).id for g in facts.request.avoid_gpus}
    for gpu in cat.gpus.values():
        if gpu.id == facts.gpu.id or gpu.id in avoided or (
                facts.precision == "nvfp4" and not gpu.fp4_tflops):
            continue
        step, nodes = by_memory(gpu)
        pool[gpu.vendor_builds].append(((step, nodes, -int(gpu.memory_bytes)), gpu))
    shown: list[Alternative] = []
    for vendor in (True, False):
        limit = min(_CANDIDATES[vendor], room - len(shown))
        if limit <= 0:
            continue
        ranked: list[tuple[tuple[int, int], Alternative]] = []
        for _, gpu in sorted(pool[vendor], key=lambda c: c[0])[:_CANDIDATES[vendor]]:
            label_id = "hardware.node" if vendor else "hardware.comparison"
            label = msg(label_id, gpus=facts.gpn, gpu=gpu.name)
            try:
                ranked.append(_option(facts.other(gpu=gpu.id, brief=True), "gpu", label))
            except UnsizableRequest:
                continue
        ranked.sort(key=lambda c: c[0])
        shown.extend(a for _, a in ranked[:limit])
    return shown


def _four_bit(facts: Facts, rec: Recommendation) -> list[Alternative]:
    r = facts.request
    if r.is_training or rec.verdict != "single_node" or not r.allow_int4 \
            or rec.precision in FOUR_BIT:
        return []
    fmt = four_bit(facts)
    _, alt = _option(facts.other(precision=fmt, brief=True), "precision",
                     msg("alternative.int4", format=terms.precision(fmt)))
    return [alt.model_copy(update={
        "precision": fmt, "summary": msg("alternative.int4_summary", summary=alt.summary)})]


def _fp8_kv(facts: Facts, rec: Recommendation) -> list[Alternative]:
    """The same request with an FP8 KV cache, when that makes the answer smaller: fewer GPUs,
    or the same GPUs at an earlier step (FP8 weights instead of 4-bit, one node instead of a
    cluster). A cache half the size can still need more GPUs where its measured decode kernel
    is slower and a per-user speed was asked: that is no alternative."""
    r = facts.request
    if r.is_training or r.kv_precision == "fp8" or not _kv_matters(facts, rec):
        return []
    fp8 = facts.other(kv_precision="fp8", brief=True)
    if facts.bounds.any and not fp8.bounds.any:
        return []  # the smaller cache only changes the answer by missing what was asked
    (step, gpus), alt = _option(fp8, "kv_precision", msg("alternative.fp8_kv"))
    asked = rec.numbers.gpus_needed or rec.nodes * rec.gpus_per_node
    if not (gpus < asked or (gpus == asked and step < rec.step)):
        return []  # the same or more GPUs for no simpler answer (a slower FP8-KV kernel)
    return [alt.model_copy(update={
        "summary": msg("alternative.fp8_kv_summary", summary=alt.summary)})]


def _kv_matters(facts: Facts, rec: Recommendation) -> bool:
    """Whether halving the KV cache can change the answer: it fills a real share of the
    memory the answer uses (the walk decides whether it does)."""
    pic = rec.numbers.memory
    if pic is None:
        return True
    seg = pic.per_copy
    return seg.work_gb >= facts.policy.kv_matters_share * seg.vram_gb or rec.step > 1


def alternatives(facts: Facts, rec: Recommendation) -> list[Alternative]:
    """``rec``'s own alternatives (runner-up or as asked), then FP8 KV when it changes the
    answer, then other GPUs, then 4-bit."""
    out = list(rec.alternatives)
    seen = [a.label for a in out]  # a few labels: compared, not hashed
    for option in _fp8_kv(facts, rec):
        if option.label not in seen:
            out.append(option)
            seen.append(option.label)
    for option in _other_gpus(facts, MAX_ALTERNATIVES - len(out)):
        if option.label not in seen:
            out.append(option)
            seen.append(option.label)
    if len(out) < MAX_ALTERNATIVES:  # 4-bit comes last: walked only when it can be shown
        out.extend(_four_bit(facts, rec))
    return out[:MAX_ALTERNATIVES]
