"""Chart speed: the time to render the three charts of issue #12 to PNG (goal: under 300 ms
together on this machine).

The three charts: the load curve and the memory picture of a 70B serving answer (64 users,
8k context, 20 tok/s per user, first token within 4 s) and the training curve of a 70B full
fine-tune (2B tokens in 7 days). Figures, after one render of each (matplotlib's import and
font cache, paid once per process, are printed on their own line):

- "series": ``engine.decision.curves.curves`` for both requests (the answers memoized, as
  in a conversation; the re-planning at each load point is what it costs);
- "render": each chart's figure built and written as PNG, and the three together: the bench
  line the goal is about;
- wall time beside CPU time (``time.process_time``): the machine is shared, and the load
  average is printed with them.

Run: ``.venv/bin/python bench/charts.py`` (or ``make bench``). Prints numbers; asserts nothing.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.decision import recommend
from engine.request import SizingRequest

SERVING = SizingRequest(model="llama-3.1-70b", concurrency=64, context=8192,
                        per_user_tokens_per_s=20, ttft_s=4)
TRAINING = SizingRequest(model="llama-3.1-70b", workload="full-finetune", train_tokens=2e9,
                         deadline_days=7)
GOAL_MS = 300.0
RUNS = 15


def timed(fn: Callable[[], object], n: int = RUNS) -> tuple[float, float]:
    """Median wall and CPU milliseconds of ``fn``."""
    wall, cpu = [], []
    for _ in range(n):
        w, c = time.perf_counter(), time.process_time()
        fn()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return statistics.median(wall) * 1e3, statistics.median(cpu) * 1e3


def main() -> None:
    t = time.perf_counter()
    from engine.charts.load import load_figure
    from engine.charts.memory import memory_figure
    from engine.charts.style import png
    from engine.charts.training import training_figure
    from engine.decision.curves import curves
    imported = (time.perf_counter() - t) * 1e3
    recommend(SERVING)
    recommend(TRAINING)
    t = time.perf_counter()
    serving, training = curves(SERVING), curves(TRAINING)
    assert serving.load and serving.memory and training.training
    load, memory, train = serving.load, serving.memory, training.training
    png(load_figure(load, "fr"))
    png(memory_figure(memory, "fr"))
    png(training_figure(train, "fr"))
    first = (time.perf_counter() - t) * 1e3
    print(f"python {sys.version.split()[0]}, matplotlib {_version()}, load average "
          f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"import engine.charts (matplotlib): {imported:.0f} ms; first render of the three "
          f"(font cache): {first:.0f} ms (once per process)")
    w, c = timed(lambda: (curves(SERVING), curves(TRAINING)))
    print(f"{'series of both requests (curves)':<44} median {w:6.1f} ms wall, {c:6.1f} ms CPU")
    parts: dict[str, Callable[[], object]] = {"load curve": lambda: png(load_figure(load, "fr")),
             "memory picture": lambda: png(memory_figure(memory, "fr")),
             "training curve": lambda: png(training_figure(train, "fr"))}
    for name, fn in parts.items():
        w, c = timed(fn)
        print(f"{'render ' + name + ' (PNG)':<44} median {w:6.1f} ms wall, {c:6.1f} ms CPU")
    w, c = timed(lambda: [fn() for fn in parts.values()])
    verdict = "meets" if w < GOAL_MS else "misses"
    print(f"{'render the three charts together':<44} median {w:6.1f} ms wall, {c:6.1f} ms CPU "
          f"({verdict} the {GOAL_MS:.0f} ms goal; {RUNS} runs)")


def _version() -> str:
    import matplotlib

    return str(matplotlib.__version__)


if __name__ == "__main__":
    main()
