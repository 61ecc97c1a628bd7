"""Engine speed: median time of one ``recommend`` in-process, and of a sweep of the catalog.

Three figures per request, after what a server's worker does at start-up
(``bot/ops/warmup.py``): ``engine.decision.warm()`` builds every GPU's kernel curves and
every link's collective curves once, then ``gc.freeze()`` keeps what was loaded out of every
later garbage collection:

- "cold": ``clear_cache(physics=True)`` first, so the answer, the plan searches and the step
  models are all computed again (only the loaded catalog and calibration remain, with the
  values their curves were asked for): the cost of a question never asked before in this
  process (the clearing itself is not timed);
- "searches kept": ``clear_cache()`` only, so the answer is computed again but the plan
  searches and step times kept across requests (engine/memo.py) are reused: what a
  different question on the same model, GPU and load pays;
- "memoized": the same request again (a conversation's repeated turns).

The 70B inference case is measured at the default load (32 requests of 8k) and at 64 x 8k
(the figure this bench printed before the default-load line was added).

The sweep runs every model through every workload, cold, verdict only and then with the
alternatives. One pass measures each request once: its slowest request is mostly the
machine's noise (a scheduler pause or a garbage collection lands on one request), so the
sweep is run ``PASSES`` times and each request's median is taken; the median, the 90th
percentile and the slowest of those medians are printed with the slowest request, and the
first pass's figures beside them (what a single pass shows).

The load average of the machine is printed at the start and the end, and a reference loop's
time at the start: on a shared machine the figures move with them.

Run: ``.venv/bin/python bench/engine.py`` (or ``make bench``). Prints numbers; asserts nothing.
"""

from __future__ import annotations

import gc
import os
import statistics
import sys
import time
import timeit
from collections.abc import Callable
from pathlib import Path

# Run as a script, this folder comes first on sys.path and bench/engine.py would shadow the
# package it measures: put the repository root first.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import SizingRequest, recommend
from engine.catalog import catalog
from engine.decision import clear_cache, warm

WORKLOADS = ["inference", "lora", "qlora", "full-finetune", "pretrain"]
#: Passes of the catalog sweep (each request's median over them is reported).
PASSES = 5


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} / {five:.2f} / {fifteen:.2f} ({os.cpu_count()} CPUs)"


def reference() -> str:
    """The machine's speed on a fixed pure-Python loop (``sum`` of 1,000 ints, best of 5):
    figures from two machines, or from one machine in two phases (a shared VM's speed moves
    several-fold), compare in proportion to it."""
    xs = list(range(1000))
    best = min(timeit.repeat(lambda: sum(xs), number=20_000, repeat=5)) / 20_000
    return f"reference: sum of 1,000 ints in {best * 1e6:.2f} us (best of 5)"


def median_us(fn: Callable[[], object], n: int, before: Callable[[], object] = lambda: None
              ) -> float:
    """The median time of ``fn`` over ``n`` runs, ``before`` run (untimed) ahead of each."""
    times = []
    for _ in range(n):
        before()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e6


def cold() -> None:
    """Before a cold run: every answer, search and step model forgotten (not timed: freeing
    the last answer's objects is not part of answering the next)."""
    clear_cache(physics=True)


def sweep(alternatives: bool) -> dict[str, float]:
    """Each request's cold time in s, over every model x workload (one pass)."""
    cat = catalog()
    times: dict[str, float] = {}
    for m in cat.models:
        for w in WORKLOADS:
            r = SizingRequest(model=m, workload=w)
            cold()
            t = time.perf_counter()
            recommend(r, alternatives=alternatives)
            times[f"{m} {w}"] = time.perf_counter() - t
    return times


def summary(times: dict[str, float]) -> str:
    ms = sorted(times.values())
    worst = max(times, key=lambda k: times[k])
    return (f"median {statistics.median(ms) * 1e3:.1f} ms, p90 {ms[int(0.9 * len(ms))] * 1e3:.1f}"
            f" ms, slowest {ms[-1] * 1e3:.1f} ms ({worst})")


def main() -> None:
    cat = catalog()
    print(load())
    print(reference())
    t = time.perf_counter()
    warm()
    print(f"warm(): {(time.perf_counter() - t) * 1e3:.0f} ms (once per process)")
    gc.freeze()
    default = SizingRequest(model="llama-3.1-70b")
    recommend(default)  # the imports
    print(f"python {sys.version.split()[0]}, {len(cat.models)} models, {len(cat.gpus)} GPUs")
    for label, r, alts, n in [
        ("recommend 70B inference 32x8k (verdict only)", default, False, 1000),
        ("recommend 70B inference 32x8k (+ alternatives)", default, True, 300),
        ("recommend 70B inference 64x8k (verdict only)",
         SizingRequest(model="llama-3.1-70b", concurrency=64, context=8192), False, 1000),
        ("recommend 70B inference 64x8k (+ alternatives)",
         SizingRequest(model="llama-3.1-70b", concurrency=64, context=8192), True, 300),
        ("recommend 70B full fine-tune (verdict only)",
         SizingRequest(model="llama-3.1-70b", workload="full-finetune"), False, 300),
        ("recommend 405B 64x32k inference (verdict only)",
         SizingRequest(model="llama-3.1-405b", concurrency=64, context=32768), False, 300),
    ]:
        def run(r: SizingRequest = r, alts: bool = alts) -> None:
            recommend(r, alternatives=alts)
        c = median_us(run, n, cold)
        k = median_us(run, n, clear_cache)
        run()
        m = median_us(run, n)
        print(f"{label:<50} median {c:7.0f} us cold, {k:6.0f} us searches kept, "
              f"{m:5.1f} us memoized ({n} runs)")
    for alts in (False, True):
        passes = [sweep(alts) for _ in range(PASSES)]
        medians = {k: statistics.median(p[k] for p in passes) for k in passes[0]}
        what = "with alternatives" if alts else "verdict only"
        print(f"sweep, cold: every model x workload, {what}: {len(medians)} requests")
        print(f"  each request's median of {PASSES} passes: {summary(medians)}")
        print(f"  one pass (the first):             {summary(passes[0])}")
    print(load())


if __name__ == "__main__":
    main()
