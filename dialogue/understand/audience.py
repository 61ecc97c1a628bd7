"""How many people, and how many of them at once, as people say it: a share said with a
headcount ('300 users, 1 in 3 at once', 'dont 20 % simultanés') and people counted over a
period ('2 million monthly users', '50k DAU', 'utilisateurs mensuels').

Why apart from ``dialogue/understand/load.py``: both turn a count of people into a load
without the assumed share of a bare headcount. A share said is taken as said; people
counted over a month or a day are never a share of anything at once (the peak is a small
and unknown part of them, no sourced ratio exists), so the peak question is asked, with the
headcount noted.
"""

from __future__ import annotations

import re

from dialogue.errors import ParseError
from dialogue.understand.lexicon import alternation, entries, fractions, terms
from dialogue.understand.load import (
    Context,
    Reading,
    Recogniser,
    at_once,
    group,
)
from dialogue.understand.numbers import CONCURRENCY_MAX
from dialogue.understand.patterns import HEADS, N, number
from engine.wording import msg

__all__ = ["OVER_A_PERIOD", "SHARE_FIRST", "SHARE_OF_PEOPLE", "share_alone"]


#: A share of people at once, as said: '1 in 3', '30 %', 'a third', '1 sur 3', 'la moitié'.
_FRACTIONS = fractions()
#: ('un employé sur cinq', 'one user in ten': the people counted may stand in the share)
SHARE = (rf"(?:(?:(?P<a>\d+)|{terms('share_one')})\s*(?:(?:{HEADS}|{terms('people')})\s+)?"
         rf"{terms('share_of')}\s*(?P<b>\d+)"
         rf"|(?P<pct>\d+(?:[.,]\d+)?)\s*{terms('percent')}"
         rf"|(?P<frac>{alternation(_FRACTIONS)}))")
#: What says, before it, that a share is of people at once ('peak 15%', 'concurrency 10 %',
#: 'taux de simultanéité de 5 %'), and the word that may join them ('of', 'de', ':').
_LEAD = rf"(?P<lead>{terms('peak_lead')})\s*(?:{terms('peak_lead_joiners')}\s*)?"
#: What says the share is of people at once (not of a budget, not of a context).
ACTIVE = terms("at_once")


def _share_at_once(m: re.Match[str], ctx: Context) -> Reading | None:
    """'300 users, 1 in 3 at once', '500 employés dont 20 % en même temps': the people in
    total and how many of them at once, both as said (nothing assumed)."""
    people = number(group(m, "n"))
    a, b, pct, frac = (group(m, k) for k in ("a", "b", "pct", "frac"))
    if people is None or people != int(people) or not 2 <= people <= 10_000_000:
        return None
    share = _share(a, b, pct, frac)
    if share is None:
        return None
    n = at_once(int(people), share)
    if n > CONCURRENCY_MAX:
        raise ParseError(msg("dialogue.error.headcount_peak", people=int(people), n=n,
                             share=share, hi=CONCURRENCY_MAX))
    return {"users_total": int(people), "concurrency": n}



#: Who a headcount counts: a role ('employees', 'agents') or people ('users', 'personnes')
_PEOPLE = rf"(?:{HEADS}|{terms('people')})\b"
#: The cheap test of a share: its sign, its joining word, its fraction's word
_SHARE_CUES = ("%", " in ", " sur ", "/", "half", "third", "quarter", "moitie", "tiers", "quart",
               "fifth", "tenth", "cinquieme", "dixieme", "percent", "pour")

#: '300 users, 1 in 3 at once', '500 employés dont 20 % en même temps': the people and the
#: share of them at once, said together (before 'users' is read as requests at once)
SHARE_OF_PEOPLE = Recogniser("share_of_people", ("users_total", "concurrency"), re.compile(
    rf"{N}\s*(?:(?:de\s+|d'|of\s+)?{terms('their')}\s+)?{_PEOPLE}"
    rf"(?:\s+{terms('share_joiners')})*"
    rf"\s+(?:{_LEAD}\s*)?"
    rf"(?:{terms('about')}\s*)?{SHARE}(?:\s+{terms('of_them')})?(?:\s+{terms('are')})?"
    rf"(?(lead)(?:\s+{ACTIVE}){{0,2}}|\s+{ACTIVE}(?:\s+{ACTIVE})?)"),
    _share_at_once, cues=_SHARE_CUES)

#: The share first, then whose it is: '5% of our 3000 employees will use it at the same
#: time', '10 % de nos 3000 agents seront connectés en même temps' (never '3000 at once':
#: only the share of them is); a few words may stand before the time, as said alone
SHARE_FIRST = Recogniser("share_first", ("users_total", "concurrency"), re.compile(
    rf"(?<!\S)(?:{terms('about')}\s+)?{SHARE}\s+{terms('share_whose')}\s*"
    rf"(?:{terms('their')}\s+)?{N}\s*{_PEOPLE}(?:\s+{terms('are')})?"
    rf"(?:\s+[a-z']+){{0,3}}?\s+{ACTIVE}(?:\s+{ACTIVE})?"),
    # the cheap test: what says at once, which it must end with (a share is everywhere)
    _share_at_once, cues=tuple(sorted({w.split("*")[0][:8] for w in entries("at_once")})))


def _over_a_period(m: re.Match[str], ctx: Context) -> Reading | None:
    people = number(group(m, "n"))
    if people is None or people != int(people) or not 2 <= people <= 1e9:
        return None
    return {"users_total": int(people)}


#: '2 million monthly users', '50k DAU', '300 000 utilisateurs mensuels': people in total,
#: the peak at once asked (never the share a bare headcount assumes)
OVER_A_PERIOD = Recogniser("people_over_a_period", ("users_total",), re.compile(
    rf"{N}\s*(?:{terms('periodic_before')}\s+(?:{terms('active')}\s+)?{terms('visitors')}"
    rf"|{terms('period_counts')}\b"
    rf"|{terms('visitors')}\s+(?:{terms('active')}\s+)?{terms('periodic_after')})"),
    _over_a_period,
    cues=("monthly", "daily", "weekly", "mau", "dau", "wau", "mensuel", "quotidien",
          "hebdo", "par mois", "par jour", "par semaine", "chaque"))


#: A share at once said alone, of people counted before ('half of them are online at the
#: same time', 'et si 30 % sont connectés en même temps ?', 'un tiers connectés en même temps')
#: ('only about 10% are on it at the same time': a few words may stand before the time), or
#: said after what says it is one ('concurrency rate of 5%', 'taux de simultanéité de 5 %')
_SHARE_ALONE = re.compile(
    rf"(?:^|\s)(?:{terms('share_joiners')}\s+)*(?:{_LEAD}\s*)?(?:{terms('about')}\s+)?{SHARE}"
    rf"(?:\s+(?:{terms('of_them')}|{terms('of_people')}))?"
    rf"(?:\s+{terms('are')})?(?(lead)(?:\s+{ACTIVE})?(?!\w)|(?:\s+[a-z']+){{0,3}}?\s+{ACTIVE}"
    rf"(?:\s+{ACTIVE})?)")


def share_apart(rest: str) -> tuple[float, str] | None:
    """A share of people at once said apart from the headcount it divides ('200 people, 8k
    context, 10% concurrent'): the share, and the sentence without it."""
    m = _SHARE_ALONE.search(rest)
    share = share_alone(m.group(0)) if m is not None else None
    if m is None or share is None:
        return None
    return share, rest[: m.start()] + " | " + rest[m.end():]


def share_alone(folded: str) -> float | None:
    """The share of people at once a sentence says without its headcount, or None."""
    m = _SHARE_ALONE.search(folded)
    if m is None:
        return None
    a, b, pct, frac = (m.group(k) or "" for k in ("a", "b", "pct", "frac"))
    return _share(a, b, pct, frac)


def _share(a: str, b: str, pct: str, frac: str) -> float | None:
    """The share the groups of :data:`SHARE` say ('1 in 3', 'un sur cinq' with no digit
    before, '30 %', 'a third'), or None when it is none (nothing, or more than all)."""
    share = ((int(a or 1) / int(b) if int(b) else None) if b else
             float(pct.replace(",", ".")) / 100 if pct else _FRACTIONS.get(frac))
    return share if share is not None and 0 < share <= 1 else None
