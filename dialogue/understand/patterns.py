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

from engine.units import NUMBER, SCALE, Kind, Lang, quantity

#: A number and its scale word ('50k', '1.5 million'), never part of a word or after a minus.
N = rf"(?<![\w.\-\u2212])(?P<n>{NUMBER}\s*{SCALE}?)(?![a-z0-9])"
N2 = rf"(?<![\w.\-\u2212])(?P<m>{NUMBER}\s*{SCALE}?)(?![a-z0-9])"
N3 = rf"(?<![\w.\-\u2212])(?P<k>{NUMBER}\s*{SCALE}?)(?![a-z0-9])"
TOK = r"(?:tokens?|toks?|jetons?)"
#: Who a headcount counts ('200 employees', '25 devs', '150 commerciaux'), as folded text
#: (engine-free, accents off): the roles of the people a company, a school or a public
#: service would give its assistant to; at once only when said so. The cheap test of the
#: headcount recogniser (its cues) is derived from this list, so a role added here is read.
ROLES = (
    # English
    "employees?", "staff", "seats", "agents", "engineers", "developers", "devs", "programmers",
    "coders", "customers", "members", "workers", "colleagues", "salespeople", "sales reps",
    "reps", "analysts", "lawyers", "attorneys", "paralegals", "doctors", "physicians",
    "clinicians", "nurses", "students", "pupils", "learners", "teachers", "researchers",
    "scientists", "consultants", "advisors", "advisers", "operators", "technicians",
    "traders", "accountants", "auditors", "bankers", "brokers", "recruiters", "managers",
    "marketers", "designers", "writers", "editors", "journalists", "translators", "testers",
    "moderators", "officers", "clerks", "civil servants", "subscribers", "citizens",
    "volunteers", "interns", "licenses", "licences",
    # French
    "salaries", "salariees?", "employes?", "collaborateurs?", "collaboratrices?",
    "developpeurs?", "programmeurs?", "membres", "clients", "commerciaux", "vendeurs",
    "vendeuses", "conseillers", "conseilleres", "ingenieurs", "techniciens", "analystes",
    "avocats", "juristes", "medecins", "infirmiers", "infirmieres", "soignants", "etudiants",
    "etudiantes", "eleves", "apprenants", "enseignants", "professeurs", "profs", "chercheurs",
    "chercheuses", "consultants", "operateurs", "operatrices", "comptables", "auditeurs",
    "banquiers", "courtiers", "recruteurs", "redacteurs", "journalistes", "traducteurs",
    "testeurs", "moderateurs", "fonctionnaires", "agents publics", "abonnes", "citoyens",
    "benevoles", "adherents", "stagiaires", "equipiers", "postes",
)
HEADS = "|".join(ROLES)
#: What a batch job or a training set counts ('10k contracts', '50k tickets').
ITEMS = (r"(?:documents?|docs?|files?|pages?|records?|emails?|e-mails?|mails?|courriels?"
         r"|tickets?|contracts?|articles?|reports?|fichiers?|dossiers?|contrats?|rapports?"
         r"|pdfs?|chunks?|passages?|texts?|textes?)")
ITEM_CUES = ("doc", "file", "page", "record", "mail", "courriel", "ticket", "contra", "article",
             "report", "fichier", "dossier", "rapport", "pdf", "chunk", "passage", "text")
#: Never a word describing them: a preposition, a word of another answer ('8k context
#: documents'), of a deadline ('avant vendredi'), of a workload.
_NOT_OF_THEM = (r"(?:of|de|des|du|d'|for|pour|per|par|a|an|the|and|et|or|ou|at|in|on|to|with"
                r"|avec|by|sur|en|dans|each|every|chaque|tokens?|jetons?|toks?|context\w*|ctx"
                r"|window|prompts?|users?|utilisateurs?|people|personnes|requests?|requetes?"
                r"|concurrent|simultaneous|k|m|before|until|within|under|avant|jusqu'\w*|d'ici"
                r"|sous|using|via|through|from|lora|qlora|peft|full|inference|serving|training"
                r"|fine-?tun\w*|pre-?train\w*|models?|modeles?|gpus?|nodes?|servers?|serveurs?"
                r"|max|about|around|environ)\b")
#: Up to two words describing them before ('50k support tickets', '5k customer emails'),
#: never people ('20 avocats, documents de 30 pages': the lawyers are no documents)
QUALIFIED = rf"(?:(?!{_NOT_OF_THEM}|(?:{HEADS})\b)[a-z][a-z'\-]*\s+){{0,2}}"
#: and one after, as French says it ('5k courriels clients', '50k tickets de support');
#: never a model's name ('10k docs llama 3.1 8b': a word before a number is not theirs,
#: unless the number counts passes: '10k paires question-réponse, 2 époques')
AFTER = (rf"(?:\s+(?:(?:de|d'|du|des|of|from)\s*)?(?!{_NOT_OF_THEM})[a-z][a-z'\-]*\b"
         r"(?![\-']|\s*\d(?![\d.]*\s*(?:epochs?|epoques?|passes?)\b)))?")
#: Their length, when said with them ('of 2k tokens', ', about 800 tokens each', 'averaging
#: 600 tokens').
EACH = (rf"(?:\s*(?:of|de|d'|with|avec|at|a|x|,|each of|de chacun|averaging|average|avg"
        rf"|en moyenne de|d'en moyenne|en moyenne|faisant|typically)?\s*"
        rf"(?:about|around|environ|~)?\s*{N2}\s*{TOK}"
        rf"(?:\s*(?:each|apiece|chacun|chacune|par document|per doc(?:ument)?|in size"
        rf"|on average|en moyenne))?)?")


def number(text: str, kind: Kind = Kind.COUNT, lang: Lang = "en") -> float | None:
    """A positive quantity said alone (no unit left over), or None."""
    q = quantity(text, kind, lang)
    return None if q is None or q[1] or q[0] <= 0 else q[0]


_OF_ITEMS = re.compile(rf"\b{ITEMS}\s+(?:of|de|d'|with|avec)\s*$")


def of_items(m: re.Match[str]) -> bool:
    """Whether a count is said of items already named ('documents de 30 pages': their
    length, not 30 documents)."""
    return _OF_ITEMS.search(m.string, 0, m.start()) is not None


def items(text: str) -> int | None:
    """A count of things ('50k tickets', '1.5m documents'), never a model's size ('llama 3.1
    8b instruction tuning': '8b' counts parameters)."""
    n = None if re.fullmatch(r"[\d.]+\s*b", text) else number(text)
    return int(n) if n is not None and n == int(n) and 1 <= n <= 1e12 else None
