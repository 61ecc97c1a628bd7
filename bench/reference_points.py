"""The engine side by side with aiconfigurator's estimates and with published training runs.

Reads ``engine/data/measured/aic_reference.toml`` (aiconfigurator's own estimates at fixed
layouts, written by ``bench/calibrate.py reference``) and
``engine/data/measured/training_runs.toml`` (published GPU-hours), runs the engine on the same
inputs and returns the ratios; ``bench/accuracy.py`` prints the summary tables. aiconfigurator
is NOT needed here. Run::

    .venv/bin/python bench/reference_points.py            # every inference point, then runs
    .venv/bin/python bench/accuracy.py                     # the summary tables

Each inference point is run at aiconfigurator's layout, batch, precision and request shape
(``engine.physics.inference.plan_inference``, the engine's own serving model), so the ratio
compares the physics, not the layout choice. Acceptance (issue #9): engine / aiconfigurator
tokens/s within 0.67-1.5 on >= 90 % of the points of every GPU; training within 0.8-1.25 of
the published GPU-hours on >= 5 runs. How the tables were made: docs/calibration.md.
"""

from __future__ import annotations

import argparse
import math
import sys
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# Run as a script, bench/ comes first on sys.path and bench/engine.py would shadow the
# package measured: put the repository root first.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

from engine.catalog import Catalog, ModelSpec, catalog  # noqa: E402
from engine.catalog.calibration import calibration  # noqa: E402
from engine.decision import recommend  # noqa: E402
from engine.physics.comm import Fabric, InNode  # noqa: E402
from engine.physics.inference import (  # noqa: E402
    InferencePlan,
    Shape,
    best_inference,
    plan_inference,
    step_model,
)
from engine.physics.kernels import Kernels, kernels  # noqa: E402
from engine.physics.params import ParamCount, count_params  # noqa: E402
from engine.physics.serving import Serving, serve  # noqa: E402
from engine.physics.step import StepModel  # noqa: E402
from engine.request import SizingRequest  # noqa: E402

MEASURED = ROOT / "engine" / "data" / "measured"
BAND = (0.67, 1.5)
TRAIN_BAND = (0.8, 1.25)
# aiconfigurator precision names -> the engine's (DeepSeek's 128x128 block-scaled FP8 is FP8)
PRECISION = {"fp8": "fp8", "bf16": "bf16", "fp8_block": "fp8", "nvfp4": "nvfp4"}
#: The end-to-end search: concurrency from 1 to this (powers of two) or what memory holds.
MAX_CONCURRENCY = 16384
KV_PRECISION = "fp8"


def load(name: str) -> dict[str, Any]:
    with (MEASURED / name).open("rb") as fh:
        return tomllib.load(fh)


def _next(concurrency: int, most: int) -> int:
    """The next load a search for the most tokens/s weighs: twice this one, or the most
    memory holds when that comes first."""
    return concurrency * 2 if concurrency * 2 <= most or concurrency >= most else most


class Engine:
    """The engine's serving and training answers on one catalog (default: the packaged)."""

    def __init__(self, cat: Catalog | None = None) -> None:
        self.cat = cat or catalog()
        #: aiconfigurator's scheduling at its reference points: one prompt per prefill step
        #: (its default ctx_tokens = isl) and no host time per step (its TensorRT-LLM
        #: backend prices kernels only), its experts split by TP as its layouts name them
        #: (moe_tp = tp), so the two are compared like for like
        self.one_prompt = self.cat.policy.model_copy(
            update={"prefill_token_budget": 0, "step_us_per_sequence": 0.0,
                    "moe_expert_parallel": False, "moe_attention_dp": False})

    def serving(self, p: dict[str, Any]) -> tuple[Serving, float, bool]:
        """(one copy's serving figures, node tokens/s, fits) at the point's layout, one
        prompt per prefill step as aiconfigurator schedules them."""
        cat = self.cat
        m = cat.model(p["model"])
        pc = count_params(m)
        gpu = cat.gpus[p["gpu"]]
        part = cat.gpus[gpu.calibration]
        k = kernels(gpu, part, calibration(), self.one_prompt)
        intra = cat.links[gpu.in_node_link]
        fabric = Fabric(intra=intra, inter=None, in_node=InNode(intra, part.id, calibration()))
        shape = Shape(context=p["context"], isl=p["isl"], osl=p["osl"])
        prec = PRECISION[p["precision"]]
        plan = plan_inference(m, pc, k, fabric, self.one_prompt, precision=prec,  # type: ignore[arg-type]
                              kv_precision=p["kv_precision"], concurrency=p["concurrency"],
                              shape=shape, nodes=1, gpus_per_node=p["gpus"], tp=p["tp"],
                              pp=p["pp"], dp=p["dp"])
        if plan.serving is not None:
            return plan.serving, plan.tokens_per_s, True
        # aiconfigurator sized it with less reserve: time it anyway, say it does not fit
        sm = step_model(m, pc, k, fabric, self.one_prompt, precision=prec,  # type: ignore[arg-type]
                        kv_precision=p["kv_precision"], tp=p["tp"], pp=p["pp"],
                        spans_nodes=False, gpus_per_node=p["gpus"])
        s = serve(sm, self.one_prompt, math.ceil(p["concurrency"] / p["dp"]), p["isl"], p["osl"])
        return s, s.tokens_per_s * min(p["dp"], p["concurrency"]), False

    def setup(self, p: dict[str, Any]) -> tuple[ModelSpec, ParamCount, Kernels, Fabric, Shape]:
        """A measured point's model, its count, the GPU's kernels, its node's fabric (one
        node: no link between nodes) and the run's request shape."""
        cat = self.cat
        m = cat.model(p["model"])
        gpu = cat.gpus[p["gpu"]]
        part = cat.gpus[gpu.calibration]
        intra = cat.links[gpu.in_node_link]
        return (m, count_params(m), kernels(gpu, part, calibration(), cat.policy),
                Fabric(intra=intra, inter=None, in_node=InNode(intra, part.id, calibration())),
                Shape(context=p["isl"] + p["osl"], isl=p["isl"], osl=p["osl"]))

    def max_throughput(self, p: dict[str, Any],
                       requests: int | None = None) -> tuple[InferencePlan | None, float]:
        """The engine's most output tokens/s on the point's GPUs: the best layout of its
        ``gpus`` GPUs (TP x PP, or copies of a smaller layout) at each concurrency from 1
        up to what memory holds (powers of two), KV cache in FP8 (the checkpoints the runs
        use; engine/data/measured/trtllm_bench.toml ``kv_cache``); (None, 0) if nothing
        fits. With ``requests``, each load's best layout is run over that many requests, as
        the measured run was (:meth:`run_of`), and the most of those is returned."""
        cat = self.cat
        m, pc, k, fabric, shape = self.setup(p)
        best: InferencePlan | None = None
        best_tps = 0.0
        concurrency = 1
        while concurrency <= MAX_CONCURRENCY:
            plan, plans = best_inference(m, pc, k, fabric, cat.policy,
                                     precision=p["precision"], kv_precision=KV_PRECISION,
                                     concurrency=concurrency, shape=shape, nodes=1,
                                     gpus_per_node=p["gpus"])
            if plan is None:  # the load no longer fits the GPUs' memory
                break
            tps = plan.tokens_per_s if requests is None else self.run_of(
                plan, step_model(m, pc, k, fabric, cat.policy, precision=plan.precision,
                                 kv_precision=plan.kv_precision, tp=plan.tp, pp=plan.pp,
                                 spans_nodes=False, gpus_per_node=p["gpus"],
                                 attention_dp=plan.attention_dp),
                shape, requests)
            if best is None or tps > best_tps:
                best, best_tps = plan, tps
            concurrency = _next(concurrency, max(q.max_concurrency for q in plans if q.fits))
        return best, best_tps

    def run_of(self, plan: InferencePlan, step: StepModel, shape: Shape, requests: int) -> float:
        """Output tokens/s of ``plan`` over a run of ``requests`` requests queued at once
        (trtllm-bench's throughput mode): each busy copy takes its share and runs them in
        waves of what it holds at once; the last wave is partly filled, so a run of few
        requests per copy does less than the copy's steady state."""
        assert plan.serving is not None
        policy = self.cat.policy
        n = requests / plan.busy
        b = plan.serving.batch
        full = math.floor(n / b)
        rest = n - full * b
        seconds = full * b / plan.serving.requests_per_s
        if rest >= 1.0:
            last = serve(step, policy, round(rest), shape.isl, shape.osl)
            seconds += rest / last.requests_per_s
        return plan.busy * n * (shape.osl - 1.0) / seconds

    def at_layout(self, p: dict[str, Any]) -> float:
        """The engine's most output tokens/s at the point's own layout over concurrency: its
        TP x PP, or for an attention-DP layout ('DEP4') the group of that many GPUs in
        attention DP (engine/physics/step.py)."""
        adp = p["attention_dp"] > 1
        tp = p["attention_dp"] if adp else p["tp"]
        cat = self.cat
        m, pc, k, fabric, shape = self.setup(p)
        best, concurrency = 0.0, 1
        while concurrency <= MAX_CONCURRENCY:
            plan = plan_inference(m, pc, k, fabric, cat.policy, precision=p["precision"],
                                  kv_precision=KV_PRECISION, concurrency=concurrency,
                                  shape=shape, nodes=1, gpus_per_node=p["gpus"], tp=tp,
                                  pp=p["pp"], dp=1, attention_dp=adp)
            if not plan.fits:
                break
            best = max(best, plan.tokens_per_s)
            concurrency = _next(concurrency, plan.max_concurrency)
        return best

    def gpu_hours(self, run: dict[str, Any]) -> float:
        """GPU-hours of the engine's pretraining answer for the run's tokens on its GPU."""
        req = SizingRequest(model=run["model"], workload="pretrain", gpu=run["gpu"],
                            train_tokens=run["tokens"], interconnect="ib-400", deadline_days=90)
        rec = recommend(req, self.cat, alternatives=False)
        return (rec.numbers.gpu_months or 0.0) * self.cat.policy.hours_per_month


def inference_rows(eng: Engine) -> list[dict[str, Any]]:
    """One row per reference point: the engine's figures and the ratios to aiconfigurator's."""
    rows = []
    for p in load("aic_reference.toml")["point"]:
        s, tps, fits = eng.serving(p)
        rows.append({
            "id": p["id"], "gpu": p["gpu"], "moe": p["moe_quant"] != "", "fits": fits,
            "framework": p["framework"],
            "aic_tps": p["tokens_per_s_node"], "tps": tps,
            "tps_ratio": tps / p["tokens_per_s_node"],
            "step_ratio": s.decode_step_s * 1e3 / p["decode_step_ms"],
            "tpot_ratio": s.tpot_s * 1e3 / p["tpot_ms"],
            "step_vs_tpot": s.decode_step_s * 1e3 / p["tpot_ms"],
            "ttft_ratio": s.ttft_s * 1e3 / p["ttft_ms"],
            "aic_tpot": p["tpot_ms"], "tpot": s.tpot_s * 1e3,
            "aic_ttft": p["ttft_ms"], "ttft": s.ttft_s * 1e3,
        })
    return rows


def _layout(p: dict[str, Any]) -> str:
    """A published layout as the doc writes it: 'TP4,PP2', 'DEP4'."""
    head = f"DEP{p['ep']}" if p["ep"] > 1 else f"TP{p['tp']}"
    return head + (f",PP{p['pp']}" if p["pp"] > 1 else "")


def best_measured(p: dict[str, Any], points: list[dict[str, Any]]) -> tuple[float, str]:
    """The best measured use of ``p``'s GPUs: its own run, or copies of a run of the same
    model, GPU, format and request shape on a divisor of its GPU count (8 GPUs serve 8
    copies of a 1-GPU run); (total output tokens/s, how: '4 x TP2')."""
    n = p["gpus"]
    best, how = p["output_tokens_per_s"], _layout(p)
    for q in points:
        if (q["table"], q["model"], q["gpu"], q["precision"], q["isl"], q["osl"]) != (
                p["table"], p["model"], p["gpu"], p["precision"], p["isl"], p["osl"]):
            continue
        if n % q["gpus"] or q["gpus"] >= n:
            continue
        copies = n // q["gpus"]
        if q["output_tokens_per_s"] * copies > best:
            best, how = q["output_tokens_per_s"] * copies, f"{copies} x {_layout(q)}"
    return best, how


def end_to_end_rows(eng: Engine, table: str | None = None) -> list[dict[str, Any]]:
    """One row per measured trtllm-bench point (engine/data/measured/trtllm_bench.toml, the
    ``table`` named, default every one): the best measured use of its GPUs
    (:func:`best_measured`), the engine's most on the same GPUs, and the layout and
    concurrency that give it."""
    doc = load("trtllm_bench.toml")
    points, meta = doc["point"], doc["meta"]
    requests: dict[str, int] = meta.get(f"{meta['primary']}_requests", {})
    rows = []
    for p in points:
        if table is not None and p["table"] != table:
            continue
        measured, how = best_measured(p, points)
        best, tps = eng.max_throughput(p, requests.get(f"{p['isl']}/{p['osl']}")
                                       if p["table"] == meta["primary"] else None)
        rows.append({
            "id": p["id"], "table": p["table"], "model": p["model"], "gpu": p["gpu"],
            "precision": p["precision"], "gpus": p["gpus"], "isl": p["isl"], "osl": p["osl"],
            "measured": measured, "run": p["output_tokens_per_s"], "engine": tps,
            "ratio": tps / measured,
            "at_layout": eng.at_layout(p) / p["output_tokens_per_s"],
            "layout": best.label if best is not None else "does not fit",
            "concurrency": best.concurrency if best is not None else 0,
            "published": how,
        })
    return rows


def training_rows(eng: Engine) -> list[dict[str, Any]]:
    rows = []
    for run in load("training_runs.toml")["run"]:
        if not run["model"]:
            continue
        ours = eng.gpu_hours(run)
        rows.append({"id": run["id"], "gpu": run["gpu"], "tokens": run["tokens"],
                     "published": run["gpu_hours"], "engine": ours,
                     "ratio": ours / run["gpu_hours"], "implied_mfu": run["implied_mfu_6nd"],
                     "acceptance": run["acceptance"], "status": run["status"]})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--no-training", action="store_true")
    args = ap.parse_args()
    eng = Engine()
    meta = load("aic_reference.toml")["meta"]
    print(f"Engine vs aiconfigurator {meta['aiconfigurator']} at aiconfigurator's layouts "
          f"({meta['request_shape']})")
    print(f"{'point':<62} {'aic tok/s':>9} {'engine':>8} {'ratio':>6} {'TPOT':>6} "
          f"{'step':>6} {'TTFT':>6}")
    for r in inference_rows(eng):
        note = "" if r["fits"] else "  (engine: does not fit)"
        print(f"{r['id']:<62} {r['aic_tps']:>9.0f} {r['tps']:>8.0f} {r['tps_ratio']:>6.2f} "
              f"{r['tpot_ratio']:>6.2f} {r['step_ratio']:>6.2f} {r['ttft_ratio']:>6.2f}{note}")
    print("ratio = engine / aiconfigurator: output tokens/s per node; TPOT (in-flight time per "
          "output token); step (decode-only step); TTFT")
    if args.no_training:
        return
    print(f"\n{'run':<16} {'GPU':<15} {'published':>11} {'engine':>11} {'ratio':>6}")
    for t in training_rows(eng):
        print(f"{t['id']:<16} {t['gpu']:<15} {t['published']:>11.3g} {t['engine']:>11.3g} "
              f"{t['ratio']:>6.2f}")


if __name__ == "__main__":
    main()
