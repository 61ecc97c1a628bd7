"""The terminal face: the same dialogue as Slack, one line of stdin per answer.

It reads lines, so ``printf 'llama 3.1 70b inference\\n32\\n8k\\n\\n' | python -m bot.console``
runs a whole sizing without a terminal. The opening (the arguments, else the first line) goes
to ``Dialogue.start`` exactly as a Slack message does; every later line to ``handle``. A
number picks a numbered choice (on questions that take a number, ``#2`` picks and a bare
``2`` is the answer); an empty line takes the question's shown default; anything else is
typed text. After the card, its actions are offered: show the math, compare with another
GPU, change an answer, start again. End of input says what was kept and exits 0.

Everything is rendered in the conversation's language with the faces' catalog
(``bot/wording.py``); the console's own texts are ``console.*`` (``bot/messages/console.*``).
A model given by its Hugging Face id is read from the Hub (``HF_ENDPOINT``, ``HF_TOKEN``,
``HF_OFFLINE``: ``dialogue/hub.py``), as on Slack.
``--json`` hands the same loop to ``bot/jsonface.py`` (one JSON object per line).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from typing import TextIO

from bot.wording import say
from dialogue import Dialogue, DialogueError, MemoryStore, RedisStore, Reply, Store
from dialogue.hub import Hub, HubClient
from dialogue.slots import expects_number
from engine.catalog import catalog
from engine.result import Recommendation, Segments, verdict_name
from engine.units import Lang
from engine.wording import Message, msg, text

KEY = "console"
WIDTH = 60
#: Card actions, offered by number after the card (values the loop below understands).
MATH, COMPARE, CHANGE = "::math", "::compare", "::change"
CHARTS = "::charts"  # the charts as PNG files (bot/charts.py), their paths printed


def hint_language() -> Lang:
    """The terminal's locale as the language to start in (the opening's words override it)."""
    loc = os.environ.get("LC_ALL") or os.environ.get("LC_MESSAGES") or os.environ.get("LANG")
    return "fr" if (loc or "").lower().startswith("fr") else "en"


def make_store() -> Store:
    url = os.environ.get("REDIS_URL")
    return RedisStore(url) if url else MemoryStore()


def make_hub() -> Hub:
    """The Hugging Face Hub for a model given by its id (HF_ENDPOINT, HF_TOKEN, HF_OFFLINE)."""
    return HubClient.from_env()


# -- the card ----------------------------------------------------------------------------------


def vram_bar(seg: Segments, width: int = WIDTH) -> str:
    """One scope's VRAM as a bar: weights █, KV cache or training state ▓, reserve ▒, free ░."""
    scale = width / max(seg.vram_gb, seg.used_gb)
    cells = [round(seg.weights_gb * scale), round(seg.work_gb * scale),
             round(seg.reserve_gb * scale)]
    bar = "█" * cells[0] + "▓" * cells[1] + "▒" * cells[2]
    return bar + "░" * max(0, width - len(bar))


def card(reply: Reply) -> list[str]:
    """The result as a readable text table: verdict, answers, steps, VRAM bar, numbers,
    caveats, assumptions, alternatives (the content of the Slack card)."""
    rec, lang = reply.recommendation, reply.language
    if rec is None:
        return [say(reply.text, lang)]
    rule = "=" * (WIDTH + 12)
    name = verdict_name(rec.verdict, rec.gpus_per_node)
    lines = [rule, say(msg("console.card.verdict", verdict=name, step=rec.step), lang).upper(),
             say(rec.headline, lang), rule, say(msg("console.card.answers"), lang)]
    for a in reply.answers:
        row = say(a.shown, lang) + ("" if a.source == "said"
                                    else " " + say(msg(f"console.source.{a.source}"), lang))
        lines.append(f"  {say(a.label, lang):<26} {row}")
    lines.append(say(msg("console.card.steps"), lang))
    for q in rec.questions:
        lines += _step(q.step, q.question, q.answer, q.because, lang)
    lines.append("")
    lines += _picture(rec, lang)
    lines.append(say(msg("console.card.numbers"), lang))
    lines += [f"  {say(label, lang):<26} {say(value, lang)}" for label, value in _rows(rec)]
    for title, items in (("console.card.caveats", rec.caveats),
                         ("console.card.assumptions", rec.assumptions)):
        if items:
            lines.append(say(msg(title), lang))
            lines += [f"  - {say(c, lang)}" for c in items]
    if rec.alternatives:
        lines.append(say(msg("console.card.alternatives"), lang))
        lines += [say(msg("console.card.alternative", label=a.label, summary=a.summary), lang)
                  for a in rec.alternatives]
    lines.append(rule)
    return lines


def _step(n: int, question: Message, answer: str, because: Message, lang: Lang) -> list[str]:
    said = msg(f"answer.{answer.replace(' ', '_')}")
    return [f"  {say(msg('console.step', n=n, question=question, answer=said), lang)}",
            f"     {say(because, lang)}"]


def _picture(rec: Recommendation, lang: Lang) -> list[str]:
    """The VRAM bar of one copy of the deployment, and its legend."""
    pic = rec.numbers.memory
    if pic is None:
        return []
    seg = pic.per_copy
    scope = (msg("console.bar.copy", nodes=pic.scope_nodes, copies=pic.copies) if pic.copies > 1
             else msg("console.bar.gpus", gpus=pic.scope_gpus, node_gpus=rec.gpus_per_node)
             if pic.scope_gpus else msg("console.bar.all", nodes=pic.scope_nodes))
    work = msg("console.bar.kv" if seg.work == "kv_cache" else "console.bar.state")
    over = seg.free_gb < 0
    figures = msg("console.bar.over" if over else "console.bar.free", used=seg.used_gb,
                  free=abs(seg.free_gb), vram=seg.vram_gb, scope=scope)
    return [f"VRAM {vram_bar(seg)} {say(figures, lang)}",
            f"     {say(msg('console.bar.legend', work=work), lang)}"]


def _rows(rec: Recommendation) -> list[tuple[Message, Message]]:
    n, layout = rec.numbers, rec.layout
    rows: list[tuple[str, Message | None]] = [
        ("nodes", msg("console.value.nodes", nodes=rec.nodes, gpus=rec.gpus_per_node,
                      gpu=rec.gpu_name)),
        ("layout", msg("console.value.layout", precision=msg(f"precision.{rec.precision}"),
                       layout=layout.written)),
        ("replicas", msg("console.value.count", n=rec.replicas) if rec.replicas else None),
        ("interconnect", _link(rec.interconnect)),
        ("weights", msg("console.value.weights", gb=n.weights_gb, share=n.weights_share or 0,
                        gpus=layout.tp * layout.pp)
         if n.weights_gb is not None else None),
        ("kv_cache", msg("console.value.size", gb=n.kv_cache_gb) if n.kv_cache_gb else None),
        ("training_state", msg("console.value.size", gb=n.training_state_gb)
         if n.training_state_gb else None),
        # one copy is the whole deployment unless it is replicated
        ("throughput_replica" if rec.replicas else "throughput",
         msg("console.value.rate", rate=n.node_tokens_per_s)
         if n.node_tokens_per_s else None),
        ("per_user", msg("console.value.rate", rate=n.per_user_tokens_per_s)
         if n.per_user_tokens_per_s else None),
        ("ttft", msg("console.value.seconds", s=n.ttft_s) if n.ttft_s else None),
        ("requests", msg("console.value.per_second", rate=n.requests_per_s)
         if n.requests_per_s else None),
        ("efficiency", msg("console.value.share", share=n.scaling_efficiency)
         if n.scaling_efficiency else None),
        ("gpu_months", msg("console.value.short", n=n.gpu_months) if n.gpu_months else None),
        ("days", msg("console.value.days", days=n.days) if n.days else None),
        ("gpus_needed", msg("console.value.count", n=n.gpus_needed) if n.gpus_needed else None),
        # small work on the fewest GPUs: said when fewer than the node's
        ("min_gpus", msg("console.value.min_gpus", n=n.min_gpus, gpus=rec.gpus_per_node)
         if n.min_gpus and n.min_gpus < rec.gpus_per_node else None),
    ]
    return [(msg(f"console.row.{key}"), value) for key, value in rows if value is not None]


def _link(link_id: str | None) -> Message | None:
    link = catalog().links.get(link_id) if link_id else None
    return None if link_id is None else text(link.name if link else link_id)


# -- one reply on screen -----------------------------------------------------------------------


def actions() -> list[tuple[str, Message]]:
    """What the card offers, numbered: the console's way to the Slack card's buttons."""
    return [(MATH, msg("console.action.math")), (COMPARE, msg("console.action.compare")),
            (CHANGE, msg("console.action.change")), (CHARTS, msg("console.action.charts")),
            ("restart", msg("dialogue.nav.new_sizing"))]


def offered(reply: Reply) -> list[tuple[str, Message]]:
    """The numbered options a reply puts on screen: its choices, or the card's actions."""
    if reply.recommendation is not None and reply.state == "done":
        return actions()
    return [(c.value, c.label) for c in reply.choices]


def show(reply: Reply, out: TextIO, *, seen: Reply | None = None) -> None:
    """Print a reply; a result already on screen (help, a refused answer: same version) is
    not printed again in full, only its headline."""
    lang = reply.language
    for notice in reply.notices:
        out.write(f"  > {say(notice.text, lang)}\n")
    again = (seen is not None and seen.version == reply.version
             and seen.conversation_id == reply.conversation_id and seen.state == reply.state)
    if reply.recommendation is None and not again:
        for q in reply.steps:
            out.write("\n".join(_step(q.step, q.question, q.answer, q.because, lang)) + "\n")
    if reply.error:
        out.write(f"  ! {say(reply.error, lang)}\n")
    if reply.recommendation is not None and again:
        out.write(f"\n{say(msg('console.stands', headline=reply.text), lang)}\n")
    elif reply.kind == "result":
        out.write("\n".join(card(reply)) + "\n")
    else:
        out.write(f"\n{say(reply.text, lang)}\n")
    _options(offered(reply), expects_number(reply.state), out, lang)
    if reply.default is not None:
        out.write(f"  {say(msg('console.default', value=reply.default.label), lang)}\n")
    if reply.nav:
        out.write("  [" + " | ".join(say(n.label, lang) for n in reply.nav) + "]\n")
    out.write("> ")
    out.flush()


def _options(options: list[tuple[str, Message]], numeric: bool, out: TextIO, lang: Lang) -> None:
    for i, (_, label) in enumerate(options, 1):
        out.write(f"  {'#' if numeric else ''}{i}) {say(label, lang)}\n")
    if numeric and options:  # a bare number is the answer here ('2' is two, not choice 2)
        out.write(f"  {say(msg('console.pick_hint'), lang)}\n")


def pick(line: str, options: list[tuple[str, Message]], numeric: bool) -> str:
    """A numbered option's value, or the line itself as typed text."""
    typed = line.strip()
    digits = typed[1:] if typed.startswith("#") else (None if numeric else typed)
    if digits is not None and digits.isdecimal() and 1 <= int(digits) <= len(options):
        return options[int(digits) - 1][0]
    return typed


def lines(stdin: TextIO, out: TextIO) -> Iterator[str]:
    """Input lines, echoed when piped (a transcript reads as a conversation)."""
    for line in stdin:
        if not stdin.isatty():
            out.write(line if line.endswith("\n") else line + "\n")
        yield line.rstrip("\r\n")


def saved_charts(reply: Reply) -> list[str]:
    """Write the result's charts (``$GPU_SIZING_CHARTS_DIR``, else a temporary folder) and
    say where, or why not, in the conversation's language."""
    from bot import charts

    lang = reply.language
    folder = charts.folder_for()
    try:
        paths = charts.write(charts.charts_of(reply), folder)
    except charts.ChartsFailed:
        return [f"  ! {say(msg('console.charts.not_drawn'), lang)}"]
    except OSError as exc:
        why = text(exc.strerror or type(exc).__name__)
        said = msg("console.charts.not_written", folder=str(folder), why=why)
        return [f"  ! {say(said, lang)}"]
    return [f"  {say(msg('console.charts.written'), lang)}", *(f"    {p}" for p in paths)]


def typed_action(reply: Reply) -> list[str]:
    """A card action typed at the console: the charts are written as the menu's are; the
    quote form and the brief are Slack's, and the brief is also a command here."""
    if reply.action == "charts":
        return saved_charts(reply)
    return [f"  {say(msg(f'console.action_elsewhere.{reply.action}'), reply.language)}"]


# -- the loop ------------------------------------------------------------------------------------


def main(stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout,
         argv: Sequence[str] | None = None) -> int:
    """Run one console sizing; 0 at the end of input, 1 if the store is down."""
    args = list(argv or [])
    if "--json" in args:
        from bot import jsonface

        return jsonface.main(stdin, stdout, [a for a in args if a != "--json"])
    lang = hint_language()
    feed = lines(stdin, stdout)
    if args:
        opening = " ".join(args)
    else:
        stdout.write(say(msg("dialogue.opening.prompt"), lang) + "\n> ")
        stdout.flush()
        first = next(feed, None)
        if first is None:
            stdout.write("\n")
            return 0
        opening = first
    try:
        return _converse(Dialogue(make_store(), hub=make_hub()), opening, feed, stdout, lang)
    except DialogueError as exc:  # the store is down: said, nothing was lost
        stdout.write(f"\n{say(exc.message, lang)}\n")
        return 1
    except KeyboardInterrupt:
        stdout.write("\n")
        return 0


def _converse(dialogue: Dialogue, opening: str, feed: Iterator[str], out: TextIO,
              lang: Lang) -> int:
    owner = os.environ.get("USER") or "console"
    reply = dialogue.start(KEY, opening, owner=owner, language=lang)
    show(reply, out)
    menu = offered(reply)
    for line in feed:
        value = pick(line, menu, expects_number(reply.state) and menu == offered(reply))
        if value == MATH and reply.recommendation is not None:
            out.write("\n".join(f"  {say(m, reply.language)}" for m in reply.recommendation.math)
                      + "\n> ")
            continue
        if value == CHARTS and reply.recommendation is not None:
            out.write("\n".join(saved_charts(reply)) + "\n> ")
            continue
        if value == CHANGE:  # the answers a change may reopen, numbered
            menu = [(n.value, n.label) for n in reply.nav if n.kind == "change"]
            _options(menu, False, out, reply.language)
            out.write("> ")
            continue
        seen, reply = reply, dialogue.handle(KEY, "change gpu" if value == COMPARE else value)
        if reply.action is not None and reply.recommendation is not None:
            out.write("\n".join(typed_action(reply)) + "\n")
        show(reply, out, seen=seen)
        menu = offered(reply)
    if reply.state not in ("done", "cancelled", "missing", "expired"):
        kept = [msg("dialogue.notice.pair", label=a.label, value=a.shown) for a in reply.answers
                if a.source != "default"]
        out.write("\n" + say(msg("console.eof.kept" if kept else "console.eof.nothing",
                                 question=reply.text, answers=kept), reply.language))
    out.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(argv=sys.argv[1:]))
