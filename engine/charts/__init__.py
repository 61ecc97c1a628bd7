"""The charts of a recommendation: the load curve, the memory picture and the
training curve, drawn with matplotlib (headless) to PNG bytes.

Why a package of its own: drawing is not deciding. The series come from
engine/decision/curves.py (the engine's serving and training functions); the rooms here only
draw them (``load.py``, ``memory.py``, ``training.py``, with ``style.py``: palette, type,
number formats) and return bytes: the engine writes no file (the CLI does, ``--charts DIR``),
and a face uploads or embeds the bytes. Which charts a recommendation has: the load curve
for serving on a plan (not a frontier estimate), the memory picture whenever there is a VRAM
picture, the training curve for training. Labels are the engine's messages (``chart.*`` in
engine/data/messages), rendered in the conversation's language.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Literal

from matplotlib.figure import Figure

from engine.catalog import Catalog
from engine.charts.load import load_figure
from engine.charts.memory import memory_figure
from engine.charts.style import png
from engine.charts.training import training_figure
from engine.decision.curves import Curves, curves
from engine.request import SizingRequest
from engine.result import Recommendation
from engine.units import Lang
from engine.wording import Message, msg

__all__ = ["KINDS", "ChartImage", "Kind", "draw", "figures", "file_stem", "render"]

Kind = Literal["load", "memory", "training"]
KINDS: tuple[Kind, ...] = ("load", "memory", "training")
_CAPTIONS: dict[Kind, Message] = {k: msg(f"chart.caption.{k}") for k in KINDS}


@dataclass(frozen=True)
class ChartImage:
    """One chart: what it shows (``kind``), its caption (a message) and its PNG bytes."""

    kind: Kind
    caption: Message
    png: bytes

    def filename(self, stem: str) -> str:
        return f"{stem}-{self.kind}.png"


def figures(c: Curves, lang: Lang, assumed: Collection[str] = ()) -> dict[Kind, Figure]:
    """The figures of ``c`` in ``lang``, in :data:`KINDS` order (the tests read them).

    ``assumed``: the request's fields whose value the person did not give (a face's dialogue
    assumed or defaulted it: ``per_user_tokens_per_s``, ``ttft_s``); their target lines say
    "Assumed", the others "Asked"."""
    out: dict[Kind, Figure] = {}
    if c.load is not None:
        out["load"] = load_figure(c.load, lang, assumed)
    if c.memory is not None:
        out["memory"] = memory_figure(c.memory, lang)
    if c.training is not None:
        out["training"] = training_figure(c.training, lang)
    return out


def draw(c: Curves, lang: Lang, assumed: Collection[str] = ()) -> list[ChartImage]:
    """The charts of ``c`` as PNG images (``assumed``: see :func:`figures`)."""
    return [ChartImage(kind, _CAPTIONS[kind], png(fig))
            for kind, fig in figures(c, lang, assumed).items()]


def render(req: SizingRequest, rec: Recommendation | None = None, lang: Lang = "en",
           cat: Catalog | None = None) -> list[ChartImage]:
    """The charts of ``req``'s recommendation (``rec`` when given: it must be what ``req``
    answers, else :class:`engine.decision.curves.NotReproduced`); the targets the request
    names as assumed (``SizingRequest.assumed``: a face's default) are labelled assumed, the
    others asked."""
    return draw(curves(req, rec, cat), lang, req.assumed)


def file_stem(rec: Recommendation) -> str:
    """An ASCII name for a recommendation's chart files: model and workload."""
    slug = re.sub(r"[^a-z0-9.]+", "-", rec.model.id.lower()).strip("-.")[:60] or "model"
    return f"{slug}-{rec.workload}"
