"""Which language a message is in, and which one a person asks for.

A conversation speaks English or French (``engine.units.LANGS``). Its language comes from
the opening ("nous voulons faire tourner Llama 70B pour 50 utilisateurs": French words;
"inférence": an accent) or from the person's choice ("in French", "en français", "in
English", alone or inside a longer message, at any point). Model names, units and numbers
say nothing about a language, so a message made only of them leaves it undecided (``None``)
and the conversation keeps what it had.
"""

from __future__ import annotations

import re

from dialogue.understand.text import fold
from engine.units import Lang

#: French function and sizing words (folded), frequent in a sizing request, rare in English.
FRENCH_WORDS = frozenset({
    "je", "nous", "vous", "voulons", "voudrions", "veux", "voudrais", "souhaitons",
    "pour", "avec", "sans", "les", "des", "une", "du", "au", "aux", "est", "sont", "pas",
    "bonjour", "salut", "merci", "faire", "tourner", "modele", "utilisateurs", "utilisateur",
    "requetes", "simultanes", "simultanees", "contexte", "jetons", "jours", "semaines", "mois",
    "oui", "non", "aide", "retour", "annuler", "recommencer", "combien", "quel", "quelle",
    "serveur", "serveurs", "entrainement", "entrainer", "affinage", "debit",
    "objectif", "heures", "environ", "personnes", "notre", "nos", "fenetre", "donnees",
    "cartes", "noeud", "noeuds", "ou", "et", "le", "la", "de",
    "affiner", "servir", "deployer", "heberger", "traiter", "resumer", "employes", "salaries",
    "collaborateurs", "quoi", "pourquoi", "comment", "aussi", "rapide", "dont", "actifs",
    "milliards", "plutot", "enfin", "pardon", "vitesse", "lecture", "complet", "entreprise",
    "aimerait", "aimerions", "aimerais", "voudrait", "souhaite", "souhaiterait", "besoin",
    "avons", "sur", "millions", "jeton", "simultanement", "reseau", "relies", "tuner", "finetuner",
})
#: English words that mean the same in a sizing request and would tip the balance.
ENGLISH_WORDS = frozenset({
    "we", "i", "want", "need", "would", "like", "the", "for", "with", "users", "requests",
    "context", "tokens", "days", "weeks", "months", "yes", "no", "help", "back", "cancel",
    "restart", "how", "many", "what", "which", "serve", "serving", "run", "training", "and",
    "of", "to", "our", "a", "an", "is", "on", "at", "concurrent", "please", "hello", "hi",
})
_ACCENTED = re.compile(r"[àâçéèêëîïôûùüÿœæ]", re.IGNORECASE)
_WORD = re.compile(r"[a-z']+")

#: Asking for a language: anywhere in a message ("..., in French please"), or a language's
#: name alone as the whole message ("français", "english").
_ANYWHERE: tuple[tuple[Lang, str], ...] = (
    ("fr", r"(?:in|en) (?:french|francais)|(?:parlez|parle|speak) (?:french|francais)"),
    ("en", r"(?:in|en) (?:english|anglais)|(?:parlez|parle|speak) (?:english|anglais)"),
)
_ALONE: tuple[tuple[Lang, str], ...] = (
    ("fr", r"francais|french"), ("en", r"english|anglais"),
)
_PLEASE = r"(?: please| svp| s'il vous plait| s'il te plait)?"
_CHOICE_RE = [
    *[(lang, re.compile(rf"(?:^|[\s,;:.(!?])(?:{p}){_PLEASE}(?=$|[\s,;:.)!?])"))
      for lang, p in _ANYWHERE],
    *[(lang, re.compile(rf"^(?:{p}){_PLEASE}[\s.!?]*$")) for lang, p in _ALONE],
]


def detect(text: str) -> Lang | None:
    """The language of ``text``, or None when it says nothing either way (names, numbers)."""
    if _ACCENTED.search(text):
        return "fr"
    found = _WORD.findall(fold(text).replace("'", " "))
    fr = sum(1 for w in found if w in FRENCH_WORDS)
    en = sum(1 for w in found if w in ENGLISH_WORDS)
    if fr > en:
        return "fr"
    if en > fr:
        return "en"
    return None


def chosen(text: str) -> tuple[Lang, str] | None:
    """A language the person asks for, and the rest of the message without those words:
    'en français, llama 70b' -> ('fr', 'llama 70b'). None when no language is asked for."""
    t = fold(text)
    for lang, rx in _CHOICE_RE:
        m = rx.search(t)
        if m is not None:
            rest = (t[: m.start()] + " " + t[m.end():]).strip(" ,;:.!?")
            return lang, " ".join(rest.split())
    return None
