"""The scriptable face: ``python -m bot --json`` reads lines as the console does and, after
each, prints one JSON object on one line.

Why: a corpus of utterances (tests, a sales engineer's script) must check what the bot
understood without scraping prose. Each object has exactly these keys:

* ``asking``: the slot being asked (``model``, ``context``, ...), or null once the card is shown;
* ``answers``: the answers as ``python -m engine recommend`` names them (``model`` catalog id,
  or ``params_b`` with ``active_params_b`` for an MoE, or ``hf_config`` for a model given by
  its config.json; ``workload``, ``concurrency``, ``context``, ``prompt_tokens``,
  ``output_tokens``, ``target_tokens_per_s``, ``per_user_tokens_per_s``, ``ttft_s``,
  ``requests_per_s``, ``int4``, ``gpu``, ``gpus_per_node``, ``interconnect``,
  ``train_tokens``, ``deadline_days``), and what the person said that the engine has no
  field for, shown beside them (``users_total``, ``documents``, ``document_tokens``,
  ``batch_days``, a training set's ``examples``, ``example_tokens`` and ``epochs``);
* ``sources``: for each of those keys, ``said``, ``assumed``, ``default`` or ``confirmed``;
* ``language``: ``en`` or ``fr``, the conversation's;
* ``text``: the reply rendered in that language (notices, the steps decided, the error, then
  the question or the headline), lines joined by newlines;
* ``choices``: ``[{"value", "label"}]``, the buttons (``value`` is what to type for each);
* ``recommendation``: the engine's JSON (``python -m engine recommend --json``: each message
  with its ``text`` in the conversation's language), or null;
* ``action``, only when a card action was typed that a face makes ('show the charts': ``charts``,
  ``quote``, ``export``): nothing in the sizing changed.

The first line is the opening (unless the arguments give it); a number picks a choice and
an empty line takes the default, as in the console (``bot/console.py``, whose input reading
this shares). A store that cannot be reached prints one object with ``error`` and exits 1.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, TextIO

from bot import console
from bot.wording import catalog, say
from dialogue import Dialogue, DialogueError, Reply
from dialogue.slots import expects_number
from engine.units import Lang
from engine.wording import Message, msg, with_text

KEY = "jsonface"


def view(reply: Reply) -> dict[str, Any]:
    """The one JSON object a reply becomes (see the module doc for the keys)."""
    lang = reply.language
    parts: list[Message] = [n.text for n in reply.notices]
    parts += [msg("console.step", n=q.step, question=q.question,
                  answer=msg(f"answer.{q.answer.replace(' ', '_')}")) for q in reply.steps]
    if reply.error is not None:
        parts.append(reply.error)
    parts.append(reply.text)
    return {
        "asking": reply.asking,
        "answers": reply.request,
        "sources": reply.sources,
        "language": lang,
        "text": "\n".join(say(m, lang) for m in parts),
        "choices": [{"value": c.value, "label": say(c.label, lang)} for c in reply.choices],
        "recommendation": (with_text(reply.recommendation.model_dump(mode="json"), lang,
                                     catalog())
                           if reply.recommendation is not None and reply.state == "done"
                           else None),
        **({"action": reply.action} if reply.action is not None else {}),
    }


def _emit(reply: Reply, out: TextIO) -> None:
    out.write(json.dumps(view(reply), ensure_ascii=False, separators=(",", ":")) + "\n")
    out.flush()


def _lines(stdin: TextIO) -> Iterator[str]:
    for line in stdin:
        yield line.rstrip("\r\n")


def converse(dialogue: Dialogue, opening: str, lines: Iterable[str],
             language: Lang = "en") -> Iterator[Reply]:
    """The replies to an opening and the lines after it, as ``main`` reads them (a number
    picks a choice, an empty line takes the default): the JSON face's one code path, which
    a test corpus drives in process."""
    reply = dialogue.start(KEY, opening, owner="jsonface", language=language)
    yield reply
    for line in lines:
        options = [(c.value, c.label) for c in reply.choices]
        reply = dialogue.handle(KEY, console.pick(line, options, expects_number(reply.state)))
        yield reply


def main(stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout,
         argv: Sequence[str] | None = None) -> int:
    """One sizing, one JSON object per input line; 0 at the end of input."""
    feed = _lines(stdin)
    opening = " ".join(argv) if argv else next(feed, None)
    if opening is None:
        return 0
    try:
        dialogue = Dialogue(console.make_store(), hub=console.make_hub())
        for reply in converse(dialogue, opening, feed, console.hint_language()):
            _emit(reply, stdout)
    except DialogueError as exc:
        stdout.write(json.dumps({"error": say(exc.message, "en")}) + "\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(argv=sys.argv[1:]))
