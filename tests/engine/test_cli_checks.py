"""``python -m engine``: what the command line lists, refuses and says before it sizes."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from engine.catalog import catalog
from tests.engine.test_cli import run


def test_help_lists_the_gpu_link_and_model_ids() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as done:
        from engine.cli import main
        main(["recommend", "--help"])
    assert done.value.code == 0
    text = out.getvalue()
    cat = catalog()
    for ident in [*cat.gpus, *(lk.id for lk in cat.inter_links()), *cat.models]:
        assert ident in text, ident


@pytest.mark.parametrize(("name", "parts"), [
    ("h100", ["h100-pcie", "h100-sxm"]),
    ("A100", ["a100-pcie-80gb", "a100-sxm-80gb"]),
])
def test_an_ambiguous_gpu_name_is_refused_naming_each_part(name: str, parts: list[str]) -> None:
    p = run("recommend", "--model", "llama-3.1-70b", "--gpu", name, "--json")
    assert p.returncode == 2 and p.stdout == "" and "Traceback" not in p.stderr
    assert all(part in p.stderr for part in parts), p.stderr


@pytest.mark.parametrize(("name", "gpu"), [("h100-pcie", "h100-pcie"), ("H100 SXM", "h100-sxm"),
                                           ("l40", "l40"), ("L40S", "l40s")])
def test_a_part_named_exactly_is_taken(name: str, gpu: str) -> None:
    p = run("recommend", "--model", "llama-3.1-8b", "--gpu", name, "--no-alternatives", "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["gpu"] == gpu


def test_an_unknown_link_lists_the_links_between_nodes() -> None:
    p = run("recommend", "--model", "llama-3.1-70b", "--interconnect", "foo")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert "--interconnect" in p.stderr
    assert all(lk.id in p.stderr for lk in catalog().inter_links())


def test_an_unknown_gpu_names_the_nearest_and_every_id() -> None:
    p = run("recommend", "--model", "llama-3.1-70b", "--gpu", "h10")
    assert p.returncode == 2 and "h100-sxm" in p.stderr
    assert all(g in p.stderr for g in catalog().gpus)


def test_an_unknown_model_says_where_the_ids_are_listed() -> None:
    p = run("recommend", "--model", "lama-9")
    assert p.returncode == 2 and "python -m engine catalog" in p.stderr


@pytest.mark.parametrize(("args", "flag", "lang", "words"), [
    (["--deadline-days", "3"], "--deadline-days", "en", "batch of --documents"),
    (["--train-tokens", "1e9"], "--train-tokens", "fr", "qu'à l'entraînement"),
    (["--workload", "lora", "--ttft-s", "1"], "--ttft-s", "en", "only to inference"),
    (["--workload", "full-finetune", "--concurrency", "64"], "--concurrency", "fr",
     "qu'à l'inférence"),
    (["--workload", "lora", "--documents", "1e6"], "--documents", "en", "only to inference"),
])
def test_a_flag_the_workload_does_not_read_is_refused(args: list[str], flag: str, lang: str,
                                                      words: str) -> None:
    p = run("recommend", "--model", "llama-3.1-70b", *args, "--lang", lang)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert flag in p.stderr and words in p.stderr, p.stderr


@pytest.mark.parametrize("args", [
    ["--context", "999999999"],
    ["--model", "llama-2-70b", "--context", "8k"],  # beyond the model's 4k, as recommend says
])
def test_memory_validates_as_recommend_does(args: list[str]) -> None:
    model = [] if "--model" in args else ["--model", "llama-3.1-70b"]
    mem = run("memory", *model, *args)
    rec = run("recommend", *model, *args)
    assert mem.returncode == rec.returncode == 2
    assert "--context" in mem.stderr or "4,096" in mem.stderr
    assert mem.stdout == "" and "Traceback" not in mem.stderr


def test_memory_weights_are_in_the_workloads_format() -> None:
    full = json.loads(run("memory", "--model", "llama-3.1-70b", "--workload", "full-finetune",
                          "--json").stdout)
    serve = json.loads(run("memory", "--model", "llama-3.1-70b", "--json").stdout)
    assert full["precision"] == "bf16" and serve["precision"] == "fp8"
    # BF16: 2 bytes per parameter (FP8 keeps its embeddings in 16 bits: a little over 1)
    assert full["weights_gb"] == pytest.approx(2 * full["params"] / 1e9, rel=1e-3)
    assert serve["weights_gb"] < 0.55 * full["weights_gb"]
    qlora = json.loads(run("memory", "--model", "llama-3.1-70b", "--workload", "qlora",
                           "--json").stdout)
    assert qlora["precision"] == "nf4" and qlora["weights_gb"] < serve["weights_gb"]


@pytest.mark.parametrize(("lang", "words"), [
    ("en", ["weight format", "BF16", "weights", "141 GB", "training state"]),
    ("fr", ["format des poids", "BF16", "poids", "141\u202fGo", "état d'entraînement"]),
])
def test_memory_prints_a_readable_table(lang: str, words: list[str]) -> None:
    p = run("memory", "--model", "llama-3.1-70b", "--workload", "full-finetune", "--lang", lang)
    assert p.returncode == 0, p.stderr
    for w in words:
        assert w in p.stdout, w
    for raw in ("weights_gb", "training_state_gb", "kv_bytes_per_token", "{", "None"):
        assert raw not in p.stdout, raw


def test_scaling_checks_names_as_recommend_does() -> None:
    link = run("scaling", "--interconnect", "foo")
    gpu = run("scaling", "--gpu", "h100")
    assert link.returncode == gpu.returncode == 2
    assert "ib-200" in link.stderr and "h100-pcie" in gpu.stderr and "h100-sxm" in gpu.stderr


def test_a_deadline_on_a_batch_of_documents_is_taken() -> None:
    p = run("recommend", "--model", "llama-3.1-8b", "--documents", "1e6", "--deadline-days", "7",
            "--no-alternatives", "--json")
    assert p.returncode == 0, p.stderr
