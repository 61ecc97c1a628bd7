"""A training set said by its parts: '20k examples of 1k tokens', '3 epochs', as a budget.

Why: people who fine-tune count their data in examples and passes, not in tokens. Read
apart, '20k examples' was taken for a 20k context and '2 epochs' was left unused, so the
token budget was asked again. Here the examples times their length is the budget, and the
epochs multiply whatever budget was said ('50M tokens, 3 epochs': 150M), in an opening and
at the budget question alike.
"""

from __future__ import annotations

import re

from dialogue.understand.load import N2, AnswerValue, Context, N, Reading, Recogniser, number
from dialogue.understand.numbers import TOKENS_MAX, TOKENS_MIN
from engine.units import NUMBER

__all__ = ["EXAMPLES", "epochs"]

#: What a training set counts (never 'documents' or 'conversations': those are also what
#: an inference batch or a chat load counts).
_UNITS = (r"(?:training\s+)?(?:examples?|samples?|sequences?|rows?|pairs?|instructions?"
          r"|exemples?|echantillons?|lignes?|paires?)")
_EXAMPLES = re.compile(
    r"(?:\b(?:(?:a|an|our|the|un|une|notre|nos|le|les)\s+)?(?:dataset|data set|corpus|jeu de"
    r" donnees|donnees)\s*(?:of|de|d'|:|with|avec)?\s*)?"
    rf"{N}\s*{_UNITS}\s*(?:of|de|d'|with|avec|at|a|x|,)?\s*(?:about|around|environ|~)?\s*"
    rf"{N2}\s*(?:tokens?|toks?|jetons?)(?:\s+(?:each|apiece|chacun|chacune|in length))?")
_EPOCHS = re.compile(rf"(?:(?:,|x|over|for|sur|pendant|and|et|with|avec)\s+)?"
                     rf"(?<![\w.])(?P<e>{NUMBER})\s*(?:epochs?|epoques?|passes?)\b")


def _examples(m: re.Match[str], ctx: Context) -> Reading | None:
    count, each = number(m["n"]), number(m["m"])
    if count is None or each is None:
        return None
    total = count * each
    return {"train_tokens": total} if TOKENS_MIN <= total <= TOKENS_MAX else None


EXAMPLES = Recogniser(("train_tokens",), _EXAMPLES, _examples,
                      cues=("exampl", "sampl", "sequen", "row", "pair", "instruct", "exempl",
                            "echantil", "ligne"))


def epochs(rest: str, answers: dict[str, AnswerValue]) -> str:
    """``rest`` without its 'N epochs', the budget said in ``answers`` times N; ``rest`` as
    it was without a budget, or a whole number of passes."""
    m = _EPOCHS.search(rest)
    passes = number(m["e"]) if m is not None else None
    budget = answers.get("train_tokens")
    if m is None or passes is None or passes != int(passes) or not isinstance(
            budget, int | float) or isinstance(budget, bool):
        return rest
    total = budget * passes
    if not TOKENS_MIN <= total <= TOKENS_MAX:
        return rest
    answers["train_tokens"] = total
    return rest[: m.start()] + " | " + rest[m.end():]
