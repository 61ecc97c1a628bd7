"""The pieces the recognisers' patterns share: a number as people write it (each in its own
named group, so one pattern can hold three), and how a batch job or a training set is
counted ('50k support tickets', '5k courriels clients', '10M documents of 2k tokens each').

Why a module of their own: the same counted phrase is a batch job's documents in a serving
request (``dialogue/understand/load.py``) and a data set in a training one
(``dialogue/understand/dataset.py``); both read it with these pieces, so a wording learnt
by one is learnt by both.
"""

from __future__ import annotations

import re

from dialogue.understand.lexicon import entries, terms
from engine.units import NUMBER, SCALE, Kind, Lang, quantity


def counted(group: str, scale: str = SCALE) -> str:
    """The one pattern of a number as people write it: its scale word maybe after it ('50k',
    '1.5 million'), never part of a word or after a minus, in its own named group (so one
    pattern can hold three); ``scale`` narrows the scales it takes. An 'x' may follow it
    before a space ('2x servers': how many of what follows), never a name ('8x7b'). It opens
    with the one test every number passes (a digit or a point): a pattern that starts with
    it fails at once everywhere else in a message."""
    return rf"(?=[\d.])(?<![\w.\-\u2212])(?P<{group}>{NUMBER}\s*{scale}?)(?![a-wyz0-9])(?!x\S)"


N, N2, N3 = counted("n"), counted("m"), counted("k")
TOK = terms("tokens")
#: Who a headcount counts ('200 employees', '25 devs', '150 commerciaux'), as folded text:
#: the lexicon's roles. At once only when said so. The cheap test of the headcount
#: recogniser (its cues) is derived from them, so a role added there is read.
ROLES = tuple(entries("roles"))
HEADS = terms("roles")
#: What a batch job or a training set counts ('10k contracts', '50k tickets').
ITEMS = terms("items")
#: the cheap test that items may be named: each of the lexicon's words, by its stem (a word
#: added there is read without a change here)
ITEM_CUES = tuple(sorted({w.rstrip("s")[:5] for w in entries("items")}))
#: Never a word describing them: a preposition, a word of another answer ('8k context
#: documents'), of a deadline ('avant vendredi'), of a workload.
_NOT_OF_THEM = rf"{terms('not_of_items')}\b"
#: Up to two words describing them before ('50k support tickets', '5k customer emails'),
#: never people ('20 avocats, documents de 30 pages': the lawyers are no documents)
QUALIFIED = rf"(?:(?!{_NOT_OF_THEM}|(?:{HEADS})\b)[a-z][a-z'&\-]*\s+){{0,2}}"
#: One word describing people before their role ('45 support agents', '30 sales reps'), never
#: a word of another answer
QUALIFIER = rf"(?:(?!{_NOT_OF_THEM}|(?:{HEADS})\b)[a-z][a-z'\-]*\s+)?"
#: and one after, as French says it ('5k courriels clients', '50k tickets de support');
#: never a model's name ('10k docs llama 3.1 8b': a word before a number is not theirs,
#: unless the number counts passes: '10k paires question-réponse, 2 époques')
AFTER = (rf"(?:\s+(?:{terms('of')}\s*)?(?!{_NOT_OF_THEM}|{terms('about')}\b)[a-z][a-z'&\-]*\b"
         rf"(?![\-']|\s*\d(?![\d.]*\s*{terms('passes')}\b)))?")
#: Their length, when said with them ('of 2k tokens', ', about 800 tokens each', 'averaging
#: 600 tokens'), and what says it is their input ('~450 tokens en entrée': read with it,
#: never left before the next length).
EACH = (rf"(?:\s*{terms('length_leads')}?\s*{terms('about')}?\s*{N2}\s*{TOK}"
        rf"(?:\s*(?:{terms('length_tails')}|{terms('prompt_after')}))?)?")


def number(text: str, kind: Kind = Kind.COUNT, lang: Lang = "en") -> float | None:
    """A positive quantity said alone (no unit left over), or None."""
    q = quantity(text, kind, lang)
    return None if q is None or q[1] or q[0] <= 0 else q[0]


_OF_ITEMS = re.compile(rf"\b{ITEMS}\s+{terms('of_with')}\s*$")
#: what a document is made of ('pages', 'paragraphes'): counted of documents, a length
_PARTS = re.compile(rf"\b{terms('item_parts')}\b")


def of_items(m: re.Match[str]) -> bool:
    """Whether a count is said of items already named, in their parts ('documents de 30
    pages': their length, not 30 documents); items of items are counted ('les descriptions
    de 400k fiches produits': 400k sheets)."""
    return _OF_ITEMS.search(m.string, 0, m.start()) is not None and _PARTS.search(
        m.group(0)) is not None


def items(text: str) -> int | None:
    """A count of things ('50k tickets', '1.5m documents'), never a model's size ('llama 3.1
    8b instruction tuning': '8b' counts parameters)."""
    n = None if re.fullmatch(r"[\d.]+\s*b", text) else number(text)
    return int(n) if n is not None and n == int(n) and 1 <= n <= 1e12 else None
