"""Collective times: measured curves inside a node, NCCL's cost model across nodes.

Inside a node the time of one all-reduce, all-gather or reduce-scatter is the measured curve
of that link (engine/data/calibration.toml, from aiconfigurator 0.12.0's NCCL and TensorRT-LLM
custom all-reduce tables), interpolated log-log in message size and in GPU count (2, 4, 8),
so the latency floor (6 / 13 / 24 us at 2 / 4 / 8 GPUs on PCIe 5) and the plateau at
mid-size messages are the hardware's, not a formula's. A link without a measurement (the
generic PCIe 5, the RTX 5090's and RTX 4090's fabrics) uses the ring model of NCCL's
``doc/PERFORMANCE.md`` with the link's documented figures (engine/data/links.toml):
``t = latency + 2(n-1)/n x S / busbw`` (``(n-1)/n`` for gathers); so does every link past
the GPU counts measured.

Across nodes nothing is measured: a group spanning ``k`` nodes with ``g`` ranks in each
runs hierarchically (reduce-scatter inside the node, a ring across the nodes' NICs over
``S / g`` per rank, all-gather inside), the NICs carrying ``2(k-1)/k x S`` per node, shared
by the groups of the node that cross at once, with the inter-node link's documented
bandwidth and latency (docs/engine-notes.md#nccl-cost-model,
docs/engine-notes.md#measured-bandwidths).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

from engine.catalog.calibration import Calibration, CollectiveRow
from engine.catalog.schema import LinkSpec
from engine.physics.curves import Curve

__all__ = ["Fabric", "Implementation", "InNode", "allreduce_s", "gather_s", "p2p_s"]

US = 1e-6
#: Which all-reduce kernel a stack uses: serving stacks (TensorRT-LLM, vLLM, SGLang) run
#: their own custom all-reduce for TP; training frameworks run NCCL.
Implementation = Literal["nccl", "trtllm_custom"]


class InNode:
    """One link's collectives inside a node: measured curves by GPU count, or the ring model.

    ``part`` is the measured GPU whose host measured the link (the GPU's own when it has
    them; else any host that measured the same link)."""

    def __init__(self, link: LinkSpec, part: str, cal: Calibration) -> None:
        self.link = link
        hosts = cal.collective_gpus(link.id)
        self.host: str | None = part if part in hosts else (hosts[0] if hosts else None)
        self._curves: dict[tuple[str, str], tuple[list[float], list[Curve]]] = {}
        if self.host is not None:
            for (lk, gpu, op, impl), by_n in cal.collectives.items():
                if lk == link.id and gpu == self.host:
                    ns = sorted(by_n)
                    self._curves[(op, impl)] = (
                        [math.log(n) for n in ns], [_curve(by_n[n]) for n in ns])
        self._memo: dict[tuple[str, str, int, float], float] = {}

    @property
    def measured(self) -> bool:
        return bool(self._curves)

    def time(self, op: str, impl: str, nbytes: float, n: int) -> float:
        """Seconds for one collective of ``nbytes`` (the full tensor) over ``n`` GPUs."""
        if n <= 1:
            return 0.0
        key = (op, impl, n, nbytes)
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        curves = self._curves.get((op, impl)) or self._curves.get((op, "nccl"))
        if curves is None or n > math.exp(curves[0][-1]) + 1e-9:
            t = self._ring(op, nbytes, n)
        else:
            lns, cs = curves
            t = _between(lns, cs, math.log(n), nbytes)
        if len(self._memo) < 65536:
            self._memo[key] = t
        return t

    def _ring(self, op: str, nbytes: float, n: int) -> float:
        factor = 2.0 * (n - 1) / n if op == "all_reduce" else (n - 1) / n
        bw = self.link.allreduce_busbw_gbs * 1e9
        return self.link.latency_us * US + factor * nbytes / bw


def _curve(row: CollectiveRow) -> Curve:
    return Curve(row.message_bytes, [t * US for t in row.latency_us], log_y=True, extend=1.0)


def _between(lns: list[float], cs: list[Curve], ln: float, nbytes: float) -> float:
    """Log-linear in the GPU count between the measured counts (clamped below)."""
    if ln <= lns[0]:
        return cs[0](nbytes)
    for i in range(len(lns) - 1):
        if ln <= lns[i + 1]:
            f = (ln - lns[i]) / (lns[i + 1] - lns[i])
            a, b = cs[i](nbytes), cs[i + 1](nbytes)
            return math.exp(math.log(a) + (math.log(b) - math.log(a)) * f)
    return cs[-1](nbytes)


@dataclass(frozen=True)
class Fabric:
    """The paths one deployment's collectives use: the in-node link (with its measured
    curves) and, when groups span nodes, the NICs of the inter-node link."""

    intra: LinkSpec
    inter: LinkSpec | None
    nics_per_node: int = 1
    in_node: InNode | None = field(default=None, compare=False)

    def inside(self, op: str, impl: Implementation, nbytes: float, n: int) -> float:
        if self.in_node is not None:
            return self.in_node.time(op, impl, nbytes, n)
        factor = 2.0 * (n - 1) / n if op == "all_reduce" else (n - 1) / n
        return self.intra.latency_us * US + factor * nbytes / (self.intra.allreduce_busbw_gbs
                                                               * 1e9)

    def across(self, volume: float, nodes: int, sharing: int) -> float:
        """Seconds for the NICs of a node to carry ``volume`` bytes per group of a ring over
        ``nodes`` nodes, ``sharing`` groups of the node crossing at once."""
        if self.inter is None:
            raise ValueError("no link between nodes")
        depth = max(1.0, math.log2(nodes))  # NCCL trees at scale: latency grows with depth
        bw = self.inter.allreduce_busbw_gbs * 1e9 * self.nics_per_node
        return self.inter.latency_us * US * depth + volume * sharing / bw

    def p2p_gbs(self, spans_nodes: bool) -> float:
        if not spans_nodes or self.inter is None:
            return self.intra.bandwidth_gbs
        return self.inter.bandwidth_gbs


def allreduce_s(nbytes: float, ranks: int, fabric: Fabric, per_node: int | None = None,
                sharing: int = 1, impl: Implementation = "nccl") -> float:
    """Seconds for one all-reduce of ``nbytes`` over ``ranks`` GPUs, ``per_node`` of them in
    each node (default: all in one node)."""
    if ranks <= 1:
        return 0.0
    g = ranks if per_node is None else max(1, min(per_node, ranks))
    if g >= ranks:
        return fabric.inside("all_reduce", impl, nbytes, ranks)
    k = math.ceil(ranks / g)
    inter = fabric.across(2.0 * (k - 1) / k * nbytes, k, sharing)
    if g == 1:
        return inter
    return (fabric.inside("reduce_scatter", "nccl", nbytes, g) + inter
            + fabric.inside("all_gather", "nccl", nbytes, g))


def gather_s(nbytes: float, ranks: int, fabric: Fabric, per_node: int | None = None,
             sharing: int = 1) -> float:
    """Seconds for one all-gather or reduce-scatter of a ``nbytes`` tensor over ``ranks``."""
    if ranks <= 1:
        return 0.0
    g = ranks if per_node is None else max(1, min(per_node, ranks))
    if g >= ranks:
        return fabric.inside("all_gather", "nccl", nbytes, ranks)
    k = math.ceil(ranks / g)
    inter = fabric.across((k - 1) / k * nbytes, k, sharing)
    return inter if g == 1 else fabric.inside("all_gather", "nccl", nbytes, g) + inter


def p2p_s(nbytes: float, fabric: Fabric, spans_nodes: bool) -> float:
    """Seconds to send ``nbytes`` from one pipeline stage to the next."""
    if spans_nodes and fabric.inter is not None:
        lat = max(fabric.intra.latency_us, fabric.inter.latency_us) * US
    else:
        lat = fabric.intra.latency_us * US
    return lat + nbytes / (fabric.p2p_gbs(spans_nodes) * 1e9)
