"""Accuracy of the engine, printed: KV cache against public calculators, serving against
aiconfigurator, training against published runs.

1. KV cache per sequence at 32k tokens (BF16), this engine against the formulas public
   calculators use (transcribed in docs/engine-notes.md#other-calculators):

   - gpu_poor: ``2 * L * hidden * 2 B`` per token (ignores GQA, MLA, windows)
   - llm-analysis / accelerate-style GQA: ``2 * L * kv_heads * head_dim * 2 B`` (no MLA, no
     windows; for MLA models the config's ``num_key_value_heads``, as those tools do)
   - hf-mem (experimental KV): GQA with sliding windows, no MLA branch

2. Serving, per GPU: the engine over NVIDIA aiconfigurator 0.12's own estimates at the same
   layout, batch, precision and request shape (engine/data/measured/aic_reference.toml, the
   points bench/reference_points.py lists one by one): median ratio of node tokens/s, of the
   in-flight time per output token (the per-user speed a card shows), of the decode-only step
   against aiconfigurator's decode-only step (like for like), of the time to first token, and
   the share of points inside 0.67-1.5x; and, apart, the decode-only step against
   aiconfigurator's in-flight TPOT: the per-token figure the engine reported before issue #9,
   which in-flight batching makes too fast.

3. End to end, per point: TensorRT-LLM's published trtllm-bench maxima
   (engine/data/measured/trtllm_bench.toml: total output tokens/s of a run on N GPUs) against
   the engine's most output tokens/s on the same N GPUs. Measured: the best use of the N GPUs
   the table shows (the run itself, or copies of a run on fewer of them); engine: the best
   layout of them, or copies of a smaller one, at the best concurrency memory holds
   (bench/reference_points.py ``Engine.max_throughput``); then per GPU, per precision and
   overall: points, median ratio, share inside 0.67-1.5x. The primary table (the
   overview's version with the RTX PRO 6000 tables at 1-8 GPUs) is the acceptance set; the
   newest version's points (gpt-oss, DeepSeek-R1, attention-DP 'DEP' layouts) are printed apart.

4. Training: GPU-hours of the engine's pretraining answer over the published GPU-hours
   (engine/data/measured/training_runs.toml), with the band 0.8-1.25x.

How the tables were made and what they mean: docs/calibration.md. Run:
``.venv/bin/python bench/accuracy.py``. Prints numbers; asserts nothing.
"""

from __future__ import annotations

import statistics
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

# Run as a script, this folder comes first on sys.path and bench/engine.py would shadow the
# package it measures: put the repository root first.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.reference_points import (
    BAND,
    TRAIN_BAND,
    Engine,
    end_to_end_rows,
    inference_rows,
    load,
    training_rows,
)
from engine.catalog import catalog
from engine.physics.memory import cached_layer_tokens, kv_cache_bytes
from engine.units import GB

CONTEXT = 32768
MODELS = ["llama-3.1-70b", "deepseek-v3", "gemma-3-27b", "gemma-2-27b", "gpt-oss-120b",
          "qwen3-235b-a22b", "llama-4-scout"]


def inside(x: float, band: tuple[float, float]) -> bool:
    return band[0] <= x <= band[1]


def kv_table() -> None:
    cat = catalog()
    print(f"KV cache for one sequence of {CONTEXT:,} tokens, BF16, GB (error vs this engine)")
    print(f"{'model':<18} {'engine':>8} {'gpu_poor':>16} {'GQA only':>16} {'hf-mem':>16}")
    for mid in MODELS:
        m = cat.model(mid)
        ours = kv_cache_bytes(m, "bf16", CONTEXT, 1)
        naive = 2 * m.layers * m.hidden * 2 * CONTEXT
        gqa = 2 * m.layers * m.kv_heads * m.head_dim * 2 * CONTEXT
        hfmem = 2 * m.kv_heads * m.head_dim * 2 * cached_layer_tokens(m, CONTEXT)

        def cell(x: float, ours: float = ours) -> str:
            return f"{x / GB:7.2f} ({(x - ours) / ours:+5.0%})"

        print(f"{mid:<18} {ours / GB:8.2f} {cell(naive):>16} {cell(gqa):>16} {cell(hfmem):>16}")


def serving_table(rows: list[dict[str, Any]]) -> None:
    meta = load("aic_reference.toml")["meta"]
    by_gpu: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_gpu[r["gpu"]].append(r)
    print(f"\nServing: engine / aiconfigurator {meta['aiconfigurator']} at aiconfigurator's "
          f"layouts (median ratio; 'in band' = tokens/s inside {BAND[0]}-{BAND[1]}x)")
    print(f"{'GPU':<22} {'points':>6} {'dense':>5} {'MoE':>4} {'tok/s':>6} {'TPOT':>6} "
          f"{'step':>6} {'TTFT':>6} {'in band':>8} {'TPOT in':>8} {'step in':>8} "
          f"{'TTFT in':>8} {'old in':>7}")
    total = in_total = 0
    for gpu, rs in sorted(by_gpu.items()):
        n = len(rs)
        moe = sum(r["moe"] for r in rs)
        ok = sum(inside(r["tps_ratio"], BAND) for r in rs)
        tpot_ok = sum(inside(r["tpot_ratio"], BAND) for r in rs)
        ttft_ok = sum(inside(r["ttft_ratio"], BAND) for r in rs)
        step_ok = sum(inside(r["step_ratio"], BAND) for r in rs)
        old_ok = sum(inside(r["step_vs_tpot"], BAND) for r in rs)
        total, in_total = total + n, in_total + ok

        def med(key: str, rs: list[dict[str, Any]] = rs) -> float:
            return float(statistics.median(r[key] for r in rs))

        print(f"{gpu:<22} {n:>6} {n - moe:>5} {moe:>4} {med('tps_ratio'):>6.2f} "
              f"{med('tpot_ratio'):>6.2f} {med('step_ratio'):>6.2f} {med('ttft_ratio'):>6.2f} "
              f"{ok / n:>8.0%} {tpot_ok / n:>8.0%} {step_ok / n:>8.0%} {ttft_ok / n:>8.0%} "
              f"{old_ok / n:>7.0%}")
    print(f"{'all':<22} {total:>6} {'':>5} {'':>4} {'':>6} {'':>6} {'':>6} {'':>6} "
          f"{in_total / total:>8.0%}")
    outside = [r for r in rows if not inside(r["tps_ratio"], BAND)]
    for r in outside:
        print(f"  outside the band: {r['id']} ({r['framework']}): {r['tps_ratio']:.2f}x")
    print("tok/s: node output tokens/s; TPOT: in-flight time per output token (tpot_ms, the "
          "per-user speed shown); step: decode-only step (decode_step_ms) over aiconfigurator's "
          "decode-only step; TTFT: time to first token; old in: the decode-only step over "
          "aiconfigurator's in-flight TPOT, in band (the per-token figure before issue #9)")


def _summary(label: str, groups: dict[str, list[dict[str, Any]]]) -> None:
    print(f"{label:<22} {'points':>6} {'median':>7} {'min':>6} {'max':>6} {'in band':>12}")
    for key, rs in sorted(groups.items()):
        ratios = [r["ratio"] for r in rs]
        ok = sum(inside(x, BAND) for x in ratios)
        print(f"{key:<22} {len(rs):>6} {statistics.median(ratios):>7.2f} {min(ratios):>6.2f} "
              f"{max(ratios):>6.2f} {ok:>4}/{len(rs):<3} {ok / len(rs):>4.0%}")


def end_to_end_table(rows: list[dict[str, Any]]) -> None:
    meta = load("trtllm_bench.toml")["meta"]
    for table in meta["tables"]:
        rs = [r for r in rows if r["table"] == table]
        if not rs:
            continue
        primary = " (the acceptance set)" if table == meta["primary"] else ""
        print(f"\nEnd to end: engine's most output tokens/s on the same GPUs / TensorRT-LLM "
              f"trtllm-bench, table '{table}'{primary}")
        print(f"{'point':<62} {'measured':>9} {'engine':>9} {'ratio':>6}  {'engine layout':<16} "
              f"{'conc':>5} {'same':>5}  measured as")
        for r in rs:
            flag = "" if inside(r["ratio"], BAND) else "  *"
            print(f"{r['id'].split('/', 1)[1]:<62} {r['measured']:>9.0f} {r['engine']:>9.0f} "
                  f"{r['ratio']:>6.2f}  {r['layout']:<16} {r['concurrency']:>5} "
                  f"{r['at_layout']:>5.2f}  {r['published']}{flag}")
        by_gpu: dict[str, list[dict[str, Any]]] = defaultdict(list)
        by_prec: dict[str, list[dict[str, Any]]] = defaultdict(list)
        by_model: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for r in rs:
            by_gpu[r["gpu"]].append(r)
            by_prec[r["precision"]].append(r)
            by_model[r["model"]].append(r)
        _summary("GPU", by_gpu)
        _summary("precision", by_prec)
        _summary("model", by_model)
        _summary("all", {"all": rs})
        print("* outside 0.67-1.5x. measured: the best use of the run's GPUs in the table (the "
              "run, or copies of a run on fewer GPUs: '8 x TP1'); engine: the best layout of "
              "the same GPUs at the best concurrency (powers of two, what memory holds), FP8 KV "
              "cache; same: the engine at the run's own layout over the run (DEP: attention DP)")


def training_table(rows: list[dict[str, Any]]) -> None:
    print(f"\nTraining: engine GPU-hours / published GPU-hours (band {TRAIN_BAND[0]}-"
          f"{TRAIN_BAND[1]}x; engine/data/measured/training_runs.toml)")
    print(f"{'run':<16} {'GPU':<15} {'tokens':>7} {'published':>10} {'engine':>10} {'ratio':>6} "
          f"{'implied MFU':>11}  status")
    ok = 0
    for t in rows:
        band = inside(t["ratio"], TRAIN_BAND)
        ok += band
        status = t["status"] + ("" if t["acceptance"] else ", not in the acceptance set")
        print(f"{t['id']:<16} {t['gpu']:<15} {t['tokens'] / 1e12:>6.1f}T {t['published']:>10.3g} "
              f"{t['engine']:>10.3g} {t['ratio']:>6.2f} {t['implied_mfu']:>11.0%}  "
              f"{'in band' if band else 'OUTSIDE'}; {status}")
    print(f"{ok} of {len(rows)} runs inside the band")


def main() -> None:
    kv_table()
    eng = Engine()
    serving_table(inference_rows(eng))
    end_to_end_table(end_to_end_rows(eng))
    training_table(training_rows(eng))


if __name__ == "__main__":
    main()
