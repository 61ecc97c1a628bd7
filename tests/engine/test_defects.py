"""One test per engine defect fixed in issue #8's redesign; each failed before its fix.

- The VRAM bar and step 1 disagreed for a TP=4 x DP=2 layout (the bar counted one copy of
  the weights): both now read one picture, with every copy counted.
- "6k" meant 6,144 tokens/s to the CLI's --target-tokens-per-s (and 6,000 in the dialogue):
  quantities are read by engine/units.py everywhere.
- A model known by its size: the dialogue accepted 1M tokens of context, the engine capped
  it at 131,072: ``engine.max_context`` is the one limit, and the engine holds to it.
- Two 3-GPU nodes crashed the research-lab trap (a TP=8 layout on 6 GPUs) with a ValueError.
- The contract's new fields were empty: Alternative.kind, ModelRef.moe, kv_precision,
  total_tokens_per_s.
- The math quoted its own copies of the FLOPs factor and the KV byte width.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import engine
from engine import EngineError, SizingRequest, UnsizableRequest, recommend
from engine.catalog import catalog
from engine.physics.memory import kv_element_bytes
from engine.physics.training import flops_factor
from engine.result import Recommendation
from engine.wording import Message


def _rec(**kw: object) -> Recommendation:
    return recommend(SizingRequest(**kw), alternatives=False)


@pytest.mark.parametrize("kw", [
    {"model": "llama-3.1-70b", "concurrency": 32, "context": 8192},  # TP=4 x DP=2
    {"model": "llama-3.1-8b", "concurrency": 64, "context": 8192},
    {"model": "llama-3.1-405b", "concurrency": 48, "context": 16384},  # INT4, step 2
    {"model": "llama-3.1-405b", "concurrency": 64, "context": 32768},  # a 2-node cluster
    {"model": "llama-3.1-70b", "concurrency": 64, "context": 8192, "target_tokens_per_s": 6000},
])
def test_the_bar_and_the_step_quote_one_picture(kw: dict[str, object]) -> None:
    r = _rec(**kw)
    pic = r.numbers.memory
    assert pic is not None
    seg = pic.per_copy
    # every copy of the weights in the scope is counted
    assert seg.weights_gb == pytest.approx((r.numbers.weights_gb or 0) * r.layout.dp,
                                           abs=0.05 * r.layout.dp)
    assert seg.used_gb == pytest.approx(seg.weights_gb + seg.work_gb + seg.reserve_gb)
    assert r.numbers.free_share == pytest.approx(seg.free_share, abs=1e-4)
    because = r.questions[-1].because
    if because.id == "evidence.replicas_target":  # quotes rates, not memory
        return
    fit = because
    while fit.id in ("evidence.rate", "evidence.slow", "evidence.meets", "evidence.cluster"):
        inner = fit.params["fit"]
        assert isinstance(inner, Message)
        fit = inner
    assert fit.id in ("evidence.fit", "evidence.fit_copies")
    assert fit.params["free_share"] == seg.free_share
    assert fit.params["used"] == seg.used_gb
    assert fit.params["weights"] == seg.weights_gb
    assert fit.params["vram"] == seg.vram_gb


def test_the_total_scope_is_every_copy() -> None:
    r = _rec(model="llama-3.1-70b", concurrency=64, context=8192, target_tokens_per_s=6000)
    pic = r.numbers.memory
    assert pic is not None and pic.copies == r.replicas and pic.copies > 1
    seg = pic.per_copy
    assert pic.total.used_gb == pytest.approx(seg.used_gb * pic.copies, rel=1e-3)
    assert pic.total.vram_gb == pytest.approx(seg.vram_gb * pic.copies)


def test_a_tp4_dp2_node_is_not_577_gb_free() -> None:
    # A data-parallel layout holds one copy of the weights per replica: the bar counts them all.
    r = _rec(model="llama-3.1-70b", concurrency=128, context=8192)
    assert r.layout.dp > 1
    seg = r.numbers.memory.per_copy  # type: ignore[union-attr]
    weights = r.numbers.weights_gb or 0
    assert seg.weights_gb == pytest.approx(weights * r.layout.dp, abs=0.06 * r.layout.dp)
    assert seg.free_gb == pytest.approx(seg.vram_gb - weights * r.layout.dp - seg.work_gb
                                        - seg.reserve_gb, abs=0.2)
    # each extra copy's weights are not free: counting them once would overstate the room
    assert seg.free_gb < seg.vram_gb - weights - seg.work_gb - seg.reserve_gb \
        - 0.99 * weights * (r.layout.dp - 1)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "engine", *args], capture_output=True,
                          text=True, timeout=60)


def test_6k_is_a_6144_token_context_and_a_6000_token_rate() -> None:
    p = _cli("recommend", "--model", "llama-3.1-70b", "--concurrency", "64", "--context", "6k",
             "--target-tokens-per-s", "6k", "--no-alternatives", "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    q1 = d["questions"][0]["question"]
    assert q1["id"] == "question.step1_target"
    asked = q1["params"]["target"]["params"]["parts"]
    assert {"id": "target.rate", "params": {"target": 6000.0}, "text": "6,000 tok/s"} in asked
    load = d["headline"]["params"].get("load") or d["questions"][0]["because"]
    assert json.dumps(load).count('"context": 6144') >= 1


def test_max_context_is_the_limit_the_engine_holds_to() -> None:
    limit = engine.max_context(None, 30.0)
    assert limit == catalog().policy.synthetic_max_context == 131072
    assert engine.max_context("llama 3.1 70b", None) == 131072
    assert engine.max_context("llama-2-70b", None) == 4096
    assert _rec(params_b=30, context=limit).step >= 1  # the limit itself is sized
    with pytest.raises(UnsizableRequest) as exc:
        _rec(params_b=30, context=limit + 1)
    assert exc.value.message.id == "error.context_too_long"
    assert exc.value.message.params["limit"] == limit
    with pytest.raises(engine.UnknownModel):
        engine.max_context("no such model", None)


@pytest.mark.parametrize("gpn", [3, 5, 6, 7])
def test_small_nodes_that_do_not_divide_eight_are_compared_without_crashing(gpn: int) -> None:
    r = _rec(model="deepseek-v3", gpus_per_node=gpn)
    assert r.nodes >= 1
    if r.caveats and r.caveats[0].id.startswith("caveat.research_lab_trap"):
        assert r.gpus_per_node == 8
        assert r.caveats[0].params["small"] == gpn


def test_the_contracts_new_fields_are_filled() -> None:
    r = recommend(SizingRequest(model="llama-3.1-70b", concurrency=64, context=8192,
                                kv_precision="fp8", target_tokens_per_s=6000))
    assert r.kv_precision == "fp8"
    assert r.replicas and r.numbers.node_tokens_per_s and r.numbers.total_tokens_per_s
    assert r.numbers.total_tokens_per_s == pytest.approx(
        r.replicas * r.numbers.node_tokens_per_s, abs=r.replicas)
    assert r.numbers.memory is not None and r.numbers.memory.copies == r.replicas
    kinds = {a.kind for a in r.alternatives}
    assert kinds and kinds <= {"gpu", "layout", "precision", "as_asked", "kv_precision", "speed"}
    assert "gpu" in kinds
    assert _rec(model="deepseek-v3").model.moe
    assert not _rec(model="llama-3.1-8b").model.moe


def test_the_math_quotes_the_physics_own_constants() -> None:
    train = _rec(model="llama-3.1-8b", workload="lora")
    (compute,) = [m for m in train.math if m.id == "math.compute"]
    assert compute.params["k"] == flops_factor("lora") == 4.0
    full = _rec(model="llama-3.1-8b", workload="full-finetune")
    (compute,) = [m for m in full.math if m.id == "math.compute"]
    assert compute.params["k"] == flops_factor("full-finetune") == 6.0
    serve = _rec(model="llama-3.1-70b", kv_precision="fp8")
    (kv,) = [m for m in serve.math if m.id == "math.kv_gqa"]
    assert kv.params["b"] == kv_element_bytes("fp8") == 1
    assert kv.params["per_token"] == serve.numbers.kv_bytes_per_token == 163_840


def test_a_small_fine_tune_takes_time_on_every_line_of_its_card() -> None:
    """A LoRA on 2k emails of 150 tokens (300k tokens) runs in seconds, never in 0 days:
    the figures keep their significant digits, in the answer and its alternatives."""
    r = recommend(SizingRequest(model="llama-3.1-8b", workload="lora", train_tokens=3e5))
    assert r.numbers.days is not None and 0 < r.numbers.days < 0.01
    assert r.numbers.gpu_months is not None and r.numbers.gpu_months > 0
    timed = [a for a in r.alternatives if a.numbers is not None and a.numbers.days is not None]
    assert timed and all(a.numbers.days > 0 for a in timed if a.numbers.days is not None)


def test_a_refused_gpu_is_never_an_alternative() -> None:
    """'not on L40S': the GPUs a customer refused are not offered, whatever they would win;
    a name the catalog lacks is refused by name."""
    kw: dict[str, object] = {"model": "llama-3.1-70b", "concurrency": 64, "context": 8192}
    base = recommend(SizingRequest(**kw))
    offered = [a.gpu for a in base.alternatives if a.kind == "gpu"]
    assert offered
    r = recommend(SizingRequest(**kw, avoid_gpus=tuple(offered)))
    others = [a.gpu for a in r.alternatives if a.kind == "gpu"]
    assert others and not set(offered) & set(others)
    with pytest.raises(EngineError, match="nonsense"):
        recommend(SizingRequest(**kw, avoid_gpus=("nonsense",)))
