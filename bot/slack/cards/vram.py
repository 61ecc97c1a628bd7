"""The card's VRAM bar, drawn from the engine's one picture of where the memory goes.

Why nothing is computed here: ``recommendation.numbers.memory`` (``engine/result.py``,
``MemoryPicture``) holds the segments of one copy of the deployment and of all copies
(weights of every copy, KV cache or training state, reserve, free), the same figures step 1
quotes, so the bar and the step can never disagree. This module only maps segments to
characters: ``█`` weights, ``▓`` KV cache or training state, ``▒`` runtime reserve, ``░``
free. When the demand exceeds the VRAM the bar is scaled to the demand and ``┃`` marks where
the VRAM ends, so "does not fit" is visible at a glance.
"""

from __future__ import annotations

from bot.slack.cards.words import Words
from engine.result import MemoryPicture, Segments
from engine.wording import Message, msg

BAR_WIDTH = 30


def scope(picture: MemoryPicture) -> Message:
    """What one copy is (a node, N nodes, or the GPUs of a node it is sized on), and how many
    copies there are."""
    one = (msg("slack.vram.gpus", n=picture.scope_gpus) if picture.scope_gpus
           else msg("slack.vram.one_node") if picture.scope_nodes == 1
           else msg("slack.vram.nodes", n=picture.scope_nodes))
    if picture.copies > 1:
        return msg("slack.vram.each_copy", scope=one, copies=picture.copies)
    return one


def _cells(s: Segments, width: int) -> str:
    demand = max(s.vram_gb, s.used_gb)
    scale = width / demand
    weights, work, reserve = (round(s.weights_gb * scale), round(s.work_gb * scale),
                              round(s.reserve_gb * scale))
    if s.free_gb >= 0:
        free = max(0, width - weights - work - reserve)
        return "█" * weights + "▓" * work + "▒" * reserve + "░" * free
    bar = "█" * weights + "▓" * work + "▒" * reserve
    cap = min(len(bar), round(s.vram_gb * scale))
    return bar[:cap] + "┃" + bar[cap:]


def bar(picture: MemoryPicture, w: Words, width: int = BAR_WIDTH) -> str:
    """The bar of one copy, its legend, and the total of all copies (escaped mrkdwn)."""
    s = picture.per_copy
    if s.free_gb >= 0:
        tail = w.md(msg("slack.vram.free", free=s.free_gb, vram=s.vram_gb))
    else:
        tail = w.md(msg("slack.vram.needs", used=s.used_gb, vram=s.vram_gb))
    legend = [w.md(msg("slack.vram.weights", gb=s.weights_gb))]
    if s.work_gb:
        legend.append(w.md(msg("slack.vram.kv", gb=s.work_gb) if s.work == "kv_cache"
                           else msg("slack.vram.training", gb=s.work_gb)))
    if s.reserve_gb:
        legend.append(w.md(msg("slack.vram.reserve", gb=s.reserve_gb)))
    lines = [f"`{_cells(s, width)}`  {tail}", " · ".join(legend)]
    if picture.copies > 1:
        t = picture.total
        lines.append(w.md(msg("slack.vram.total", copies=picture.copies, used=t.used_gb,
                           vram=t.vram_gb, free=t.free_share)))
    return "\n".join(lines)


def section_text(picture: MemoryPicture, w: Words) -> str:
    """The card's VRAM section: its title (the scope) and the bar."""
    return f"*{w.md(msg('slack.vram.title', scope=scope(picture)))}*\n{bar(picture, w)}"
