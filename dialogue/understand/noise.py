"""The words of a sizing request that carry no answer: greetings, pronouns, verbs of wanting
and asking, hedges ('maybe', 'peut-être'), in English and French; and punctuation.

Why a list: what no recogniser used is said back ("I did not use: ..."), so a person sees
a word the bot missed; these words are never an answer, and saying them back would bury
the words that matter. The model search skips them too (a model's name holds none).
"""

from __future__ import annotations

import re

__all__ = ["NOISE", "PUNCT"]

NOISE = re.compile(
    r"\b(?:we|i|want|would|like|need|plan|to|run|serving?|use|the|a|an|with|and|for|on|at|of|"
    r"please|model|size|sizing|our|in|it|is|ok|okay|hi|hello|hey|how|many|gpus?|do|needs?|over|"
    r"via|using|from|by|about|around|per|requests?|tokens?|can|you|me|help|let's|lets|what|"
    r"which|scratch|own|custom|sorry|actually|mean|rather|wait|oops|each|at|once|"
    r"nous|voulons|voudrions|veux|voudrais|souhaitons|je|on|faire|tourner|pour|avec|les|des|"
    r"un|une|le|la|de|du|d'|l'|notre|nos|modele|sur|en|et|servir|deployer|combien|il|faut|"
    r"bonjour|salut|svp|merci|dimensionner|dimensionnement|cartes?|serveurs?|zero|pardon|"
    r"plutot|enfin|fait|veut|dire|chacun|chaque|par|prefer|because|given|as|also|just|only|"
    r"then|so|that|this|these|those|will|be|are|have|has|our|their|my|your|vous|tu|avons|"
    r"process|processing|traiter|ici|d'ici|speed|vitesse|weights?|poids|voudrait|voudrions|"
    r"aimerait|aimerions|aimerais|souhaite|souhaiterait|relies?|connected|linked|we'd|i'd|"
    r"we're|we'll|devons|devez|doit|dois|must|got|noeuds?|nodes?|internes?|internal|deja|already|"
    r"client|cliente|customer|prospect|wants|asks|veulent|least|au|moins|minimum|besoin|"
    r"environ|approximativement|approximately|roughly|approx|quel|quelle|quels|quelles|much|"
    r"vram|memory|memoire|enough|suffisant|suffisante|suffit|assez|est-ce|que|qu'une|qu'un|qui|"
    r"coding|code|support|poc|pilote?|prototype|they|them|box|deadline|maybe|perhaps|probably|"
    r"peut-etre|probablement|pouvons-nous|pouvez-vous|peut-on|could|expect|expected|average|avg|"
    r"typical|typically|moyenne|moyen|but|mais|d'un|d'une|continued|quick|question|max|ne|peut)(?:\b|(?<='))"
)
#: Punctuation standing alone, or ending or starting a word: not part of what was said.
PUNCT = re.compile(r"(?:(?<=\s)|^)[.:'\-~]+(?=\s|$)|(?<=\w)[.:]+(?=\s|$)")
