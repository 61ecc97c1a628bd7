"""The load curve: how each user's speed and the time to the first token change as more
requests share a layout, with the customer's targets and the sized load marked.

Why two panels side by side: a sales engineer reads both against the same x axis (requests
in flight on one copy) to show where the customer's target sits and why the answer takes the
layout and the number of copies it does. The x axis is logarithmic (1 to the layout's
maximum: hundreds of requests). Every plotted value is a field of
:class:`engine.decision.curves.LoadCurves`; nothing is computed here. Each line's ``gid``
names what it is (``chosen``, ``layout``, ``gpu``, ``target-speed``, ``target-ttft``,
``point``), so tests read the series back from the figure.
"""

from __future__ import annotations

from collections.abc import Collection

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from engine.charts.style import (
    COLORS,
    LEGEND,
    LEGEND_WRAP,
    LINE_WIDTH,
    LINESTYLES,
    axis_labels,
    figure,
    legend_lines,
    log_axis,
    say,
    style_axes,
    wrap,
)
from engine.decision.curves import LoadCurves
from engine.units import Lang
from engine.wording import msg

__all__ = ["load_figure"]


def _axis(ax: Axes, c: LoadCurves, lang: Lang, ylabel: str) -> None:
    style_axes(ax, lang)
    log_axis(ax, max(max(s.concurrency, default=1) for s in c.series), lang)
    x = msg("chart.load.x_copy", copies=c.copies) if c.copies > 1 else msg("chart.load.x")
    axis_labels(ax, say(x, lang), ylabel, y_offset=28.0)
    ax.set_ylim(bottom=0)


def _bound(asked: str, given: str, assumed: Collection[str]) -> str:
    """A target line's message id: asked when the person gave it, assumed otherwise."""
    return f"chart.load.{asked}_assumed" if given in assumed else f"chart.load.{asked}_target"


def load_figure(c: LoadCurves, lang: Lang, assumed: Collection[str] = ()) -> Figure:
    """The load curve of ``c`` in ``lang``; a bound named in ``assumed`` (a request field:
    ``per_user_tokens_per_s``, ``ttft_s``) is labelled as assumed, never as asked."""
    labels = [wrap(say(s.label, lang), LEGEND_WRAP) for s in c.series]
    if c.per_user_target is not None:
        ident = _bound("speed", "per_user_tokens_per_s", assumed)
        labels.append(wrap(say(msg(ident, speed=c.per_user_target), lang), LEGEND_WRAP))
    if c.ttft_target is not None:
        ident = _bound("ttft", "ttft_s", assumed)
        labels.append(wrap(say(msg(ident, ttft=c.ttft_target), lang), LEGEND_WRAP))
    p = c.point
    labels.append(wrap(say(msg("chart.load.point", concurrency=p.concurrency,
                                   per_user=p.per_user_tokens_per_s, ttft=p.ttft_s), lang),
                       LEGEND_WRAP))
    bottom = 0.15 + 0.045 * legend_lines(labels, 2)
    fig = figure(say(msg("chart.load.title"), lang), say(c.subtitle, lang), bottom=bottom)
    speed_ax, ttft_ax = fig.subplots(1, 2)
    handles: list[Line2D] = []
    for s, label in zip(c.series, labels, strict=False):
        style = dict(color=COLORS[s.role], linestyle=LINESTYLES[s.role],
                     linewidth=LINE_WIDTH if s.role == "chosen" else LINE_WIDTH * 0.75,
                     zorder=3 if s.role == "chosen" else 2)
        (line,) = speed_ax.plot(s.concurrency, s.per_user_tokens_per_s, gid=s.role,
                                label=label, **style)
        ttft_ax.plot(s.concurrency, s.ttft_s, gid=s.role, **style)
        handles.append(line)
    rest = iter(labels[len(c.series):])
    if c.per_user_target is not None:
        handles.append(speed_ax.axhline(
            c.per_user_target, color=COLORS["target"], linestyle=":", linewidth=2,
            gid="target-speed", label=next(rest)))
    if c.ttft_target is not None:
        handles.append(ttft_ax.axhline(
            c.ttft_target, color=COLORS["target"], linestyle=(0, (1, 1.5)), linewidth=2,
            gid="target-ttft", label=next(rest)))
    marker = dict(marker="o", markersize=9, markerfacecolor="white", markeredgewidth=2.2,
                  color=COLORS["point"], linestyle="none", zorder=5)
    (mark,) = speed_ax.plot([p.concurrency], [p.per_user_tokens_per_s], gid="point",
                            label=next(rest), **marker)
    ttft_ax.plot([p.concurrency], [p.ttft_s], gid="point", **marker)
    handles.append(mark)
    _axis(speed_ax, c, lang, say(msg("chart.load.speed"), lang))
    _axis(ttft_ax, c, lang, say(msg("chart.load.ttft"), lang))
    fig.legend(handles=handles, loc="lower left", bbox_to_anchor=(0.0, 0.0), ncols=2,
               fontsize=LEGEND, frameon=False, handlelength=2.6, columnspacing=1.2)
    return fig
