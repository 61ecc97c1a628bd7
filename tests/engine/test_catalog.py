"""The model catalog: it loads, every entry is sourced, and what people type finds the model."""

from __future__ import annotations

import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from engine.catalog import (
    DATA_DIR,
    Catalog,
    CatalogError,
    ModelSpec,
    UnknownModel,
    catalog,
    entries,
    load_catalog,
    model_keys,
)

MODELS: dict[str, ModelSpec] = entries(DATA_DIR / "models.toml", "models", ModelSpec)
IDS = sorted(MODELS)


@pytest.fixture(scope="module")
def cat() -> Catalog:
    """The packaged catalog, as the bot loads it (all four data files)."""
    return catalog()


# -- the data ------------------------------------------------------------------------------


def test_packaged_catalog_loads_every_model(cat: Catalog) -> None:
    assert set(cat.models) == set(MODELS)


@pytest.mark.parametrize("model_id", IDS)
def test_every_model_is_sourced_and_plausible(model_id: str) -> None:
    m = MODELS[model_id]
    assert m.source.startswith("https://huggingface.co/") and m.source.endswith("config.json")
    assert m.hf_id in m.source or m.hf_id.split("/")[0] in m.source
    assert re.fullmatch(r"[a-z0-9][a-z0-9.\-]*", m.id), "ids are short lowercase"
    assert m.released is not None and re.fullmatch(r"20\d\d-(0[1-9]|1[0-2])", m.released)
    # Llama 2 (4,096) and Falcon 180B (2,048) predate long context; everything newer has >= 8k.
    assert m.max_context >= 2048
    if m.released >= "2024-01":
        assert m.max_context >= 8192
    if m.mla is None:
        assert m.heads % m.kv_heads == 0
    if m.is_moe:
        assert m.active_params_b is not None and m.active_params_b < m.params_b
    else:
        assert m.active_params_b is None


def test_no_two_models_share_a_lookup_key() -> None:
    keys = Counter(k for m in MODELS.values() for k in set(model_keys(m)))
    assert [k for k, n in keys.items() if n > 1] == []


def test_window_layers_follow_the_documented_patterns() -> None:
    assert MODELS["gemma-2-9b"].swa_layers == 42 // 2  # alternating local/global
    assert MODELS["gemma-3-27b"].swa_layers == 62 - 62 // 6  # 5 local : 1 global
    assert MODELS["gpt-oss-120b"].swa_layers == 36 // 2  # alternating 128-token windows
    assert MODELS["llama-4-scout"].swa_layers == 48 * 3 // 4  # chunked on 3 of 4 layers
    assert MODELS["mistral-7b"].sliding_window is None  # v0.3 dropped it


# -- name resolution -----------------------------------------------------------------------


@pytest.mark.parametrize("model_id", IDS)
def test_resolves_by_hf_id_short_id_and_instruct_variant(cat: Catalog, model_id: str) -> None:
    m = MODELS[model_id]
    assert cat.model(m.id).id == model_id
    assert cat.model(m.hf_id).id == model_id
    assert cat.model(m.hf_id + "-Instruct").id == model_id
    assert cat.model(m.id.upper()).id == model_id
    for alias in m.aliases:
        assert cat.model(alias).id == model_id, alias


@pytest.mark.parametrize(
    "text",
    [
        "llama 3.1 70b",
        "Llama3.1-70B",
        "LLAMA-3.1-70B-INSTRUCT",
        "meta-llama/Meta-Llama-3.1-70B-Instruct",
        "meta-llama/Llama-3.1-70B-Instruct",
        "  llama-3.1-70b  ",
        "l3.1-70b",
    ],
)
def test_loose_forms_of_llama_3_1_70b(cat: Catalog, text: str) -> None:
    assert cat.model(text).id == "llama-3.1-70b"


@pytest.mark.parametrize(
    ("text", "model_id"),
    [
        ("405b", "llama-3.1-405b"),
        ("deepseek v3", "deepseek-v3"),
        ("dsv3", "deepseek-v3"),
        ("deepseek r1", "deepseek-r1"),
        ("gptoss 120b", "gpt-oss-120b"),
        ("openai/gpt-oss-20b", "gpt-oss-20b"),
        ("maverick", "llama-4-maverick"),
        ("Qwen/Qwen2.5-72B-Instruct", "qwen-2.5-72b"),
        ("qwen 2.5 72", "qwen-2.5-72b"),  # missing 'b': a unique prefix still finds it
        ("google/gemma-3-27b-it", "gemma-3-27b"),
        ("mistralai/Mixtral-8x7B-Instruct-v0.1", "mixtral-8x7b"),
        ("8x22b", "mixtral-8x22b"),
    ],
)
def test_fragments_and_nicknames(cat: Catalog, text: str, model_id: str) -> None:
    assert cat.model(text).id == model_id


@pytest.mark.parametrize(
    ("text", "model_id"),
    [
        # What sales people type for the older and derived models.
        ("llama 3 70b", "llama-3-70b"),
        ("Llama-3-70B-Instruct", "llama-3-70b"),
        ("meta llama 3 70b", "llama-3-70b"),
        ("meta-llama/Meta-Llama-3-70B-Instruct", "llama-3-70b"),
        ("llama3 8b", "llama-3-8b"),
        ("llama 2 70b", "llama-2-70b"),
        ("llama2 70b", "llama-2-70b"),
        ("meta-llama/Llama-2-70b-chat-hf", "llama-2-70b"),
        ("llama 2 7b", "llama-2-7b"),
        ("llama 2 13b", "llama-2-13b"),
        ("r1 distill llama 70b", "deepseek-r1-distill-llama-70b"),
        ("r1 distill 70b", "deepseek-r1-distill-llama-70b"),
        ("deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", "deepseek-r1-distill-qwen-32b"),
        ("r1 distill qwen 32b", "deepseek-r1-distill-qwen-32b"),
        ("mistral small 24b", "mistral-small-3"),
        ("mistralai/Mistral-Small-24B-Instruct-2501", "mistral-small-3"),
        ("gemma 3 12b", "gemma-3-12b"),
        ("google/gemma-3-4b-it", "gemma-3-4b"),
        ("qwen 2.5 coder 32b", "qwen-2.5-coder-32b"),
        ("Qwen/Qwen2.5-Coder-32B-Instruct", "qwen-2.5-coder-32b"),
        ("command r+", "command-r-plus"),
        ("command r plus", "command-r-plus"),
        ("falcon 180b", "falcon-180b"),
        # ... and the names that resolved before the older models arrived still do.
        ("llama 3.1 70b", "llama-3.1-70b"),
        ("llama 3.3 70b", "llama-3.3-70b"),
        ("meta-llama/Meta-Llama-3.1-70B-Instruct", "llama-3.1-70b"),
        ("llama 3.1 8b", "llama-3.1-8b"),
        ("deepseek r1", "deepseek-r1"),
        ("qwen 2.5 32b", "qwen-2.5-32b"),
        ("mistral 7b", "mistral-7b"),
        ("gemma 3 27b", "gemma-3-27b"),
    ],
)
def test_older_and_derived_models_resolve(cat: Catalog, text: str, model_id: str) -> None:
    assert cat.model(text).id == model_id


@pytest.mark.parametrize(
    ("text", "must_include"),
    [
        ("70b", {"llama-3.1-70b", "llama-3.3-70b"}),
        ("deepseek", {"deepseek-v3", "deepseek-r1"}),
        ("gpt oss", {"gpt-oss-20b", "gpt-oss-120b"}),
        ("27b", {"gemma-2-27b", "gemma-3-27b"}),
        ("llama 2", {"llama-2-7b", "llama-2-13b", "llama-2-70b"}),
        ("llama 3", {"llama-3-8b", "llama-3-70b", "llama-3.1-8b"}),
        ("gemma 3", {"gemma-3-4b", "gemma-3-12b", "gemma-3-27b"}),
        ("r1 distill", {"deepseek-r1-distill-llama-70b", "deepseek-r1-distill-qwen-32b"}),
    ],
)
def test_ambiguous_names_ask_which_one(cat: Catalog, text: str, must_include: set[str]) -> None:
    with pytest.raises(UnknownModel) as exc:
        cat.model(text)
    assert exc.value.ambiguous
    assert must_include <= set(exc.value.suggestions)
    assert exc.value.message.id == "error.ambiguous_model"
    assert exc.value.message.params["text"] == text


@pytest.mark.parametrize(
    ("text", "model_id"),
    [
        ("lama 3.1 70", "llama-3.1-70b"),
        ("qwen 2,5 72b", "qwen-2.5-72b"),
        ("qewn2.5-72b", "qwen-2.5-72b"),
        ("mixtrl 8x7b", "mixtral-8x7b"),
        ("gema 2 9b", "gemma-2-9b"),
    ],
)
def test_typos_get_did_you_mean(cat: Catalog, text: str, model_id: str) -> None:
    with pytest.raises(UnknownModel) as exc:
        cat.model(text)
    assert not exc.value.ambiguous
    assert model_id in exc.value.suggestions
    assert exc.value.message.id == "error.unknown_model_suggest"
    assert model_id in exc.value.message.params["suggestions"]  # type: ignore[operator]


@pytest.mark.parametrize("text", ["xyzzy", "", "   ", "the best model", "GPT-5"])
def test_garbage_is_unknown(cat: Catalog, text: str) -> None:
    with pytest.raises(UnknownModel) as exc:
        cat.model(text)
    assert not exc.value.ambiguous


# -- broken data files ---------------------------------------------------------------------


def _broken_copy(tmp_path: Path, old: str, new: str) -> Path:
    data = tmp_path / "data"
    shutil.copytree(DATA_DIR, data)
    path = data / "models.toml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    return data


def _llama_70b_block() -> str:
    text = (DATA_DIR / "models.toml").read_text()
    start = text.index('id = "llama-3.1-70b"')
    return text[start : text.index("[[models]]", start)]


def test_missing_field_names_file_entry_and_field(tmp_path: Path) -> None:
    block = _llama_70b_block()
    data = _broken_copy(tmp_path, block, block.replace("layers = 80\n", ""))
    with pytest.raises(CatalogError) as exc:
        load_catalog(data)
    msg = exc.value.detail
    assert "models.toml" in msg and "llama-3.1-70b" in msg and "'layers'" in msg


def test_wrong_type_names_file_entry_and_field(tmp_path: Path) -> None:
    block = _llama_70b_block()
    data = _broken_copy(tmp_path, block, block.replace("hidden = 8192", 'hidden = "big"'))
    with pytest.raises(CatalogError) as exc:
        load_catalog(data)
    msg = exc.value.detail
    assert "models.toml" in msg and "llama-3.1-70b" in msg and "'hidden'" in msg


def test_unknown_field_is_rejected(tmp_path: Path) -> None:
    block = _llama_70b_block()
    data = _broken_copy(tmp_path, block, block.replace("hidden = 8192", "hiden = 8192"))
    with pytest.raises(CatalogError) as exc:
        load_catalog(data)
    assert "llama-3.1-70b" in exc.value.detail and "hiden" in exc.value.detail


def test_inconsistent_moe_entry_is_rejected(tmp_path: Path) -> None:
    data = _broken_copy(tmp_path, "experts_active = 8\n", "experts_active = 300\n")
    with pytest.raises(CatalogError) as exc:
        load_catalog(data)
    assert "models.toml" in exc.value.detail and "experts_active" in exc.value.detail


# -- GPU names -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "gpu_id"),
    [
        ("a100", "a100-sxm-80gb"),
        ("A100 80GB", "a100-sxm-80gb"),
        ("HGX A100", "a100-sxm-80gb"),
        ("a100 80gb pcie", "a100-pcie-80gb"),
        ("A100 PCIe", "a100-pcie-80gb"),
        ("a100 40gb", "a100-sxm-40gb"),
        ("rtx 4090", "rtx-4090"),
        ("4090", "rtx-4090"),
        # existing names are unchanged
        ("h100", "h100-sxm"),
        ("rtx 5090", "rtx-5090"),
        ("RTX Pro 6000", "rtx-pro-6000-server"),
    ],
)
def test_gpu_loose_names(cat: Catalog, text: str, gpu_id: str) -> None:
    assert cat.gpu(text).id == gpu_id


# -- FP8 on a GPU without FP8 tensor cores ---------------------------------------------------


@pytest.mark.parametrize("gpu_id", ["a100-sxm-80gb", "a100-pcie-80gb", "a100-sxm-40gb"])
def test_fp8_on_an_a100_runs_as_w8a16_at_the_bf16_rate(cat: Catalog, gpu_id: str) -> None:
    from engine.physics.kernels import compute_dtype, kernel_dtype, peak_flops

    gpu = cat.gpu(gpu_id)
    assert gpu.fp8_tflops is None
    # FP8 weights run the measured weight-only INT8 kernels (W8A16) at the BF16 rate
    assert kernel_dtype(gpu, "fp8") == "int8_wo"
    assert compute_dtype(gpu, "fp8") == "bf16"
    assert peak_flops(gpu, compute_dtype(gpu, "fp8")) == gpu.bf16_tflops * 1e12
    assert kernel_dtype(gpu, "int4") == "int4_wo" and compute_dtype(gpu, "int4") == "bf16"
    h100 = cat.gpu("h100-sxm")
    assert kernel_dtype(h100, "fp8") == "fp8"
    assert peak_flops(h100, compute_dtype(h100, "fp8")) == (h100.fp8_tflops or 0) * 1e12


def test_an_fp8_request_on_an_a100_is_sized_and_says_w8a16(cat: Catalog) -> None:
    from engine.decision import recommend
    from engine.request import SizingRequest

    req = SizingRequest(model="llama 3 70b", gpu="a100", precision="fp8", context=8192)
    r = recommend(req, cat, alternatives=False)
    assert r.gpu == "a100-sxm-80gb" and r.model.id == "llama-3-70b"
    assert r.precision == "fp8"
    assert r.numbers.node_tokens_per_s and r.numbers.node_tokens_per_s > 0
    assert "assumption.w8a16" in {a.id for a in r.assumptions}, r.assumptions
    # On an H100 the same request gets no such note: it has FP8 tensor cores.
    h100 = recommend(req.model_copy(update={"gpu": "h100"}), cat, alternatives=False)
    assert "assumption.w8a16" not in {a.id for a in h100.assumptions}
