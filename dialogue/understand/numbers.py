"""Quantities typed at a question: concurrency, context, throughput, token budget, deadline.

Built on :mod:`engine.units`, which decides once what a number means (``8k`` of context is
8,192 tokens, ``6k tok/s`` is 6,000, ``1,5T`` is a decimal comma, ``128 000`` a grouped
thousand): this module only adds the words around the number in English and French
("64 users", "64 utilisateurs", "2 weeks", "2 semaines", "about", "environ"), numbers spelled
out ("sixty four", "soixante-quatre"), and the bounds of each question. A minus sign is
refused by name, never read as its absolute value.
"""

from __future__ import annotations

import re
from functools import cache

from dialogue.errors import ParseError
from dialogue.understand.lexicon import alternation, compiled, entries, numbered, terms
from dialogue.understand.text import fold, shown, words
from engine.catalog import catalog
from engine.units import NUMBER, SCALE, Kind, Lang, quantity, scale_of, to_number
from engine.wording import Message, msg

# -- numbers spelled out -------------------------------------------------------------------

_EN_UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
             "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
             "seventeen", "eighteen", "nineteen"]
_EN_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_FR_UNITS = ["zero", "un", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf",
             "dix", "onze", "douze", "treize", "quatorze", "quinze", "seize"]
_FR_TENS = ["vingt", "trente", "quarante", "cinquante", "soixante"]
_VALUES: dict[str, int] = {
    **{w: i for i, w in enumerate(_EN_UNITS)},
    **{w: 20 + 10 * i for i, w in enumerate(_EN_TENS)},
    **{w: i for i, w in enumerate(_FR_UNITS)},
    **{w: 20 + 10 * i for i, w in enumerate(_FR_TENS)},
    "a": 1, "une": 1, "vingts": 20,  # not 'an': French for a year ('un an')
}
_HUNDRED = {"hundred", "cent", "cents"}
_JOINERS = {"and", "et"}
_SPELLED = re.compile(
    r"^(?P<words>(?:(?:" + "|".join(sorted({*_VALUES, *_HUNDRED, *_JOINERS}, key=len,
                                              reverse=True))
    + r")(?:[\s-]+|$))+)(?P<rest>.*)$"
)


def spelled(text: str) -> str:
    """Leading number words as digits: 'sixty four users' -> '64 users', 'soixante-quatre'
    -> '64', 'quatre-vingt-dix' -> '90', 'deux cents' -> '200'. A scale word after them
    ('thousand', 'mille') is left for :mod:`engine.units`. Anything else is unchanged."""
    t = fold(text)
    m = _SPELLED.match(t)
    if m is None:
        return text
    tokens = m["words"].replace("-", " ").split()
    while tokens and tokens[-1] in _JOINERS:  # 'two and' is not a number
        tokens.pop()
    if not tokens or (tokens in (["a"], ["un"], ["une"]) and not m["rest"]):
        return text
    total = 0
    for i, w in enumerate(tokens):
        if w in _JOINERS or (w in ("a", "un", "une") and i + 1 < len(tokens)
                             and tokens[i + 1] not in _HUNDRED):
            continue  # 'à trente' is 30: an article counts one only before a scale
        if w in _HUNDRED:
            total = max(total, 1) * 100
        elif w in ("vingt", "vingts") and total % 100 == 4:  # quatre-vingt(s) = 80
            total += 76
        else:
            total += _VALUES[w]
    return f"{total} {m['rest']}".strip()


_RUN = re.compile(
    r"(?<![\w-])(?:(?:" + "|".join(sorted({*_VALUES, *_HUNDRED, *_JOINERS}, key=len, reverse=True))
    + r")(?:[\s-]+|(?=[^\w-])|$))+"
)
_ARTICLES = frozenset({"a", "un", "une", "and", "et"})


#: 'in a week', 'en une semaine', 'within an hour': an article after a word of time and
#: before a unit of time is one of it (elsewhere 'a day' may be a rate: '10k a day').
_ONE_SPAN = re.compile(
    rf"\b(?P<lead>{terms('span_lead')})\s*(?<=\s|')"
    rf"{terms('one_article')}\s+(?={terms('span_units')}\b)")

#: one user (or server) said without a digit: 'a single user', 'un seul serveur', 'pour un
#: utilisateur'
_ONE_OF = re.compile(
    rf"\b(?:{terms('one_single')}|(?<=pour )(?:un|une))\s+(?={terms('one_of_what')}\b)")


#: 'une cinquantaine', 'a dozen': about that many (folded text)
_ABOUT = numbered("approximate")
_ABOUT_RE = re.compile(
    rf"(?<![\w.])(?:(?P<n>\d+)\s+|(?:une?|a)\s+)(?P<w>{alternation(_ABOUT)})s?(?![\w'])"
    r"(?:\s+(?:de\s+|d'|of\s+))?")
#: a range of counts ('40-60 users', 'entre 40 et 60', '2 à 3 requêtes par seconde')
_RANGE = re.compile(
    rf"(?:\b{terms('range_from')}\s+)?(?<![\w.\-])(?P<a>\d+(?:[.,]\d+)?)\s*(?P<sa>[km]?)"
    # a joining word stands apart ('16 A100' is no range from 16 to 100); a dash may touch
    rf"\s*{terms('range_to')}(?:\s+|(?<![a-z]))(?P<b>\d+(?:[.,]\d+)?)\s*(?P<sb>[km]?)(?![\w.\-])")


#: a count said roughly by a word after it ('fifty-odd', '50ish', '60 or so')
_ABOUT_AFTER = re.compile(
    rf"(?<![\w.])(?P<n>\d+(?:[.,]\d+)?[km]?)(?:\s*-\s*|\s+)?{terms('about_after')}(?![\w'])")


def _scaled(num: str, scale: str) -> float:
    return float(num.replace(",", ".")) * {"": 1, "k": 1e3, "m": 1e6}[scale]


def approximate(folded: str) -> str:
    """An approximate count as its number ('une cinquantaine d'utilisateurs' -> '50
    utilisateurs', 'a dozen users' -> '12 users'), and a range as its upper end, the peak a
    sizing must carry ('40-60 users', 'entre 40 et 60', '2 à 3 requêtes par seconde' -> 60,
    60, 3); a pair that is no rising range (a date, '3 to 2') is left as it is."""
    def about(m: re.Match[str]) -> str:
        return f"{int(m['n'] or 1) * _ABOUT[m['w']]} "

    def peak(m: re.Match[str]) -> str:
        a, b = _scaled(m["a"], m["sa"] or m["sb"]), _scaled(m["b"], m["sb"])
        before = m.string[:m.start()].split()
        if before and not m["sa"] and (before[-1], m["a"]) in _name_ends():
            return m.group(0)  # 'mistral small 3 to 30 users': the 3 ends the model's name
        return f"{m['b']}{m['sb']}" if a < b else m.group(0)
    return _RANGE.sub(peak, _ABOUT_RE.sub(about, _ABOUT_AFTER.sub(r"\g<n>", folded)))


@cache
def _name_ends() -> frozenset[tuple[str, str]]:
    """The catalog's model names that end in a bare number, as (the word before, the
    number): ('small', '3') of 'Mistral Small 3', ('phi', '4'); such a number is the name's,
    never the low end of a range said after it."""
    out: set[tuple[str, str]] = set()
    for m in catalog().models.values():
        for name in (m.name, *m.aliases):
            said = re.split(r"[\s-]+", fold(name))
            if len(said) >= 2 and said[-1].isdigit() and not said[-2].isdigit():
                out.add((said[-2], said[-1]))
    return frozenset(out)


#: a number written in groups of three ('128 000', '2 000 000')
_GROUPED = re.compile(r"(?<![a-z\d.])\d{1,3}(?: \d{3})+\b")


def whole_groups(text: str) -> str:
    """Numbers written in groups of three as one: '2 000 000' -> '2000000'."""
    return _GROUPED.sub(lambda m: m[0].replace(" ", ""), text)

@cache
def _typed_number() -> re.Pattern[str]:
    """A number as typed, with its separators and its scale word ('450 000', '~1,200',
    '1,2 million', '3 crore'): what a reader saw as one number."""
    big = alternation(sorted(w for w, v in compiled().scales.items() if v >= 1000))
    return re.compile(rf"(?<![\w.,])~?(?P<num>{NUMBER})(?:\s*(?P<scale>{SCALE}|{big}))?(?![\w-])")


def _values(m: re.Match[str]) -> set[int]:
    """What a typed number may be worth: its digits, scaled (both French and English
    'billion')."""
    n, scale = to_number(m["num"]), fold(m["scale"] or "")
    if not scale:
        return {round(n)}
    out = set()
    for lang in ("en", "fr"):
        try:
            factor = float(compiled().scales.get(scale) or scale_of(scale, Kind.COUNT, lang))
        except KeyError:
            continue
        out.add(round(n * factor))
    return out


def numbers_typed(folded: str) -> dict[str, str]:
    """The numbers a folded text holds, each as typed, keyed by the digits a reader made of
    it ('450 000' -> '450000', '2 lakh' -> '200000', '~1,200' -> '1200')."""
    out: dict[str, str] = {}
    for m in _typed_number().finditer(folded):
        for v in _values(m):
            out.setdefault(str(v), m[0])
    return out


def digits_in(folded: str) -> str:
    """Number words anywhere in a folded sentence as digits ('pour soixante-quatre
    utilisateurs' -> 'pour 64 utilisateurs'); an article alone ('a', 'un') stays a word,
    except before a unit of time after 'in' / 'en' ('in a week' -> 'in 1 week')."""
    def one(m: re.Match[str]) -> str:
        run = m.group(0)
        if set(run.replace("-", " ").split()) <= _ARTICLES:
            return run
        if " " not in run.strip() and m.string[m.end():m.end() + 1] == ":":
            return run  # 'Quick one: ...' is no count
        return spelled(run.strip()) + (" " if run.endswith((" ", "-")) else "")
    folded = _ONE_OF.sub("1 ", _ONE_SPAN.sub(lambda m: f"{m['lead']} 1 ", folded))
    return _RUN.sub(one, folded)


# -- the words around a number ---------------------------------------------------------------

_FILLER = re.compile(rf"^(?:{terms('filler')}\s*)+")
#: the same words after the number ('16 000 tokens environ.', '8k or so'), and a sentence's
#: full stop
_FILLER_AFTER = re.compile(
    rf"(?:\s+(?:{terms('filler')}|{terms('or_so')}|{terms('afterthought')}))*[\s.!]*$")


def _clean(text: str) -> str:
    """Folded, spelled numbers as digits, fillers ('about', 'environ') off, and the full
    stop that ends a sentence ('4096 tokens.'). Fillers go before the spelling too: 'à peu
    près 700' folds to 'a peu pres 700', whose leading 'a' would be spelled as one."""
    t = spelled(_FILLER.sub("", fold(text)))
    return _FILLER.sub("", approximate(t)).strip().rstrip(".!").rstrip()


def _negative(text: str, what: Message) -> ParseError:
    return ParseError(msg("dialogue.error.negative", text=shown(text), what=what))


#: what may close a quantity said as a ceiling ('90 au maximum', '64 users max') or as what
#: will do ('16k is enough', '60 to be safe'): the number a sizing carries is that one
_AT_MOST = re.compile(rf"(?:^|\s+)(?:{terms('at_most_after')}|{terms('enough')})$")


def _read(text: str, kind: Kind, units: str) -> float | None:
    """The quantity of ``text`` when the words after it match ``units``; raises on a minus."""
    t = _clean(text)
    q = quantity(t, kind)
    if q is None or re.fullmatch(units, _AT_MOST.sub("", q[1])) is None:
        q = quantity(_FILLER_AFTER.sub("", t), kind)  # '16 000 tokens environ.'
        if q is None or re.fullmatch(units, _AT_MOST.sub("", q[1])) is None:
            return None
    return q[0]


def _whole(value: float | None, lo: float, hi: float) -> int | None:
    if value is None or value != int(value) or not lo <= value <= hi:
        return None
    return int(value)


# -- concurrency -----------------------------------------------------------------------------

CONCURRENCY_MAX = 100_000
GPUS_PER_NODE_MAX = 16  # the engine's bound (SizingRequest.gpus_per_node)
USERS = (rf"(?:{terms('users_before')}?\s*{terms('users_words')}?"
         rf"(?:\s*{terms('using_it')}(?=\s+{terms('users_after')}))?\s*{terms('users_after')}?"
         rf"|{terms('users_alone')})")


def concurrency(text: str) -> int:
    """Requests in flight at peak: '64', '64 users', 'sixty four', '64 utilisateurs'."""
    value = _read(text, Kind.COUNT, USERS)
    if value is not None and value < 0:
        raise _negative(text, msg("dialogue.what.concurrency"))
    n = _whole(value, 1, CONCURRENCY_MAX)
    if n is None:
        raise ParseError(msg("dialogue.error.concurrency", lo=1, hi=CONCURRENCY_MAX,
                             text=shown(text)))
    return n


# -- context ---------------------------------------------------------------------------------

CONTEXT_UNITS = (rf"(?:{terms('tokens')}?\s*(?:of\s+|de\s+)?{terms('context_words')}?"
                 rf"(?: {terms('per_request')})?)")


def context(text: str, limit: int, model: Message | None) -> int:
    """Tokens per request (prompt + answer), binary ``k`` (``6k`` = 6,144), at most ``limit``
    (the model's window, from the engine); ``model`` names it in the refusal (None: no model
    is known yet, and ``limit`` is past any model's)."""
    t = _clean(text)
    if re.fullmatch(r"\d{1,3}", t) and int(t) >= 1:
        # a bare '64' is almost always 64k (or a choice's number): ask, do not size 64 tokens
        n, k = int(t), int(t) * 1024
        if k <= limit:
            raise ParseError(msg("dialogue.error.context_bare", n=n, tokens=k),
                             retry=[f"{n}k", f"{n} tokens"])
        raise ParseError(msg("dialogue.error.context_bare_small", n=n), retry=[f"{n} tokens"])
    value = _read(text, Kind.CONTEXT, CONTEXT_UNITS)
    if value is not None and value < 0:
        raise _negative(text, msg("dialogue.what.context"))
    tokens_ = _whole(value, 1, float("inf"))
    if tokens_ is not None and tokens_ > limit:
        if model is None:
            raise ParseError(msg("dialogue.error.context_huge", text=shown(text),
                                 tokens=tokens_))
        raise ParseError(msg("dialogue.error.context_beyond", model=model, limit=limit,
                             text=shown(text), tokens=tokens_))
    if tokens_ is None:
        raise ParseError(msg("dialogue.error.context", limit=limit, text=shown(text)))
    return tokens_


# -- throughput target -----------------------------------------------------------------------

TARGET_MAX = 1e9
NO_TARGET = terms("no_target")
RATE = (rf"(?:{terms('rate_tokens')}\s*{terms('per')}\s*{terms('second')}|{terms('rate_words')})"
        rf"(?: {terms('in_total')})?")
_YES_WORDS = frozenset({"yes", "y", "yeah", "yep", "sure", "ok", "okay", "oui", "ouais",
                        "bien sur", "d'accord"})


def target(text: str) -> float | None:
    """An aggregate throughput target in output tokens/s, or None for 'no target'."""
    t = words(text).replace("aggregate ", "").replace("agrege ", "")
    if re.fullmatch(NO_TARGET, t):
        return None
    t = re.sub(r"\bt/s\b", "tok/s", t)  # 't' is also a scale letter (10^12)
    value = _read(t, Kind.RATE, rf"(?:{RATE})?")
    if value is not None and value < 0:
        raise _negative(text, msg("dialogue.what.target"))
    if value is not None and 1 <= value <= TARGET_MAX:
        return value
    if t in _YES_WORDS:  # 'yes' to 'do you have a target?': then which one
        raise ParseError(msg("dialogue.error.target_which"))
    raise ParseError(msg("dialogue.error.target", text=shown(text)))


# -- training token budget -------------------------------------------------------------------

TOKENS_MIN, TOKENS_MAX = 1e6, 1e15
_TOKENS_UNITS = (rf"(?:{terms('training_of')}\s*)?{terms('tokens')}?"
                 rf"(?: {terms('of_data')})?")


def tokens(text: str, lang: Lang = "en") -> float:
    """A training token budget: '1B tokens', '1.5T', '500 million tokens', '2 Md de jetons'
    (in French, 'un billion' is 10^12: ``lang`` decides)."""
    q = quantity(_clean(words(text)), Kind.TOKENS, lang)
    value = q[0] if q is not None and re.fullmatch(_TOKENS_UNITS, q[1]) else None
    if value is not None and value < 0:
        raise _negative(text, msg("dialogue.what.tokens"))
    if value is not None and TOKENS_MIN <= value <= TOKENS_MAX:
        return value
    raise ParseError(msg("dialogue.error.tokens", lo=TOKENS_MIN, hi=TOKENS_MAX,
                         text=shown(text)))


#: what may follow one example's length: '800 tokens each', '2k jetons en moyenne', or 'per'
#: one of what is counted, named ('700 tokens per ticket', '900 jetons par fiche')
_ONE_COUNTED = alternation([*entries("examples"), *entries("items"), *entries("training_items")])
_EACH_UNITS = (rf"{terms('tokens')}?(?: (?P<each>{terms('each_example')}))?"
               rf"(?: (?P<per>{terms('per_each')} {_ONE_COUNTED}))?")


def length(text: str, lang: Lang = "en") -> float | None:
    """One example's length in tokens, at the question that asks it ('800', '2k tokens
    each', 'environ 800 jetons chacun'); None for anything else: a number past a budget's
    floor is a budget ('50M'), unless said of each one."""
    q = quantity(_clean(words(text)), Kind.TOKENS, lang)
    if q is None or (m := re.fullmatch(_EACH_UNITS, q[1])) is None or q[0] < 1:
        return None
    return q[0] if q[0] < TOKENS_MIN or m["each"] or m["per"] else None


# -- deadline --------------------------------------------------------------------------------

DEADLINE_MAX_DAYS = 3650
DAYS: dict[str, float] = {
    "h": 1 / 24, "hr": 1 / 24, "hrs": 1 / 24, "hour": 1 / 24, "hours": 1 / 24,
    "heure": 1 / 24, "heures": 1 / 24,
    "d": 1, "day": 1, "days": 1, "j": 1, "jour": 1, "jours": 1,
    "w": 7, "wk": 7, "wks": 7, "week": 7, "weeks": 7, "semaine": 7, "semaines": 7, "sem": 7,
    "mo": 30, "month": 30, "months": 30, "mois": 30,
    "y": 365, "yr": 365, "year": 365, "years": 365, "an": 365, "ans": 365, "annee": 365,
    "annees": 365,
}
DURATION_UNIT = "|".join(sorted(DAYS, key=len, reverse=True))
_LEAD = re.compile(rf"^{terms('deadline_lead')}\s+")
#: what may follow a deadline: '10 jours max', '2 weeks at most'
_TRAIL = re.compile(rf"\s+{terms('at_most_after')}$")
_DURATION = re.compile(rf"^(?P<num>-?\s*[\d.,]+)[\s-]*(?P<unit>{DURATION_UNIT})?$")


def deadline(text: str) -> float:
    """A deadline in days: '30 days', '2 weeks', '3 months' (30 days each), '2 semaines',
    'un mois', a bare number of days."""
    t = _TRAIL.sub("", spelled(_LEAD.sub("", words(text))))
    m = _DURATION.match(t)
    if m is not None:
        q = quantity(m["num"], Kind.COUNT)
        if q is not None and not q[1]:
            if q[0] < 0:
                raise _negative(text, msg("dialogue.what.deadline"))
            days = q[0] * DAYS[m["unit"] or "d"]
            if 0 < days <= DEADLINE_MAX_DAYS:
                return days
    raise ParseError(msg("dialogue.error.deadline", text=shown(text)))
