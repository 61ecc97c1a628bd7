"""Quantities: how the product reads and writes tokens, bytes, rates, durations and shares.

One module, so every face and the CLI agree on what "8k" means and how "1.41 TB" is written.
The rules, decided once (README "Units"):

* **Context lengths are binary.** Context windows are powers of two, so ``k`` = 1,024 and
  ``M`` = 1,048,576 for a context: ``8k`` = 8,192, ``128k`` = 131,072 (Llama 3.1's limit),
  ``6k`` = 6,144. A plain number is taken as written (``128000`` = 128,000).
* **Everything else is decimal.** Counts, rates, token budgets, parameter counts: ``k`` =
  1,000, ``M`` = 10^6, ``B`` (``G``, ``bn``, French ``Md``) = 10^9, ``T`` = 10^12. ``6k tok/s``
  = 6,000; ``1.5T tokens`` = 1.5 x 10^12. French "billion" is 10^12, so the word is read by
  language.
* **Bytes are decimal GB** (10^9) in everything the product shows, whatever the size: one
  format for one card (``9.87 GB``, ``141 GB``, ``1.41 TB``). Card capacities are binary
  (a "96 GB" card holds 96 GiB); :data:`GIB` converts, the catalog says which a figure is.
* Languages: English (``1,410``, ``1.5``, ``66%``) and French (``1 410`` with a narrow no-break
  space, ``1,5``, ``66 %``, ``Go``/``To``). Two locales need a handful of rules, not CLDR.

Parsing returns plain floats/ints or raises :class:`UnitError` with a sentence that says what
was expected; it never guesses a unit the text did not give.
"""

from __future__ import annotations

import math
import re
from enum import StrEnum
from typing import Literal

Lang = Literal["en", "fr"]
LANGS: tuple[Lang, ...] = ("en", "fr")

GB = 1e9
TB = 1e12
GIB = float(2**30)

#: French thousands separator: NARROW NO-BREAK SPACE (what French typography uses for groups).
_FR_GROUP = "\u202f"
#: French space before %, units and the like: the same narrow no-break space.
_FR_SPACE = "\u202f"


class Kind(StrEnum):
    """What a number measures; it decides what a scale letter means."""

    CONTEXT = "context"  # tokens per request: binary k
    TOKENS = "tokens"  # token budgets (dataset x epochs): decimal
    COUNT = "count"  # users, requests, GPUs: decimal
    RATE = "rate"  # tokens/s, requests/s: decimal
    PARAMS = "params"  # parameters, in billions when written '70b': decimal


class UnitError(ValueError):
    """Text that is not a quantity of the expected kind; the message says what was expected."""


# -- parsing -------------------------------------------------------------------------------

#: A number as people write it: ``128 000``, ``100,000``, ``1.5``, ``.5``, French ``1,5``,
#: and as a command line does: ``5e8``. Groups of exactly three digits after a space, comma,
#: underscore or narrow space are thousands; a comma followed by one or two digits is a
#: decimal comma.
NUMBER = (
    r"(?:\d+(?:\.\d+)?e[+]?\d{1,2}(?![\d.,])"
    r"|\d{1,3}(?:[ ,_\u202f\u00a0]\d{3})+(?:\.\d+)?(?![,.]\d)|\d+,\d{1,2}(?![\d,])"
    r"|\d+(?:\.\d+)?|\.\d+)"
)
#: Scale words, longest first so 'million' is not read as 'm' + 'illion'.
SCALE = (
    r"(?:thousands?|millions?|milliards?|billions?|trillions?|mille|mrd|bn|mn|md|k|m|b|g|t)"
)
_QUANTITY = re.compile(
    rf"^\s*(?P<sign>[-\u2212])?\s*(?P<num>{NUMBER})\s*(?P<scale>{SCALE})?(?![a-z])\s*(?P<rest>.*?)\s*$",
    re.IGNORECASE,
)

_DECIMAL: dict[str, float] = {
    "k": 1e3, "thousand": 1e3, "thousands": 1e3, "mille": 1e3,
    "m": 1e6, "mn": 1e6, "million": 1e6, "millions": 1e6,
    "b": 1e9, "g": 1e9, "bn": 1e9, "md": 1e9, "mrd": 1e9, "milliard": 1e9, "milliards": 1e9,
    "billion": 1e9, "billions": 1e9,
    "t": 1e12, "trillion": 1e12, "trillions": 1e12,
}
_BINARY: dict[str, float] = {"k": 1024.0, "m": 1024.0**2}


def to_number(num: str) -> float:
    """The value of a :data:`NUMBER` match: ``'1,5'`` -> 1.5, ``'128 000'`` -> 128000."""
    if re.fullmatch(r"\d+,\d{1,2}", num):  # a decimal comma
        return float(num.replace(",", "."))
    return float(re.sub(r"[ ,_\u202f\u00a0]", "", num))


def scale_of(word: str, kind: Kind, lang: Lang = "en") -> float:
    """The multiplier a scale word stands for, for this kind of quantity and language."""
    w = word.lower()
    if kind is Kind.CONTEXT:
        if w in _BINARY:
            return _BINARY[w]
        if w in ("thousand", "thousands", "mille"):
            return 1024.0
    if lang == "fr" and w in ("billion", "billions"):
        return 1e12  # French long scale: un billion = 10^12
    return _DECIMAL[w]


def quantity(text: str, kind: Kind, lang: Lang = "en") -> tuple[float, str] | None:
    """Split a leading quantity from the rest: ``'32k tokens'`` -> (32768.0, 'tokens').

    None when no number leads the text. A leading minus sign is kept in the value (negative),
    so callers can refuse it by name rather than silently reading ``-64`` as 64.
    """
    m = _QUANTITY.match(text)
    if m is None:
        return None
    value = to_number(m["num"])
    if m["scale"]:
        value *= scale_of(m["scale"], kind, lang)
    if m["sign"]:
        value = -value
    if not math.isfinite(value):
        return None
    return value, m["rest"]


def parse(text: str, kind: Kind, lang: Lang = "en", *, unit: str = "") -> float:
    """A whole text as one quantity: ``parse('6k', Kind.CONTEXT)`` -> 6144.0.

    ``unit`` is a regular expression the words after the number may match (``'tokens?'``);
    anything else after the number is an error.
    """
    q = quantity(text, kind, lang)
    if q is None or (q[1] and not re.fullmatch(unit or r"(?!)", q[1], re.IGNORECASE)):
        raise UnitError(f"'{text.strip()}' is not {_KIND_WORDS[kind]}")
    if q[0] < 0:
        raise UnitError(f"'{text.strip()}' is negative; {_KIND_WORDS[kind]} is never below zero")
    return q[0]


_KIND_WORDS = {
    Kind.CONTEXT: "a context length (e.g. 8k, 32768)",
    Kind.TOKENS: "a number of tokens (e.g. 1B, 1.5T)",
    Kind.COUNT: "a count (e.g. 64, 1.5k)",
    Kind.RATE: "a rate (e.g. 6000, 6k)",
    Kind.PARAMS: "a parameter count (e.g. 70b, 1.5T)",
}


# -- numbers for people ----------------------------------------------------------------------


def number(x: float, lang: Lang = "en", digits: int = 0) -> str:
    """``x`` with ``digits`` decimals and the language's separators: 1,410.5 / 1 410,5."""
    text = f"{x:,.{digits}f}"
    if lang == "fr":
        text = text.replace(",", _FR_GROUP).replace(".", ",")
    return text


def short(x: float, lang: Lang = "en") -> str:
    """A number with up to three significant digits and no trailing zeros: 1.5, 12, 0.73."""
    if x == 0:
        return "0"
    digits = max(0, 2 - math.floor(math.log10(abs(x))))
    if digits == 0:
        return number(x, lang)
    text = f"{round(x, digits):.{digits}f}".rstrip("0").rstrip(".")
    return text.replace(".", ",") if lang == "fr" else text


def precise(x: float, lang: Lang = "en") -> str:
    """A constant quoted in a formula, up to four significant digits: 4.156, 0.7, 1,597."""
    if x == 0:
        return "0"
    digits = max(0, 3 - math.floor(math.log10(abs(x))))
    if digits == 0:
        return number(x, lang)
    text = f"{round(x, digits):.{digits}f}".rstrip("0").rstrip(".")
    return text.replace(".", ",") if lang == "fr" else text


def sci(x: float, lang: Lang = "en") -> str:
    """A very large figure in scientific notation, three significant digits: '4.23e20'."""
    if x == 0:
        return "0"
    exp = math.floor(math.log10(abs(x)))
    mant = x / 10**exp
    if round(abs(mant), 2) >= 10:
        mant, exp = mant / 10, exp + 1
    return f"{short(mant, lang)}e{exp}"


def count(n: float, lang: Lang = "en") -> str:
    """A whole count: 1,234 / 1 234."""
    return number(round(n), lang)


def pct(share: float, lang: Lang = "en") -> str:
    """A share as a whole percentage: 0.66 -> '66%' / '66 %'; under 10 %, to a tenth
    (0.047 -> '4.7%', 0.0044 -> '0.4%'), so a small share is never rounded onto a threshold
    or to nothing ('<0.1%' below)."""
    if 0 < share < 0.0005:
        return f"<{_FR_SPACE}0,1{_FR_SPACE}%" if lang == "fr" else "<0.1%"
    # under 10 %, to a tenth when it is not whole: '4.7% free' is never read as the 5% floor
    tenth = 0 < abs(share) < 0.0995 and round(share * 1000) % 10 != 0
    value = number(share * 100, lang, 1 if tenth else 0)
    return f"{value}{_FR_SPACE}%" if lang == "fr" else f"{value}%"


def factor(x: float, lang: Lang = "en") -> str:
    """A ratio: 0.73 -> '0.73x', 2.0 -> '2x'."""
    return f"{short(x, lang)}x"


def _with_unit(value: str, unit: str, lang: Lang) -> str:
    return f"{value}{_FR_SPACE if lang == 'fr' else ' '}{unit}"


def size(nbytes: float, lang: Lang = "en") -> str:
    """Bytes for people, always decimal: 0.53 GB, 9.87 GB, 141 GB, 1.41 TB (Go/To in French)."""
    gb = nbytes / GB
    if abs(gb) >= 1000:
        return _with_unit(number(gb / 1000, lang, 2), "To" if lang == "fr" else "TB", lang)
    digits = 0 if abs(gb) >= 100 else 1 if abs(gb) >= 10 else 2
    return _with_unit(number(gb, lang, digits), "Go" if lang == "fr" else "GB", lang)


def size_gb(gb: float, lang: Lang = "en") -> str:
    """:func:`size` for a figure already in GB (the engine's JSON numbers)."""
    return size(gb * GB, lang)


_BIG = (("T", "T", 1e12), ("B", "Md", 1e9), ("M", "M", 1e6))


def big(n: float, lang: Lang = "en") -> str:
    """Large decimal quantities: 1e9 -> '1B' (fr '1 Md'), 1.5e12 -> '1.5T', 4.2e6 -> '4.2M'."""
    for en, fr, div in _BIG:
        if abs(n) >= div:
            value = short(n / div, lang)
            return _with_unit(value, fr, lang) if lang == "fr" else value + en
    return count(n, lang)


def tokens(n: float, lang: Lang = "en") -> str:
    """A token budget: '1B', '1.5T', '500M'; small budgets as counts."""
    return big(n, lang)


def context(n: float, lang: Lang = "en") -> str:
    """A context length the way it is written: 8192 -> '8k', 131072 -> '128k', 6000 -> '6,000'.

    Binary shorthand only for exact multiples of 1,024 (what '8k' means, see the module doc);
    1,048,576 is '1M'. Anything else is written out.
    """
    v = int(n)
    if v >= 1024**2 and v % 1024**2 == 0:
        return f"{v // 1024**2}M"
    if v >= 1024 and v % 1024 == 0:
        return f"{v // 1024}k"
    return count(v, lang)


def rate(x: float, lang: Lang = "en", unit: str = "tok/s") -> str:
    """A rate: '1,234 tok/s'; below 100 with up to three significant digits ('31.5 tok/s')."""
    value = count(x, lang) if abs(x) >= 100 else short(x, lang)
    return _with_unit(value, unit, lang)


def params(n: float, lang: Lang = "en") -> str:
    """A parameter count: 70.6e9 -> '70.6B' (fr '70,6 Md'), 3.5e8 -> '350M'."""
    return big(n, lang)


def days(d: float, lang: Lang = "en") -> str:
    """A duration in days: '12.5 days', '1 day' / '12,5 jours', '1 jour'; under a day, in
    hours ('1.1 hours', '1,1 heure'), under an hour in minutes, as people count a short run."""
    if 0 < d < 1 / 24:
        mins = d * 1440.0
        value, one = short(mins, lang), mins == 1 or (lang == "fr" and mins < 2)
        return _with_unit(value, "minute" if one else "minutes", lang)
    if 0 < d < 1:
        h = d * 24.0
        value, one = short(h, lang), h == 1 or (lang == "fr" and h < 2)
        if lang == "fr":
            return _with_unit(value, "heure" if one else "heures", lang)
        return _with_unit(value, "hour" if one else "hours", lang)
    value = short(d, lang) if d < 100 else count(d, lang)
    one = d == 1 or (lang == "fr" and d < 2)
    if lang == "fr":
        return _with_unit(value, "jour" if one else "jours", lang)
    return _with_unit(value, "day" if one else "days", lang)


def seconds(s: float, lang: Lang = "en") -> str:
    """A latency: '850 ms' below a second, '1.2 s' above."""
    if abs(s) < 1:
        return _with_unit(short(s * 1000, lang), "ms", lang)
    return _with_unit(short(s, lang), "s", lang)


def milliseconds(ms: float, lang: Lang = "en") -> str:
    """A figure already in ms (time per output token)."""
    return seconds(ms / 1000.0, lang)


#: Format names usable in message templates (``{weights:size}``), see :mod:`engine.wording`.
FORMATS = {
    "size": size,
    "size_gb": size_gb,
    "pct": pct,
    "count": count,
    "short": short,
    "precise": precise,
    "sci": sci,
    "factor": factor,
    "tokens": tokens,
    "context": context,
    "rate": rate,
    "params": params,
    "days": days,
    "seconds": seconds,
    "ms": milliseconds,
}
