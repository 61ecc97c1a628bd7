"""A training set said by its parts: '20k examples of 1k tokens', '3 epochs', as a budget.

Why: people who fine-tune count their data in examples and passes, not in tokens. Read
apart, '20k examples' was taken for a 20k context and '2 epochs' was left unused, so the
token budget was asked again. Here the examples times their length is the budget, and the
epochs multiply whatever budget was said ('50M tokens, 3 epochs': 150M), in an opening and
at the budget question alike. In a training request anything counted is its data set ('LoRA
on 50k support tickets', '100k conversations of 800 tokens'), never a context, a batch job
or users at once. What the budget is made of (the count, one example's length, the epochs)
is kept beside it and shown; said without their length, the count and the epochs wait for
it at the budget question (dialogue/readers.py ``read_budget``).
"""

from __future__ import annotations

import re

from dialogue.assumptions import assumptions
from dialogue.understand.lexicon import alternation, terms
from dialogue.understand.load import AnswerValue, Context, Reading, Recogniser
from dialogue.understand.negation import REVALUE
from dialogue.understand.numbers import TOKENS_MAX
from dialogue.understand.patterns import (
    AFTER,
    EACH,
    ITEM_CUES,
    ITEMS,
    QUALIFIED,
    N,
    items,
    number,
    of_items,
)
from engine.units import NUMBER

__all__ = ["EXAMPLES", "PARTS", "budget", "epochs", "whole"]

#: The answer keys a data set counted in items is made of, beside the budget they make.
PARTS = ("examples", "example_tokens", "epochs")
#: What a training set counts (never 'documents' or 'conversations': those are also what
#: an inference batch or a chat load counts).
_UNITS = terms("examples")
#: What a training request counts besides (its data set, not a chat load or a batch job).
_SAID = rf"(?:{_UNITS}|{ITEMS}|{terms('training_items')})"
_DATASET = (rf"(?:\b(?:{terms('a_our')}\s+)?{terms('dataset')}\s*{terms('dataset_of')}?\s*)?")


def _counted(unit: str) -> re.Pattern[str]:
    return re.compile(rf"{_DATASET}{N}\s*(?:of\s+|de\s+|d')?{QUALIFIED}(?P<unit>{unit})\b"
                      rf"(?![\-']){AFTER}{EACH}")


#: a data set said by its size on disk: '2 GB of text', '500 MB of customer emails', '1 To
#: de données' (never memory: what follows is text or what it holds)
_BYTES = {"kb": 1e3, "ko": 1e3, "mb": 1e6, "mo": 1e6, "gb": 1e9, "go": 1e9, "tb": 1e12,
          "to": 1e12}
_ON_DISK = re.compile(
    rf"(?<![\w.])(?P<n>{NUMBER})\s*(?P<u>{alternation(_BYTES)})\b\s*{terms('of_amount')}\s*"
    rf"(?:{terms('raw')}\s+)?{QUALIFIED}(?:{terms('text_data')}|{_SAID})\b(?![\-']){AFTER}")


def _on_disk(m: re.Match[str], ctx: Context) -> Reading | None:
    size = number(m["n"])
    total = size * _BYTES[m["u"]] / assumptions().bytes_per_token if size else None
    return {"train_tokens": total} if total is not None and 1 <= total <= TOKENS_MAX else None


_EPOCHS = re.compile(rf"(?:{terms('epochs_lead')}\s+)?"
                     rf"(?<![\w.])(?P<e>{NUMBER})\s*{terms('passes')}\b")


def _examples(m: re.Match[str], ctx: Context) -> Reading | None:
    """A data set counted (examples wherever said, other items in a training request only:
    ``EXAMPLES``): with its length, the budget it makes; without, the count kept (the budget
    question asks the rest)."""
    count = None if of_items(m) else items(m["n"])
    if count is None:
        return None
    if m["m"] is None:  # the count kept; examples are data wherever said, never a context
        return {"examples": count}
    each = number(m["m"])
    total = budget(count, each) if each is not None else None
    return None if total is None or each is None else {
        "train_tokens": total, "examples": count, "example_tokens": whole(each)}


def whole(x: float) -> int | float:
    """A count as an int when it is one (an answer's value as it is shown and stored)."""
    return int(x) if x == int(x) else x


def budget(examples: float, each: float, passes: float = 1) -> float | None:
    """The tokens a data set counted in items makes (items x length x passes), None past
    what is sized. A small set is sized as it is (a LoRA on 2k emails of 300 tokens): the
    budget question's floor is there to tell a budget from a length, not needed here."""
    total = examples * each * passes
    return total if 1 <= total <= TOKENS_MAX else None


#: examples, wherever said; anything else counted, in a training request only (the costly
#: reading of every count beside every item word is not paid elsewhere)
EXAMPLES = (Recogniser("examples", ("train_tokens", "examples"), _counted(_UNITS), _examples,
                       cues=("exampl", "sampl", "sequen", "row", "pair", "instruct", "exempl",
                             "echantil", "ligne")),
            Recogniser("training_items", ("train_tokens", "examples"), _counted(_SAID), _examples,
                       cues=(*ITEM_CUES, "conversation", "dialog", "chat", "transcri", "messag",
                             "question", "qa", "q&a"), training_only=True),
            Recogniser("size_on_disk", ("train_tokens",), _ON_DISK, _on_disk,
                       frozenset({"train_tokens"}), cues=("b ", "o "), training_only=True))


def epochs(rest: str, answers: dict[str, AnswerValue], *, training: bool = False) -> str:
    """``rest`` without its 'N epochs': the budget said in ``answers`` times N, or, in a
    training request without a budget yet, N kept (the budget question multiplies what it is
    told); either way N is ``epochs``, shown with the budget. ``rest`` as it was otherwise,
    or for a passes count that is no whole number."""
    hits = list(_EPOCHS.finditer(rest))
    corrected = len(hits) > 1 and REVALUE.search(rest, hits[0].end(), hits[-1].start())
    m = hits[-1] if corrected else hits[0] if hits else None
    passes = number(m["e"]) if m is not None else None
    if m is None or passes is None or passes != int(passes) or not 1 <= passes <= 1000:
        return rest
    budget = answers.get("train_tokens")
    if not isinstance(budget, int | float) or isinstance(budget, bool):
        if not training:
            return rest
        answers["epochs"] = int(passes)
    elif budget * passes > TOKENS_MAX:
        return rest
    else:
        answers["train_tokens"], answers["epochs"] = budget * passes, int(passes)
    for h in reversed(hits if corrected else [m]):  # '3 epochs, non 5 epochs': both said
        rest = rest[: h.start()] + " | " + rest[h.end():]
    return rest
