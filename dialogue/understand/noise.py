"""The words of a sizing request that carry no answer: greetings, pronouns, verbs of wanting
and asking, hedges ('maybe', 'peut-être'), in English and French; and punctuation.

The words are data (``dialogue/data/lexicon.<lang>.toml``, ``[noise]``). Why a list: what no
recogniser used is said back ("I did not use: ..."), so a person sees a word the bot missed;
these words are never an answer, and saying them back would bury the words that matter. The
model search skips them too (a model's name holds none).
"""

from __future__ import annotations

import re

from dialogue.understand.lexicon import noise_words

__all__ = ["NOISE", "PUNCT"]

NOISE = re.compile(
    rf"\b(?:{'|'.join(re.escape(w) for w in noise_words())})(?:\b|(?<='))")
#: Punctuation standing alone, or ending or starting a word: not part of what was said.
PUNCT = re.compile(r"(?:(?<=\s)|^)[.:'\-~]+(?=\s|$)|(?<=\w)[.:]+(?=\s|$)")
