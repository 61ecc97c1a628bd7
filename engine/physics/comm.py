"""Collective communication times: the ring model with measured bandwidth and latency.

NCCL's own cost model (nccl-tests ``doc/PERFORMANCE.md``): an all-reduce of S bytes over n
ranks moves ``2(n-1)/n * S`` per rank, so ``t = alpha + 2(n-1)/n * S / busbw``; all-gather
and reduce-scatter move ``(n-1)/n * S``. A group that spans nodes runs at the pace of its
slowest edge: the NICs, shared by the GPUs of a node (docs/engine-notes.md#nccl-cost-model).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.catalog.schema import LinkSpec

US = 1e-6


@dataclass(frozen=True)
class Fabric:
    """The paths one collective group uses: the in-node link and, if it spans nodes, the NICs."""

    intra: LinkSpec
    inter: LinkSpec | None
    nics_per_node: int = 1

    def busbw_gbs(self, spans_nodes: bool, sharing: int = 1) -> float:
        """Bus bandwidth of a ring over this group: the slowest edge wins.

        ``sharing`` groups of the same node cross the NICs at once (e.g. the 8 data-parallel
        groups of a TP=8 node), so each gets its share of the NIC bandwidth.
        """
        if not spans_nodes or self.inter is None:
            return self.intra.allreduce_busbw_gbs
        nic = self.inter.allreduce_busbw_gbs * self.nics_per_node / max(1, sharing)
        return min(self.intra.allreduce_busbw_gbs, nic)

    def latency_s(self, spans_nodes: bool) -> float:
        if not spans_nodes or self.inter is None:
            return self.intra.latency_us * US
        return max(self.intra.latency_us, self.inter.latency_us) * US

    def p2p_gbs(self, spans_nodes: bool) -> float:
        if not spans_nodes or self.inter is None:
            return self.intra.bandwidth_gbs
        return self.inter.bandwidth_gbs


def allreduce_s(
    nbytes: float, ranks: int, fabric: Fabric, spans_nodes: bool, sharing: int = 1
) -> float:
    """Seconds for one ring all-reduce of ``nbytes`` over ``ranks`` GPUs."""
    if ranks <= 1:
        return 0.0
    bw = fabric.busbw_gbs(spans_nodes, sharing) * 1e9
    return fabric.latency_s(spans_nodes) + 2.0 * (ranks - 1) / ranks * nbytes / bw


def gather_s(
    nbytes: float, ranks: int, fabric: Fabric, spans_nodes: bool, sharing: int = 1
) -> float:
    """Seconds for one all-gather or reduce-scatter of a ``nbytes`` tensor over ``ranks`` GPUs."""
    if ranks <= 1:
        return 0.0
    bw = fabric.busbw_gbs(spans_nodes, sharing) * 1e9
    return fabric.latency_s(spans_nodes) + (ranks - 1) / ranks * nbytes / bw


def p2p_s(nbytes: float, fabric: Fabric, spans_nodes: bool) -> float:
    """Seconds to send ``nbytes`` from one pipeline stage to the next."""
    return fabric.latency_s(spans_nodes) + nbytes / (fabric.p2p_gbs(spans_nodes) * 1e9)
