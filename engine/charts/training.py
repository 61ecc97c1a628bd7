"""The training curve: days to finish against the number of nodes, the deadline, each point's
projected scaling efficiency, and the recommended point.

Why this picture: what more nodes buy a training run is the question behind "one node",
"replicas" or "a cluster": the days fall, but each added node brings less (the efficiency
labels say how much less) and the deadline line shows the fewest nodes that make it. The
points are the fields of :class:`engine.decision.curves.TrainingCurve`, drawn as they are;
the curve's ``gid`` is ``curve``, the recommended point's ``point``, the deadline's
``deadline``, and each efficiency label's ``efficiency``, for the tests. Node counts
where the training state does not fit have no point; a note says from how many it does.
Far more than a handful of nodes (a frontier run) goes on a logarithmic axis.
"""

from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from engine import units
from engine.charts.style import (
    COLORS,
    LEGEND,
    LEGEND_WRAP,
    LINE_WIDTH,
    NOTE,
    axis_labels,
    figure,
    formatter,
    legend_lines,
    log_axis,
    say,
    style_axes,
    wrap,
)
from engine.decision.curves import TrainingCurve
from engine.units import Lang
from engine.wording import Message, msg

__all__ = ["training_figure"]

_SCALING = {"best": "chart.training.best", "copies": "chart.training.copies",
            "frontier": "chart.training.frontier"}


def _point_label(t: TrainingCurve) -> Message:
    c = t.chosen
    if c.nodes == 1 and t.chosen_gpus < t.gpus_per_node:
        return msg("chart.training.point_fewer", gpus=t.chosen_gpus,
                   node_gpus=t.gpus_per_node, days=c.days, efficiency=c.efficiency)
    return msg("chart.training.point", nodes=c.nodes, days=c.days, efficiency=c.efficiency)


def training_figure(t: TrainingCurve, lang: Lang) -> Figure:
    """The training curve of ``t`` in ``lang``."""
    labels = [wrap(say(msg(_SCALING[t.scaling]), lang), LEGEND_WRAP),
              say(msg("chart.training.deadline", days=t.deadline_days), lang),
              wrap(say(_point_label(t), lang), LEGEND_WRAP),
              say(msg("chart.training.efficiency_note"), lang)]
    fig = figure(say(msg("chart.training.title"), lang), say(t.subtitle, lang),
                 bottom=0.15 + 0.045 * legend_lines(labels[:3], 2))
    ax = fig.subplots()
    style_axes(ax, lang)
    xs = [p.nodes for p in t.points]
    ys = [p.days for p in t.points]
    ax.plot(xs, ys, gid="curve", color=COLORS["chosen"], linewidth=LINE_WIDTH, marker="o",
            markersize=6, label=labels[0], zorder=3)
    step = max(1, len(t.points) // 8)  # at most about eight labels
    for i, p in enumerate(t.points):
        if i % step == 0 or p.nodes == t.chosen.nodes:
            ax.annotate(say(msg("chart.training.efficiency", efficiency=p.efficiency), lang),
                        (p.nodes, p.days), textcoords="offset points", xytext=(0, 9),
                        ha="center", fontsize=NOTE, color=COLORS["muted"], gid="efficiency")
    ax.axhline(t.deadline_days, color=COLORS["target"], linestyle=":", linewidth=2,
               gid="deadline", label=labels[1])
    ax.plot([t.chosen.nodes], [t.chosen.days], gid="point", marker="o", markersize=10,
            markerfacecolor="white", markeredgewidth=2.2, color=COLORS["point"],
            linestyle="none", zorder=5, label=labels[2])
    if xs and max(xs) / max(1, min(xs)) > 20:
        log_axis(ax, max(xs), lang)
        ax.set_xlim(min(xs) * 0.8, max(xs) * 1.25)
    else:
        ax.xaxis.set_major_locator(MaxNLocator(nbins=6, integer=True))
        ax.xaxis.set_major_formatter(formatter(lang, units.count))
        ax.set_xlim(min(xs, default=1) - 0.3, max(xs, default=1) + 0.3)
    ax.set_ylim(bottom=0, top=max([*ys, t.deadline_days, t.chosen.days]) * 1.3)
    axis_labels(ax, say(msg("chart.training.x"), lang), say(msg("chart.training.y"), lang),
                y_offset=30.0)
    notes = labels[3]
    if t.scaling != "frontier" and t.points and t.points[0].nodes > 1:  # the first that fits
        notes += "\n" + say(msg("chart.training.unfit", nodes=t.points[0].nodes), lang)
    ax.text(0.99, 0.98, notes, transform=ax.transAxes, ha="right", va="top",
            fontsize=NOTE, color=COLORS["muted"], linespacing=1.5)
    fig.legend(loc="lower left", bbox_to_anchor=(0.0, 0.0), ncols=2, fontsize=LEGEND,
               frameon=False, handlelength=2.6, columnspacing=1.2)
    return fig
