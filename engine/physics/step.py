"""One serving step of a layout: the time of a decode step, a prefill and a mixed step.

A step runs every layer of the model over the tokens of the step, on ``tp`` GPUs per
pipeline stage. Per layer (docs/calibration.md, "Engine use" of each table): the dense GEMMs
(attention projections, dense MLP or shared experts, the router) at fixed latency per kernel
plus weight streaming, or at the measured MFU when compute-bound; attention (decode: the
measured kernel by units of cached KV and length; prefill: causal FLOPs at the measured
MFU); the routed experts of an MoE layer; the element-wise ops; and two tensor-parallel
all-reduces of the step's activations (Megatron's f/g,
docs/engine-notes.md#megatron-tensor-parallelism) on the link's measured curve. The output
head runs once per step in BF16. Pipeline stages pass activations point to point; a
pipelined step runs as micro-batches, up to one per stage, at the pace of the heaviest
(:meth:`StepModel.mixed`: a prompt is never split between them; a prompt longer than the
step's token budget is split across steps instead, a chunk a step, each attending to the
chunks before it). Under attention data parallelism (an MoE layout, 'DEP') each GPU of
the group runs every layer but the routed experts whole on its own requests, the experts
see every GPU's tokens, and each MoE layer all-gathers them and reduce-scatters the sums in
place of the TP all-reduces.

Every quantity that depends only on the model and the layout is computed once when the
:class:`StepModel` is built (it is kept per layout, engine/physics/inference.py; its
:class:`Geometry` is shared by every GPU); a step is then a few curve lookups per layer kind, and
each step time, and each layer's pieces by token count, is kept (a pure function of the
catalog's data), so a prefill, a mixed step and a step's lower bound
(:meth:`StepModel.mixed_floor`, what a search bounds a layout with before timing it:
engine/physics/search.py) share their lookups.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from engine.catalog.schema import ModelSpec, Policy
from engine.physics.comm import Fabric, allreduce_s, p2p_s
from engine.physics.kernels import Kernels
from engine.physics.memory import body_bytes_per_param, expert_touch_share
from engine.physics.params import ParamCount, layer_split
from engine.result import KVPrecision, Precision

__all__ = ["Geometry", "StepModel", "clear_geometry", "expert_parallel", "hot_rank"]


@dataclass(frozen=True, slots=True)
class Geometry:
    """Weights, FLOPs and attention shapes per GPU, per average layer of each kind, of one
    layout: a pure function of the model, the policy, the formats and the layout (no GPU in
    it), so every GPU a request weighs shares it. Frozen: a step model reads it, never
    changes it."""

    layers: int  # layers per pipeline stage
    dense_frac: float
    moe_frac: float
    w_dense: float  # weight bytes of a dense layer's GEMMs, per GPU
    w_moe: float  # an MoE layer's dense GEMMs (attention, shared experts, router)
    flops_dense: float  # per token
    flops_moe_dense: float
    g_dense: int  # GEMM kernels per layer
    g_moe: int
    size_dense: float  # the GEMMs' mean side, for the measured efficiency
    size_moe: float
    expert_bytes: float  # one routed expert's slice on a GPU (whole under expert parallelism)
    expert_flops: float  # per token per expert, on the GPUs that hold it
    expert_width: float
    ep: int  # GPUs the routed experts are spread over, whole (1: each split by TP)
    ranks: int  # GPUs that each run the attention on their own requests (attention DP), or 1
    hot: float  # the busiest GPU's routed tokens over the mean (1 but under attention DP)
    head_bytes: float  # the output head, BF16, once per step
    head_flops: float
    head_size: float
    q_heads: float  # attention; the measured grid is in units of one 128-dim head's K and V
    attn_dim: float
    units_per_seq: float
    window: int
    swa_frac: float
    act_bytes: float  # one token's activations, BF16


#: Per-layout geometry kept across GPUs and requests. Entries keep the model and the policy
#: alive, so their ids are not reused while the entry is kept.
_GEOMETRY: dict[tuple[object, ...], tuple[ModelSpec, Policy, Geometry]] = {}


def clear_geometry() -> None:
    """Forget the kept geometries (benchmarks of the cold path)."""
    _GEOMETRY.clear()


def expert_parallel(m: ModelSpec, policy: Policy, tp: int) -> int:
    """GPUs of a ``tp`` group the routed experts are spread over whole: the group itself
    when the policy serves MoE models with expert parallelism and the experts divide evenly
    between its GPUs (TensorRT-LLM's perf-overview runs its MoE models with ``--ep`` over
    the tensor-parallel group), else 1 (every expert split along its width by TP)."""
    if not m.is_moe or tp <= 1 or not policy.moe_expert_parallel or m.experts % tp:
        return 1
    return tp


def hot_rank(policy: Policy, ep: int) -> float:
    """The busiest GPU's routed tokens over the mean, in an attention-DP group of ``ep``.

    Measured once (``moe_ep_hot_rank`` at ``moe_ep_hot_rank_gpus`` GPUs, engine/data/
    policy.toml); the excess over the mean is taken to grow with the log of the group, as
    the largest of ``ep`` draws does, so two GPUs (whose busiest can never route more than
    twice the mean) see a fifth of what 32 do. Applied where it was measured, attention
    DP with expert parallelism (each GPU routes its own requests' tokens); expert
    parallelism inside a TP group keeps balanced routing, as aiconfigurator prices it."""
    if ep <= 1:
        return 1.0
    excess = policy.moe_ep_hot_rank - 1.0
    return 1.0 + excess * math.log(ep) / math.log(policy.moe_ep_hot_rank_gpus)


def _geometry(m: ModelSpec, pc: ParamCount, policy: Policy, precision: Precision,
              expert_precision: Precision, tp: int, pp: int, attention_dp: bool) -> Geometry:
    """The :class:`Geometry` of one layout (kept). Under attention data parallelism every
    GPU of the group holds everything but the routed experts whole (no TP split), and the
    routed experts are spread over the group whole."""
    key = (id(m), id(policy), precision, expert_precision, tp, pp, attention_dp)
    hit = _GEOMETRY.get(key)
    if hit is not None and hit[0] is m and hit[1] is policy:
        return hit[2]
    dense_n, moe_n = layer_split(m)
    L = m.layers
    h = m.hidden
    ranks = tp if attention_dp else 1
    ep = tp if attention_dp else expert_parallel(m, policy, tp)
    tp = tp // ranks  # the TP split of everything but the routed experts
    # -- dense GEMM weights per GPU per layer kind (parameters) --
    attn_p = pc.attention / L / tp
    mlp_p = pc.mlp_dense / dense_n / tp if dense_n else 0.0
    if moe_n:
        assert m.moe_ffn is not None
        per_expert = (3 if m.gated_mlp else 2) * h * m.moe_ffn
        shared_p = m.shared_experts * per_expert / tp
        router_p = pc.router / moe_n
    else:
        per_expert = 0
        shared_p = router_p = 0.0
    b = body_bytes_per_param(precision, policy)
    moe_tp = max(1, tp // ep)  # the TP split left inside each expert
    attn_gemms = 4 if m.mla is not None else 2
    if m.mla is not None:
        elems = m.mla.kv_lora_rank + m.mla.qk_rope_head_dim  # one latent, replicated
        attn_dim = (m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim + m.mla.v_head_dim) / 2.0
    else:
        elems = 2 * math.ceil(m.kv_heads / tp) * m.head_dim
        attn_dim = float(m.head_dim)
    g = Geometry(
        layers=math.ceil(L / pp), dense_frac=dense_n / L, moe_frac=moe_n / L,
        w_dense=(attn_p + mlp_p) * b, w_moe=(attn_p + shared_p) * b + router_p * 2.0,
        flops_dense=2.0 * (attn_p + mlp_p),
        flops_moe_dense=2.0 * (attn_p + shared_p + router_p),
        g_dense=attn_gemms + 2, g_moe=attn_gemms + 1 + (2 if m.shared_experts else 0),
        size_dense=math.sqrt(max(1.0, (attn_p + mlp_p) / 4.0)),
        size_moe=math.sqrt(max(1.0, (attn_p + shared_p) / 4.0)),
        expert_bytes=per_expert / moe_tp * body_bytes_per_param(expert_precision, policy),
        expert_flops=2.0 * per_expert / moe_tp,
        expert_width=(m.moe_ffn or 1) / moe_tp, ep=ep, ranks=ranks,
        hot=hot_rank(policy, ep) if attention_dp else 1.0,
        head_bytes=m.vocab * h / tp * 2.0, head_flops=2.0 * m.vocab * h / tp,
        head_size=math.sqrt(m.vocab * h / tp),
        q_heads=m.heads / tp, attn_dim=attn_dim, units_per_seq=elems / 256.0,
        window=m.sliding_window or 0, swa_frac=m.swa_layers / L,
        act_bytes=h * 2.0,
    )
    if len(_GEOMETRY) > 8192:
        _GEOMETRY.clear()
    _GEOMETRY[key] = (m, policy, g)
    return g


class StepModel:
    """Step times of one model on one layout (``tp`` GPUs per stage, ``pp`` stages)."""

    __slots__ = ("_decode", "_ew_bw", "_ew_fixed", "_ew_ops", "_ewc_t", "_gemm_t", "_in_node",
                 "_mixed", "_pattn", "attn", "fabric", "gemm", "geo", "head", "kernels", "m",
                 "moe_kernel", "pp", "ranks", "served", "spans", "tp", "tp_per_node")

    def __init__(self, m: ModelSpec, pc: ParamCount, k: Kernels, fabric: Fabric, policy: Policy,
                 *, precision: Precision, expert_precision: Precision,
                 kv_precision: KVPrecision, tp: int, pp: int, spans_nodes: bool,
                 gpus_per_node: int, attention_dp: bool = False) -> None:
        #: the layout's geometry, shared with every GPU
        self.geo = _geometry(m, pc, policy, precision, expert_precision, tp, pp, attention_dp)
        self.m, self.tp, self.pp = m, tp, pp
        #: GPUs of the group that each run their own requests (attention DP), else 1: each
        #: has its own scheduler, token budget and host work (engine/physics/serving.py)
        self.ranks = self.geo.ranks
        self.tp_per_node = min(tp, gpus_per_node)
        self.spans = spans_nodes
        self.fabric = fabric
        self.gemm, self.head, self.attn, self.moe_kernel = k.for_step(
            precision, expert_precision, kv_precision, m.is_moe)
        self.kernels = k
        self._in_node = self.tp_per_node >= tp
        # the element-wise rule of the kernels (engine/physics/kernels.py)
        self._ew_ops, self._ew_fixed, self._ew_bw = k.elementwise_rule
        self._gemm_t: dict[tuple[float, float], float] = {}
        self._ewc_t: dict[tuple[float, float], tuple[float, float]] = {}
        self._pattn: dict[float, float] = {}
        self._decode: dict[tuple[float, float], float] = {}
        #: serving figures by load, kept by engine/physics/serving.py
        self.served: dict[tuple[float, float, float, float, int], Any] = {}
        self._mixed: dict[tuple[float, float, float, float, float], float] = {}

    # -- pieces ------------------------------------------------------------------------
    # One (average) layer over ``t`` tokens. The sums keep the order of the formulas in the
    # module docstring term by term (dense GEMMs, routed experts, attention, element-wise
    # ops, all-reduces), so a step is the same number however the pieces are cached.

    def _gemms(self, t: float, local: float) -> float:
        """The dense GEMMs and the routed experts of one layer over ``t`` tokens, ``local``
        of them on the busiest GPU's own requests (``t`` but under attention DP, where each
        GPU runs the dense GEMMs whole on its own tokens and the experts see every GPU's)."""
        key = (t, local)
        hit = self._gemm_t.get(key)
        if hit is not None:
            return hit
        g, geo = self.gemm, self.geo
        fixed, stream = g.fixed(local), g.stream(local)
        mfu, peak = g.mfu, g.peak
        tm = local if local >= 1.0 else 1.0
        total = 0.0
        if geo.dense_frac:
            mem = geo.g_dense * fixed + geo.w_dense / stream
            comp = geo.flops_dense * local / (mfu(tm, geo.size_dense) * peak)
            total += geo.dense_frac * (mem if mem >= comp else comp)
        if geo.moe_frac:
            mem = geo.g_moe * fixed + geo.w_moe / stream
            comp = geo.flops_moe_dense * local / (mfu(tm, geo.size_moe) * peak)
            total += geo.moe_frac * (mem if mem >= comp else comp)
            total = total + self._experts(t)
        self._gemm_t[key] = total
        return total

    def _experts(self, tokens: float) -> float:
        """The routed experts of one (average) layer over ``tokens`` tokens, on the busiest
        GPU of the group.

        Split by TP, every GPU reads its slice of each touched expert and computes its
        slice of every routed token. Under expert parallelism (``geo.ep`` GPUs, each holding
        ``experts / ep`` whole experts) a GPU reads its own touched experts whole and runs
        the tokens routed to them at the expert's whole width: on average ``1 / ep`` of the
        touched experts and of the routed tokens, but a step that touches any expert makes
        some GPU read at least one whole (a lone decode token's expert lives on one GPU),
        and the group waits for that GPU. Routing is not even: the busiest GPU receives
        ``geo.hot`` times the mean of the routed tokens (policy ``moe_ep_hot_rank``), and
        touches and computes accordingly."""
        if self.moe_kernel is None:
            return 0.0
        m, k, geo = self.m, self.moe_kernel, self.geo
        hot = tokens * geo.hot
        everywhere = m.experts * expert_touch_share(m, hot)
        touched = everywhere / geo.ep
        if touched < 1.0:
            touched = min(1.0, everywhere)
        tpe = hot * m.experts_active / m.experts
        flops = geo.expert_flops * hot * m.experts_active / geo.ep
        mem = k.fixed + touched * geo.expert_bytes / k.bandwidth
        comp = flops / (k.mfu(self.geo.expert_width, tpe if tpe >= 1e-3 else 1e-3) * k.peak)
        return self.geo.moe_frac * (mem if mem >= comp else comp)

    def _ew_comm(self, t: float, local: float) -> tuple[float, float]:
        """(element-wise ops, the layer's collectives) of one layer over ``t`` tokens,
        ``local`` on the busiest GPU: the two TP all-reduces, or under attention DP the MoE
        layer's all-gather of every GPU's tokens before the experts and reduce-scatter of
        their sums after (TensorRT-LLM's attention-DP MoE; each GPU's share padded to the
        busiest's), on the link's measured NCCL curves."""
        key = (t, local)
        hit = self._ewc_t.get(key)
        if hit is not None:
            return hit
        ew = self._ew_ops * (self._ew_fixed + local * self.geo.act_bytes * 2.0 / self._ew_bw)
        nbytes = t * self.geo.act_bytes
        comm = 0.0
        if self.ranks > 1:
            gathered = self.ranks * local * self.geo.act_bytes
            comm = self.geo.moe_frac * (
                self.fabric.inside("all_gather", "nccl", gathered, self.tp)
                + self.fabric.inside("reduce_scatter", "nccl", gathered, self.tp))
        elif self.tp > 1:
            if self._in_node:
                comm = 2.0 * self.fabric.inside("all_reduce", "trtllm_custom", nbytes, self.tp)
            else:
                comm = 2.0 * allreduce_s(nbytes, self.tp, self.fabric, per_node=self.tp_per_node,
                                         impl="trtllm_custom")
        out = (ew, comm)
        self._ewc_t[key] = out
        return out

    def _decode_attn(self, seqs: float, kv_len: float) -> float:
        """Decode attention of one (average) layer for ``seqs`` sequences at ``kv_len``."""
        if seqs <= 0:
            return 0.0
        u = seqs * self.geo.units_per_seq
        full = self.attn.decode_time(u, kv_len)
        if not self.geo.swa_frac:
            return full
        win = self.attn.decode_time(u, min(kv_len, self.geo.window))
        return (1.0 - self.geo.swa_frac) * full + self.geo.swa_frac * win

    def _prefill_attn(self, isl: float) -> float:
        """Causal attention of one (average) layer over one prompt of ``isl`` tokens."""
        hit = self._pattn.get(isl)
        if hit is not None:
            return hit

        def keys(w: float) -> float:  # sum over queries of the keys each attends
            return isl * isl / 2.0 if w >= isl else isl * w - w * w / 2.0

        geo = self.geo
        full = keys(isl)
        pairs = full if not geo.swa_frac else \
            (1.0 - geo.swa_frac) * full + geo.swa_frac * keys(float(geo.window))
        flops = 4.0 * geo.q_heads * geo.attn_dim * pairs
        t = self.attn.prefill_time(flops, geo.q_heads, isl)
        self._pattn[isl] = t
        return t

    def _head(self, tokens: float) -> float:
        """The output head (BF16, once per step) over ``tokens`` tokens."""
        h = self.head
        mem = h.fixed(tokens) + self.geo.head_bytes / h.stream(tokens)
        comp = self.geo.head_flops * tokens / (h.mfu(tokens if tokens >= 1.0 else 1.0,
                                                 self.geo.head_size) * h.peak)
        return mem if mem >= comp else comp

    def _p2p(self, tokens: float) -> float:
        if self.pp <= 1:
            return 0.0
        return p2p_s(tokens * self.geo.act_bytes, self.fabric, self.spans)

    # -- steps ---------------------------------------------------------------------------

    def decode(self, batch: float, kv_len: float) -> float:
        """Seconds for every sequence of a batch to advance one token (decode only)."""
        key = (batch, kv_len)
        hit = self._decode.get(key)
        if hit is not None:
            return hit
        pp = float(self.pp)
        mb = max(1.0, min(pp, batch))  # micro-batches in flight
        tm = batch / mb
        local = tm / self.ranks
        ew, comm = self._ew_comm(tm, local)
        layer = self._gemms(tm, local) + self._decode_attn(local, kv_len) + ew + comm
        stage = self.geo.layers * layer + self._head(local) + self._p2p(local)
        t = max(mb, pp) * stage
        if len(self._decode) < 4096:
            self._decode[key] = t
        return t

    def mixed(self, prompt: float, gen: float, kv_len: float, prompts: float = 1.0,
              chunks: float = 1.0) -> float:
        """Seconds for one step carrying ``prompts`` prompts of ``prompt`` tokens each and
        one decode token for each of ``gen`` requests already generating (in-flight
        batching). With ``chunks`` > 1 each prompt is one of that many chunks of a longer
        prompt split across steps (chunked prefill): ``prompt / chunks`` tokens and, on
        average, ``1 / chunks`` of the whole prompt's causal attention (a chunk attends to
        the chunks before it, so the chunks' attention adds up to the prompt's)."""
        key = (prompt, gen, kv_len, prompts, chunks)
        hit = self._mixed.get(key)
        if hit is None:
            hit = self._mixed_step(prompt, gen, kv_len, prompts, chunks)
            if len(self._mixed) < 4096:
                self._mixed[key] = hit
        return hit

    def _micro(self, prompt: float, gen: float, prompts: float,
               chunks: float) -> tuple[float, float, float, float]:
        """(micro-batches, tokens of the heaviest, tokens and prompts of its busiest GPU)
        of a step on this layout.

        A pipelined layout splits a step's requests into micro-batches, up to one per
        stage, as it does a decode step; a prompt (or a prompt's chunk) is not split
        between them, so the heaviest micro-batch carries ``ceil(prompts / mb)`` of them
        and its share of the decode tokens, and the pipeline moves at its pace (every
        micro-batch crosses every stage before its next step). Under attention DP the
        micro-batch's prompts are spread the same way over the group's GPUs, each with its
        share of the decodes, and the group waits for the busiest at every MoE layer."""
        mb = max(1.0, min(float(self.pp), prompts + gen))
        heavy = float(math.ceil(prompts / mb - 1e-9)) if prompts else 0.0
        tokens = heavy * prompt / chunks + gen / mb
        if self.ranks == 1:
            return mb, tokens, tokens, heavy
        mine = float(math.ceil(heavy / self.ranks - 1e-9)) if heavy else 0.0
        return mb, tokens, mine * prompt / chunks + gen / (mb * self.ranks), mine

    def _mixed_step(self, prompt: float, gen: float, kv_len: float, prompts: float,
                    chunks: float) -> float:
        """``max(mb, pp)`` stage times of the heaviest micro-batch (:meth:`_micro`)."""
        mb, tokens, local, heavy = self._micro(prompt, gen, prompts, chunks)
        seqs = gen / (mb * self.ranks)
        ew, comm = self._ew_comm(tokens, local)
        layer = (self._gemms(tokens, local) + heavy * self._prefill_attn(prompt) / chunks
                 + self._decode_attn(seqs, kv_len) + ew + comm)
        stage = self.geo.layers * layer + self._head(heavy + seqs) + self._p2p(local)
        return max(mb, float(self.pp)) * stage

    def mixed_floor(self, prompt: float, gen: float, prompts: float = 1.0,
                    chunks: float = 1.0) -> float:
        """A lower bound on :meth:`mixed` (and, with ``gen`` = 0, on :meth:`prefill`): the
        step's GEMMs, prefill attention and all-reduces, without its decode attention,
        element-wise ops, head and sends (each >= 0, so the sum can only be smaller)."""
        mb, tokens, local, heavy = self._micro(prompt, gen, prompts, chunks)
        layer = (self._gemms(tokens, local) + heavy * self._prefill_attn(prompt) / chunks
                 + self._ew_comm(tokens, local)[1])
        return max(mb, float(self.pp)) * (self.geo.layers * layer)

    def prefill(self, prompt: float, prompts: float = 1.0, chunks: float = 1.0) -> float:
        """Seconds to prefill ``prompts`` prompts of ``prompt`` tokens together in one step
        (the context step a first token waits for; one chunk of each with ``chunks``)."""
        return self.mixed(prompt, 0.0, prompt, prompts, chunks)

    def touch(self, tokens: float) -> float:
        """Share of routed experts a step of ``tokens`` touches (1 for dense models)."""
        return expert_touch_share(self.m, tokens) if self.m.is_moe else 1.0
