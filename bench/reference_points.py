"""The engine side by side with aiconfigurator's estimates and with published training runs.

Reads ``engine/data/measured/aic_reference.toml`` (aiconfigurator's own estimates at the
layouts the engine picks, written by ``bench/calibrate.py reference``) and
``engine/data/measured/training_runs.toml`` (published GPU-hours), runs the engine on the same
inputs and prints the ratios. aiconfigurator is NOT needed here. Run::

    .venv/bin/python bench/reference_points.py            # both tables
    .venv/bin/python bench/reference_points.py --points   # every inference point

While the engine's modules move (engine/catalog/, engine/physics/), run the pre-refactor
engine from a scratch copy::

    mkdir -p /tmp/engine-old && git archive 9653881 engine | tar -x -C /tmp/engine-old
    cd /tmp && PYTHONPATH=/tmp/engine-old /work/main/.venv/bin/python \
        /work/main/bench/reference_points.py

Acceptance (issue #9): engine / aiconfigurator tokens/s within 0.67-1.5 on >= 90 % of the
points of every GPU; training within 0.8-1.25 of the published GPU-hours on >= 5 runs.
How the tables were made and what the engine should do with them: docs/calibration.md.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tomllib
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# Run as a script, bench/ comes first on sys.path and bench/engine.py would shadow the
# package measured: drop it, and fall back to this repository when no engine is on the path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
if not any((Path(p or ".") / "engine" / "__init__.py").exists() for p in sys.path):
    sys.path.insert(0, str(ROOT))
MEASURED = ROOT / "engine" / "data" / "measured"
BAND = (0.67, 1.5)
TRAIN_BAND = (0.8, 1.25)
# aiconfigurator precision names -> the engine's (no NVFP4 / FP8-block path in the engine yet)
PRECISION = {"fp8": "fp8", "bf16": "bf16", "fp8_block": "fp8"}


def _load(name: str) -> dict[str, Any]:
    with (MEASURED / name).open("rb") as fh:
        return tomllib.load(fh)


class Engine:
    """The engine's throughput and training formulas, through whichever layout imports."""

    def __init__(self) -> None:
        try:  # the pre-refactor layout (engine/throughput.py, engine/comm.py, ...)
            from engine.comm import Fabric
            from engine.params import count_params
            from engine.throughput import plan_inference

            from engine.catalog import catalog
        except ImportError:  # the restructured layout
            from engine.catalog.load import catalog  # type: ignore[no-redef]
            from engine.physics.comm import Fabric  # type: ignore[no-redef]
            from engine.physics.inference import plan_inference  # type: ignore[no-redef]
            from engine.physics.params import count_params  # type: ignore[no-redef]
        self.cat = catalog()
        self.Fabric = Fabric
        self.count_params = count_params
        self.plan_inference = plan_inference

    def inference(self, p: dict[str, Any]) -> Any:
        m = self.cat.model(p["model"])
        gpu = self.cat.gpus[p["gpu"]]
        fabric = self.Fabric(intra=self.cat.links[gpu.in_node_link], inter=None)
        return self.plan_inference(
            m, self.count_params(m), gpu, fabric, self.cat.policy,
            precision=PRECISION[p["precision"]], kv_precision=p["kv_precision"],
            concurrency=p["concurrency"], context=p["context"], nodes=1,
            gpus_per_node=p["gpus"], tp=p["tp"], pp=p["pp"], dp=p["dp"],
        )

    def gpu_hours(self, run: dict[str, Any]) -> float | None:
        """GPU-hours of the engine's pretraining answer for the run's tokens on its GPU."""
        try:
            from engine.decision import recommend
            from engine.request import SizingRequest
        except ImportError:
            return None
        if not run["model"]:
            return None
        req = SizingRequest(model=run["model"], workload="pretrain", gpu=run["gpu"],
                            train_tokens=run["tokens"], interconnect="ib-400",
                            deadline_days=90)
        rec = recommend(req, alternatives=False)
        months = getattr(rec.numbers, "gpu_months", None)
        return months * self.cat.policy.hours_per_month if months else None


def inference_table(eng: Engine, show_points: bool) -> None:
    ref = _load("aic_reference.toml")
    rows = []
    for p in ref["point"]:
        if p["precision"] not in PRECISION:
            rows.append((p, None, "engine has no NVFP4 path"))
            continue
        try:
            plan = eng.inference(p)
        except Exception as exc:
            rows.append((p, None, f"{type(exc).__name__}: {exc}"))
            continue
        rows.append((p, plan, ""))
    meta = ref["meta"]
    print(f"Engine vs aiconfigurator {meta.get('aiconfigurator', '?')} (agg, in-flight batching), "
          f"{len(rows)} points, request shape: {meta.get('request_shape', '')}")
    if show_points:
        print(f"\n{'point':<58} {'aic tok/s':>10} {'engine':>9} {'ratio':>6} "
              f"{'aic TPOT':>9} {'aic step':>9} {'eng step':>9}")
    per_gpu: dict[str, list[tuple[float, float]]] = defaultdict(list)
    skipped = 0
    for p, plan, why in rows:
        if plan is None:
            skipped += 1
            if show_points:
                print(f"{p['id']:<58} {p['tokens_per_s_node']:>10.0f}   skipped: {why}")
            continue
        ratio = plan.tokens_per_s / p["tokens_per_s_node"]
        step_ratio = plan.decode_step_ms / p["tpot_ms"] if p["tpot_ms"] else float("nan")
        per_gpu[p["gpu"]].append((ratio, step_ratio))
        if show_points:
            fit = "" if plan.fits else " (engine: does not fit)"
            print(f"{p['id']:<58} {p['tokens_per_s_node']:>10.0f} {plan.tokens_per_s:>9.0f} "
                  f"{ratio:>6.2f} {p['tpot_ms']:>8.1f}ms {p['decode_step_ms']:>8.1f}ms "
                  f"{plan.decode_step_ms:>8.1f}ms{fit}")
    lo, hi = BAND
    print(f"\n{'GPU':<22} {'points':>6} {'median':>7} {'min':>6} {'max':>6} "
          f"{'in band':>8} {'step/TPOT med':>14}")
    total = inside = 0
    for gpu, vals in sorted(per_gpu.items()):
        r = [v[0] for v in vals]
        s = [v[1] for v in vals]
        n_in = sum(lo <= x <= hi for x in r)
        total += len(r)
        inside += n_in
        print(f"{gpu:<22} {len(r):>6} {statistics.median(r):>7.2f} {min(r):>6.2f} "
              f"{max(r):>6.2f} {n_in:>4}/{len(r):<3} {statistics.median(s):>14.2f}")
    print(f"{'all':<22} {total:>6} {'':>7} {'':>6} {'':>6} {inside:>4}/{total:<3}"
          f"   ({skipped} skipped: no engine path)")
    print(f"ratio = engine tokens/s / aiconfigurator tokens/s per node (band {lo}-{hi}); "
          "step/TPOT = engine decode step / aiconfigurator in-flight TPOT")


def training_table(eng: Engine) -> None:
    runs = _load("training_runs.toml")["run"]
    lo, hi = TRAIN_BAND
    print(f"\nPretraining GPU-hours: engine vs published (band {lo}-{hi})")
    print(f"{'run':<16} {'GPU':<15} {'tokens':>7} {'published':>11} {'engine':>11} {'ratio':>6} "
          f"{'implied MFU':>11}  status")
    for run in runs:
        try:
            ours = eng.gpu_hours(run)
        except Exception as exc:
            ours = None
            print(f"  ({run['id']}: {type(exc).__name__}: {exc})")
        ratio = f"{ours / run['gpu_hours']:6.2f}" if ours else "   n/a"
        cell = f"{ours:11.3g}" if ours else f"{'n/a':>11}"
        tag = "acceptance" if run["acceptance"] else run["status"]
        print(f"{run['id']:<16} {run['gpu']:<15} {run['tokens'] / 1e12:>6.2f}T "
              f"{run['gpu_hours']:>11.3g} {cell} {ratio} {run['implied_mfu_6nd']:>11.3f}  {tag}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--points", action="store_true", help="print every inference point")
    ap.add_argument("--no-training", action="store_true")
    args = ap.parse_args()
    eng = Engine()
    inference_table(eng, args.points)
    if not args.no_training:
        training_table(eng)


if __name__ == "__main__":
    main()
