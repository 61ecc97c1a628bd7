"""How every chart looks: a headless figure, the palette, the type sizes, the axes' number
formats, and the PNG bytes.

Why one place: the three charts must read alike at Slack's preview size (a few hundred pixels
wide: large type, few words, thick lines) and in the brief, and they must be safe for readers
who do not tell red from green: the Okabe-Ito palette (Okabe and Ito, "Color Universal
Design", 2008), with a line style or a hatch beside each colour so nothing relies on colour
alone. Figures are built as plain :class:`matplotlib.figure.Figure` objects on the Agg
canvas, never through ``pyplot``: no global figure registry, no GUI backend, safe in the
bot's worker threads. Numbers on the axes are written by engine/units.py, in the chart's
language (``1 000`` and ``2,5`` in French), as the rest of the product writes them.
"""

from __future__ import annotations

import io
import math
import textwrap
from collections.abc import Callable

import matplotlib

matplotlib.use("Agg", force=False)  # headless, whatever MPLBACKEND says

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import (
    FixedLocator,
    FuncFormatter,
    MaxNLocator,
    NullLocator,
)
from matplotlib.transforms import offset_copy

from engine import units
from engine.units import Lang
from engine.wording import Message, render

__all__ = [
    "COLORS",
    "DPI",
    "LEGEND_WRAP",
    "LINESTYLES",
    "SIZE",
    "axis_labels",
    "figure",
    "formatter",
    "legend_lines",
    "log_axis",
    "png",
    "say",
    "style_axes",
    "wrap",
]

#: Okabe-Ito, by what each colour stands for in every chart.
COLORS = {
    "chosen": "#0072B2",  # blue
    "layout": "#E69F00",  # orange
    "gpu": "#009E73",  # bluish green
    "target": "#D55E00",  # vermillion
    "point": "#000000",
    "weights": "#0072B2",
    "work": "#E69F00",
    "reserve": "#CC79A7",  # reddish purple
    "free": "#F0F0F0",
    "edge": "#444444",
    "muted": "#555555",
}
LINESTYLES = {"chosen": "-", "layout": "--", "gpu": "-."}
MARKERS = {"chosen": "o", "layout": "s", "gpu": "^"}

#: 8 x 4.5 inches at 100 dpi: 800 x 450 px, Slack's 16:9 preview without cropping.
SIZE = (8.0, 4.5)
DPI = 100
TITLE, SUBTITLE, LABEL, TICK, LEGEND, NOTE = 14.0, 10.5, 11.5, 10.5, 9.5, 9.0
LEGEND_WRAP = 48  # characters per legend line: two columns fit the width
LINE_WIDTH = 2.4


def say(m: Message, lang: Lang) -> str:
    """A chart label in words (the engine's catalog, the chart's language)."""
    return render(m, lang)


def wrap(words: str, width: int) -> str:
    """Break a long label into lines of about ``width`` characters."""
    return "\n".join(textwrap.wrap(words, width)) or words


def figure(title: str, subtitle: str, *, bottom: float, right: float = 0.975,
           left: float = 0.085) -> Figure:
    """An empty figure on the Agg canvas with its title and subtitle; the axes go between
    the margins (fractions of the figure). Margins are set, not computed by a layout
    engine: a layout pass costs more than drawing the chart."""
    fig = Figure(figsize=SIZE, dpi=DPI)
    FigureCanvasAgg(fig)
    fig.text(0.012, 0.975, title, fontsize=TITLE, fontweight="bold", va="top", gid="title")
    sub = wrap(subtitle, 100)
    fig.text(0.012, 0.912, sub, fontsize=SUBTITLE, color=COLORS["muted"], va="top",
             gid="subtitle")
    top = 0.845 - 0.04 * sub.count("\n")
    fig.subplots_adjust(left=left, right=right, top=top, bottom=bottom, wspace=0.3)
    return fig


def legend_lines(labels: list[str], ncols: int) -> int:
    """Text lines the tallest column of a legend takes (entries fill columns in order)."""
    per = -(-len(labels) // ncols) if labels else 0
    cols = [labels[i * per:(i + 1) * per] for i in range(ncols)]
    return max((sum(x.count("\n") + 1 for x in col) for col in cols), default=0)


def _number(x: float, lang: Lang) -> str:
    if x == 0 or not math.isfinite(x):
        return "0"
    return units.count(x, lang) if abs(x) >= 100 else units.short(x, lang)


def formatter(lang: Lang, fmt: Callable[[float, Lang], str] = _number) -> FuncFormatter:
    """Axis numbers as engine/units.py writes them in ``lang``."""
    return FuncFormatter(lambda x, _pos: fmt(float(x), lang))


def style_axes(ax: Axes, lang: Lang) -> None:
    """Light grid, no top/right frame, the language's number formats on both axes."""
    ax.grid(True, axis="y", color="#DDDDDD", linewidth=0.8)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.tick_params(labelsize=TICK)
    # few ticks: each is several artists, and drawing them is most of a chart's time
    ax.yaxis.set_major_locator(MaxNLocator(nbins=4, steps=[1, 2, 2.5, 5, 10]))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_major_formatter(formatter(lang))


def log_axis(ax: Axes, top: float, lang: Lang) -> None:
    """A logarithmic x axis from 1 to ``top`` with 1-2-5 ticks written in ``lang`` (and no
    minor ticks: each one is a costly object, and none is read at a glance)."""
    ax.set_xscale("log")
    steps = (1, 3) if top < 300 else (1,)
    ticks = [m * 10**e for e in range(0, 8) for m in steps if m * 10**e <= top * 1.05]
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(formatter(lang, units.count))
    ax.set_xlim(0.85, top * 1.25)


def axis_labels(ax: Axes, xlabel: str | None, ylabel: str, *, y_offset: float = 36.0) -> None:
    """The axes' labels at fixed distances (points) from the frame: matplotlib would
    otherwise measure every tick label of the axes to place them, at each draw."""
    fig = ax.get_figure()
    assert isinstance(fig, Figure)
    if xlabel is not None:
        ax.set_xlabel(xlabel, fontsize=LABEL)
        ax.xaxis.set_label_coords(0.5, 0.0, transform=offset_copy(
            ax.transAxes, fig, y=-22.0, units="points"))
    ax.set_ylabel(ylabel, fontsize=LABEL)
    ax.yaxis.set_label_coords(0.0, 0.5, transform=offset_copy(
        ax.transAxes, fig, x=-y_offset, units="points"))


def png(fig: Figure) -> bytes:
    """The figure as PNG bytes (no timestamp or version in them: the same chart, the same
    bytes, so ``make docs`` changes a file only when the chart changes)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None},
                pil_kwargs={"compress_level": 1})
    return buf.getvalue()
