"""The memory picture: per GPU of one copy, weights, KV cache or training state, runtime
reserve and free memory, for the recommended layout beside the runner-up, with the weights
ceiling (the article's 70 %).

Why per GPU and stacked: the article's rule is a share of each GPU (weights at most 70 %, the
rest for the work), so one bar per layout shows at a glance how much room the work has and
how close the weights are to the line. The segments are the fields of
:class:`engine.decision.curves.MemoryBar` (the engine's :class:`engine.result.MemoryPicture`
per GPU), drawn as they are; each bar patch's ``gid`` names its segment (``weights``,
``work``, ``reserve``, ``free``) and each ceiling line is ``ceiling``, for the tests.
"""

from __future__ import annotations

from matplotlib.artist import Artist
from matplotlib.figure import Figure

from engine import units
from engine.charts.style import (
    COLORS,
    LEGEND,
    NOTE,
    axis_labels,
    figure,
    say,
    style_axes,
    wrap,
)
from engine.decision.curves import MemoryBars
from engine.units import Lang
from engine.wording import msg

__all__ = ["memory_figure"]

WIDTH = 0.5


def memory_figure(m: MemoryBars, lang: Lang) -> Figure:
    """The memory picture of ``m`` in ``lang``."""
    ticks = [f"{say(b.label, lang)}\n{wrap(say(b.detail, lang), 28)}" for b in m.bars]
    lines = max(t.count("\n") + 1 for t in ticks)
    fig = figure(say(msg("chart.memory.title"), lang), say(m.subtitle, lang),
                 bottom=0.06 + 0.042 * lines, right=0.7, left=0.095)
    ax = fig.subplots()
    style_axes(ax, lang)
    xs = list(range(len(m.bars)))
    work_id = "chart.memory.kv_cache" if m.bars[0].work == "kv_cache" \
        else "chart.memory.training_state"
    parts = [
        ("weights", msg("chart.memory.weights"), [b.weights_gb for b in m.bars], None),
        ("work", msg(work_id), [b.work_gb for b in m.bars], None),
        ("reserve", msg("chart.memory.reserve"), [b.reserve_gb for b in m.bars], None),
        ("free", msg("chart.memory.free"), [max(0.0, b.free_gb) for b in m.bars], "//"),
    ]
    bottoms = [0.0] * len(m.bars)
    handles: list[Artist | tuple[Artist, ...]] = []
    for gid, label, heights, hatch in parts:
        bars = ax.bar(xs, heights, WIDTH, bottom=bottoms, color=COLORS[gid],
                      edgecolor=COLORS["edge"], linewidth=0.8, hatch=hatch,
                      label=wrap(say(label, lang), 24), gid=gid)
        for patch in bars.patches:
            patch.set_gid(gid)
        handles.append(bars)
        for x, h, b, bar in zip(xs, heights, bottoms, m.bars, strict=True):
            if h >= 0.09 * bar.vram_gb and gid != "free":
                ax.text(x, b + h / 2, units.size_gb(h, lang), ha="center", va="center",
                        fontsize=NOTE, color="white" if gid == "weights" else "black")
        bottoms = [b + h for b, h in zip(bottoms, heights, strict=True)]
    ceiling = None
    for x, bar in zip(xs, m.bars, strict=True):
        y = m.weights_ceiling * bar.vram_gb
        (ceiling,) = ax.plot([x - WIDTH * 0.7, x + WIDTH * 0.7], [y, y], gid="ceiling",
                             color=COLORS["target"], linestyle="--", linewidth=2.2, zorder=4)
        used = bar.vram_gb - bar.free_gb
        ax.text(x, max(bar.vram_gb, used) * 1.02, say(msg(
            "chart.memory.used", used=used, vram=bar.vram_gb), lang),
            ha="center", va="bottom", fontsize=NOTE, color=COLORS["muted"])
    if ceiling is not None:
        ceiling.set_label(wrap(say(msg("chart.memory.ceiling", share=m.weights_ceiling), lang),
                               24))
        handles.append(ceiling)
    ax.set_xticks(xs, ticks, fontsize=NOTE + 0.5)
    ax.tick_params(axis="x", length=0)
    ax.set_xlim(-0.6, len(m.bars) - 0.4)
    top = max(max(b.vram_gb, b.vram_gb - b.free_gb) for b in m.bars)
    ax.set_ylim(0, top * 1.12)
    axis_labels(ax, None, say(msg("chart.memory.y"), lang), y_offset=30.0)
    fig.legend(handles=handles[::-1], loc="center left", bbox_to_anchor=(0.71, 0.5),
               fontsize=LEGEND, frameon=False)
    return fig
