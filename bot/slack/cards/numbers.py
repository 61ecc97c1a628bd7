"""The figures behind a verdict, as the card's two-column fields and its configuration line.

Shared by the recommendation card and the quote summary, so both show the same numbers in
the same format: every figure is a message parameter formatted by ``engine/units.py`` (one
byte format, one percentage format, per language), never a string built here.
"""

from __future__ import annotations

from bot.slack.cards.shared import PRECISION_WORDS, named
from bot.slack.cards.vram import scope
from bot.slack.cards.words import Words
from engine.result import Numbers, Recommendation
from engine.wording import Message, msg


def fields(rec: Recommendation, w: Words) -> list[str]:
    """One mrkdwn field per figure the verdict has (``None`` figures are left out)."""
    n: Numbers = rec.numbers
    where: Message = scope(n.memory) if n.memory is not None else msg("slack.vram.one_node")
    rows: list[Message | None] = [
        msg("slack.num.vram", scope=where, gb=n.vram_total_gb) if n.vram_total_gb else None,
        msg("slack.num.weights", gb=n.weights_gb, share=n.weights_share or 0.0,
            gpus=rec.layout.tp * rec.layout.pp)
        if n.weights_gb is not None else None,
        msg("slack.num.kv", gb=n.kv_cache_gb) if n.kv_cache_gb is not None else None,
        msg("slack.num.training", gb=n.training_state_gb)
        if n.training_state_gb is not None else None,
        msg("slack.num.activations", gb=n.activations_gb) if n.activations_gb is not None else None,
        msg("slack.num.free", share=n.free_share) if n.free_share is not None else None,
        msg("slack.num.max_concurrency", n=n.max_concurrency)
        if n.max_concurrency is not None else None,
        msg("slack.num.tokens_copy" if rec.replicas else "slack.num.tokens",
            rate=n.node_tokens_per_s)
        if n.node_tokens_per_s is not None else None,
        msg("slack.num.tokens_total", rate=n.total_tokens_per_s)
        if n.total_tokens_per_s is not None and n.total_tokens_per_s != n.node_tokens_per_s
        else None,
        msg("slack.num.ttft", s=n.ttft_s) if n.ttft_s is not None else None,
        msg("slack.num.tpot", ms=n.tpot_ms) if n.tpot_ms is not None else None,
        msg("slack.num.efficiency", share=n.scaling_efficiency)
        if n.scaling_efficiency is not None else None,
        msg("slack.num.gpu_months", n=n.gpu_months) if n.gpu_months is not None else None,
        msg("slack.num.days", d=n.days) if n.days is not None else None,
        msg("slack.num.gpus_needed", n=n.gpus_needed) if n.gpus_needed is not None else None,
        # small work fits on fewer GPUs than the node has: said, as the console and brief do
        msg("slack.num.min_gpus", n=n.min_gpus, gpus=rec.gpus_per_node)
        if n.min_gpus and n.min_gpus < rec.gpus_per_node else None,
    ]
    return [w.md(m) for m in rows if m is not None]


def config_line(rec: Recommendation, w: Words) -> str:
    """Nodes × GPUs, precision, layout, replicas, link: the configuration in one line."""
    lay = rec.layout
    parts = [w.md(msg("slack.config.hardware", nodes=rec.nodes, gpus=rec.gpus_per_node,
                      gpu=rec.gpu_name)),
             w.md(named(PRECISION_WORDS, rec.precision)),
             w.md(msg("slack.config.layout", layout=lay.written))]
    if rec.replicas:
        parts.append(w.md(msg("slack.config.replicas", n=rec.replicas)))
    if rec.interconnect:
        parts.append(w.md(msg("text", text=rec.interconnect)))
    return " · ".join(parts)
