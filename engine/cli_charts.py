"""The command line's ``recommend --charts DIR``: the recommendation's charts as PNG files.

Why its own room beside engine/cli.py: it is the one place the engine writes files (the
charts themselves are bytes, engine/charts/), and it loads matplotlib only when charts are
asked for, so every other command starts as fast as before. Files are named
``<model>-<workload>-<chart>.png`` (``llama-3.1-70b-inference-load.png``); an existing file
of the same name is replaced. ``make docs`` writes docs/charts/ this way.
"""

from __future__ import annotations

from pathlib import Path

from engine.request import SizingRequest
from engine.result import Recommendation
from engine.units import Lang

__all__ = ["ChartsNotWritten", "write_charts"]


class ChartsNotWritten(Exception):
    """The folder could not be made or written; the message says which and why."""


def write_charts(req: SizingRequest, rec: Recommendation, lang: Lang, folder: str) -> list[str]:
    """Write ``rec``'s charts (``req`` answered in ``lang``) into ``folder``, made if absent;
    the paths written, in the charts' order."""
    from engine.charts import file_stem, render  # matplotlib is loaded only when asked

    out = Path(folder)
    images = render(req, rec, lang)
    paths: list[str] = []
    try:
        out.mkdir(parents=True, exist_ok=True)
        for image in images:
            path = out / image.filename(file_stem(rec))
            path.write_bytes(image.png)
            paths.append(str(path))
    except OSError as exc:
        raise ChartsNotWritten(f"--charts: cannot write into {folder}: "
                               f"{exc.strerror or exc}") from None
    return paths
