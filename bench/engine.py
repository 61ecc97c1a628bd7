"""Engine speed: median time of one ``recommend`` in-process, and of a sweep of the catalog.

"computed" clears the memo first (``engine.decision.clear_cache``) and runs the decision over
the packaged catalog; "memoized" is what a conversation's repeated turns pay. The sweep runs
every model through every workload, verdict only and then with the alternatives, and names
the slowest request of each.

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
from engine.decision import clear_cache

WORKLOADS = ["inference", "lora", "qlora", "full-finetune", "pretrain"]


def median_us(fn: Callable[[], object], n: int) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e6


def computed(req: SizingRequest, alternatives: bool) -> None:
    clear_cache()
    recommend(req, alternatives=alternatives)


def sweep(alternatives: bool) -> tuple[float, int, float, str]:
    """(total s, requests, slowest s, slowest request) over every model x workload."""
    cat = catalog()
    reqs = [SizingRequest(model=m, workload=w) for m in cat.models for w in WORKLOADS]
    worst, worst_req = 0.0, ""
    start = time.perf_counter()
    for r in reqs:
        clear_cache()
        t = time.perf_counter()
        recommend(r, alternatives=alternatives)
        dt = time.perf_counter() - t
        if dt > worst:
            worst, worst_req = dt, f"{r.model} {r.workload}"
    return time.perf_counter() - start, len(reqs), worst, worst_req


def main() -> None:
    cat = catalog()
    req = SizingRequest(model="llama-3.1-70b", concurrency=64, context=8192)
    recommend(req)  # warm the catalog and the imports
    print(f"python {sys.version.split()[0]}, {len(cat.models)} models, {len(cat.gpus)} GPUs")
    for label, r, alts, n in [
        ("recommend 70B inference (verdict only)", req, False, 1000),
        ("recommend 70B inference (+ alternatives)", req, True, 100),
        ("recommend 70B full fine-tune (verdict only)",
         SizingRequest(model="llama-3.1-70b", workload="full-finetune"), False, 300),
        ("recommend 405B 64x32k inference (verdict only)",
         SizingRequest(model="llama-3.1-405b", concurrency=64, context=32768), False, 300),
    ]:
        cold = median_us(lambda r=r, alts=alts: computed(r, alts), n)  # type: ignore[misc]
        recommend(r, alternatives=alts)
        warm = median_us(lambda r=r, alts=alts: recommend(r, alternatives=alts), n)  # type: ignore[misc]
        print(f"{label:<50} median {cold:8.0f} us computed, {warm:6.1f} us memoized "
              f"({n} runs)")
    for alts in (False, True):
        total, count, worst, which = sweep(alts)
        what = "with alternatives" if alts else "verdict only"
        print(f"{'sweep: every model x every workload, ' + what:<50} {total * 1e3:8.0f} ms for "
              f"{count} requests ({total / count * 1e6:.0f} us each; slowest "
              f"{worst * 1e3:.1f} ms: {which})")


if __name__ == "__main__":
    main()
