"""The one shape every reader works on: lower case, accents off, words and spaces tidied.

French is typed with and without accents ("inférence", "inference", "requêtes",
"requetes"), with curly apostrophes from phones ("pas d’objectif"), and both languages
with stray punctuation. Folding once here means each reader's patterns are written once,
without accents, and match whatever the keyboard produced.
"""

from __future__ import annotations

import re
import unicodedata

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "`": "'"})
_SPACES = re.compile(r"[\s\u00a0\u202f]+")
_ASCII_CONTROLS = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")


def fold(text: str) -> str:
    """Lower case, no accents, one kind of apostrophe, single spaces, no control or format
    characters: 'Inférence’s' -> "inference's". Digits and symbols are kept as they are."""
    if text.isascii():  # most messages: nothing to decompose
        return _SPACES.sub(" ", _ASCII_CONTROLS.sub("", text.replace("`", "'"))).strip().lower()
    decomposed = unicodedata.normalize("NFKD", text.translate(_APOSTROPHES))
    # accents off, and controls and invisible format characters (a right-to-left override,
    # a zero-width space) too: they carry no meaning and must never be quoted back; a line
    # break is a space, as in the plain-ASCII path (lines never glue: 'RH\n- Nombre')
    bare = "".join(c for c in decomposed if not unicodedata.combining(c)
                   and (c.isspace() or unicodedata.category(c) not in ("Cc", "Cf")))
    return _SPACES.sub(" ", bare.replace("œ", "oe").replace("æ", "ae")).strip().lower()


def words(text: str) -> str:
    """:func:`fold`, then punctuation to spaces; a comma survives only between digits
    ('1,5T', '100,000') and a dot inside a number ('1.5'), a slash in rates ('tok/s')."""
    t = re.sub(r"[^\w/.,+'-]+", " ", fold(text))
    t = re.sub(r"(?<!\d),|,(?!\d)", " ", t)
    t = re.sub(r"(?<!\d)\.|\.(?!\d)", " ", t)
    return " ".join(t.split())


def shown(text: str, limit: int = 40) -> str:
    """What a person typed, quoted back in a message: one line, at most ``limit`` chars."""
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 3] + "..."


def has_digit(text: str) -> bool:
    return any(c.isdigit() for c in text)
