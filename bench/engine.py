"""Engine speed: median time of one ``recommend`` in-process, and of a sweep of the catalog.

"computed" bypasses the memo (``engine.decision._recommend``); "memoized" is what a
conversation's repeated turns pay.

Run: ``.venv/bin/python bench/engine.py`` (or ``make bench``). Prints numbers; asserts nothing.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

# Run as a script, this folder comes first on sys.path and bench/engine.py would shadow the
# package it measures: put the repository root first.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import SizingRequest, recommend
from engine.catalog import catalog
from engine.decision import _recommend, _recommend_packaged

WORKLOADS = ["inference", "lora", "qlora", "full-finetune", "pretrain"]


def median_us(fn: object, n: int) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e6


def main() -> None:
    cat = catalog()
    req = SizingRequest(model="llama-3.1-70b", concurrency=64, context=8192)
    recommend(req)  # warm caches
    print(f"python {sys.version.split()[0]}, {len(cat.models)} models, {len(cat.gpus)} GPUs")
    for label, r, alts, n in [
        ("recommend 70B inference (verdict only)", req, False, 2000),
        ("recommend 70B inference (+ alternatives)", req, True, 200),
        ("recommend 70B full fine-tune (verdict only)",
         SizingRequest(model="llama-3.1-70b", workload="full-finetune"), False, 500),
        ("recommend 405B 64x32k inference (verdict only)",
         SizingRequest(model="llama-3.1-405b", concurrency=64, context=32768), False, 500),
    ]:
        def cold_call(r: SizingRequest = r, alts: bool = alts) -> None:
            _recommend_packaged.cache_clear()  # alternatives re-run the engine too
            _recommend(r, cat, alts)

        cold = median_us(cold_call, n)
        warm = median_us(lambda r=r, alts=alts: recommend(r, alternatives=alts), n)
        print(f"{label:<50} median {cold:8.0f} us computed, {warm:6.1f} us memoized "
              f"({n} runs)")
    sweep = [SizingRequest(model=m, workload=w) for m in cat.models for w in WORKLOADS]
    t = time.perf_counter()
    for r in sweep:
        _recommend(r, cat, False)
    dt = time.perf_counter() - t
    print(f"{'sweep: every model x every workload':<50} {dt * 1e3:8.0f} ms for {len(sweep)} "
          f"requests ({dt / len(sweep) * 1e6:.0f} us each)")


if __name__ == "__main__":
    main()
