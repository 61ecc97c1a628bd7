"""The decision: the article's five questions, in order; the first "yes" closes (C20).

Read as ``../shared/spec/decision-tree.md`` ("How the engine reads the tree") states it:

1. Fits one node (FP8 weights for inference; the training state for training) and meets
   the throughput target or the deadline -> ``single_node``.
2. Inference only: the same with INT4 weights -> ``single_node_int4``; training: "not
   applicable" (INT4 weights cannot compute gradients, C6).
3. Memory fits one node but one node is too slow -> ``replicas`` (N one-node copies).
4. Does not fit one node, and a 2-4 node cluster fits and finishes in time -> ``multi_node``.
5. Otherwise -> ``frontier``.

Each answer carries its evidence (``because``); every figure comes from ``memory``,
``throughput`` and ``scaling`` over the catalog's data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

from engine.catalog import Catalog, GPUSpec, LinkSpec, ModelSpec, Policy, catalog
from engine.comm import Fabric
from engine.memory import (
    GB,
    TrainingState,
    activations_per_gpu,
    int4_bits,
    kv_bytes_per_token,
    kv_cache_bytes,
    training_state,
    weights_bytes,
)
from engine.params import ParamCount, count_params, dense_spec_from_params
from engine.request import SizingRequest
from engine.result import (
    VERDICT_TEXT,
    Alternative,
    Layout,
    ModelRef,
    Numbers,
    Recommendation,
    StepAnswer,
    Verdict,
)
from engine.scaling import (
    SECONDS_PER_DAY,
    TrainingPlan,
    best_training,
    flops_per_token,
    min_gpus,
    project,
)
from engine.throughput import InferencePlan, best_inference, nearest_miss

QUESTIONS = {
    1: "Does it fit one node with {prec} weights, 30-40 % of VRAM left for the work{target}?",
    2: "Does it fit one node with INT4 weights and the same headroom{target}?",
    3: "Is it limited by throughput rather than by size (replicas of one node)?",
    4: "Does a 2-{max} node InfiniBand cluster fit it and finish in time?",
    5: "Is this frontier-scale work, beyond a small cluster?",
}
TRAINING_Q1 = "Does the training state fit one node, and finish within the deadline?"

PRECISION_NAME = {"bf16": "BF16", "fp16": "FP16", "fp8": "FP8", "int4": "INT4", "nf4": "NF4"}
WORKLOAD_NAME = {
    "inference": "inference",
    "lora": "LoRA fine-tune",
    "qlora": "QLoRA fine-tune",
    "full-finetune": "full fine-tune",
    "pretrain": "pretraining",
}


# -- formatting helpers ------------------------------------------------------------------------


def gb(x: float) -> str:
    """Bytes as GB for people: '141 GB', '1.3 TB'."""
    v = x / GB
    if v >= 1000:
        return f"{v / 1000:.2f} TB"
    if v >= 100:
        return f"{v:,.0f} GB"
    if v >= 10:
        return f"{v:.1f} GB"
    return f"{v:.2f} GB"


def pct(x: float) -> str:
    return f"{x * 100:.0f} %"


def tokens_text(n: float) -> str:
    """'8k', '32k', '1.5T', '1B' for people."""
    for div, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
        if n >= div:
            v = n / div
            return f"{v:g}{suffix}" if v == round(v, 1) else f"{v:.1f}{suffix}"
    if n >= 1024 and n % 1024 == 0:
        return f"{n // 1024:.0f}k"
    if n >= 1000:
        return f"{n / 1000:g}k"
    return f"{n:.0f}"


def rate(x: float) -> str:
    return f"{x:,.0f} tok/s"


def _r(x: float | None, nd: int = 1) -> float | None:
    return None if x is None else round(x, nd)


# -- context -------------------------------------------------------------------------------


@dataclass
class _Ctx:
    req: SizingRequest
    cat: Catalog
    policy: Policy
    model: ModelSpec
    pc: ParamCount
    in_catalog: bool
    gpu: GPUSpec
    link: LinkSpec
    gpn: int
    assumptions: list[str] = field(default_factory=list)
    caveats: list[str] = field(default_factory=list)
    math: list[str] = field(default_factory=list)
    layouts: list[Alternative] = field(default_factory=list)
    tried: dict[tuple[str, int, int], tuple[InferencePlan | None, list[InferencePlan]]] = field(
        default_factory=dict
    )
    tried_training: dict[int, list[TrainingPlan]] = field(default_factory=dict)

    @property
    def node_bytes(self) -> float:
        return self.gpu.memory_gb * GB * self.gpn

    def fabric(self) -> Fabric:
        intra = self.cat.links[self.gpu.in_node_link]
        return Fabric(intra=intra, inter=self.link, nics_per_node=self.policy.nics_per_node)

    def node_name(self, nodes: int = 1) -> str:
        base = f"{self.gpn}x {self.gpu.name}"
        return base if nodes == 1 else f"{nodes} nodes of {base}"


def _context(req: SizingRequest, cat: Catalog) -> _Ctx:
    policy = cat.policy
    assumptions: list[str] = []
    if req.model is not None:
        model = cat.model(req.model)
        in_catalog = True
    else:
        assert req.params_b is not None
        model, notes = dense_spec_from_params(req.params_b)
        in_catalog = False
        assumptions.extend(notes)
    gpu = cat.gpu(req.gpu)
    link = cat.link(req.interconnect)
    if link.scope != "inter":
        raise ValueError(
            f"'{req.interconnect}' is an in-node link; between nodes use one of: "
            + ", ".join(sorted(k for k, v in cat.links.items() if v.scope == "inter"))
        )
    intra = cat.links[gpu.in_node_link]
    for entry in (gpu, intra):
        if entry.estimated:
            assumptions.append(f"{entry.name}: {entry.estimated}.")
    if gpu.fp8_tflops is None and req.precision == "fp8" and not req.is_training:
        assumptions.append(
            f"{gpu.name} has no FP8 tensor cores: FP8 weights run as W8A16 (dequantized to "
            f"BF16, multiplied at the BF16 rate of {gpu.bf16_tflops:g} TFLOPS)."
        )
    if req.context > model.max_context:
        if "context" in req.model_fields_set:
            raise ValueError(
                f"{model.name} takes at most {model.max_context:,} tokens of context; "
                f"{req.context:,} were asked"
            )
        req = req.model_copy(update={"context": model.max_context})
        assumptions.append(
            f"Context set to {model.name}'s limit of {model.max_context:,} tokens."
        )
    return _Ctx(
        req=req,
        cat=cat,
        policy=policy,
        model=model,
        pc=count_params(model),
        in_catalog=in_catalog,
        gpu=gpu,
        link=link,
        gpn=req.gpus_per_node,
        assumptions=assumptions,
    )


# -- the public entry point ----------------------------------------------------------------------


def recommend(
    req: SizingRequest, cat: Catalog | None = None, *, alternatives: bool = True
) -> Recommendation:
    """Run the five questions for one request and return the verdict with its evidence.

    Raises ``UnknownModel`` / ``UnknownEntry`` for names the catalog does not hold, and
    ``ValueError`` for inputs the engine cannot size (e.g. an in-node link between nodes).
    """
    if cat is None:
        return _recommend_packaged(req, frozenset(req.model_fields_set), alternatives)
    return _recommend(req, cat, alternatives)


@lru_cache(maxsize=1024)
def _recommend_packaged(
    req: SizingRequest, given: frozenset[str], alternatives: bool
) -> Recommendation:
    """Answers over the packaged catalog, memoized: the engine is a pure function of a
    frozen request, and a conversation asks the same question again on every turn.

    ``given`` (the fields the person set) is part of the key: a default context is capped at
    the model's limit, the same number given explicitly is an error.
    """
    return _recommend(req, catalog(), alternatives)


def _shared(cat: Catalog) -> Catalog | None:
    """``None`` (the memoized path) when ``cat`` is the packaged catalog."""
    return None if cat is catalog() else cat


def _recommend(req: SizingRequest, cat: Catalog, alternatives: bool) -> Recommendation:
    ctx = _context(req, cat)
    rec = _training(ctx) if req.is_training else _inference(ctx)
    rec = _research_lab_trap(ctx, rec)
    if alternatives:
        if rec.gpus_per_node != ctx.gpn:  # the trap moved the answer to a bigger node
            ctx = _context(req.model_copy(update={"gpus_per_node": rec.gpus_per_node}), cat)
        rec = rec.model_copy(update={"alternatives": _alternatives(ctx, rec)})
    return rec


# -- inference -------------------------------------------------------------------------------


def _load_text(ctx: _Ctx) -> str:
    return f"{ctx.req.concurrency} x {tokens_text(ctx.req.context)}"


def _fit_because(ctx: _Ctx, plan: InferencePlan) -> str:
    """Node-level evidence: weights against all the VRAM, the KV cache, what stays free."""
    prec = PRECISION_NAME[plan.precision]
    vram = plan.vram_bytes
    served = plan.label if plan.dp == 1 else f"{plan.dp} copies of {plan.label.split(' x DP')[0]}"
    return (
        f"{prec} weights {gb(plan.weights_bytes)} = {pct(plan.weights_bytes / vram)} of "
        f"{gb(vram)}; KV cache at {_load_text(ctx)} = {gb(plan.kv_bytes)}; with the "
        f"{gb(plan.reserve_bytes)} runtime reserve {gb(plan.used_bytes)} is used and "
        f"{pct(plan.free_share)} stays free, served as {served}"
    )


def _miss_because(ctx: _Ctx, plans: list[InferencePlan], precision: str) -> str:
    miss = nearest_miss(plans)
    prec = PRECISION_NAME[precision]
    vram = miss.vram_bytes
    share = miss.weights_bytes / vram
    where = ctx.node_name(miss.nodes)
    if share > ctx.policy.max_weights_share:
        return (
            f"{prec} weights {gb(miss.weights_bytes)} = {pct(share)} of {where}'s {gb(vram)}: "
            f"above the {pct(ctx.policy.max_weights_share)} rule, whatever the arithmetic says"
        )
    need = miss.used_bytes
    return (
        f"{prec} weights {gb(miss.weights_bytes)} ({pct(share)}) fit, but with the KV cache at "
        f"{_load_text(ctx)} ({gb(miss.kv_bytes)}) and the reserve they need {gb(need)} "
        f"of {gb(vram)}: room for the weights, not for the work"
    )


def _target_text(ctx: _Ctx) -> str:
    t = ctx.req.target_tokens_per_s
    return f" and deliver {rate(t)}" if t else ""


def _best(
    ctx: _Ctx, precision: str, nodes: int, concurrency: int | None = None
) -> tuple[InferencePlan | None, list[InferencePlan]]:
    conc = concurrency or ctx.req.concurrency
    key = (precision, nodes, conc)
    if key not in ctx.tried:
        ctx.tried[key] = best_inference(
            ctx.model, ctx.pc, ctx.gpu, ctx.fabric(), ctx.policy,
            precision=precision, kv_precision=ctx.req.kv_precision,
            concurrency=conc, context=ctx.req.context,
            nodes=nodes, gpus_per_node=ctx.gpn,
        )
    return ctx.tried[key]


def _split_replicas(
    ctx: _Ctx, precisions: list[str], target: float | None
) -> tuple[int, InferencePlan] | None:
    """The fewest one-node copies that, splitting the requests, each fit and meet the target.

    One node may hold the weights but not the KV cache of every request: N copies behind a
    load balancer each hold 1/N of them. Ties go to the first precision (the person's own).
    """
    conc = ctx.req.concurrency
    best: tuple[int, InferencePlan] | None = None
    for prec in precisions:
        _, plans = _best(ctx, prec, 1)
        cap = max((p.max_concurrency for p in plans if p.weights_ok), default=0)
        if cap <= 0:
            continue
        n = max(2, math.ceil(conc / cap))
        found: InferencePlan | None = None
        for _ in range(4):  # rounding may need a copy more
            found, _ = _best(ctx, prec, 1, concurrency=math.ceil(conc / n))
            if found is not None:
                break
            n += 1
        if found is None:
            continue
        if target:  # more copies, each running the same load, carry the target
            n = max(n, math.ceil(target / found.tokens_per_s))
        if best is None or n < best[0]:
            best = (n, found)
    return best


def _smallest_cluster(
    ctx: _Ctx, precisions: list[str], target: float | None
) -> tuple[int, InferencePlan, int] | None:
    """(nodes, plan, copies): the fewest nodes whose multi-node instance holds the model."""
    for nodes in range(2, ctx.policy.max_cluster_nodes + 1):
        for prec in precisions:
            plan, _ = _best(ctx, prec, nodes)
            if plan is not None:
                copies = 1
                if target and plan.tokens_per_s < target:
                    copies = math.ceil(target / plan.tokens_per_s)
                return nodes, plan, copies
    return None


def _inference_math(ctx: _Ctx, plan: InferencePlan) -> None:
    m, pc, pol = ctx.model, ctx.pc, ctx.policy
    ctx.math.append(
        f"parameters: {pc.total / 1e9:.2f}B total, {pc.active / 1e9:.2f}B active per token, "
        f"{pc.embedding / 1e9:.2f}B in embeddings (counted from the architecture)"
    )
    if plan.precision in ("bf16", "fp16"):
        ctx.math.append(f"weights = P x 2 B = {gb(plan.weights_bytes)}")
    else:
        bits = 8.0 if plan.precision == "fp8" else int4_bits(pol)
        ctx.math.append(
            f"weights = (P - P_emb) x {bits:.3f}/8 B + P_emb x 2 B = {gb(plan.weights_bytes)} "
            f"({PRECISION_NAME[plan.precision]}; embeddings stay 16-bit)"
        )
    kvb = 2 if ctx.req.kv_precision == "bf16" else 1
    if m.mla is not None:
        ctx.math.append(
            f"KV per token = L x (kv_lora_rank + rope_dim) x {kvb} B = {m.layers} x "
            f"({m.mla.kv_lora_rank} + {m.mla.qk_rope_head_dim}) x {kvb} = "
            f"{kv_bytes_per_token(m, ctx.req.kv_precision):,} B "
            "(MLA latent, replicated per TP rank)"
        )
    else:
        ctx.math.append(
            f"KV per token = 2 x L x kv_heads x head_dim x {kvb} B = 2 x {m.layers} x "
            f"{m.kv_heads} x {m.head_dim} x {kvb} = "
            f"{kv_bytes_per_token(m, ctx.req.kv_precision):,} B"
        )
    if m.swa_layers:
        ctx.math.append(
            f"{m.swa_layers} of {m.layers} layers keep only a {m.sliding_window:,}-token window"
        )
    ctx.math.append(
        f"KV cache = concurrency x context x KV per token (TP replication when TP > KV heads) "
        f"= {gb(plan.kv_bytes)}"
    )
    ctx.math.append(
        f"fits: weights <= {pct(pol.max_weights_share)} of VRAM, and weights + KV + "
        f"{pol.runtime_reserve_gb_per_gpu:g} GB/GPU reserve <= VRAM"
    )
    ctx.math.append(
        f"decode step = (W/TP + KV/(TP x PP)) / ({ctx.gpu.mem_bw_gbs:,.0f} GB/s x "
        f"{pol.hbm_efficiency}) + 2 x L x all-reduce = {plan.decode_step_ms:.1f} ms for "
        f"{math.ceil(plan.concurrency / plan.dp)} sequences ({plan.label})"
    )
    ctx.math.append(
        f"prefill = (2 x P_active + attention) / (GPUs x peak x {pol.mfu_prefill}) + TP traffic "
        f"= {rate(plan.prefill_tokens_per_s)}; {pct(1 - pol.output_share)} of each request is "
        f"prompt -> {rate(plan.tokens_per_s)} of output"
    )


def _inference(ctx: _Ctx) -> Recommendation:
    req, pol = ctx.req, ctx.policy
    target = req.target_tokens_per_s
    prec1 = req.precision
    questions: list[StepAnswer] = []
    ctx.assumptions.append(
        f"Requests average {tokens_text(req.context)} tokens of context, "
        f"{pct(1 - pol.output_share)} prompt and {pct(pol.output_share)} generated; "
        f"KV cache in {PRECISION_NAME[req.kv_precision]}."
    )
    ctx.assumptions.append(
        f"A runtime reserve of {pol.runtime_reserve_gb_per_gpu:g} GB per GPU (CUDA context, "
        "graphs, NCCL buffers, activation workspace)."
    )
    if ctx.model.is_moe:
        ctx.assumptions.append(
            f"MoE decode reads only the experts a batch touches ({ctx.model.experts_active} of "
            f"{ctx.model.experts} per token, routing spread evenly); all experts stay in memory."
        )
    tq = _target_text(ctx)

    # Step 1
    p1, plans1 = _best(ctx, prec1, 1)
    meets1 = p1 is not None and (target is None or p1.tokens_per_s >= target)
    if p1 is None:
        because = _miss_because(ctx, plans1, prec1)
    else:
        because = _fit_because(ctx, p1) + f"; {rate(p1.tokens_per_s)}"
        if target and not meets1:
            because += f" is below the {rate(target)} target"
    q1 = QUESTIONS[1].format(prec=PRECISION_NAME[prec1], target=tq)
    questions.append(StepAnswer(step=1, question=q1, answer="yes" if meets1 else "no",
                                because=because))
    if meets1 and p1 is not None:
        return _inference_result(ctx, 1, "single_node", p1, questions)

    # Step 2
    p2: InferencePlan | None = None
    q2 = QUESTIONS[2].format(target=tq)
    if prec1 == "int4":
        questions.append(StepAnswer(step=2, question=q2, answer="no",
                                    because="step 1 already used INT4 weights"))
    elif not req.allow_int4:
        questions.append(StepAnswer(step=2, question=q2, answer="no",
                                    because="INT4 quality is not acceptable for this work"))
    else:
        p2, plans2 = _best(ctx, "int4", 1)
        meets2 = p2 is not None and (target is None or p2.tokens_per_s >= target)
        if p2 is None:
            because = _miss_because(ctx, plans2, "int4")
        else:
            because = _fit_because(ctx, p2) + f"; {rate(p2.tokens_per_s)}"
            if target and not meets2:
                because += f" is below the {rate(target)} target"
        questions.append(StepAnswer(step=2, question=q2, answer="yes" if meets2 else "no",
                                    because=because))
        if meets2 and p2 is not None:
            ctx.caveats.append(_INT4_CAVEAT)
            return _inference_result(ctx, 2, "single_node_int4", p2, questions)

    # Step 3
    precisions: list[str] = [str(prec1)]
    if req.allow_int4 and prec1 != "int4":
        precisions.append("int4")
    fit_plan = p1 or p2
    if fit_plan is not None and target:
        n = max(2, math.ceil(target / fit_plan.tokens_per_s))
        because = (
            f"one node holds the model ({PRECISION_NAME[fit_plan.precision]}) and gives "
            f"{rate(fit_plan.tokens_per_s)}; {rate(target)} takes {n} copies behind a load "
            f"balancer ({rate(n * fit_plan.tokens_per_s)}), no cluster interconnect"
        )
        questions.append(StepAnswer(step=3, question=QUESTIONS[3], answer="yes", because=because))
        _replica_caveats(ctx, n, fit_plan.concurrency)
        return _inference_result(ctx, 3, "replicas", fit_plan, questions, replicas=n)
    split = _split_replicas(ctx, precisions, target) if fit_plan is None else None
    cluster = _smallest_cluster(ctx, precisions, target)
    cluster_nodes = cluster[0] * cluster[2] if cluster else None
    if split is not None and (cluster_nodes is None or split[0] <= cluster_nodes):
        n, plan = split
        because = (
            f"one node holds the {PRECISION_NAME[plan.precision]} weights "
            f"({gb(plan.weights_bytes)}) but not the KV cache of all {_load_text(ctx)}; "
            f"{n} copies serving {plan.concurrency} each fit ({gb(plan.used_bytes)} of "
            f"{gb(plan.vram_bytes)} per node, {rate(plan.tokens_per_s)} each) behind a load "
            "balancer, no cluster interconnect"
        )
        if cluster is not None:
            because += f"; the smallest cluster would need {cluster_nodes} nodes"
        questions.append(StepAnswer(step=3, question=QUESTIONS[3], answer="yes", because=because))
        _replica_caveats(ctx, n, plan.concurrency)
        ctx.caveats.append(
            f"Each replica serves {plan.concurrency} of the {req.concurrency} concurrent "
            "requests: route a conversation's requests to the same replica to keep its prefix "
            "cache warm."
        )
        if plan.precision == "int4" and prec1 != "int4":
            ctx.caveats.append(_INT4_CAVEAT)
        return _inference_result(ctx, 3, "replicas", plan, questions, replicas=n)
    if split is not None and cluster is not None:
        why = (f"{split[0]} one-node copies would hold the load, but a {cluster[0]}-node "
               "cluster shares one copy of the weights and needs fewer nodes")
    elif req.allow_int4 or prec1 == "int4":
        why = ("the model and its KV cache do not fit one node even in INT4: size, not "
               "throughput, is the limit")
    else:
        why = (f"the model and its KV cache do not fit one node in {PRECISION_NAME[prec1]}: "
               "size, not throughput, is the limit")
    questions.append(StepAnswer(step=3, question=QUESTIONS[3], answer="no", because=why))

    # Step 4
    q4 = QUESTIONS[4].format(max=pol.max_cluster_nodes)
    if cluster is not None:
        nodes, pn, copies = cluster
        because = (
            f"{ctx.node_name(nodes)} ({gb(pn.vram_bytes)}): " + _fit_because(ctx, pn)
            + f" over {ctx.link.name}; {rate(pn.tokens_per_s)}"
        )
        if copies > 1:
            because += f"; {copies} such clusters for {rate(target or 0)}"
            ctx.assumptions.append(
                f"The throughput target is carried by {copies} copies of the cluster, each "
                f"running the sized load ({_load_text(ctx)})."
            )
        questions.append(StepAnswer(step=4, question=q4, answer="yes", because=because))
        if pn.precision == "int4" and prec1 != "int4":
            ctx.caveats.append(
                f"The cluster holds it only with INT4 weights; in "
                f"{PRECISION_NAME[prec1]} it needs more nodes. INT4 is for inference only."
            )
        ctx.caveats.append(
            "Serving across nodes: keep tensor parallelism inside each node and split "
            "layers across nodes (pipeline); per-request latency is the sum of the stages."
        )
        ctx.caveats.extend(pol.multi_node_tax)
        return _inference_result(
            ctx, 4, "multi_node", pn, questions, nodes=nodes,
            replicas=copies if copies > 1 else None,
        )
    questions.append(StepAnswer(
        step=4, question=q4, answer="no",
        because=f"even {ctx.node_name(pol.max_cluster_nodes)} cannot hold the weights and the "
        f"KV cache at {_load_text(ctx)}",
    ))
    # Step 5
    w = weights_bytes(ctx.pc, prec1, pol)
    kv = kv_cache_bytes(ctx.model, req.kv_precision, req.context, req.concurrency, ctx.gpn)
    need = w + kv
    per_gpu = ctx.gpu.memory_gb * GB - pol.runtime_reserve_gb_per_gpu * GB
    gpus = math.ceil(max(need / per_gpu, w / (ctx.gpu.memory_gb * GB * pol.max_weights_share)))
    nodes = math.ceil(gpus / ctx.gpn)
    questions.append(StepAnswer(
        step=5, question=QUESTIONS[5], answer="yes",
        because=f"{PRECISION_NAME[prec1]} weights {gb(w)} + KV {gb(kv)} need about {gpus} "
        f"GPUs ({nodes} nodes): beyond a 2-{pol.max_cluster_nodes} node cluster",
    ))
    ctx.caveats.append(
        "Frontier-scale serving: an SXM/NVLink system (HGX H200/B200) with IB NDR, or a "
        "smaller context/concurrency per replica, or a hosted API."
    )
    ctx.caveats.extend(pol.multi_node_tax)
    numbers = Numbers(
        vram_total_gb=_r(nodes * ctx.node_bytes / GB),
        weights_gb=_r(w / GB),
        weights_share=round(w / (nodes * ctx.node_bytes), 4),
        kv_bytes_per_token=kv_bytes_per_token(ctx.model, req.kv_precision),
        kv_cache_gb=_r(kv / GB),
        gpus_needed=gpus,
    )
    return _finish(ctx, 5, "frontier", nodes, prec1, Layout(tp=ctx.gpn, pp=nodes, dp=1),
                   numbers, questions, None, interconnect=True)


_INT4_CAVEAT = (
    "INT4 weights are for inference only: never train on them. Quantization costs some "
    "quality; validate it on your own evaluations before committing."
)


def _replica_caveats(ctx: _Ctx, n: int, per_copy: int) -> None:
    ctx.caveats.append(
        "Replicas are independent servers behind a load balancer: standard 100 GbE is "
        "enough, no InfiniBand, no cluster tax."
    )
    if ctx.req.target_tokens_per_s and n * per_copy > ctx.req.concurrency:
        ctx.assumptions.append(
            f"The throughput target is carried by replicas that each run the sized load "
            f"({per_copy} x {tokens_text(ctx.req.context)}): {n} replicas have {n * per_copy:,} "
            "requests in flight at that rate. Fewer requests in flight give less throughput "
            "(tokens/s = requests in flight x tokens/s per request)."
        )


def _inference_result(
    ctx: _Ctx,
    step: int,
    verdict: Verdict,
    plan: InferencePlan,
    questions: list[StepAnswer],
    *,
    nodes: int = 1,
    replicas: int | None = None,
) -> Recommendation:
    _inference_math(ctx, plan)
    _inference_runner_up(ctx, plan)
    pol = ctx.policy
    if plan.weights_bytes / plan.vram_bytes > pol.comfortable_weights_share and plan.dp == 1:
        ctx.caveats.append(
            f"Weights take {pct(plan.weights_bytes / plan.vram_bytes)} of VRAM: above the "
            f"comfortable {pct(pol.comfortable_weights_share)}; little room to grow context "
            "or concurrency."
        )
    node_tps = plan.tokens_per_s
    numbers = Numbers(
        vram_total_gb=_r(plan.vram_bytes / GB),
        weights_gb=_r(plan.weights_bytes / GB),
        weights_share=round(plan.weights_bytes / plan.vram_bytes, 4),
        kv_bytes_per_token=kv_bytes_per_token(ctx.model, ctx.req.kv_precision),
        kv_cache_gb=_r(plan.kv_bytes / GB),
        reserve_gb=_r(plan.reserve_bytes / GB),
        free_share=round(plan.free_share, 4),
        max_concurrency=plan.max_concurrency,
        node_tokens_per_s=_r(node_tps, 0),
        gpus_needed=plan.nodes * plan.gpus_per_node * (replicas or 1),
    )
    layout = Layout(tp=plan.tp, pp=plan.pp, dp=plan.dp)
    return _finish(ctx, step, verdict, nodes, plan.precision, layout, numbers, questions,
                   replicas, interconnect=nodes > 1)


# -- training --------------------------------------------------------------------------------


def _train_tokens(ctx: _Ctx) -> float:
    req, pol = ctx.req, ctx.policy
    if req.train_tokens:
        return req.train_tokens
    if req.workload == "pretrain":
        tokens = pol.pretrain_tokens_per_param * ctx.pc.total
        ctx.assumptions.append(
            f"No token budget given: {tokens_text(tokens)} tokens, about "
            f"{pol.pretrain_tokens_per_param:g} per parameter (Chinchilla-optimal)."
        )
        return tokens
    ctx.assumptions.append(
        f"No token budget given: {tokens_text(pol.default_finetune_tokens)} tokens for the "
        "fine-tune."
    )
    return pol.default_finetune_tokens


def _deadline(ctx: _Ctx) -> float:
    if ctx.req.deadline_days:
        return ctx.req.deadline_days
    ctx.assumptions.append(
        f"No deadline given: {ctx.policy.default_deadline_days:g} days."
    )
    return ctx.policy.default_deadline_days


def _gpu_months(ctx: _Ctx, tokens: float, efficiency: float) -> float:
    flops = flops_per_token(ctx.pc, ctx.req.workload) * tokens
    per_gpu = ctx.gpu.bf16_tflops * 1e12 * ctx.policy.mfu_train * efficiency
    return flops / per_gpu / 3600.0 / ctx.policy.hours_per_month


def _state_gb(state_total: float, plan: TrainingPlan | None, acts_node: float) -> float:
    if plan is None:
        return (state_total + acts_node) / GB
    return (state_total + plan.activations_per_gpu * plan.gpus) / GB


def _training(ctx: _Ctx) -> Recommendation:
    req, pol = ctx.req, ctx.policy
    m, pc = ctx.model, ctx.pc
    tokens = _train_tokens(ctx)
    deadline = _deadline(ctx)
    state = training_state(m, pc, req.workload, pol)
    fabric = ctx.fabric()
    questions: list[StepAnswer] = []
    ctx.assumptions.append(
        f"Sequences of {pol.train_seq_len:,} tokens, {pol.train_micro_batch} per GPU per "
        f"micro-batch, about {tokens_text(pol.global_batch_tokens)} tokens per optimizer step, "
        f"full activation recomputation, {pct(pol.mfu_train)} model FLOPs utilisation."
    )
    ctx.assumptions.append(
        "Adam in mixed precision: "
        f"{2 + pol.master_grad_bytes_per_param + pol.adam_bytes_per_param:g}"
        " bytes per trained parameter (BF16 weights, FP32 gradients, FP32 master + moments)."
    )
    if req.workload in ("lora", "qlora"):
        ctx.assumptions.append(
            f"LoRA rank {pol.lora_rank} on the attention and dense MLP projections "
            f"({state.trainable_params / 1e6:,.0f}M trainable parameters); the base stays "
            f"{PRECISION_NAME[state.base_precision]}."
        )
    ctx.math.append(
        f"parameters: {pc.total / 1e9:.2f}B total, {pc.active / 1e9:.2f}B active per token"
    )
    ctx.math.append(
        f"training state = weights {gb(state.weights)} + gradients {gb(state.grads)} + Adam "
        f"{gb(state.optimizer)} = {gb(state.total)}"
    )
    k = 6 if req.workload in ("full-finetune", "pretrain") else 4
    ctx.math.append(
        f"compute = {k} x P_active x tokens = {k} x {pc.active / 1e9:.1f}B x "
        f"{tokens_text(tokens)} = {flops_per_token(pc, req.workload) * tokens:.3g} FLOPs"
    )

    p1, tried1 = best_training(m, pc, state, ctx.gpu, fabric, pol, nodes=1,
                               gpus_per_node=ctx.gpn)
    ctx.tried_training[1] = tried1
    acts_node = p1.activations_per_gpu * ctx.gpn if p1 else 0.0
    if p1 is None:
        ref = project(m, pc, state, ctx.gpu, fabric, pol, nodes=1, gpus_per_node=ctx.gpn,
                      tp=1, pp=1, dp=ctx.gpn, strategy="zero3") if ctx.gpn > 1 else None
        acts_node = ref.activations_per_gpu * ctx.gpn if ref else 0.0
        need = state.total + acts_node + pol.runtime_reserve_gb_per_gpu * GB * ctx.gpn
        because = (
            f"the training state is {gb(state.total)} (+ {gb(acts_node)} of activations): "
            f"{gb(need)} with the reserve against {gb(ctx.node_bytes)} in {ctx.node_name()}, "
            "even fully sharded"
        )
        questions.append(StepAnswer(step=1, question=TRAINING_Q1, answer="no", because=because))
    else:
        days1 = p1.days(tokens)
        ok = days1 <= deadline
        used = p1.state_per_gpu + p1.activations_per_gpu + p1.reserve_per_gpu
        because = (
            f"state {gb(state.total)} + activations {gb(acts_node)} fit as {p1.label}: "
            f"{gb(used)} of {gb(p1.memory_per_gpu)} per GPU; {tokens_text(tokens)} tokens take "
            f"{days1:,.1f} days at {pct(p1.efficiency)} scaling efficiency"
            + (f" (deadline {deadline:g} days)" if ok else f", past the {deadline:g}-day deadline")
        )
        questions.append(StepAnswer(step=1, question=TRAINING_Q1, answer="yes" if ok else "no",
                                    because=because))
        if ok:
            return _training_result(ctx, 1, "single_node", p1, state, tokens, questions)

    questions.append(StepAnswer(
        step=2, question=QUESTIONS[2].format(target=""), answer="not applicable",
        because="INT4 weights cannot compute gradients: training skips this step",
    ))

    # Step 3: data-parallel copies of the one-node plan.
    if p1 is not None:
        for nodes in range(2, pol.max_cluster_nodes + 1):
            plan = _replicated(ctx, p1, state, nodes)
            if plan.days(tokens) <= deadline:
                questions.append(StepAnswer(
                    step=3, question=QUESTIONS[3], answer="yes",
                    because=(
                        f"one node needs {p1.days(tokens):,.1f} days; {nodes} nodes in data "
                        f"parallel ({plan.label}) with the gradient all-reduce on "
                        f"{ctx.link.name} take {plan.days(tokens):,.1f} days at "
                        f"{pct(plan.efficiency)} efficiency"
                    ),
                ))
                ctx.caveats.extend(pol.multi_node_tax)
                return _training_result(ctx, 3, "replicas", plan, state, tokens, questions,
                                        replicas=nodes)
        last = _replicated(ctx, p1, state, pol.max_cluster_nodes)
        questions.append(StepAnswer(
            step=3, question=QUESTIONS[3], answer="no",
            because=f"even {pol.max_cluster_nodes} data-parallel nodes take "
            f"{last.days(tokens):,.0f} days, past the {deadline:g}-day deadline",
        ))
        questions.append(StepAnswer(
            step=4, question=QUESTIONS[4].format(max=pol.max_cluster_nodes), answer="no",
            because="the state fits one node: the limit is compute time, not size, and "
            f"{pol.max_cluster_nodes} nodes are not enough",
        ))
        return _frontier(ctx, state, tokens, deadline, questions, last)
    questions.append(StepAnswer(
        step=3, question=QUESTIONS[3], answer="no",
        because="the training state does not fit one node: size, not throughput, is the limit",
    ))

    # Step 4: the smallest cluster that fits, then more nodes until the deadline holds.
    q4 = QUESTIONS[4].format(max=pol.max_cluster_nodes)
    first_fit: TrainingPlan | None = None
    for nodes in range(2, pol.max_cluster_nodes + 1):
        pn, tried_n = best_training(m, pc, state, ctx.gpu, fabric, pol, nodes=nodes,
                                    gpus_per_node=ctx.gpn)
        ctx.tried_training[nodes] = tried_n
        if pn is None:
            continue
        first_fit = first_fit or pn
        if pn.days(tokens) <= deadline:
            because = (
                f"{ctx.node_name(nodes)} on {ctx.link.name} hold the {gb(state.total)} state as "
                f"{pn.label} ({gb(pn.state_per_gpu + pn.activations_per_gpu)} per GPU); "
                f"{tokens_text(tokens)} tokens take {pn.days(tokens):,.1f} days; projected "
                f"scaling efficiency {pct(pn.efficiency)}"
            )
            questions.append(StepAnswer(step=4, question=q4, answer="yes", because=because))
            if pn.efficiency < pol.efficiency_floor:
                ctx.caveats.append(
                    f"Projected efficiency {pct(pn.efficiency)} is under "
                    f"{pct(pol.efficiency_floor)}: the workload has the wrong shape for "
                    "multi-node on this interconnect. Rethink the layout (TP inside the node, "
                    "PP or DP between nodes), buy a bigger single node, or go SXM."
                )
            if ctx.link.needs_dedicated_fabric is False:
                ctx.caveats.append(
                    f"{ctx.link.name} between nodes: the article's step 4 calls for InfiniBand; "
                    "expect lower efficiency than on IB."
                )
            ctx.caveats.extend(pol.multi_node_tax)
            return _training_result(ctx, 4, "multi_node", pn, state, tokens, questions)
    if first_fit is None:
        why = (f"even {ctx.node_name(pol.max_cluster_nodes)} cannot hold the "
               f"{gb(state.total)} state")
    else:
        why = (f"{ctx.node_name(first_fit.nodes)} hold it, but even "
               f"{pol.max_cluster_nodes} nodes need more than {deadline:g} days")
    questions.append(StepAnswer(step=4, question=q4, answer="no", because=why))
    last_plan, _ = best_training(m, pc, state, ctx.gpu, fabric, pol,
                                 nodes=pol.max_cluster_nodes, gpus_per_node=ctx.gpn)
    return _frontier(ctx, state, tokens, deadline, questions, last_plan)


def _replicated(
    ctx: _Ctx, node_plan: TrainingPlan, state: TrainingState, nodes: int
) -> TrainingPlan:
    """N copies of the one-node layout, data parallel across nodes on the request's link."""
    tp, pp = node_plan.tp, node_plan.pp
    dp = node_plan.dp * nodes
    return project(ctx.model, ctx.pc, state, ctx.gpu, ctx.fabric(), ctx.policy,
                   nodes=nodes, gpus_per_node=ctx.gpn, tp=tp, pp=pp, dp=dp,
                   strategy="zero2" if node_plan.strategy == "zero2" else "zero3")


def _frontier(
    ctx: _Ctx,
    state: TrainingState,
    tokens: float,
    deadline: float,
    questions: list[StepAnswer],
    plan: TrainingPlan | None,
) -> Recommendation:
    pol = ctx.policy
    eff = plan.efficiency if plan is not None else 1.0
    months = _gpu_months(ctx, tokens, eff)
    for_time = math.ceil(months * pol.hours_per_month / (deadline * 24.0))
    # Memory sets a floor too: the state must fit, sharded, with TP inside each node.
    room = (ctx.gpu.memory_gb * GB * pol.training_state_max_share
            - pol.runtime_reserve_gb_per_gpu * GB
            - activations_per_gpu(ctx.model, pol, ctx.gpn))
    for_memory = math.ceil(state.total / room) if room > 0 else for_time
    gpus = max(for_time, for_memory, 1)
    nodes = math.ceil(gpus / ctx.gpn)
    why = (f"finishing in {deadline:g} days" if for_time >= for_memory
           else f"holding the {gb(state.total)} training state")
    questions.append(StepAnswer(
        step=5, question=QUESTIONS[5], answer="yes",
        because=(
            f"{tokens_text(tokens)} tokens are {months:,.1f} GPU-months on {ctx.gpu.name}; "
            f"{why} takes about {gpus:,} GPUs ({nodes:,} nodes)"
        ),
    ))
    advice = (
        "Most teams who ask do not need to do this work themselves: start from an open "
        "checkpoint and fine-tune."
        if ctx.req.workload == "pretrain" else
        "Consider LoRA or QLoRA instead: they fit one node for models this size."
    )
    ctx.caveats.append(
        f"Frontier work: it needs {gpus:,} GPUs on IB NDR or SXM (NVLink) hardware. On PCIe "
        "GPUs, tensor-parallel training of a 70B+ from scratch runs 2-3x slower than on SXM. "
        + advice
    )
    ctx.caveats.extend(pol.multi_node_tax)
    ctx.math.append(
        f"GPU-months = {flops_per_token(ctx.pc, ctx.req.workload) / ctx.pc.active:g} x P x D / "
        f"({ctx.gpu.bf16_tflops:g} TFLOPS x {pol.mfu_train} MFU x {eff:.2f} efficiency) / 3600 / "
        f"{pol.hours_per_month:g} = {months:,.0f}"
    )
    layout = Layout(tp=plan.tp, pp=plan.pp, dp=max(1, gpus // (plan.tp * plan.pp))) if plan \
        else Layout(tp=ctx.gpn, pp=1, dp=max(1, nodes))
    numbers = Numbers(
        vram_total_gb=_r(nodes * ctx.node_bytes / GB),
        weights_gb=_r(2.0 * ctx.pc.total / GB),
        training_state_gb=_r(_state_gb(state.total, plan, 0.0)),
        scaling_efficiency=round(eff, 3),
        gpu_months=round(months, 1),
        days=round(deadline, 1),
        gpus_needed=gpus,
    )
    return _finish(ctx, 5, "frontier", nodes, "bf16", layout, numbers, questions, None,
                   interconnect=True)


def _training_result(
    ctx: _Ctx,
    step: int,
    verdict: Verdict,
    plan: TrainingPlan,
    state: TrainingState,
    tokens: float,
    questions: list[StepAnswer],
    *,
    replicas: int | None = None,
) -> Recommendation:
    pol = ctx.policy
    _training_runner_up(ctx, plan)
    ctx.math.append(
        f"step ({plan.label}) = compute + exposed TP/DP traffic + pipeline bubble = "
        f"{plan.step_time_s:,.1f} s for {tokens_text(pol.global_batch_tokens)} tokens; "
        f"efficiency = ideal / step = {plan.efficiency:.2f}"
    )
    mg = None
    if verdict == "single_node" and ctx.req.workload in ("lora", "qlora", "full-finetune"):
        mg = min_gpus(ctx.model, ctx.pc, state, ctx.gpu, ctx.fabric(), pol, ctx.gpn)
    numbers = Numbers(
        vram_total_gb=_r(plan.gpus * plan.memory_per_gpu / GB),
        weights_gb=_r(state.weights / GB),
        weights_share=round(state.weights / (plan.gpus * plan.memory_per_gpu), 4),
        training_state_gb=_r(_state_gb(state.total, plan, 0.0)),
        activations_gb=_r(plan.activations_per_gpu * plan.gpus / GB),
        reserve_gb=_r(plan.reserve_per_gpu * plan.gpus / GB),
        scaling_efficiency=round(plan.efficiency, 3),
        gpu_months=round(_gpu_months(ctx, tokens, plan.efficiency), 2),
        days=round(plan.days(tokens), 2),
        gpus_needed=plan.gpus,
        min_gpus=mg,
    )
    if mg is not None and mg < ctx.gpn:
        ctx.caveats.append(
            f"It fits on {mg} of the node's {ctx.gpn} GPUs; the rest speed it up or run "
            "other jobs."
        )
    layout = Layout(tp=plan.tp, pp=plan.pp, dp=plan.dp)
    return _finish(ctx, step, verdict, plan.nodes, "bf16", layout, numbers, questions,
                   replicas, interconnect=plan.nodes > 1)


def _inference_runner_up(ctx: _Ctx, chosen: InferencePlan) -> None:
    """The next-best layout that fits on the same hardware, with its numbers."""
    _, plans = ctx.tried.get((chosen.precision, chosen.nodes, chosen.concurrency), (None, []))
    others = sorted((p for p in plans if p.fits and (p.tp, p.pp, p.dp) !=
                     (chosen.tp, chosen.pp, chosen.dp)), key=lambda p: -p.tokens_per_s)
    if not others:
        return
    alt = others[0]
    ctx.layouts.append(Alternative(
        label=f"Layout {alt.label}",
        verdict=None, gpu=ctx.gpu.id, nodes=alt.nodes, precision=alt.precision,
        layout=Layout(tp=alt.tp, pp=alt.pp, dp=alt.dp),
        summary=(f"{rate(alt.tokens_per_s)} ({alt.tokens_per_s / chosen.tokens_per_s:.0%} of "
                 f"{chosen.label}), up to {alt.max_concurrency:,} concurrent at "
                 f"{tokens_text(ctx.req.context)}"),
        numbers=Numbers(node_tokens_per_s=round(alt.tokens_per_s), max_concurrency=
                        alt.max_concurrency, kv_cache_gb=_r(alt.kv_bytes / GB),
                        free_share=round(alt.free_share, 4)),
    ))


def _training_runner_up(ctx: _Ctx, chosen: TrainingPlan) -> None:
    plans = ctx.tried_training.get(chosen.nodes, [])
    others = sorted((p for p in plans if p.fits and p.label != chosen.label),
                    key=lambda p: -p.efficiency)
    if not others:
        return
    alt = others[0]
    ctx.layouts.append(Alternative(
        label=f"Layout {alt.label}",
        verdict=None, gpu=ctx.gpu.id, nodes=alt.nodes, precision="bf16",
        layout=Layout(tp=alt.tp, pp=alt.pp, dp=alt.dp),
        summary=(f"{pct(alt.efficiency)} scaling efficiency against {pct(chosen.efficiency)} "
                 f"for {chosen.label}; "
                 f"{gb(alt.state_per_gpu + alt.activations_per_gpu)} per GPU"),
        numbers=Numbers(scaling_efficiency=round(alt.efficiency, 3)),
    ))


# -- assembling the answer -------------------------------------------------------------------


def _headline(ctx: _Ctx, verdict: Verdict, nodes: int, precision: str,
              numbers: Numbers, replicas: int | None) -> str:
    model = ctx.model.name if ctx.in_catalog else f"a {ctx.pc.total / 1e9:.0f}B dense model"
    work = WORKLOAD_NAME[ctx.req.workload]
    prec = PRECISION_NAME.get(precision, precision.upper())
    if verdict in ("single_node", "single_node_int4"):
        what = f"One {ctx.node_name()} node runs {model} {work}"
        if not ctx.req.is_training:
            what += f" in {prec} at {_load_text(ctx)}"
        return what + "."
    if verdict == "replicas":
        return (f"{replicas} data-parallel replicas of one {ctx.node_name()} node for {model} "
                f"{work}.")
    if verdict == "multi_node":
        extra = f" ({replicas} copies)" if replicas else ""
        return (f"A {nodes}-node cluster{extra} of {ctx.node_name()} on {ctx.link.name} "
                f"for {model} {work}.")
    gpus = numbers.gpus_needed or 0
    return (f"Frontier-scale: {model} {work} needs about {gpus:,} GPU{'s' if gpus != 1 else ''}"
            "; SXM/IB NDR territory.")


def _finish(
    ctx: _Ctx,
    step: int,
    verdict: Verdict,
    nodes: int,
    precision: str,
    layout: Layout,
    numbers: Numbers,
    questions: list[StepAnswer],
    replicas: int | None,
    *,
    interconnect: bool,
) -> Recommendation:
    if not ctx.gpu.vendor_builds:
        ctx.caveats.append(
            f"{ctx.gpu.name} is shown for comparison: the vendor builds PCIe servers "
            "(RTX PRO 6000, RTX 5090, L40S, L40, L4), not this part."
        )
    if interconnect and ctx.link.estimated:
        ctx.assumptions.append(f"{ctx.link.name}: {ctx.link.estimated}.")
    total_nodes = nodes * (replicas or 1) if verdict != "replicas" else (replicas or 1)
    return Recommendation(
        step=step,
        verdict=verdict,
        headline=_headline(ctx, verdict, nodes, precision, numbers, replicas),
        nodes=total_nodes,
        gpus_per_node=ctx.gpn,
        gpu=ctx.gpu.id,
        gpu_name=ctx.gpu.name,
        precision=precision,
        layout=layout,
        replicas=replicas,
        interconnect=ctx.link.id if interconnect else None,
        model=ModelRef(
            id=ctx.model.id,
            name=ctx.model.name if ctx.in_catalog else f"{ctx.pc.total / 1e9:.0f}B dense model",
            params_b=round(ctx.pc.total / 1e9, 2),
            active_params_b=round(ctx.pc.active / 1e9, 2),
            in_catalog=ctx.in_catalog,
        ),
        workload=ctx.req.workload,
        numbers=numbers,
        questions=questions,
        caveats=list(dict.fromkeys(ctx.caveats)),
        assumptions=list(dict.fromkeys(ctx.assumptions)),
        alternatives=list(ctx.layouts),
        math=ctx.math,
    )


# -- C19 and the alternatives ------------------------------------------------------------------


def _research_lab_trap(ctx: _Ctx, rec: Recommendation) -> Recommendation:
    """Two small nodes where one 8-GPU node would do: recommend the single node (C19)."""
    big = 8
    if ctx.gpn >= big or rec.verdict not in ("multi_node", "replicas") or \
            rec.nodes * ctx.gpn > big:
        return rec
    single = recommend(ctx.req.model_copy(update={"gpus_per_node": big}), _shared(ctx.cat),
                       alternatives=False)
    if single.verdict not in ("single_node", "single_node_int4"):
        return rec
    state = training_state(ctx.model, ctx.pc, "full-finetune", ctx.policy)
    fabric = ctx.fabric()
    inside = project(ctx.model, ctx.pc, state, ctx.gpu, fabric, ctx.policy, nodes=1,
                     gpus_per_node=big, tp=big, pp=1, dp=1)
    split = project(ctx.model, ctx.pc, state, ctx.gpu, fabric, ctx.policy,
                    nodes=big // ctx.gpn, gpus_per_node=ctx.gpn, tp=big, pp=1, dp=1)
    trap = ctx.policy.research_lab_trap.format(split=split.efficiency, single=inside.efficiency)
    small = Alternative(
        label=f"As asked: {rec.nodes} nodes of {ctx.gpn} GPUs",
        verdict=rec.verdict,
        gpu=rec.gpu,
        nodes=rec.nodes,
        precision=rec.precision,
        layout=rec.layout,
        summary=f"{rec.headline} TP across nodes projects {split.efficiency:.2f}x per GPU "
        f"against {inside.efficiency:.2f}x inside one node.",
        numbers=rec.numbers,
    )
    return single.model_copy(update={
        "caveats": [trap, *single.caveats],
        "alternatives": [small],
    })


def _summary(rec: Recommendation) -> str:
    n = rec.numbers
    bits = [VERDICT_TEXT[rec.verdict]]
    if rec.nodes > 1:
        bits.append(f"{rec.nodes} nodes")
    if n.node_tokens_per_s:
        bits.append(f"{n.node_tokens_per_s:,.0f} tok/s per node")
    if n.max_concurrency:
        bits.append(f"up to {n.max_concurrency:,} concurrent")
    if n.days is not None and rec.verdict != "frontier":
        bits.append(f"{n.days:,.1f} days")
    if n.gpu_months and rec.verdict == "frontier":
        bits.append(f"{n.gpu_months:,.0f} GPU-months")
    return "; ".join(bits)


def _rank(rec: Recommendation) -> tuple[int, int]:
    return (rec.step, rec.nodes * rec.gpus_per_node)


def _alternatives(ctx: _Ctx, rec: Recommendation) -> list[Alternative]:
    """Other GPUs (the vendor's first, one SXM part for comparison) and other precisions."""
    out = list(rec.alternatives)
    seen = {a.label for a in out}
    candidates: list[tuple[tuple[int, int, int], Alternative]] = []
    for gpu in ctx.cat.gpus.values():
        if gpu.id == ctx.gpu.id:
            continue
        try:
            alt = recommend(ctx.req.model_copy(update={"gpu": gpu.id}), _shared(ctx.cat),
                            alternatives=False)
        except ValueError:
            continue
        label = f"{ctx.gpn}x {gpu.name}" + ("" if gpu.vendor_builds else " (comparison)")
        candidates.append((
            (*_rank(alt), 0 if gpu.vendor_builds else 1),
            Alternative(label=label, verdict=alt.verdict, gpu=gpu.id, nodes=alt.nodes,
                        precision=alt.precision, layout=alt.layout,
                        summary=_summary(alt), numbers=alt.numbers),
        ))
    candidates.sort(key=lambda c: c[0])
    vendor = [a for key, a in candidates if key[2] == 0][:2]
    sxm = [a for key, a in candidates if key[2] == 1][:1]
    for option in [*vendor, *sxm]:
        if option.label not in seen:
            out.append(option)
            seen.add(option.label)
    if not ctx.req.is_training and rec.verdict == "single_node" and ctx.req.allow_int4 \
            and rec.precision != "int4":
        int4 = recommend(ctx.req.model_copy(update={"precision": "int4"}), _shared(ctx.cat),
                         alternatives=False)
        out.append(Alternative(
            label="Same node, INT4 weights", verdict=int4.verdict, gpu=int4.gpu,
            nodes=int4.nodes, precision="int4", layout=int4.layout,
            summary=_summary(int4) + " (quality cost: validate on your evals)",
            numbers=int4.numbers,
        ))
    return out[:4]


__all__ = ["SECONDS_PER_DAY", "recommend"]
