"""The terminal face: the same dialogue as Slack, one line of stdin per answer.

It reads answers line by line, so ``printf 'llama 3.1 70b\\ninference\\n32\\n8k\\nno target\\n'
| python -m bot.console`` runs a whole sizing without a terminal. A number picks a numbered
choice (on questions that take a number, ``#2`` picks and a bare ``2`` is the answer);
anything else is typed text, exactly as if typed in Slack. The final card is a text table
with the same content as the Slack card. EOF ends cleanly.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TextIO

from bot.slack import cards
from bot.slack.cards import vram_scope
from dialogue import Dialogue, MemoryStore, RedisStore, Reply, Store, StoreUnavailable
from dialogue.slots import expects_number
from engine.result import VERDICT_TEXT, Recommendation

KEY = "console"
WIDTH = 60


def _fmt_gb(v: float | None) -> str:
    if v is None:
        return "-"
    return f"{v / 1000:.2f} TB" if v >= 1000 else f"{v:,.0f} GB"


def vram_bar(rec: Recommendation, width: int = WIDTH) -> list[str]:
    """The card's VRAM bar (weights, working set, reserve, free), as plain text lines.

    Drawn by ``bot.slack.cards.vram_bar``, the one place that decides what the bar shows.
    """
    bar = cards.vram_bar(rec.numbers, width=width, scope=vram_scope(rec))
    if bar is None:
        return []
    first, legend = bar.split("\n", 1)
    return [f"VRAM {first.replace('`', '')} ({vram_scope(rec)})", f"     {legend}"]


def card(reply: Reply) -> list[str]:
    """The result as a readable text table: verdict, steps, VRAM bar, numbers, caveats."""
    rec = reply.recommendation
    if rec is None:
        return [reply.text]
    rule = "=" * (WIDTH + 12)
    lines = [rule, f"{VERDICT_TEXT.get(rec.verdict, rec.verdict).upper()}  (step {rec.step})",
             rec.headline, rule]
    lines.append("Your answers:")
    lines += [f"  {k:<26} {v}" for k, v in reply.answers.items()]
    lines.append("The five questions:")
    for q in rec.questions:
        lines.append(f"  {q.step}. {q.question} -> {q.answer.upper()}")
        lines.append(f"     {q.because}")
    lines.append("")
    lines += vram_bar(rec)
    n = rec.numbers
    layout = f"TP={rec.layout.tp} x PP={rec.layout.pp} x DP={rec.layout.dp}"
    rows = [
        ("Nodes", f"{rec.nodes} x {rec.gpus_per_node} {rec.gpu_name}"),
        ("Precision / layout", f"{rec.precision.upper()}, {layout}"),
        ("Replicas", str(rec.replicas) if rec.replicas else None),
        ("Interconnect", rec.interconnect),
        ("Weights", f"{_fmt_gb(n.weights_gb)}" + (f" ({n.weights_share:.0%} of VRAM)"
                                                   if n.weights_share is not None else "")
         if n.weights_gb is not None else None),
        ("KV cache", _fmt_gb(n.kv_cache_gb) if n.kv_cache_gb is not None else None),
        ("Training state", _fmt_gb(n.training_state_gb) if n.training_state_gb else None),
        ("Node throughput",
         f"{n.node_tokens_per_s:,.0f} tokens/s" if n.node_tokens_per_s else None),
        ("Scaling efficiency", f"{n.scaling_efficiency:.0%}" if n.scaling_efficiency else None),
        ("GPU-months", f"{n.gpu_months:,.0f}" if n.gpu_months else None),
        ("Run time", f"{n.days:,.1f} days" if n.days else None),
        ("GPUs needed", f"{n.gpus_needed:,}" if n.gpus_needed else None),
    ]
    lines.append("Key numbers:")
    lines += [f"  {k:<26} {v}" for k, v in rows if v]
    for title, items in (("Caveats", rec.caveats), ("Assumptions", rec.assumptions)):
        if items:
            lines.append(f"{title}:")
            lines += [f"  - {c}" for c in items]
    if rec.alternatives:
        lines.append("Alternatives:")
        lines += [f"  - {a.label}: {a.summary}" for a in rec.alternatives]
    lines.append(rule)
    return lines


def show(reply: Reply, out: TextIO, *, seen: Reply | None = None) -> None:
    """Print a reply; a result already on screen (help, a refused answer: same version) is
    not printed again in full, only its headline."""
    for notice in reply.notices:
        out.write(f"  > {notice}\n")
    if reply.error:
        out.write(f"  ! {reply.error}\n")
    again = (seen is not None and seen.recommendation is not None
             and seen.version == reply.version and seen.conversation_id == reply.conversation_id)
    if reply.recommendation is not None and again:
        out.write(f"\n(the result above stands) {reply.text}\n")
    elif reply.kind == "result":
        out.write("\n".join(card(reply)) + "\n")
    else:
        out.write(f"\n{reply.text}\n")
    numeric = expects_number(reply.state)
    for i, c in enumerate(reply.choices, 1):
        out.write(f"  {'#' if numeric else ''}{i}) {c.label}\n")
    if numeric and reply.choices and reply.kind != "result":
        # a bare number is the answer here ('2' is two, not the second choice): say so
        out.write("  (type your own value, or #1, #2, ... to pick a choice)\n")
    if reply.nav:
        out.write("  [" + " | ".join(c.value for c in reply.nav) + "]\n")
    out.write("> ")
    out.flush()


def pick(line: str, reply: Reply) -> str:
    """A numbered choice's value, or the line itself as typed text."""
    text = line.strip()
    numeric = expects_number(reply.state)
    digits = text[1:] if text.startswith("#") else (None if numeric else text)
    if digits is not None and digits.isdigit() and 1 <= int(digits) <= len(reply.choices):
        return reply.choices[int(digits) - 1].value
    return text


def make_store() -> Store:
    url = os.environ.get("REDIS_URL")
    return RedisStore(url) if url else MemoryStore()


def main(
    stdin: TextIO = sys.stdin,
    stdout: TextIO = sys.stdout,
    argv: Sequence[str] | None = None,
) -> int:
    """Run one console sizing; returns the exit status (0 at EOF, 1 if the store is down)."""
    opening = " ".join(argv if argv is not None else [])
    try:
        dialogue = Dialogue(make_store())
        reply = dialogue.start(KEY, opening, owner=os.environ.get("USER") or "console")
        show(reply, stdout)
        for line in stdin:
            if not line.strip():
                show(reply, stdout, seen=reply)
                continue
            stdout.write(line if not stdin.isatty() else "")
            seen, reply = reply, dialogue.handle(KEY, pick(line, reply))
            show(reply, stdout, seen=seen)
    except StoreUnavailable as exc:
        stdout.write(f"\n{exc}\n")
        return 1
    except KeyboardInterrupt:
        pass
    stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(argv=sys.argv[1:]))
