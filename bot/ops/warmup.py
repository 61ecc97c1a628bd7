"""Cold start: load what a first turn would load, before the worker says it is ready.

Why: the first slash command after a start took 1.2 s to ack on a busy machine, because it
paid for importing the engine, reading the catalogs and message files and building caches.
A worker now runs these steps after building its Bolt app and before it accepts a connection
(``bot/ops/serve.py`` runs them in gunicorn's ``load``), so the first customer pays nothing
and ``/readyz`` lists what was loaded and how long it took.

A step that fails is logged as one WARNING line and reported; the worker still serves (the
turn that needs it will load it, slowly, or fail on its own with the face's error message).
"""

from __future__ import annotations

import gc
import logging
import time
from collections.abc import Callable
from typing import Any

__all__ = ["Step", "default_steps", "run"]

_log = logging.getLogger(__name__)

Step = tuple[str, Callable[[], None]]

# A whole sizing in one message: every question answered, so the engine decides and the
# reply carries a recommendation (the same path as a real first card).
WARM_TEXT = "llama 3.1 70b inference 64 users 8k context no target"


def _catalogs() -> None:
    """Every layer's message catalog, both languages (bot/wording.py)."""
    from bot.wording import catalog

    catalog()


def _sizing() -> None:
    """One whole sizing through the dialogue and the engine, in memory, rendered in both
    languages: the engine catalog, its data files, the parsers and the formatters."""
    from bot.wording import say
    from dialogue import Dialogue, MemoryStore
    from engine.wording import Message

    reply = Dialogue(MemoryStore()).start("warmup:0:0:0", WARM_TEXT)
    for lang in ("en", "fr"):
        for name in ("text", "help", "error"):
            value = getattr(reply, name, None)
            if isinstance(value, Message):
                say(value, lang)


def _charts() -> None:
    """matplotlib's import, its font cache and the Agg renderer (one small labelled figure),
    which the first "Show the charts" click would otherwise pay for (about 0.7 s)."""
    from matplotlib.figure import Figure

    from engine.charts.style import png

    figure = Figure(figsize=(2, 1))
    axes = figure.add_subplot()
    axes.plot([0, 1], [0, 1])
    axes.set_title("warm-up")
    png(figure)


def _engine() -> None:
    """Every GPU's kernel curves and every link's collective curves (the sizing step builds
    only its own GPU's): some 20 ms a first question on another GPU, or a first
    card's alternatives, would otherwise pay."""
    from engine.decision import warm

    warm()


def _freeze() -> None:
    """Last: what start-up loaded (catalogs, curves, the Bolt app, matplotlib) moves to the
    collector's permanent generation (``gc.freeze``), so no later collection walks it. Without
    it, each full collection walks those objects again (about 108,000 after these steps; a
    full collection took 53 ms, 0.0 ms once frozen, on the 2-CPU dev VM) and the pause lands
    on whichever turn allocated last."""
    gc.freeze()


def default_steps() -> list[Step]:
    """What a first turn loads besides the Bolt app itself (built by the front)."""
    return [("catalogs", _catalogs), ("sizing", _sizing), ("engine", _engine),
            ("charts", _charts), ("freeze", _freeze)]


def run(steps: list[Step]) -> dict[str, dict[str, Any]]:
    """Run each step once; ``{name: {"ok": bool, "ms": float}}``, in order."""
    report: dict[str, dict[str, Any]] = {}
    for name, step in steps:
        started = time.perf_counter()
        ok = True
        try:
            step()
        except Exception as exc:
            ok = False
            _log.warning("warm-up step failed; the first turn will pay for it",
                         extra={"json_fields": {"event": "warmup_failed", "step": name,
                                                "error": type(exc).__name__}})
        report[name] = {"ok": ok, "ms": round(1000 * (time.perf_counter() - started), 1)}
    return report
