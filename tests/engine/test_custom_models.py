"""Models outside the catalog (issue #9 item 9, for issue #10): a Hugging Face config.json, an
architecture, or total and active parameters of an MoE, sized by the same code as catalog
models; and small work sized on the fewest GPUs.

The configs are real ``config.json`` texts (tests/engine/data/hf_configs/SOURCES.md says
where each comes from); each is read by engine/physics/hfconfig.py and compared with the
catalog entry that transcribes the same file (engine/data/models.toml).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from engine import SizingRequest, UnsizableRequest, max_context, recommend
from engine.catalog import catalog
from engine.physics.hfconfig import spec_from_hf_config
from engine.physics.params import count_params
from engine.result import Recommendation
from engine.units import Lang
from engine.wording import Message, render

CAT = catalog()
CONFIGS = Path(__file__).parent / "data" / "hf_configs"

#: config file -> the catalog entry transcribing the same architecture
SAME_AS_CATALOG = {
    "meta-llama--Meta-Llama-3.1-8B.json": "llama-3.1-8b",
    "meta-llama--Meta-Llama-3.1-70B.json": "llama-3.1-70b",
    "meta-llama--Llama-4-Scout-17B-16E-Instruct.json": "llama-4-scout",
    "mistralai--Mixtral-8x7B-v0.1.json": "mixtral-8x7b",
    "Qwen--Qwen3-32B.json": "qwen3-32b",
    "Qwen--Qwen3-30B-A3B.json": "qwen3-30b-a3b",
    "Qwen--Qwen3-235B-A22B.json": "qwen3-235b-a22b",
    "deepseek-ai--DeepSeek-V3.json": "deepseek-v3",
    "moonshotai--Kimi-K2-Instruct.json": "kimi-k2",
    "openai--gpt-oss-20b.json": "gpt-oss-20b",
    "openai--gpt-oss-120b.json": "gpt-oss-120b",
    "microsoft--phi-4.json": "phi-4",
    "google--gemma-2-27b.json": "gemma-2-27b",
    "google--gemma-3-4b-text.json": "gemma-3-4b",
}
ARCH_FIELDS = ("layers", "hidden", "heads", "kv_heads", "head_dim", "experts",
               "experts_active", "shared_experts", "moe_ffn", "dense_layers", "mla",
               "sliding_window", "swa_layers", "tied_embeddings", "attention_sinks",
               "native_precision")


def config(name: str) -> dict[str, object]:
    data: dict[str, object] = json.loads((CONFIGS / name).read_text())
    return data


def rec(**kw: object) -> Recommendation:
    return recommend(SizingRequest(**kw), alternatives=False)  # type: ignore[arg-type]


def ids(messages) -> list[str]:  # type: ignore[no-untyped-def]
    return [m.id for m in messages]


def test_every_config_file_is_used_and_sourced() -> None:
    files = {p.name for p in CONFIGS.glob("*.json")}
    used = set(SAME_AS_CATALOG) | {"Qwen--Qwen2.5-0.5B.json"}
    assert files == used
    sources = (CONFIGS / "SOURCES.md").read_text()
    assert "aiconfigurator" in sources and "phi-4" in sources and "gemma-2-27b" in sources


@pytest.mark.parametrize(("name", "model_id"), sorted(SAME_AS_CATALOG.items()))
def test_a_real_config_reads_as_the_catalog_entry_of_the_same_model(
        name: str, model_id: str) -> None:
    spec, notes = spec_from_hf_config(config(name))
    ours = CAT.model(model_id)
    for field in ARCH_FIELDS:
        assert getattr(spec, field) == getattr(ours, field), field
    # FFN width: dense models' and the dense part of MoE models'
    assert spec.ffn == ours.ffn or ours.is_moe
    got, want = count_params(spec), count_params(ours)
    # Gemma 3's checkpoint pads its vocabulary (262,208 against 262,144 tokens): 0.005 %
    assert got.total == pytest.approx(want.total, rel=1e-3)
    assert got.active == pytest.approx(want.active, rel=1e-3)
    assert "assumption.hf_config" in ids(notes)
    assert "assumption.hf_generic" not in ids(notes)  # every family has its own rule


def test_kimi_k2_config_counts_as_its_model_card_says() -> None:
    spec, _ = spec_from_hf_config(config("moonshotai--Kimi-K2-Instruct.json"))
    pc = count_params(spec)
    # model card: 1T total parameters, 32B activated; MLA; shipped in block-scaled FP8
    assert 1.0e12 <= pc.total <= 1.04e12 and 32e9 <= pc.active <= 33.5e9
    assert spec.mla is not None and spec.experts == 384 and spec.experts_active == 8
    assert spec.native_precision == "fp8"


def test_a_small_dense_config_counts_as_published() -> None:
    spec, _ = spec_from_hf_config(config("Qwen--Qwen2.5-0.5B.json"))
    # Qwen2.5-0.5B model card: 0.49B parameters, 24 layers, 14 Q / 2 KV heads, tied embeddings
    assert count_params(spec).total == pytest.approx(0.494e9, rel=0.01)
    assert (spec.layers, spec.heads, spec.kv_heads, spec.tied_embeddings) == (24, 14, 2, True)
    assert spec.attn_bias == "qkv"


def test_recommend_sizes_a_config_exactly_as_the_catalog_model() -> None:
    text = (CONFIGS / "meta-llama--Meta-Llama-3.1-70B.json").read_text()
    custom = rec(hf_config=text, concurrency=64)
    named = rec(model="llama-3.1-70b", concurrency=64)
    assert not custom.model.in_catalog and named.model.in_catalog
    assert (custom.verdict, custom.layout, custom.precision) == \
        (named.verdict, named.layout, named.precision)
    for field in ("weights_gb", "kv_bytes_per_token", "node_tokens_per_s", "ttft_s",
                  "tpot_ms", "gpus_needed"):
        assert getattr(custom.numbers, field) == getattr(named.numbers, field), field
    said = [a for a in custom.assumptions if a.id == "assumption.hf_config"]
    assert said and said[0].params["params"] == pytest.approx(70.55e9, rel=1e-3)


def test_a_config_given_as_text_or_dict_is_the_same_request() -> None:
    cfg = config("Qwen--Qwen3-32B.json")
    a = SizingRequest(hf_config=cfg)  # type: ignore[arg-type]
    b = SizingRequest(hf_config=json.dumps(cfg, indent=2))
    assert a == b and hash(a) == hash(b)
    assert max_context(None, None, hf_config=cfg) == 40960


def test_a_native_checkpoint_format_is_read_from_the_config() -> None:
    oss = rec(hf_config=config("openai--gpt-oss-120b.json"))
    assert oss.precision == "mxfp4" and oss.model.native_precision == "mxfp4"
    assert "caveat.int4" not in ids(oss.caveats)
    ds = spec_from_hf_config(config("deepseek-ai--DeepSeek-V3.json"))[0]
    assert ds.native_precision == "fp8"


def test_an_unknown_family_with_standard_fields_is_read_as_a_llama_style_decoder() -> None:
    cfg = {**config("meta-llama--Meta-Llama-3.1-8B.json"), "model_type": "my_llama"}
    spec, notes = spec_from_hf_config(cfg)
    assert "assumption.hf_generic" in ids(notes)
    assert count_params(spec).total == pytest.approx(8.03e9, rel=1e-3)


def test_a_config_without_the_fields_that_define_it_is_refused_by_name() -> None:
    cfg = config("meta-llama--Meta-Llama-3.1-8B.json")
    del cfg["hidden_size"], cfg["vocab_size"]
    with pytest.raises(UnsizableRequest) as err:
        rec(hf_config=cfg)
    assert err.value.message.id == "error.hf_config"
    assert err.value.message.params["fields"] == ["hidden_size", "vocab_size"]


@pytest.mark.parametrize("bad", [
    {"hf_config": "{not json"},
    {"hf_config": "[1, 2]"},
    {"model": "llama-3.1-8b", "params_b": 8.0},
    {"params_b": 8.0, "hf_config": "{}"},
    {"active_params_b": 5.0},
    {"params_b": 10.0, "active_params_b": 20.0},
])
def test_a_request_describes_its_model_one_way_only(bad: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        SizingRequest(**bad)  # type: ignore[arg-type]


def test_a_synthetic_moe_lands_on_its_total_and_active_parameters() -> None:
    r = rec(params_b=120.0, active_params_b=5.0)
    assert r.model.moe and not r.model.in_catalog
    assert r.model.params_b == pytest.approx(120.0, rel=0.03)
    assert r.model.active_params_b == pytest.approx(5.0, rel=0.05)
    (said,) = [a for a in r.assumptions if a.id == "assumption.synthetic_moe"]
    assert said.params["active"] == 8 and int(said.params["experts"]) >= 16  # type: ignore[arg-type]
    dense = rec(params_b=120.0)
    # the same total, a twentieth of it active: the same weights, a faster decode step
    assert r.numbers.weights_gb == pytest.approx(dense.numbers.weights_gb, rel=0.05)
    assert (r.numbers.tpot_ms or 0) < (dense.numbers.tpot_ms or 0)


def _said(m: Message, lang: Lang) -> str:
    return render(m, lang)


def test_a_model_known_by_its_size_is_named_as_what_it_is() -> None:
    """The headline a person reads: an MoE given by total and active parameters is never
    called dense, in either language; a dense one is."""
    moe, dense = rec(params_b=1000.0, active_params_b=32.0), rec(params_b=30.0)
    langs: tuple[Lang, ...] = ("en", "fr")
    for lang in langs:
        assert "MoE" in _said(moe.headline, lang) and "dense" not in _said(moe.headline, lang)
        assert "dense" in _said(dense.headline, lang)
    # the counts as the person gave them, not the synthetic architecture's ('a 119B MoE
    # model with 11.7B active' answered 'a 120B MoE with 12B active')
    said = rec(params_b=120.0, active_params_b=12.0)
    assert said.model.params_b != 120.0  # the architecture lands near, not on, the counts
    assert "120B" in _said(said.headline, "en") and "12B" in _said(said.headline, "en")


def test_an_architecture_given_whole_is_sized_as_the_catalog_model() -> None:
    spec = CAT.model("qwen3-32b").model_copy(update={"id": "my-qwen", "name": "My Qwen"})
    mine, named = rec(arch=spec), rec(model="qwen3-32b")
    assert mine.model.name == "My Qwen" and not mine.model.in_catalog
    assert "assumption.arch" in ids(mine.assumptions)
    assert mine.numbers.node_tokens_per_s == named.numbers.node_tokens_per_s
    assert max_context(None, None, arch=spec) == spec.max_context


# -- small work on the fewest GPUs -----------------------------------------------------------

def test_an_8b_for_20_users_is_sized_on_one_gpu_and_says_so_once() -> None:
    r = rec(model="llama-3.1-8b", concurrency=20)
    n = r.numbers
    assert (r.step, r.verdict) == (1, "single_node")
    assert n.gpus_needed == n.min_gpus == 1
    assert n.memory is not None and n.memory.per_copy.vram_gb == pytest.approx(103.08, abs=0.01)
    (fewer,) = [c for c in r.caveats if c.id == "caveat.fewer_gpus"]
    assert (fewer.params["min_gpus"], fewer.params["gpus"]) == (1, 8)
    assert (n.per_user_tokens_per_s or 0) >= CAT.policy.comfortable_tokens_per_s


def test_a_lora_card_quotes_the_same_gpus_in_the_caveat_and_the_numbers() -> None:
    r = rec(model="llama-3.1-8b", workload="lora")
    (fewer,) = [c for c in r.caveats if c.id == "caveat.fewer_gpus"]
    assert fewer.params["min_gpus"] == r.numbers.gpus_needed == r.numbers.min_gpus
    assert (r.numbers.gpus_needed or 99) < 8


def test_work_that_needs_the_node_takes_it_without_the_fewer_gpus_caveat() -> None:
    r = rec(model="llama-3.1-70b", concurrency=128)
    assert r.numbers.gpus_needed == 8
    assert "caveat.fewer_gpus" not in ids(r.caveats)


@pytest.mark.parametrize("model", sorted(CAT.models))
@pytest.mark.parametrize("workload", ["inference", "lora"])
def test_a_single_node_answer_never_quotes_two_gpu_counts(model: str, workload: str) -> None:
    r = rec(model=model, workload=workload,
            context=min(8192, CAT.models[model].max_context))
    if r.verdict != "single_node":
        return
    n = r.numbers
    assert n.gpus_needed is not None and n.gpus_needed <= r.gpus_per_node
    if n.min_gpus is not None:
        assert n.min_gpus <= n.gpus_needed
    for c in r.caveats:
        if c.id == "caveat.fewer_gpus":
            assert c.params["min_gpus"] == n.gpus_needed
