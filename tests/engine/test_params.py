"""Parameter counts: what a user sees as 'model size' must match what the publisher says."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.catalog import DATA_DIR, ModelSpec, entries
from engine.errors import UnsizableRequest
from engine.physics.params import ParamCount, count_params, dense_spec_from_params

#: The synthetic model's window (the policy's synthetic_max_context).
CONTEXT = 131072

# Read models.toml on its own, so these tests do not depend on the other data files.
MODELS: dict[str, ModelSpec] = entries(DATA_DIR / "models.toml", "models", ModelSpec)
MOE = [m for m in MODELS.values() if m.is_moe]


def _rel(a: float, b: float) -> float:
    return abs(a - b) / b


def test_catalog_has_the_models_people_ask_about() -> None:
    wanted = {
        "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "llama-3.3-70b",
        "llama-4-scout", "llama-4-maverick",
        "qwen-2.5-7b", "qwen-2.5-14b", "qwen-2.5-32b", "qwen-2.5-72b",
        "qwen3-8b", "qwen3-32b", "qwen3-235b-a22b",
        "mistral-7b", "mixtral-8x7b", "mixtral-8x22b", "mistral-large-2",
        "gemma-2-9b", "gemma-2-27b", "gemma-3-27b",
        "deepseek-v3", "deepseek-r1", "gpt-oss-20b", "gpt-oss-120b",
        # what sales people ask about beyond the current releases
        "llama-3-8b", "llama-3-70b", "llama-2-7b", "llama-2-13b", "llama-2-70b",
        "deepseek-r1-distill-llama-70b", "deepseek-r1-distill-qwen-32b",
        "mistral-small-3", "gemma-3-12b", "gemma-3-4b", "qwen-2.5-coder-32b",
        "command-r-plus", "falcon-180b",
    }  # fmt: skip
    assert wanted <= set(MODELS)
    assert len(MODELS) >= 39


@pytest.mark.parametrize("model_id", sorted(MODELS))
def test_total_matches_published_count(model_id: str) -> None:
    m = MODELS[model_id]
    total = count_params(m).total / 1e9
    assert _rel(total, m.params_b) < 0.02, f"{model_id}: counted {total:.2f}B, card {m.params_b}B"


@pytest.mark.parametrize("model_id", sorted(m.id for m in MOE))
def test_moe_active_matches_published_count(model_id: str) -> None:
    m = MODELS[model_id]
    assert m.active_params_b is not None, f"{model_id}: MoE entry without active_params_b"
    active = count_params(m).active
    if m.active_excludes_input_embedding:  # the publisher counted without the lookup table
        active -= m.vocab * m.hidden
    active /= 1e9
    assert _rel(active, m.active_params_b) < 0.05, (
        f"{model_id}: counted {active:.2f}B active, card {m.active_params_b}B"
    )


@pytest.mark.parametrize("model_id", sorted(MODELS))
def test_parts_add_up(model_id: str) -> None:
    pc = count_params(MODELS[model_id])
    parts = pc.embedding + pc.attention + pc.mlp_dense + pc.experts + pc.router + pc.norms
    assert parts == pytest.approx(pc.total)
    assert 0 < pc.active <= pc.total


def test_llama_3_1_70b_total_is_the_textbook_number() -> None:
    # docs/engine-notes.md "Parameter count":
    # 80 x (attention + SwiGLU + 2 norms) + 2 V h + h = 70.55B
    pc = count_params(MODELS["llama-3.1-70b"])
    assert pc.total / 1e9 == pytest.approx(70.55, abs=0.01)
    assert pc.active == pc.total
    assert pc.embedding == 2 * 128256 * 8192
    assert pc.experts == 0 and pc.router == 0


def test_dense_models_have_no_expert_weights() -> None:
    for m in MODELS.values():
        if not m.is_moe:
            pc = count_params(m)
            assert pc.experts == 0 and pc.router == 0 and pc.active == pc.total, m.id


def test_tied_embeddings_are_counted_once() -> None:
    gemma = MODELS["gemma-2-9b"]
    assert gemma.tied_embeddings
    assert count_params(gemma).embedding == gemma.vocab * gemma.hidden
    untied = gemma.model_copy(update={"tied_embeddings": False})
    diff = count_params(untied).total - count_params(gemma).total
    assert diff == gemma.vocab * gemma.hidden


def test_deepseek_v3_is_671b_total_37b_active_without_mtp() -> None:
    pc = count_params(MODELS["deepseek-v3"])
    assert pc.total / 1e9 == pytest.approx(671, rel=0.01)
    assert pc.active / 1e9 == pytest.approx(37, rel=0.03)
    # 3 dense layers are dense MLP, the rest is experts: the bulk of the model.
    assert pc.mlp_dense == 3 * 3 * 7168 * 18432
    assert pc.experts / pc.total > 0.95


def test_mla_attention_is_smaller_than_plain_mha_would_be() -> None:
    m = MODELS["deepseek-v3"]
    mla = count_params(m).attention
    assert m.mla is not None
    mha_equivalent = m.layers * 4 * m.hidden * m.heads * m.mla.v_head_dim
    assert mla < mha_equivalent


def test_llama_4_counts_the_shared_expert_and_interleaved_dense_layers() -> None:
    scout = count_params(MODELS["llama-4-scout"])
    maverick = count_params(MODELS["llama-4-maverick"])
    # Scout: every layer is MoE; one routed + one shared expert per token -> 17B active.
    assert scout.mlp_dense == 0
    assert scout.active / 1e9 == pytest.approx(17.2, abs=0.1)
    # Maverick: 24 dense layers of 16384 alternate with 24 MoE layers.
    assert maverick.mlp_dense == 24 * 3 * 5120 * 16384
    assert maverick.experts == 24 * (128 + 1) * 3 * 5120 * 8192
    # Same active size, very different totals: the difference is all routed experts.
    assert maverick.total > 3.5 * scout.total


def test_gpt_oss_biases_and_sinks_are_counted() -> None:
    m = MODELS["gpt-oss-120b"]
    pc = count_params(m)
    plain = count_params(
        m.model_copy(update={"attn_bias": "none", "attention_sinks": False, "mlp_bias": False})
    )
    per_layer_attn = (64 * 64 + 2 * 8 * 64 + 2880) + 64  # q,k,v,o biases + one sink per head
    assert pc.attention - plain.attention == 36 * per_layer_attn
    assert pc.experts > plain.experts and pc.router > plain.router
    # OpenAI's model card: 116.83B total, 5.13B active (counting the unembedding only).
    assert pc.total / 1e9 == pytest.approx(116.83, abs=0.05)
    assert (pc.active - m.vocab * m.hidden) / 1e9 == pytest.approx(5.13, abs=0.05)


def test_qwen_2_5_attention_biases_are_counted() -> None:
    m = MODELS["qwen-2.5-7b"]
    no_bias = m.model_copy(update={"attn_bias": "none"})
    diff = count_params(m).total - count_params(no_bias).total
    assert diff == m.layers * (m.heads * m.head_dim + 2 * m.kv_heads * m.head_dim)


def test_distills_count_like_their_base_models() -> None:
    """R1 distills are fine-tunes: same architecture, same count as the base they came from."""
    pairs = [
        ("deepseek-r1-distill-llama-70b", "llama-3.3-70b"),
        ("deepseek-r1-distill-qwen-32b", "qwen-2.5-32b"),
        ("llama-3-70b", "llama-3.1-70b"),
        ("llama-3-8b", "llama-3.1-8b"),
    ]
    for derived, base in pairs:
        assert count_params(MODELS[derived]).total == count_params(MODELS[base]).total, derived
    # ... but Llama 3 (April 2024) had 8k of context, 3.1 has 128k.
    assert MODELS["llama-3-70b"].max_context == 8192
    assert MODELS["llama-3.1-70b"].max_context == 131072


def test_llama_2_small_models_have_no_gqa() -> None:
    # Full multi-head attention: KV heads == heads, so KV cache per token is heads/8 x larger.
    for model_id in ("llama-2-7b", "llama-2-13b"):
        m = MODELS[model_id]
        assert m.kv_heads == m.heads and m.max_context == 4096
    assert MODELS["llama-2-70b"].kv_heads == 8


def test_gemma_3_text_counts_match_the_technical_report() -> None:
    # Gemma 3 report, Table 1: non-embedding parameters 3,209M (4B) and 10,759M (12B).
    for model_id, non_embedding in (("gemma-3-4b", 3.209e9), ("gemma-3-12b", 10.759e9)):
        pc = count_params(MODELS[model_id])
        assert pc.total - pc.embedding == pytest.approx(non_embedding, rel=0.001), model_id


def test_falcon_and_command_r_plus_blocks_are_counted() -> None:
    falcon = count_params(MODELS["falcon-180b"])
    # plain GELU MLP (two matrices of 14848 x 59392), tied 65,024-token embedding
    assert falcon.mlp_dense == 80 * 2 * 14848 * 59392
    assert falcon.embedding == 65024 * 14848
    cmd = MODELS["command-r-plus"]
    assert cmd.tied_embeddings and cmd.norms_per_layer == 1  # one shared LayerNorm per block


def test_embedding_share_is_what_stays_16_bit() -> None:
    # Small models are dominated by the vocabulary table; big ones are not.
    small = count_params(MODELS["llama-3.2-3b"])
    big = count_params(MODELS["llama-3.1-405b"])
    assert small.embedding / small.total > 0.1
    assert big.embedding / big.total < 0.02


# -- synthetic models ----------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.floats(min_value=0.5, max_value=2000, allow_nan=False, allow_infinity=False))
def test_dense_spec_round_trips_within_2_percent(params_b: float) -> None:
    spec, assumptions = dense_spec_from_params(params_b, CONTEXT)
    total = count_params(spec).total / 1e9
    assert _rel(total, params_b) < 0.02
    assert spec.kv_heads == 8 and spec.head_dim == 128 and spec.heads % 8 == 0
    assert 2.5 < spec.ffn / spec.hidden < 4.5
    assert spec.source == "synthetic: sized from parameter count"
    assert [a.id for a in assumptions] == ["assumption.synthetic_shape",
                                           "assumption.synthetic_mlp",
                                           "assumption.synthetic_attention"]


@pytest.mark.parametrize(
    ("params_b", "real_id"),
    [(8, "llama-3.1-8b"), (70, "llama-3.1-70b"), (405, "llama-3.1-405b")],
)
def test_dense_spec_looks_like_the_real_family(params_b: float, real_id: str) -> None:
    spec, _ = dense_spec_from_params(params_b, CONTEXT)
    real = MODELS[real_id]
    assert 0.7 < spec.hidden / real.hidden < 1.3
    assert 0.7 < spec.layers / real.layers < 1.3
    assert spec.id == f"custom-{params_b}b"


def test_dense_spec_assumptions_say_what_was_assumed() -> None:
    spec, assumptions = dense_spec_from_params(70, CONTEXT)
    shape, mlp, attention = assumptions
    assert shape.params == {"kv_heads": 8, "head_dim": 128, "layers": spec.layers,
                            "hidden": spec.hidden}
    assert mlp.params["ffn"] == spec.ffn and mlp.params["vocab"] == spec.vocab
    assert attention.params["max_context"] == CONTEXT == spec.max_context


@pytest.mark.parametrize("bad", [0.0, -5.0, float("nan"), float("inf")])
def test_dense_spec_rejects_nonsense(bad: float) -> None:
    with pytest.raises(UnsizableRequest) as exc:
        dense_spec_from_params(bad, CONTEXT)
    assert exc.value.message.id == "error.params_b"


def test_param_count_is_frozen() -> None:
    pc = count_params(MODELS["mistral-7b"])
    assert isinstance(pc, ParamCount)
    with pytest.raises(AttributeError):
        pc.total = 1.0  # type: ignore[misc]
