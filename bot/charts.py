"""The charts of a sizing's result, for every face: drawn once per result and language.

Why one room for the faces: the Slack thread, the quote brief and the console show the same
images (engine/charts/), and drawing them costs a few hundred milliseconds, so they are
drawn once per result and kept: the key is the conversation, its version (a result is one
version of one conversation) and the language, with the request itself, so a conversation
started again under the same id never shows another sizing's charts. The kept images live in
this process (bounded, the oldest first out); another worker draws its own: the images are a
pure function of the request, so every copy is the same.

The request comes back from the reply (``Reply.request``, the answers as the engine names
them, ``dialogue/flow.py`` ``engine_request``), and the engine checks that it leads to the
very recommendation the reply shows (:class:`engine.decision.curves.NotReproduced`
otherwise): a chart never shows other numbers than the card's. A bound the dialogue assumed
travels in the request as assumed (``SizingRequest.assumed``), and the chart says so. Any
failure is raised as
:class:`ChartsFailed`, for the face to tell the person and lose nothing else.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from dialogue import Reply
from dialogue.flow import engine_request
from engine.request import SizingRequest
from engine.units import Lang

if TYPE_CHECKING:  # engine.charts loads matplotlib: imported when the first chart is drawn
    from engine.charts import ChartImage

log = logging.getLogger(__name__)

__all__ = ["CHARTS_DIR_ENV", "MAX_KEPT", "Charts", "ChartsFailed", "charts_of", "folder_for",
           "request_of", "write"]

MAX_KEPT = 64  # results whose charts are kept (a few MB: each chart is 50-100 kB)
#: Where the console writes charts when set (else a new temporary folder each time).
CHARTS_DIR_ENV = "GPU_SIZING_CHARTS_DIR"


class ChartsFailed(Exception):
    """The charts could not be drawn (the reason is logged by its kind only)."""


@dataclass(frozen=True)
class Charts:
    """A result's charts: the images in order and the stem their file names share."""

    images: tuple[ChartImage, ...]
    stem: str

    def files(self) -> list[tuple[str, bytes]]:
        """(file name, PNG bytes) of each chart."""
        return [(image.filename(self.stem), image.png) for image in self.images]


_KEPT: OrderedDict[tuple[str, int, str, str], Charts] = OrderedDict()
_LOCK = threading.Lock()


def request_of(reply: Reply) -> SizingRequest:
    """The engine's request behind ``reply``'s result."""
    return engine_request(reply.request)


def _digest(reply: Reply) -> str:
    text = json.dumps(reply.request, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def charts_of(reply: Reply, lang: Lang | None = None) -> Charts:
    """The charts of ``reply``'s result in ``lang`` (default: the conversation's), drawn on
    first use and kept; raises :class:`ChartsFailed`."""
    rec = reply.recommendation
    if rec is None:
        raise ChartsFailed("no result")
    said: Lang = lang or reply.language
    key = (reply.conversation_id, reply.version, said, _digest(reply))
    with _LOCK:
        hit = _KEPT.get(key)
    if hit is not None:
        return hit
    try:
        from engine.charts import file_stem, render  # matplotlib: loaded on the first chart

        conv = hashlib.sha256(reply.conversation_id.encode("utf-8")).hexdigest()[:8]
        drawn = Charts(tuple(render(request_of(reply), rec, said)),
                       f"{file_stem(rec)}-{conv}-v{reply.version}")
    except Exception as exc:  # a request the engine refuses now, a drawing defect
        log.error("charts failed", extra={"json_fields": {"error": type(exc).__name__}})
        raise ChartsFailed(type(exc).__name__) from exc
    if not drawn.images:
        raise ChartsFailed("nothing to draw")
    with _LOCK:
        _KEPT[key] = drawn
        while len(_KEPT) > MAX_KEPT:
            _KEPT.popitem(last=False)
    return drawn


def folder_for(given: str | None = None) -> Path:
    """Where a face writes charts: ``given``, else ``$GPU_SIZING_CHARTS_DIR``, else a new
    temporary folder."""
    chosen = given or os.environ.get(CHARTS_DIR_ENV)
    return Path(chosen) if chosen else Path(tempfile.mkdtemp(prefix="gpu-sizing-charts-"))


def write(charts: Charts, folder: Path) -> list[Path]:
    """Write ``charts`` into ``folder`` (made if absent); the paths written. Raises OSError."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name, data in charts.files():
        path = folder / name
        path.write_bytes(data)
        out.append(path)
    return out
