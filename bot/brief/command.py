"""``python -m bot brief "<opening sentence>" [--answer TEXT ...] [--lang fr]
[--format pdf|md] [--copy customer|internal] -o FILE``: a brief without Slack.

Why a command: a rep (or a script) wants the document a customer reads from one sentence,
without a Slack workspace. The sentence goes through the same dialogue as every face; a
question it leaves open takes the next ``--answer`` (typed as in the console), else the
dialogue's own default (the console's Enter, marked *default* in the brief, as in a
conversation); a question with neither is refused with the question itself, so nothing is
sized on a guess the dialogue would not make.
The brief is built and rendered by the same code as the Slack face's (bot/brief/), with its
charts; the customer copy is the default. Bad input exits 2 with a message; no traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from bot.brief.build import build_brief
from bot.brief.charts import brief_charts
from bot.brief.markdown import render_markdown
from bot.wording import say
from dialogue import Dialogue, MemoryStore, Reply
from engine.units import LANGS, Lang
from engine.wording import msg

__all__ = ["main", "sized"]

KEY = "brief"
MAX_TURNS = 30


class Unanswered(Exception):
    """The opening leaves a question without a default: its words, in the brief's language."""


def sized(opening: str, lang: Lang | None = None, answers: Sequence[str] = ()) -> Reply:
    """The dialogue's result for ``opening``: each open question takes the next of
    ``answers``, else its default."""
    d = Dialogue(MemoryStore())
    reply = d.start(KEY, opening, owner=KEY, language=lang)
    left = list(answers)
    for _ in range(MAX_TURNS):
        if reply.kind == "result" and reply.recommendation is not None:
            return reply
        if left:
            reply = d.handle(KEY, left.pop(0))
            continue
        if reply.default is None:
            words = lang or reply.language
            parts = [m for m in (reply.error, reply.text) if m is not None]
            raise Unanswered(" ".join(say(m, words) for m in parts))
        reply = d.handle(KEY, "")
    raise Unanswered(say(reply.text, lang or reply.language))


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bot brief", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("opening", nargs="+", help="what the customer wants, as they would say it")
    p.add_argument("--answer", action="append", default=[], metavar="TEXT",
                   help="the answer to the next question the sentence leaves open, as typed "
                   "in the console (repeatable; else each takes its default)")
    p.add_argument("--lang", choices=list(LANGS),
                   help="the brief's language (default: the sentence's)")
    p.add_argument("--format", choices=["pdf", "md"],
                   help="default: from the file's extension (.md), else pdf")
    p.add_argument("--copy", choices=["customer", "internal"], default="customer",
                   help="customer (default: forwardable as it is) or internal (with the "
                   "engineering appendix)")
    p.add_argument("-o", "--output", required=True, metavar="FILE")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    opening = " ".join(args.opening)
    try:
        reply = sized(opening, args.lang, args.answer)
    except Unanswered as exc:
        print(f"error: {say(msg('brief.cli.unanswered', question=str(exc)), args.lang or 'en')}",
              file=sys.stderr)
        return 2
    rec = reply.recommendation
    assert rec is not None
    lang: Lang = args.lang or reply.language
    brief = build_brief(rec, reply.answers, lang=lang, purpose="export",
                        charts=brief_charts(reply, lang), audience=args.copy)
    out = Path(args.output)
    fmt = args.format or ("md" if out.suffix.lower() == ".md" else "pdf")
    if fmt == "md":
        data = render_markdown(brief).encode("utf-8")
    else:
        from bot.brief.pdf import render_pdf  # fpdf2: loaded only for a PDF

        data = render_pdf(brief)
    try:
        out.write_bytes(data)
    except OSError as exc:
        why = msg("brief.cli.not_written", path=str(out), why=exc.strerror or str(exc))
        print(f"error: {say(why, lang)}", file=sys.stderr)
        return 2
    print(out)
    return 0
