"""``python -m engine``: the command-line contract tests and operators rely on."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys

import pytest

from engine.cli import main


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """The command line in this process (its exit code, stdout and stderr): what
    ``python -m engine`` runs, without a Python start-up per case (one test below runs the
    real program)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(list(args))
        except SystemExit as exc:  # argparse's usage errors
            rc = exc.code if isinstance(exc.code, int) else 1
    return subprocess.CompletedProcess(list(args), rc, out.getvalue(), err.getvalue())


def test_the_module_runs_as_a_program() -> None:
    """``python -m engine`` itself: a JSON answer on stdout, a bad flag exits 2 on stderr."""
    ok = subprocess.run([sys.executable, "-m", "engine", "recommend", "--model",
                         "llama-3.1-8b", "--json"], capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0 and json.loads(ok.stdout)["verdict"] == "single_node"
    bad = subprocess.run([sys.executable, "-m", "engine", "recommend", "--model",
                          "llama-3.1-70b", "--concurrency", "0"], capture_output=True,
                         text=True, timeout=60)
    assert bad.returncode == 2 and "--concurrency" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_recommend_json_has_the_contract_fields() -> None:
    p = run("recommend", "--model", "meta-llama/Llama-3.1-70B-Instruct", "--concurrency", "64",
            "--context", "8k", "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    for key in ("step", "verdict", "nodes", "gpus_per_node", "gpu", "precision", "layout",
                "replicas", "numbers", "questions", "caveats", "assumptions"):
        assert key in d
    assert set(d["layout"]) == {"tp", "pp", "dp"}
    for key in ("vram_total_gb", "weights_gb", "weights_share", "kv_bytes_per_token",
                "kv_cache_gb", "training_state_gb", "max_concurrency", "node_tokens_per_s",
                "scaling_efficiency", "gpu_months"):
        assert key in d["numbers"]
    assert d["step"] == 1 and d["verdict"] == "single_node"
    assert d["numbers"]["kv_bytes_per_token"] == 327680
    assert {"step", "question", "answer", "because"} <= set(d["questions"][0])


def test_recommend_readable_table() -> None:
    p = run("recommend", "--model", "llama 3.1 405b", "--concurrency", "48", "--context", "16k")
    assert p.returncode == 0, p.stderr
    assert "Step 2" in p.stdout and "INT4" in p.stdout and "{" not in p.stdout.splitlines()[0]


def test_memory_scaling_catalog_json() -> None:
    mem = json.loads(run("memory", "--model", "deepseek-v3", "--json").stdout)
    assert mem["kv_bytes_per_token"] == 70272
    assert mem["params"] > 6.5e11 and mem["active_params"] < 4e10
    train = json.loads(run("memory", "--model", "llama-3.1-70b", "--workload",
                           "full-finetune", "--json").stdout)
    assert 1200 < train["training_state_gb"] < 1500
    # the contract's flags alone: the model defaults to the article's 70B-class step (C14)
    sc = json.loads(run("scaling", "--nodes", "2", "--gpus-per-node", "4", "--tp", "8",
                        "--json").stdout)
    assert sc["model"] == "llama-3.1-70b"
    assert {"efficiency", "step_time_s", "comm_share"} <= set(sc)
    cat = json.loads(run("catalog", "--json").stdout)
    assert all("id" in e for k in ("gpus", "links", "models") for e in cat[k])
    assert len(cat["models"]) >= 20


@pytest.mark.parametrize("args, needle", [
    (["recommend", "--model", "lama 3.1 70"], "llama-3.1-70b"),
    (["recommend", "--model", "70b"], "could be several models"),
    (["recommend", "--model", "llama-3.1-70b", "--gpu", "rtx 9090"], "unknown GPU"),
    (["recommend", "--model", "llama-3.1-70b", "--concurrency", "0"], "--concurrency"),
    (["recommend", "--model", "llama-3.1-70b", "--context", "lots"], "not a context length"),
    (["recommend", "--model", "llama-3.1-70b", "--interconnect", "pcie5"], "in-node link"),
    (["scaling", "--model", "llama-3.1-70b", "--tp", "8", "--dp", "2"], "must equal"),
    (["recommend"], "required"),
])
def test_bad_input_exits_2_with_a_specific_message(args: list[str], needle: str) -> None:
    p = run(*args)
    assert p.returncode == 2
    assert needle in p.stderr
    assert "Traceback" not in p.stderr


def test_recommend_json_carries_messages_as_ids_and_params() -> None:
    p = run("recommend", "--model", "llama-3.1-70b", "--concurrency", "128", "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["headline"]["id"] == "headline.single"
    q = d["questions"][0]
    # step 1 as the article asks it, or with the floors chat needs when they sized it
    assert q["question"]["id"] in ("question.step1", "question.step1_target")
    assert q["because"]["id"] in ("evidence.rate", "evidence.meets")
    assert q["because"]["params"]["fit"]["id"] == "evidence.fit_copies"  # TP=4 x DP=2
    assert {m["id"] for m in d["assumptions"]} >= {"assumption.request_shape_work",
                                                   "assumption.reserve"}
    assert all(set(a) >= {"kind", "label", "summary"} for a in d["alternatives"])
    pic = d["numbers"]["memory"]
    assert pic["per_copy"]["free_share"] == pytest.approx(d["numbers"]["free_share"], abs=1e-4)
    assert d["kv_precision"] == "bf16" and d["model"]["moe"] is False


@pytest.mark.parametrize(("lang", "words"), [
    ("en", ["Step 1:", "yes:", "stays free", "Assumptions:"]),
    ("fr", ["Étape 1 :", "oui :", "restent libres", "Hypothèses :", "Go"]),
])
def test_readable_output_in_each_language(lang: str, words: list[str]) -> None:
    p = run("recommend", "--model", "llama-3.1-70b", "--no-alternatives", "--lang", lang)
    assert p.returncode == 0, p.stderr
    for w in words:
        assert w in p.stdout, w


def test_errors_in_french_too() -> None:
    p = run("recommend", "--model", "llama-2-70b", "--context", "8k", "--lang", "fr")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert "au plus 4\u202f096 jetons" in p.stderr


def test_recommend_takes_the_serving_bounds_and_reports_the_serving_numbers() -> None:
    p = run("recommend", "--model", "llama-3.1-70b", "--concurrency", "64",
            "--per-user-tokens-per-s", "40", "--ttft-s", "5", "--no-alternatives", "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    n = d["numbers"]
    assert n["per_user_tokens_per_s"] >= 40 and n["ttft_s"] <= 5
    assert n["per_user_tokens_per_s"] == pytest.approx(1000 / n["tpot_ms"], rel=0.01)
    assert n["requests_per_s"] > 0 and d["verdict"] == "replicas"


def test_recommend_takes_a_request_rate_and_its_shape() -> None:
    p = run("recommend", "--model", "llama-3.1-8b", "--requests-per-s", "2",
            "--prompt-tokens", "2k", "--output-tokens", "512", "--no-alternatives", "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    shape = next(a for a in d["assumptions"] if a["id"] == "assumption.request_shape")
    assert (shape["params"]["prompt"], shape["params"]["output"]) == (2048, 512)
    assert d["numbers"]["requests_per_s"] >= 2


def test_recommend_sizes_a_config_json_or_a_synthetic_moe(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from pathlib import Path

    cfg = Path(__file__).parent / "data" / "hf_configs" / "openai--gpt-oss-20b.json"
    p = run("recommend", "--hf-config", str(cfg), "--no-alternatives", "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["precision"] == "mxfp4" and d["model"]["in_catalog"] is False
    moe = json.loads(run("recommend", "--params-b", "120", "--active-params-b", "5",
                         "--no-alternatives", "--json").stdout)
    assert moe["model"]["moe"] is True
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    p = run("recommend", "--hf-config", str(bad))
    assert p.returncode == 2 and "Traceback" not in p.stderr and "hidden_size" in p.stderr


def test_recommend_takes_nvfp4_on_fp4_gpus_only() -> None:
    ok = json.loads(run("recommend", "--model", "llama-3.1-70b", "--precision", "nvfp4",
                        "--no-alternatives", "--json").stdout)
    assert ok["precision"] == "nvfp4"
    p = run("recommend", "--model", "llama-3.1-70b", "--precision", "nvfp4", "--gpu", "h100-sxm")
    assert p.returncode == 2 and "FP4" in p.stderr
