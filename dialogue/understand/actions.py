"""A card's actions typed instead of clicked: 'show the math please', 'compare with another
GPU', 'tu peux détailler le calcul ?', 'send me the brief'.

The words are the lexicon's ``[actions]`` (dialogue/data/lexicon.*.toml); how a message is
read as one is here. A message asks for an action when, folded and without punctuation, it
holds one of the action's phrases as whole words (the longest phrase of any action wins)
and everything else it says is a polite word around it, the lexicon's noise, or the reason
it is asked, after it ('so I can paste it in the appendix', 'pour le comité'): never a
figure, never another word, which would make it an answer ('compare with H100' changes the
GPU) or a question the dialogue reads otherwise.
"""

from __future__ import annotations

from typing import get_args

from dialogue.reply import CardAction
from dialogue.understand.lexicon import compiled
from dialogue.understand.noise import NOISE
from dialogue.understand.text import words

ACTIONS: tuple[CardAction, ...] = get_args(CardAction)


def card_action(text: str) -> CardAction | None:
    """The card action ``text`` asks for, or None."""
    lex = compiled()
    said = f" {words(text)} "
    if any(ch.isdigit() for ch in said):
        return None
    best: tuple[CardAction, str] | None = None
    for action in ACTIONS:
        for phrase in lex.actions.get(action, ()):
            if f" {phrase} " in said and (best is None or len(phrase) > len(best[1])):
                best = (action, phrase)
    if best is None:
        return None
    at = said.find(f" {best[1]} ")
    # the reason given after it ('... so I can put it in the appendix') asks nothing more
    why = [i for p in lex.actions.get("purpose", ()) if (i := said.find(f" {p} ", at)) > at]
    said = said[: min(why) + 1] if why else said
    rest = said.replace(f" {best[1]} ", " ", 1)
    for phrase in lex.actions.get(best[0], ()):  # 'compare avec un autre gpu': both its own
        rest = rest.replace(f" {phrase} ", " ")
    return best[0] if all(w in lex.polite or NOISE.fullmatch(w) for w in rest.split()) else None
