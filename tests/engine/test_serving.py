"""Serving numbers a customer asks for (issue #9 item 2): TTFT, time per output token under
in-flight batching, per-user and node tokens/s, requests/s, and sizing for them.

The model is aiconfigurator's mixed-step scheduling (docs/calibration.md); these tests check
its shape and what the tree does with the bounds, by message id and numbers.
"""

from __future__ import annotations

import pytest

from engine import SizingRequest, recommend
from engine.catalog import catalog
from engine.decision.facts import build_facts
from engine.physics.inference import Shape, plan_inference, serving_layouts, step_model
from engine.physics.serving import serve
from engine.result import Recommendation

CAT = catalog()


def rec(**kw: object) -> Recommendation:
    return recommend(SizingRequest(**kw), alternatives=False)  # type: ignore[arg-type]


def ids(messages) -> list[str]:  # type: ignore[no-untyped-def]
    return [m.id for m in messages]


@pytest.mark.parametrize("model", sorted(CAT.models))
def test_every_inference_answer_carries_the_serving_numbers(model: str) -> None:
    r = rec(model=model, context=min(8192, CAT.models[model].max_context))
    n = r.numbers
    if r.verdict == "frontier":
        return  # an estimate of GPUs, not a timed deployment
    assert n.ttft_s and n.tpot_ms and n.per_user_tokens_per_s and n.requests_per_s
    assert n.per_user_tokens_per_s == pytest.approx(1000 / n.tpot_ms, rel=0.01)
    assert n.decode_step_ms is not None and n.tpot_ms >= n.decode_step_ms * 0.999


def test_in_flight_batching_slows_each_token_as_the_batch_grows() -> None:
    f = build_facts(SizingRequest(model="llama-3.1-70b"), CAT)
    sm = step_model(f.model, f.params, f.kernels, f.fabric, f.policy, precision="fp8",
                    kv_precision="bf16", tp=8, pp=1, spans_nodes=False, gpus_per_node=8)
    one, two, many = (serve(sm, f.policy, b, 6144.0, 2048.0) for b in (1, 2, 64))
    assert one.tpot_s == pytest.approx(one.decode_step_s, rel=0.01)  # batch 1: decode only
    assert many.tpot_s / many.decode_step_s > 1.1  # mixed steps carry prompts
    # TTFT = one prefill x the queueing factor min(2 + (N_mix - 3) / 20, 4, (N_mix + 1) / 2):
    # a lone request waits behind no prompt, two arriving together wait half a prefill
    assert one.ttft_s == pytest.approx(one.prefill_s, rel=1e-6)
    assert two.ttft_s == pytest.approx(two.prefill_s * 1.5, rel=1e-6)
    assert many.ttft_s == pytest.approx(many.prefill_s * min(2 + 61 / 20, 4), rel=1e-6)
    assert many.tokens_per_s > one.tokens_per_s
    assert many.requests_per_s == pytest.approx(many.tokens_per_s / 2047)


def test_a_per_user_speed_one_node_misses_takes_replicas_that_each_meet_it() -> None:
    r = rec(model="llama-3.1-70b", concurrency=64, per_user_tokens_per_s=40)
    step1 = r.questions[0].because
    assert step1.id == "evidence.slow"
    assert step1.params["short"].id == "evidence.short_user"  # type: ignore[union-attr]
    assert (r.step, r.verdict) == (3, "replicas") and (r.replicas or 0) >= 2
    assert r.questions[-1].because.id == "evidence.replicas_bounds"
    assert (r.numbers.per_user_tokens_per_s or 0) >= 40
    q = r.questions[0].question
    assert q.id == "question.step1_target"


def test_a_ttft_bound_that_one_node_meets_is_step_1_and_says_so() -> None:
    r = rec(model="llama-3.1-8b", concurrency=16, ttft_s=2.0)
    assert r.step == 1
    assert r.questions[0].because.id == "evidence.meets"
    assert (r.numbers.ttft_s or 99) <= 2.0


def test_a_bound_no_copy_can_meet_is_dropped_and_said() -> None:
    r = rec(model="llama-3.1-70b", concurrency=64, ttft_s=0.01)
    (said,) = [a for a in r.assumptions if a.id == "assumption.bounds_unreachable"]
    assert float(said.params["ttft"]) > 0.01  # type: ignore[arg-type]
    assert r.step == 1  # sized as if no bound were given


def test_a_request_rate_sets_the_throughput_and_by_littles_law_the_requests_in_flight() -> None:
    r = rec(model="llama-3.1-70b", requests_per_s=5, prompt_tokens=2000, output_tokens=500,
            per_user_tokens_per_s=25)
    (little,) = [a for a in r.assumptions if a.id == "assumption.little"]
    assert little.params["in_flight"] == 100  # 5 req/s x 499 tokens / 25 tok/s
    assert (r.numbers.requests_per_s or 0) >= 5
    assert (r.numbers.total_tokens_per_s or 0) >= 5 * 499
    (shape,) = [a for a in r.assumptions if a.id == "assumption.request_shape"]
    assert (shape.params["prompt"], shape.params["output"], shape.params["context"]) == \
        (2000.0, 500.0, 2500)


def test_prompt_and_answer_lengths_set_the_context_when_it_is_not_given() -> None:
    r = rec(model="llama-3.1-8b", prompt_tokens=1000, output_tokens=200)
    assert r.numbers.kv_cache_gb == pytest.approx(32 * 1200 * 131072 / 1e9, abs=0.1)


def test_the_step_and_the_math_quote_the_serving_model() -> None:
    r = rec(model="llama-3.1-70b", concurrency=32)
    assert {"math.decode", "math.serving", "math.throughput"} <= set(ids(r.math))
    (serving,) = [m for m in r.math if m.id == "math.serving"]
    assert serving.params["drain"] == CAT.policy.tpot_drain_steps
    assert "assumption.serving_model" in ids(r.assumptions)


def test_replicas_that_meet_a_per_user_speed_win_over_a_cluster_that_misses_it() -> None:
    # 405B at 100 x 32k: a 3-node cluster holds it but serves each user at ~3 tok/s; copies
    # of one node, each serving its share of the requests, keep every user at 20 tok/s
    r = rec(model="llama-3.1-405b", concurrency=100, context=32768, per_user_tokens_per_s=20)
    assert (r.step, r.verdict) == (3, "replicas")
    assert (r.numbers.per_user_tokens_per_s or 0) >= 20
    because = r.questions[-1].because
    assert because.id == "evidence.replicas_split_slow_cluster"
    assert float(because.params["per_user"]) < 20  # type: ignore[arg-type]
    assert "caveat.bounds_unmet" not in ids(r.caveats)


def test_a_model_no_node_holds_keeps_its_bound_and_clusters_are_copied_to_meet_it() -> None:
    # DeepSeek-V3 in FP8 fits no single node: the bound is judged on the cluster that holds
    # it, never dropped as "0 tok/s on one node"; copies of that cluster split the requests
    r = rec(model="deepseek-v3", allow_int4=False, concurrency=64, context=16384,
            per_user_tokens_per_s=20)
    assert "assumption.bounds_unreachable" not in ids(r.assumptions)
    assert (r.step, r.verdict) == (4, "multi_node") and (r.replicas or 0) >= 2
    assert (r.numbers.per_user_tokens_per_s or 0) >= 20
    assert r.questions[-1].because.id == "evidence.cluster_split"
    assert r.questions[-1].because.params["concurrency"] == 64


def test_a_bound_a_cluster_cannot_meet_even_alone_is_dropped_with_the_clusters_figures() -> None:
    r = rec(model="deepseek-v3", allow_int4=False, concurrency=64, context=16384,
            ttft_s=0.05)
    (said,) = [a for a in r.assumptions if a.id == "assumption.bounds_unreachable"]
    assert float(said.params["ttft"]) > 0.05  # type: ignore[arg-type]
    assert float(said.params["per_user"]) > 0  # type: ignore[arg-type]
    assert said.params["hardware"].id == "hardware.nodes"  # type: ignore[union-attr]


def _step(model: str, gpu: str, precision: str, tp: int = 1, pp: int = 1):  # type: ignore[no-untyped-def]
    f = build_facts(SizingRequest(model=model, gpu=gpu), CAT)
    return f, step_model(f.model, f.params, f.kernels, f.fabric, f.policy,
                         precision=precision, kv_precision="fp8", tp=tp, pp=pp,  # type: ignore[arg-type]
                         spans_nodes=False, gpus_per_node=8)


def test_short_prompts_under_load_share_a_prefill_step() -> None:
    """A stack fills each step up to its token budget: 64 prompts of 128 tokens go in one
    step, so a copy under load serves several times what one prompt per step allows."""
    f, sm = _step("llama-3.1-8b", "h100-sxm", "fp8")
    one_prompt = f.policy.model_copy(update={"prefill_token_budget": 0})
    batched = serve(sm, f.policy, 1024, 128.0, 128.0)
    alone = serve(sm, one_prompt, 1024, 128.0, 128.0)
    assert batched.tokens_per_s > 3 * alone.tokens_per_s
    assert batched.prefill_s > alone.prefill_s  # the step a first token waits for is fuller


def test_a_prompt_longer_than_the_budget_is_chunked_beside_the_decodes() -> None:
    """A 24k-token prompt goes through in budget-sized chunks (8,192 tokens a step) with the
    decodes of the others riding along: the longest step a generating user waits through
    is about a third of the whole prompt's, the copy moves the same work (its tokens/s
    within a few per cent), and a lone prompt's first token takes about its whole
    prefill."""
    f, sm = _step("llama-3.1-70b", "h100-sxm", "fp8", tp=2)
    whole = f.policy.model_copy(update={"prefill_token_budget": 0})
    chunked, unchunked = (serve(sm, p, 16, 24000.0, 250.0) for p in (f.policy, whole))
    assert chunked.mix_step_s < 0.5 * unchunked.mix_step_s
    assert chunked.tokens_per_s == pytest.approx(unchunked.tokens_per_s, rel=0.05)
    lone_c, lone_u = (serve(sm, p, 1, 24000.0, 250.0) for p in (f.policy, whole))
    assert lone_c.ttft_s == pytest.approx(lone_u.ttft_s, rel=0.1)


def test_the_runtime_caps_what_one_copy_of_a_small_model_serves() -> None:
    """The serving runtime's work per sequence per step bounds a copy whatever the GPU: a
    B200 serves a small model's short answers faster than an H100, but not by its 2.4x
    bandwidth (TensorRT-LLM's published 128/128 runs: 28k tok/s for Llama 3.1 8B on H100 and
    on H200)."""
    speeds = []
    for gpu in ("h100-sxm", "b200"):
        f, sm = _step("llama-3.1-8b", gpu, "fp8")
        cap = 1e6 / f.policy.step_us_per_sequence
        s = max((serve(sm, f.policy, b, 128.0, 128.0) for b in (256, 1024, 4096)),
                key=lambda s: s.tokens_per_s)
        assert s.tokens_per_s < cap
        speeds.append(s.tokens_per_s)
    assert 1.0 < speeds[1] / speeds[0] < 2.0


def test_pipeline_stages_each_hold_a_micro_batch_of_prompts() -> None:
    """A pipeline keeps its stages busy under load (each micro-batch carries its own
    prompts), so two stages serve about what two copies do; a lone prompt still crosses
    the stages one after another, so its first token is no sooner than on one GPU."""
    f, flat = _step("llama-3.3-70b", "rtx-pro-6000-server", "nvfp4")
    _, piped = _step("llama-3.3-70b", "rtx-pro-6000-server", "nvfp4", pp=2)
    two_copies = 2 * serve(flat, f.policy, 128, 1000.0, 1000.0).tokens_per_s
    pipeline = serve(piped, f.policy, 256, 1000.0, 1000.0).tokens_per_s
    assert 0.67 < pipeline / two_copies < 1.5
    assert piped.prefill(8000.0) >= 0.95 * flat.prefill(8000.0)


def test_many_short_sequences_read_the_cache_as_fast_as_fewer_long_ones() -> None:
    """Decode attention past the batches measured follows the bytes it reads: 1,024
    sequences of 1k cached tokens take no longer than 128 of 8k (the same bytes)."""
    _, sm = _step("llama-3.1-8b", "h200", "fp8")
    assert sm._decode_attn(1024.0, 1024.0) <= 1.05 * sm._decode_attn(128.0, 8192.0)


def test_deep_pipelines_lose_per_gpu_under_load_as_the_published_runs_do() -> None:
    """TensorRT-LLM's published Llama 3.3 70B runs on RTX PRO 6000 serve 0.8x per GPU at
    TP1 x PP4 and 0.5-0.55x at PP8 of what TP1 x PP2 does at 1000/1000 and 128/2048: a
    pipeline's executor schedules and relays tokens once per micro-batch. The engine's
    pipelines, each at the load that keeps the same micro-batch per stage, lose likewise;
    with a few long requests (little host work) they do not."""
    f, pp2 = _step("llama-3.3-70b", "rtx-pro-6000-server", "nvfp4", pp=2)
    per_gpu = {}
    for pp in (2, 4, 8):
        _, sm = _step("llama-3.3-70b", "rtx-pro-6000-server", "nvfp4", pp=pp)
        per_gpu[pp] = serve(sm, f.policy, 128 * pp, 1000.0, 1000.0).tokens_per_s / pp
    assert 0.7 < per_gpu[4] / per_gpu[2] < 0.95
    assert 0.45 < per_gpu[8] / per_gpu[2] < 0.8
    _, pp8 = _step("llama-3.3-70b", "rtx-pro-6000-server", "nvfp4", pp=8)
    few = serve(pp8, f.policy, 16, 20000.0, 2000.0).tokens_per_s / 8
    assert few > 0.85 * serve(pp2, f.policy, 4, 20000.0, 2000.0).tokens_per_s / 2


def test_a_copy_runs_at_most_the_runtimes_batch_and_queues_the_rest() -> None:
    """Past the runtime's cap (4,096 requests in flight per copy) more requests add no
    tokens/s: the extra ones wait for a slot, and their wait shows in the first token."""
    f, sm = _step("llama-3.1-8b", "h100-sxm", "fp8")
    cap = f.policy.max_requests_per_copy
    at_cap, over = (serve(sm, f.policy, b, 128.0, 128.0) for b in (cap, 2 * cap))
    assert over.tokens_per_s == pytest.approx(at_cap.tokens_per_s)
    assert over.ttft_s > at_cap.ttft_s + 0.4 * (cap / at_cap.requests_per_s)


def _experts_both_ways(model: str, gpu: str, precision: str, tp: int):  # type: ignore[no-untyped-def]
    """(step model with the experts in expert parallelism, with every expert split by TP)."""
    f, ep = _step(model, gpu, precision, tp=tp)
    split = f.policy.model_copy(update={"moe_expert_parallel": False})
    return ep, step_model(f.model, f.params, f.kernels, f.fabric, split, precision=precision,  # type: ignore[arg-type]
                          kv_precision="fp8", tp=tp, pp=1, spans_nodes=False, gpus_per_node=8)


def test_expert_parallelism_prefills_a_large_moe_faster_and_decodes_a_full_batch_alike() -> None:
    """TensorRT-LLM runs MoE models with their experts spread whole over the TP group: each
    GPU's grouped GEMM runs at the expert's whole width (an eighth as many, eight times as
    wide), so a long prompt of Qwen3-235B on 8 H100s prefills faster; a full decode batch
    reads the same expert bytes either way, so it steps at the same pace."""
    ep, split = _experts_both_ways("qwen3-235b-a22b", "h100-sxm", "fp8", 8)
    assert ep.prefill(8192.0) < 0.93 * split.prefill(8192.0)
    assert ep.decode(256.0, 4096.0) == pytest.approx(split.decode(256.0, 4096.0), rel=0.03)


def test_a_lone_stream_of_a_few_expert_moe_waits_for_the_gpu_that_holds_its_expert() -> None:
    """Mixtral 8x7B on 8 GPUs in expert parallelism holds one whole expert per GPU: a lone
    decode token's two experts are read whole by the GPUs that hold them (split by TP, every
    GPU reads an eighth of each), so a single user is slower, while a batch that touches
    every expert steps alike."""
    ep, split = _experts_both_ways("mixtral-8x7b", "h100-sxm", "fp8", 8)
    assert ep.decode(1.0, 4096.0) > 1.2 * split.decode(1.0, 4096.0)
    assert ep.decode(256.0, 4096.0) == pytest.approx(split.decode(256.0, 4096.0), rel=0.02)


def _on_8(model: str, gpu: str, precision: str, concurrency: int, attention_dp: bool):  # type: ignore[no-untyped-def]
    """One 8-GPU group of ``model`` at ``concurrency`` requests of 1k + 1k tokens, the group
    tensor-parallel or in attention DP with the experts spread over it."""
    f = build_facts(SizingRequest(model=model, gpu=gpu), CAT)
    return plan_inference(f.model, f.params, f.kernels, f.fabric, f.policy,
                          precision=precision, kv_precision="fp8",  # type: ignore[arg-type]
                          concurrency=concurrency, shape=Shape(context=2048, isl=1024, osl=1024),
                          nodes=1, gpus_per_node=8, tp=8, pp=1, dp=1, attention_dp=attention_dp)


def test_attention_dp_holds_more_mla_requests_and_serves_a_full_load_faster() -> None:
    """DeepSeek-V3 on 8 H200: under TP every GPU keeps the whole MLA latent of every request;
    in attention DP each keeps only its own requests' (TensorRT-LLM's DEP runs), so the node
    holds several times the requests and a full load is served faster, while one user alone
    is faster in TP (each GPU reads an eighth of the attention and dense weights)."""
    tp1, dep1 = (_on_8("deepseek-v3", "h200", "fp8", 1, a) for a in (False, True))
    assert dep1.label == "DEP=8" and tp1.label == "TP=8"
    assert dep1.max_concurrency > 4 * tp1.max_concurrency
    assert tp1.per_user_tokens_per_s > 1.2 * dep1.per_user_tokens_per_s
    full = tp1.max_concurrency
    tp, dep = (_on_8("deepseek-v3", "h200", "fp8", full, a) for a in (False, True))
    assert dep.tokens_per_s > 1.3 * tp.tokens_per_s


def test_attention_dp_is_weighed_for_moe_models_only() -> None:
    """Every MoE model whose experts divide by a TP group gets that group in attention DP
    among its layouts; a dense model never does."""
    dense, moe = (build_facts(SizingRequest(model=m, gpu="h100-sxm"), CAT)
                  for m in ("llama-3.1-70b", "qwen3-235b-a22b"))
    assert not any(adp for *_, adp in serving_layouts(dense.model, dense.policy, 1, 8))
    deps = {tp for tp, _, _, adp in serving_layouts(moe.model, moe.policy, 1, 8) if adp}
    assert deps == {2, 4, 8}


def test_an_answer_in_attention_dp_says_so_in_its_layout() -> None:
    """DeepSeek-V3 for 256 users on RTX PRO 6000 is served in attention DP: the answer's
    layout carries the flag (its JSON too), where a dense model's layout stays tp, pp, dp."""
    moe = rec(model="deepseek-v3", concurrency=256)
    assert moe.layout.attention_dp
    assert moe.model_dump(mode="json")["layout"]["attention_dp"] is True
    dense = rec(model="llama-3.1-70b", concurrency=256)
    assert set(dense.model_dump(mode="json")["layout"]) == {"tp", "pp", "dp"}


def test_a_batch_answer_is_as_long_as_its_kind_writes() -> None:
    """2M texts of 800 tokens by tomorrow: translated, each answer is as long as its text
    (more hardware than summaries of 250 tokens); classified, a label (less). Each card says
    the length it assumed and why, and no batch is told to route conversations."""
    def batch(work: str) -> Recommendation:
        return recommend(SizingRequest(model="llama-3.3-70b", documents=2e6, deadline_days=1,
                                       prompt_tokens=800, work=work))  # type: ignore[arg-type]
    summary, translation, labels = batch("batch"), batch("translation"), batch("classification")
    gpus = {k: r.nodes * r.gpus_per_node for k, r in
            (("summary", summary), ("translation", translation), ("labels", labels))}
    assert gpus["labels"] <= gpus["summary"] < gpus["translation"], gpus
    said = {r.work: [a.params for a in r.assumptions if a.id == "assumption.request_shape_work"]
            for r in (summary, translation, labels)}
    assert said["translation"][0]["output"] == 800 and said["classification"][0]["output"] == 20
    for r in (summary, translation, labels):
        assert all(c.id != "caveat.replica_routing" for c in r.caveats), r.work


def test_a_translation_without_its_length_splits_the_window_between_text_and_answer() -> None:
    r = recommend(SizingRequest(model="llama-3.1-8b", concurrency=16, context=8192,
                                work="translation"), alternatives=False)
    shape = next(a.params for a in r.assumptions if a.id == "assumption.request_shape_work")
    assert shape["prompt"] == shape["output"] == 4096
