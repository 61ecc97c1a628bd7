"""Reference figures and invariants that must hold for any input, not just the claims'."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import SizingRequest, recommend
from engine.catalog import catalog
from engine.decision.facts import build_facts
from engine.errors import UnsizableRequest
from engine.physics.memory import (
    kv_bytes_per_token,
    kv_cache_bytes,
    weights_bytes,
    weights_read_bytes,
)
from engine.physics.params import count_params
from engine.result import KVPrecision

CAT = catalog()
MODELS = sorted(CAT.models)
GPUS = sorted(CAT.gpus)
INTER = sorted(k for k, v in CAT.links.items() if v.scope == "inter")
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_reference_llama_70b_kv_is_327680_bytes_per_token() -> None:
    assert kv_bytes_per_token(CAT.model("llama-3.1-70b"), "bf16") == 327_680
    assert kv_bytes_per_token(CAT.model("llama-3.1-70b"), "fp8") == 163_840


def test_reference_deepseek_v3_mla_is_70272_bytes_per_token() -> None:
    assert kv_bytes_per_token(CAT.model("deepseek-v3"), "bf16") == 70_272


def test_sliding_window_layers_cap_the_cache() -> None:
    gemma = CAT.model("gemma-2-27b")
    assert gemma.swa_layers > 0 and gemma.sliding_window
    short = kv_cache_bytes(gemma, "bf16", gemma.sliding_window, 1)
    long_ = kv_cache_bytes(gemma, "bf16", gemma.sliding_window * 2, 1)
    full_only = (gemma.layers - gemma.swa_layers) / gemma.layers
    # Doubling the context past the window only grows the full-attention layers.
    assert long_ / short == 1 + full_only


def test_kv_heads_are_replicated_when_tp_exceeds_them() -> None:
    m = CAT.model("llama-3.1-8b")  # 8 KV heads
    assert kv_cache_bytes(m, "bf16", 4096, 1, tp=8) == kv_cache_bytes(m, "bf16", 4096, 1)
    qwen = CAT.model("qwen3-32b")
    if qwen.kv_heads < 16:
        assert kv_cache_bytes(qwen, "bf16", 4096, 1, tp=16) > kv_cache_bytes(qwen, "bf16", 4096, 1)


@FAST
@given(model=st.sampled_from(MODELS), ctx=st.integers(256, 131072), c=st.integers(1, 512),
       more=st.integers(1, 64), kv=st.sampled_from(["bf16", "fp8"]))
def test_more_concurrency_or_context_never_needs_less_memory(
    model: str, ctx: int, c: int, more: int, kv: KVPrecision
) -> None:
    m = CAT.model(model)
    base = kv_cache_bytes(m, kv, ctx, c)
    assert kv_cache_bytes(m, kv, ctx, c + more) >= base
    assert kv_cache_bytes(m, kv, ctx + more * 128, c) >= base


@given(model=st.sampled_from(MODELS))
def test_int4_below_fp4_below_fp8_below_bf16(model: str) -> None:
    m = CAT.model(model)
    pc = count_params(m)
    w = {p: weights_bytes(pc, p, CAT.policy, m)
         for p in ("int4", "mxfp4", "nvfp4", "fp8", "bf16")}  # type: ignore[arg-type]
    if m.native_quantized == "experts":  # gpt-oss: its MXFP4 covers the experts only
        assert max(w["int4"], w["nvfp4"], w["mxfp4"]) < w["fp8"] < w["bf16"]
        return
    # 4.156 bits (AWQ g128) < 4.25 (MXFP4) < 4.5 (NVFP4) < 8 < 16
    assert w["int4"] < w["mxfp4"] < w["nvfp4"] < w["fp8"] < w["bf16"]


@FAST
@given(model=st.sampled_from(MODELS), tp=st.sampled_from([1, 2, 4, 8]),
       nodes=st.sampled_from([2, 4]))
def test_a_slower_link_never_raises_efficiency(model: str, tp: int, nodes: int) -> None:
    by_speed = sorted(INTER, key=lambda k: -CAT.links[k].bandwidth_gbs)
    effs = []
    for link in by_speed:
        facts = build_facts(SizingRequest(model=model, workload="full-finetune",
                                          interconnect=link), CAT)
        plan = facts.search.project(nodes=nodes, gpus_per_node=8, tp=tp, pp=1, dp=8 * nodes // tp)
        effs.append(plan.efficiency)
    assert all(a >= b - 1e-12 for a, b in itertools.pairwise(effs))


def _finite(value: object) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    return True


@st.composite
def requests(draw: st.DrawFn) -> SizingRequest:
    """Any request a person could make: a catalog model, a context it takes, any load."""
    model = draw(st.sampled_from(MODELS))
    workload = draw(st.sampled_from(["inference", "lora", "qlora", "full-finetune",
                                     "pretrain"]))
    batch = workload == "inference" and draw(st.booleans())
    return SizingRequest(
        model=model,
        workload=workload,
        precision=draw(st.sampled_from(["bf16", "fp8", "int4"])),
        allow_int4=draw(st.booleans()),
        concurrency=draw(st.integers(1, 2048)),
        context=draw(st.integers(128, min(CAT.model(model).max_context, 10_000_000))),
        kv_precision=draw(st.sampled_from(["bf16", "fp8"])),
        target_tokens_per_s=draw(st.none() | st.floats(1, 1e6)),
        gpu=draw(st.sampled_from(GPUS)),
        gpus_per_node=draw(st.sampled_from([1, 2, 4, 8])),
        interconnect=draw(st.sampled_from(INTER)),
        train_tokens=draw(st.none() | st.floats(1e6, 2e13)),
        deadline_days=draw(st.none() | st.floats(0.5, 365))
        if workload != "inference" or batch else None,
        documents=draw(st.floats(1, 1e9)) if batch else None,
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(req=requests())
def test_every_output_is_finite_and_the_tree_is_walked_in_order(req: SizingRequest) -> None:
    r = recommend(req, alternatives=False)
    assert _finite(r.model_dump())
    assert [q.step for q in r.questions] == list(range(1, r.step + 1))
    assert r.questions[-1].answer == "yes"
    assert all(q.answer != "yes" for q in r.questions[:-1])
    if req.is_training:
        assert r.verdict != "single_node_int4"
    assert r.nodes >= 1


def test_a_frontier_answer_never_quotes_fewer_gpus_than_the_state_needs() -> None:
    r = recommend(SizingRequest(model="deepseek-v3", workload="full-finetune"))
    assert r.verdict == "frontier"
    mem = CAT.gpu(r.gpu).memory_gb
    assert (r.numbers.gpus_needed or 0) * mem >= (r.numbers.training_state_gb or 0) * 0.9
    (frontier,) = [c for c in r.caveats if c.id == "caveat.frontier_training"]
    assert frontier.params["advice"].id == "caveat.advice_finetune"  # type: ignore[union-attr]


@pytest.mark.parametrize("model", MODELS)
def test_one_request_cannot_stream_faster_than_the_node_bandwidth_allows(model: str) -> None:
    """Idle data-parallel copies add nothing: one stream reads its weights every token."""
    m = CAT.model(model)
    r = recommend(SizingRequest(model=model, concurrency=1, context=2048), alternatives=False)
    gpu = CAT.gpu(r.gpu)
    pc = count_params(m)
    copy_gpus = r.layout.tp * r.layout.pp  # one request is served by one copy
    bw = copy_gpus * gpu.mem_bw_gbs * 1e9  # the datasheet: no kernel streams faster
    per_token_s = weights_read_bytes(m, pc, r.precision, CAT.policy, 1) / bw
    assert (r.numbers.node_tokens_per_s or 0) <= 1.0 / per_token_s * 1.01


def test_moe_decode_reads_only_the_experts_a_small_batch_touches() -> None:
    moe = recommend(SizingRequest(model="gpt-oss-120b", concurrency=1, context=4096),
                    alternatives=False)
    total_b = count_params(CAT.model("gpt-oss-120b")).total / 1e9
    dense = recommend(SizingRequest(params_b=total_b, concurrency=1, context=4096),
                      alternatives=False)
    assert (moe.numbers.node_tokens_per_s or 0) > 2 * (dense.numbers.node_tokens_per_s or 0)
    (note,) = [a for a in moe.assumptions if a.id == "assumption.moe_decode"]
    assert note.params == {"active": 4, "experts": 128}


def test_answers_disclose_the_derived_figures_they_rely_on() -> None:
    estimated = [g for g in CAT.gpus.values() if g.estimated]
    assert estimated, "the catalog marks its derived figures"
    def derived(r) -> set[str]:  # type: ignore[no-untyped-def]
        return {str(a.params["what"].id) for a in r.assumptions
                if a.id == "assumption.estimated"}

    for gpu in estimated:
        r = recommend(SizingRequest(model="llama-3.1-8b", gpu=gpu.id), alternatives=False)
        assert f"estimated.{gpu.id}" in derived(r)
    eth25 = CAT.link("eth-25")
    assert eth25.estimated
    r = recommend(SizingRequest(model="llama-3.1-70b", workload="full-finetune",
                                interconnect="eth-25"), alternatives=False)
    assert r.verdict == "multi_node"
    assert "estimated.eth-25" in derived(r)
    single = recommend(SizingRequest(model="llama-3.1-8b", interconnect="eth-25"),
                       alternatives=False)
    assert "estimated.eth-25" not in derived(single)  # no link used, none quoted


def test_copies_that_each_fit_one_node_are_replicas_not_a_cluster() -> None:
    # One B200 node (8 x 180 GiB = 1.55 TB) holds 405B's FP8 weights but not 80 x 32k of KV
    # (1.35 TB): two copies, 40 each.
    r = recommend(SizingRequest(model="llama-3.1-405b", concurrency=80, context=32768,
                                gpu="b200", allow_int4=False), alternatives=False)
    assert (r.step, r.verdict, r.replicas) == (3, "replicas", 2)
    assert r.interconnect is None
    assert "tax.storage" not in {c.id for c in r.caveats}  # no multi-node tax for replicas
    # Too many requests for one node, not too big a model: replicas split the requests.
    many = recommend(SizingRequest(model="llama-3.1-70b", concurrency=512, context=32768),
                     alternatives=False)
    assert many.verdict == "replicas" and (many.replicas or 0) >= 2


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(model=st.sampled_from(MODELS), c=st.integers(1, 1024), ctx=st.integers(1024, 131072),
       gpu=st.sampled_from(GPUS), target=st.none() | st.floats(100, 50000))
def test_a_multi_node_inference_instance_spans_nodes(
    model: str, c: int, ctx: int, gpu: str, target: float | None
) -> None:
    ctx = min(ctx, CAT.model(model).max_context)
    r = recommend(SizingRequest(model=model, concurrency=c, context=ctx, gpu=gpu,
                                target_tokens_per_s=target), alternatives=False)
    if r.verdict == "multi_node":
        assert r.layout.tp * r.layout.pp > r.gpus_per_node
        assert r.interconnect is not None


def test_a_target_carried_by_extra_replicas_says_how_many_requests_are_in_flight() -> None:
    r = recommend(SizingRequest(model="llama-3.1-70b", concurrency=64, context=8192,
                                target_tokens_per_s=6000), alternatives=False)
    assert r.verdict == "replicas"
    (note,) = [a for a in r.assumptions if a.id == "assumption.target_replicas"]
    assert note.params["in_flight"] == (r.replicas or 0) * 64


def test_a_context_beyond_the_model_limit_is_refused_or_capped() -> None:
    with pytest.raises(UnsizableRequest) as exc:
        recommend(SizingRequest(model="llama-2-70b", context=8192))
    assert exc.value.message.id == "error.context_too_long"
    assert (exc.value.message.params["limit"], exc.value.message.params["asked"]) == (4096, 8192)
    default = recommend(SizingRequest(model="llama-2-70b"), alternatives=False)
    (capped,) = [a for a in default.assumptions if a.id == "assumption.context_capped"]
    assert capped.params["limit"] == 4096
