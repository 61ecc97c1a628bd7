"""Engine speed: median time of one ``recommend`` in-process, and of a sweep of the catalog.

Three figures per request, after ``engine.decision.warm()`` (what a server does at start-up:
every GPU's kernel curves and every link's collective curves built once):

- "cold": ``clear_cache(physics=True)`` first, so the answer, the plan searches and the step
  models are all computed again (only the loaded catalog and calibration remain): the cost
  of a question never asked before in this process;
- "searches kept": ``clear_cache()`` only, so the answer is computed again but the plan
  searches and step times kept across requests (engine/decision/memo.py) are reused: what a
  different question on the same model, GPU and load pays;
- "memoized": the same request again (a conversation's repeated turns).

The sweep runs every model through every workload, cold, verdict only and then with the
alternatives, and names the slowest request of each; the median and the 90th percentile
are printed beside the slowest (a single request can land on a garbage collection).

Run: ``.venv/bin/python bench/engine.py`` (or ``make bench``). Prints numbers; asserts nothing.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

# Run as a script, this folder comes first on sys.path and bench/engine.py would shadow the
# package it measures: put the repository root first.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import SizingRequest, recommend
from engine.catalog import catalog
from engine.decision import clear_cache, warm

WORKLOADS = ["inference", "lora", "qlora", "full-finetune", "pretrain"]


def median_us(fn: Callable[[], object], n: int) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e6


def cold(req: SizingRequest, alternatives: bool) -> None:
    clear_cache(physics=True)
    recommend(req, alternatives=alternatives)


def kept(req: SizingRequest, alternatives: bool) -> None:
    clear_cache()
    recommend(req, alternatives=alternatives)


def sweep(alternatives: bool) -> tuple[list[float], str]:
    """(each request's cold time in s, the slowest request) over every model x workload."""
    cat = catalog()
    reqs = [SizingRequest(model=m, workload=w) for m in cat.models for w in WORKLOADS]
    times, worst_req = [], ""
    for r in reqs:
        clear_cache(physics=True)
        t = time.perf_counter()
        recommend(r, alternatives=alternatives)
        times.append(time.perf_counter() - t)
        if times[-1] == max(times):
            worst_req = f"{r.model} {r.workload}"
    return times, worst_req


def main() -> None:
    cat = catalog()
    req = SizingRequest(model="llama-3.1-70b", concurrency=64, context=8192)
    t = time.perf_counter()
    warm()
    print(f"warm(): {(time.perf_counter() - t) * 1e3:.0f} ms (once per process)")
    recommend(req)  # the imports
    print(f"python {sys.version.split()[0]}, {len(cat.models)} models, {len(cat.gpus)} GPUs")
    for label, r, alts, n in [
        ("recommend 70B inference (verdict only)", req, False, 1000),
        ("recommend 70B inference (+ alternatives)", req, True, 100),
        ("recommend 70B full fine-tune (verdict only)",
         SizingRequest(model="llama-3.1-70b", workload="full-finetune"), False, 300),
        ("recommend 405B 64x32k inference (verdict only)",
         SizingRequest(model="llama-3.1-405b", concurrency=64, context=32768), False, 300),
    ]:
        c = median_us(lambda r=r, alts=alts: cold(r, alts), n)  # type: ignore[misc]
        k = median_us(lambda r=r, alts=alts: kept(r, alts), n)  # type: ignore[misc]
        recommend(r, alternatives=alts)
        m = median_us(lambda r=r, alts=alts: recommend(r, alternatives=alts), n)  # type: ignore[misc]
        print(f"{label:<50} median {c:7.0f} us cold, {k:6.0f} us searches kept, "
              f"{m:5.1f} us memoized ({n} runs)")
    for alts in (False, True):
        times, which = sweep(alts)
        what = "with alternatives" if alts else "verdict only"
        ms = sorted(t * 1e3 for t in times)
        print(f"{'sweep, cold: every model x workload, ' + what:<50} {len(ms)} requests: "
              f"median {statistics.median(ms):.1f} ms, p90 {ms[int(0.9 * len(ms))]:.1f} ms, "
              f"slowest {ms[-1]:.1f} ms ({which})")


if __name__ == "__main__":
    main()
