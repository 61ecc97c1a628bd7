"""The customer's terms for a load: per-user speed, requests per second with prompt and answer
lengths, a headcount, a batch job by a date, the hardware they own.

Why: customers rarely say "an aggregate output target of 6,000 tokens per second". They say
"30 tok/s per user", "as fast as ChatGPT", "20 requests per second, 1k-token prompts",
"200 employees", "process 10M documents of 2k tokens by Friday", "on our 4x L40S" (issue
#10, item 3). Each :class:`Recogniser` here finds one such phrase in a folded sentence and
reads it onto the answers the engine takes (keys as the engine CLI names them:
``per_user_tokens_per_s``, ``requests_per_s``, ``prompt_tokens``, ``output_tokens``,
``gpus_per_node``, ...); what it had to assume (a reading speed for "as fast as ChatGPT",
the share of a headcount at once) is marked, so the reply says "I assumed" and offers the
change. ``dialogue/understand/opening.py`` runs them with the opening's own
(``phrases.py``); relative dates ("by Friday") need ``today``, which the service passes in
(the readers stay pure).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date

from dialogue.assumptions import assumptions
from dialogue.errors import ParseError
from dialogue.understand.dates import WHEN, days_until
from dialogue.understand.lexicon import entries, terms
from dialogue.understand.numbers import CONCURRENCY_MAX, GPUS_PER_NODE_MAX
from dialogue.understand.patterns import (
    AFTER,
    EACH,
    HEADS,
    ITEM_CUES,
    ITEMS,
    N2,
    N3,
    QUALIFIED,
    QUALIFIER,
    ROLES,
    TOK,
    N,
    counted,
    items,
    number,
    of_items,
)
from dialogue.understand.text import shown
from engine.catalog import catalog
from engine.units import NUMBER, Kind, Lang
from engine.wording import msg

AnswerValue = str | bool | int | float | None
Reading = dict[str, AnswerValue]
#: in a reading, the keys it assumed (comma-separated), when that depends on what was read
#: (a headcount taken whole is as said; past what is sized at once, its share is assumed)
ASSUMED = "__assumed__"

#: tokens per second, in both languages (after text.words: 'tok/s', 'tokens par seconde')
RATE = (rf"{terms('rate_tokens')}\s*{terms('per')}\s*{terms('second')}\b"
        rf"|{terms('rate_words')}\b")
_EACH = rf"{terms('per_each')}\s*(?:{terms('active')}\s+)?{terms('per_whom')}\b"
#: a bare 'each' after a speed ('20 tok/s each', '20 jetons/s chacun'): per user
_APIECE = rf"{terms('apiece')}\b(?!\s*(?:{terms('servers')}|{terms('gpus')}))"
#: a bound's words: a requirement's modal verb and its verb ('shall not exceed', 'must come',
#: 'ne devra pas excéder'), then lead-in words ('in', 'under', 'moins de', 'max'); and a
#: duration in seconds, its unit maybe stuck to the number ('500ms', '2s')
_LEADS = rf"(?:{terms('bound_lead')}\s*)*"
#: which of the waits is bound, between its name and its bound ('TTFT p95', 'latency median',
#: 'le TTFT au 95e percentile')
_WHICH = rf"(?:\s+{terms('central')})?"
_WITHIN = rf"(?:{terms('bound_modal')}\s+)?(?:{terms('bound_verb')}\s*)?{_LEADS}"
_SECS = rf"(?<![\w.\-\u2212])(?P<n>\d+(?:[.,]\d+)?)\s*(?P<unit>{terms('secs')})\b"
#: a bound said before a length ('prompts up to 6k', 'réponses de 500 jetons au plus')
_UP_TO = terms("up_to")
#: a unit of time ('3k tokens in 7 days' is a deadline, not '3k tokens in' of prompt)
_TIME = rf"{terms('time_units')}\b"
_LENGTH_OF = rf"(?:{terms('length_of')}|{_UP_TO})"
_SECONDS = {"s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1, "seconde": 1, "secondes": 1,
            "min": 60, "mins": 60, "minute": 60, "minutes": 60, "h": 3600, "hr": 3600,
            "hrs": 3600, "hour": 3600, "hours": 3600, "heure": 3600, "heures": 3600,
            "day": 86400, "days": 86400, "jour": 86400, "jours": 86400, "ms": 0.001,
            "week": 604800, "semaine": 604800, "month": 2592000, "mois": 2592000}


@dataclass(frozen=True)
class Context:
    lang: Lang = "en"
    today: date | None = None
    training: bool = False  # the conversation is about training: counted items are its data


@dataclass(frozen=True)
class Recogniser:
    """One phrase: its name (what the order of the readers is written with), its pattern (on
    folded text, its words the lexicon's), the answers it reads, what it assumes."""

    name: str
    keys: tuple[str, ...]
    rx: re.Pattern[str]
    read: Callable[[re.Match[str], Context], Reading | None]
    assumed: frozenset[str] = field(default_factory=frozenset)
    cues: tuple[str, ...] = ()  # words one of which the phrase holds: a cheap test first
    #: reads several of its phrases joined by 'and' as one answer ('2000 nurses and 300
    #: doctors': 2,300 people), None when a second phrase is another answer
    adds: Callable[[list[re.Match[str]], Context], Reading | None] | None = None
    training_only: bool = False  # read only in a training request (what it counts is data)

    def may(self, folded: str, ctx: Context) -> bool:
        return (not self.training_only or ctx.training) and (
            not self.cues or any(c in folded for c in self.cues))


def group(m: re.Match[str], name: str) -> str:
    return m.groupdict().get(name) or ""


def _rate(lo: float, hi: float, key: str) -> Callable[[re.Match[str], Context], Reading | None]:
    def read(m: re.Match[str], ctx: Context) -> Reading | None:
        v = number(group(m, "n") or group(m, "m"), Kind.RATE)  # its number, wherever said
        return {key: v} if v is not None and lo <= v <= hi else None
    return read


def _fixed(key: str, value: Callable[[], float]) -> Callable[[re.Match[str], Context], Reading]:
    return lambda m, ctx: {key: value()}


def _per_period(units: str) -> re.Pattern[str]:
    """'5000 tickets a day', '20 requests per second', '100k support tickets per day': things
    counted over a unit of time (a word that says whose they are may stand beside them);
    ``units`` names the lexicon's units of time."""
    return re.compile(
        rf"{N}\s*(?:{terms('whose_requests')}\s+)?{terms('requests_counted')}"
        rf"(?:\s+{terms('whose_after')})?\s*"  # 'tickets clients par jour'
        rf"{terms('per_period')}\s*(?P<unit>{terms(units)})\b")


_PER_PERIOD_CUES = ("req", "quer", "call", "question", "appel", "demande", "ticket", "messag",
                    "mail", "courriel", "chat", "conversation", "session", "prompt", "job",
                    "tache", "doc")


def _per_second(m: re.Match[str], ctx: Context) -> Reading | None:
    v = number(group(m, "n"), Kind.RATE)
    unit = group(m, "unit") or "s"
    if v is None:
        return None
    rps = v / _SECONDS.get(unit.rstrip("s") if unit not in _SECONDS else unit, 1)
    return {"requests_per_s": round(rps, 6)} if 0 < rps <= 1e6 else None


def _tokens(text: str) -> int | None:
    """A length in tokens ('1k', '300'): a whole number from 1 to 10M, else None."""
    v = number(text, Kind.CONTEXT)
    return int(v) if v is not None and v == int(v) and 1 <= v <= 10_000_000 else None


_N_APART = counted("o")  # a length said a few words after what it measures


def _length(key: str) -> Callable[[re.Match[str], Context], Reading | None]:
    def read(m: re.Match[str], ctx: Context) -> Reading | None:
        v = _tokens(group(m, "n") or group(m, "m") or group(m, "k") or group(m, "o"))
        return {key: v} if v is not None else None
    return read


def _in_out(m: re.Match[str], ctx: Context) -> Reading | None:
    """'1k in / 300 out': the prompt and the answer lengths together."""
    prompt, answer = _tokens(group(m, "n")), _tokens(group(m, "m"))
    return {"prompt_tokens": prompt, "output_tokens": answer} \
        if prompt is not None and answer is not None else None


def _headcount(m: re.Match[str], ctx: Context) -> Reading | None:
    return _headcounts([m], ctx)


def _headcounts(ms: list[re.Match[str]], ctx: Context) -> Reading | None:
    """People in total, of one headcount or of several joined by 'and' ('2000 nurses and
    300 doctors'): all of them at once, as a count of users is (the reply says so, with one
    click to a share of them); past what is sized at once, the share assumed."""
    values = [number(group(m, "n") or group(m, "m") or group(m, "k")) for m in ms]
    if any(v is None or v != int(v) for v in values):
        return None
    people = int(sum(v or 0.0 for v in values))
    if not 2 <= people <= 10_000_000:
        return None
    if people <= CONCURRENCY_MAX:  # all of them at once, as '500 users' is (said so)
        return {"users_total": people, "concurrency": people, ASSUMED: "concurrency"}
    n = at_once(people)
    if n > CONCURRENCY_MAX:  # '5 million employees': the assumed share is past what is sized
        raise ParseError(msg("dialogue.error.headcount_peak", people=people, n=n,
                             share=assumptions().peak_share, hi=CONCURRENCY_MAX))
    return {"users_total": people, "concurrency": n, ASSUMED: "concurrency"}


#: What joins counts that add up: '2000 nurses and 300 doctors', '200 devs, 50 analysts'
#: (the opening has turned commas into spaces); 'of which 50 devs' is a part, not more.
JOINED = re.compile(rf"\s*(?:{terms('and_also')}\s+)?(?:{terms('determiners')}\s+)?")


def many_users(m: re.Match[str], ctx: Context) -> Reading | None:
    """'1 million users' of a chatbot: more than are ever in flight at once, so a headcount
    (a count of users up to the engine's bound is read as requests at once, as said)."""
    v = number(group(m, "n"))
    return _headcount(m, ctx) if v is not None and v > CONCURRENCY_MAX else None


def at_once(headcount: int, share: float | None = None) -> int:
    """How many of a headcount use the model at the same moment, at the assumed share."""
    return max(1, round(headcount * (share or assumptions().peak_share)))


def _gpus(m: re.Match[str], ctx: Context) -> Reading | None:
    v = number(group(m, "n"))
    if v is None or v != int(v):
        return None
    if not 1 <= v <= GPUS_PER_NODE_MAX:  # '17 GPUs per node': said why, not left unused
        raise ParseError(msg("dialogue.error.gpus_per_node", hi=GPUS_PER_NODE_MAX,
                             text=shown(m.group(0).strip())))
    return {"gpus_per_node": int(v)}


def _nodes_owned(m: re.Match[str], ctx: Context) -> Reading | None:
    v = number(group(m, "n"))
    return {"nodes_owned": int(v)} if v is not None and v == int(v) and 1 <= v <= 10_000 \
        else None


def _ttft(m: re.Match[str], ctx: Context) -> Reading | None:
    v = number(group(m, "n"), Kind.RATE)
    unit = group(m, "unit")
    if v is None:
        return None
    seconds = v / 1000 if unit == "ms" else v
    return {"ttft_s": seconds} if 0 < seconds <= 600 else None


def _documents(m: re.Match[str], ctx: Context) -> Reading | None:
    if ctx.training:
        return None  # a training set (dialogue/understand/dataset.py reads it)
    docs = None if of_items(m) else items(group(m, "n"))
    if docs is None:
        return None
    out: Reading = {"documents": docs}
    each = number(group(m, "m"), Kind.CONTEXT) if group(m, "m") else None
    if each is not None and each == int(each) and 1 <= each <= 10_000_000:
        out["document_tokens"] = int(each)
    return out


def _document_length(m: re.Match[str], ctx: Context) -> Reading | None:
    if ctx.training:
        return None  # an item's length in a training set (dataset.py reads it)
    each = number(group(m, "n") or group(m, "m") or group(m, "k") or group(m, "o"), Kind.CONTEXT)
    return {"document_tokens": int(each)} if each is not None and each == int(
        each) and 1 <= each <= 10_000_000 else None


def batch_days(text: str, ctx: Context) -> float | None:
    """The deadline of a batch job in days: 'by friday', 'within 3 days', 'in 12 hours'."""
    m = BATCH_WHEN.search(text)
    if m is None:
        return None
    if m["when"]:
        return days_until(m["when"], ctx.today)
    v = number(m["n"] or "")
    unit = m["unit"] or "days"
    if v is None:
        return None
    days = v * _SECONDS.get(unit, 86400) / 86400
    if unit.startswith(("week", "semaine")):
        days = v * 7
    return days if 0 < days <= 3650 else None


BATCH_WHEN = re.compile(
    rf"\b(?:{terms('by_when')}\s+|(?=this |cette |ce mois))"  # 'this week' alone
    rf"(?:{terms('the_next')}\s+){{0,2}}(?:(?P<when>{WHEN})\b"  # 'by EOD next friday'
    rf"|{N}\s*(?P<unit>{terms('deadline_units')})\b)"
)

#: The cheap test of a headcount: the roles' stems, and the words of a company or team.
_HEAD_CUES = (*sorted({r.split("?")[0].rstrip("s")[:6] for r in ROLES}),
              "people", "person", "company", "team", "firm", "organi", "entreprise", "equipe",
              "societe", "boite", "total", "tout", "of them", "of those", "d'entre", "parmi")
_ASSUMED_SPEED = frozenset({"per_user_tokens_per_s"})
NOT_AT_ONCE = rf"(?!\s*{terms('said_at_once')})"
#: no GPU after a team's count: 'un serveur équipé de 4 RTX 4090' (folded, 'équipé' is
#: 'equipe', a team) counts GPUs, never people
_NO_GPU = (rf"(?!\s*(?:x\s*)?(?:{terms('gpu_makers')}|{terms('gpu_words')}"
           r"|[a-z]{1,3}\d{2,4}[a-z]?)\b)")
RECOGNISERS: tuple[Recogniser, ...] = (
    # '40 tok/s per user', or whose said first ('each person should get at least 40 tok/s')
    Recogniser("speed_per_user", ("per_user_tokens_per_s",), re.compile(
        rf"{N}\s*(?:{RATE})\s*(?:{_EACH}|{_APIECE})"
        rf"|\b{terms('each_one')}\s+{terms('per_whom')}\b(?:\s+[a-z']+){{0,5}}?\s+{N2}\s*(?:{RATE})"),
               _rate(1, 10_000, "per_user_tokens_per_s"),
        cues=("tok", "tps", "jeton", "t/s")),
    Recogniser("speed_like_chatgpt", ("per_user_tokens_per_s",), re.compile(
        rf"\b{terms('as_fast_as')}\s+(?:{terms('the')}\s+)?{terms('chat_assistants')}\b"
        rf"|\b{terms('chatgpt_like')}\b"),
        _fixed("per_user_tokens_per_s", lambda: assumptions().chatgpt_tokens_per_s),
        _ASSUMED_SPEED,
        cues=("chat", "gpt", "openai", "claude", "gemini")),
    Recogniser("reading_speed", ("per_user_tokens_per_s",), re.compile(
        rf"\b{terms('reading_speed')}\b"),
        _fixed("per_user_tokens_per_s", lambda: float(catalog().policy.comfortable_tokens_per_s)),
        _ASSUMED_SPEED,
        cues=("read", "lecture")),
    Recogniser("first_token_after", ("ttft_s",), re.compile(
        # 'le TTFT, si on veut max 1 seconde': an aside between the name and its bound
        # 'time until the first token', 'temps d'obtention du premier token': its words too
        rf"\b(?:{terms('first_token_lead')}\s+)?{terms('first_token')}{_WHICH}\s*"
        rf"(?:,?\s*{terms('bound_aside')}\s+)?{_WITHIN}{_SECS}"),
        _ttft,
        cues=("token", "ttft", "jeton")),
    # the bound first: 'pas plus de 3 s pour le premier jeton', 'under 2 s to the first token'
    # (its lead-in words only: a requirement's verbs come after what they bound, and this
    # pattern, unanchored, is tried at every place of a message)
    Recogniser("first_token_before", ("ttft_s",), re.compile(
        rf"{_LEADS}{_SECS}\s*{terms('for_the')}\s+(?:{terms('the')}\s+)?"
        rf"{terms('first_token')}\b"), _ttft,
        cues=("token", "ttft", "jeton")),
    # 'latency under 1 s', 'temps de réponse max 3s': most often the wait for the first
    # token (streamed answers); assumed, so the reply says so and offers the change
    Recogniser("latency", ("ttft_s",), re.compile(
        rf"\b{terms('latency')}"
        rf"{_WHICH}\s*"  # 'latency p95 ...'
        rf"{_WITHIN}{_SECS}"), _ttft, frozenset({"ttft_s"}),
        cues=("laten", "respon", "repons", "repond", "answer", "repl")),
    Recogniser("requests_per_second", ("requests_per_s",), re.compile(rf"{N}\s*{terms('rps')}\b"),
               _per_second,
        cues=("rps", "qps", "/s")),
    Recogniser("rate_short", ("requests_per_s",), _per_period("short_periods"), _per_second,
        cues=_PER_PERIOD_CUES),
    # a count by the day, the week or the month is spread evenly over it: assumed, said so
    # (the busiest hour is higher: the person sees the rate and changes it)
    Recogniser("rate_long", ("requests_per_s",), _per_period("long_periods"),
               _per_second, frozenset({"requests_per_s"}), cues=_PER_PERIOD_CUES),
    # '1k in / 300 out', '2k in, 500 out': a prompt and an answer said as a pair
    Recogniser("prompt_and_answer", ("prompt_tokens", "output_tokens"), re.compile(
        rf"{N}\s*{TOK}?\s+in\s*{terms('pair_joiners')}?\s*{N2}\s*{TOK}?\s+out\b"), _in_out,
        cues=(" in ",)),
    Recogniser("prompt", ("prompt_tokens",), re.compile(
        rf"{N}\s*-?\s*{TOK}?\s*-?\s*{terms('prompt_after')}"
        rf"|{N3}\s*{TOK}\s+in\b(?!\s+(?:{NUMBER}\s*|an?\s+|one\s+){_TIME})"
        rf"|{terms('prompt_before')}\s*(?:lengths?\s*)?(?:{terms('length_verbs')}\s+)?"
        rf"{_LENGTH_OF}?\s*{terms('about')}?\s*"
        # 'prompts up to 16k tokens of context' is the context ('context_after' reads it)
        rf"{N2}(?!\s*(?:{TOK}\s*)?{terms('of')}\s+{terms('context_words')})\s*{TOK}?"),
        _length("prompt_tokens"),
        cues=("prompt", "input", "entree", " in ")),
    Recogniser("answer", ("output_tokens",), re.compile(
        # '300-token answers', '300 jetons de réponse'; never 'tokens' then the next field's
        # word ('each about 3000 tokens, summaries of 200 tokens')
        rf"{N}\s*-?\s*(?:{TOK}\s*(?=(?:de|en)\s)|(?:token|tok)\s*-?\s*)?{terms('output_after')}"
        rf"|{N3}(?:\s*{TOK}?\s+out\b(?!\s*of\b)"
        # '500-token summaries', 'a 200-token assessment': the singular of a compound, never
        # 'tokens' before the next field's word ('2 000 tokens, synthèse de 150 tokens')
        rf"|\s*-?\s*(?:token|tok)\s*-?\s*{terms('output_named')}\b)"
        rf"|{terms('output_before')}\s*(?:lengths?\s*)?(?:{terms('length_verbs')}\s+)?"
        # a count of what is output, not its length, when a length in tokens follows
        # ('output is one label (~3 tokens)')
        rf"{_LENGTH_OF}?\s*{terms('about')}?\s*{N2}(?:\s*{TOK}"
        rf"|(?!\s+(?:[^\s|\d~]+\s+){{1,3}}~?\d[\d.,]*\s*[km]?\s*{TOK}\b))"
        # words between, then a length in tokens ('la sortie c'est un JSON d'à peu près 500
        # tokens', 'a label out, say 5 tokens')
        rf"|{terms('output_before')}(?:\s+(?!{terms('apiece')}\b)[^\s|\d~]+){{1,7}}?\s+~?{_N_APART}"
        rf"\s*{TOK}\b(?!\s+{terms('apiece')}\b)"),
        _length("output_tokens"),
        cues=("answer", "output", "respons", "complet", "repl", "generat", "reponse", "sortie",
              "summar", "resume", "synthes",
              " out ", *sorted({w[:6] for w in entries("output_named")}))),
    Recogniser("documents", ("documents", "document_tokens"), re.compile(
        rf"{N}\s*(?:of\s+|de\s+|d')?{QUALIFIED}{ITEMS}\b(?![\-']){AFTER}{EACH}"), _documents,
        cues=ITEM_CUES),
    # the documents' count said as their volume ('volume is now 5 lakh', 'le volume passe
    # à 1,5 million'): never a volume of tokens or of anything named after it
    Recogniser("volume", ("documents",), re.compile(
        rf"\b{terms('volume_words')}\s+(?:{terms('volume_verbs')}\s+)?(?:{terms('about')}\s+)?"
        rf"{N}(?!\s*(?:{TOK}|{terms('users_counted')}|{terms('requests_counted')}|{RATE})"
        rf"|\s*(?:{terms('duration_units')})\b)"), _documents, cues=tuple(entries("volume_words"))),
    # the documents' length said on its own ('the documents are more like 3000 tokens',
    # '3000 tokens per document', 'les documents font plutôt 3000 tokens'): a batch's
    Recogniser("document_length", ("document_tokens",), re.compile(
        rf"\b{ITEMS}\s+(?:{terms('length_verbs')}\s+)?(?:{terms('about')}\s*)?{N}\s*{TOK}\b"
        rf"(?!\s*/)|{N2}\s*{TOK}\s*{terms('per_each')}\s*{ITEMS}\b"
        # 'each about 3000 tokens', 'each invoice 1000 tokens', '~4000 tokens chacun'
        rf"|\b{terms('apiece')}\s+(?:{ITEMS}\s+)?(?:{terms('about')}\s+)?~?{N3}\s*{TOK}\b"
        rf"|~?{_N_APART}\s*{TOK}\s+(?:{terms('apiece')}|{terms('length_tails')})\b"),
        _document_length,
        cues=(*ITEM_CUES, *entries("apiece"), *entries("length_tails"))),
    Recogniser("headcount", ("users_total", "concurrency"), re.compile(
        rf"(?:{N}\s*(?:de\s+|d'|of\s+)?(?:{terms('their')}\s+)?"
        rf"(?:{QUALIFIER}{HEADS}|{terms('headcount_people')})"
        rf"|{terms('company')} (?:of|de) {N2}(?:\s+(?:{HEADS}|{terms('persons')})|{_NO_GPU})"
        # the people named first, then how many ('lots of users, about 400 of them all up')
        rf"|(?:{HEADS}|{terms('people')})\s*[\s,|]\s*(?:{terms('about')}\s+)?{N3}\s+{terms('of_them')}"
        rf"(?:\s+{terms('all_told')})?)\b"
        rf"{NOT_AT_ONCE}"), _headcount,
        cues=_HEAD_CUES, adds=_headcounts),
    # the servers they have ('we have 2 servers with 4x L40S each'): compared with the answer
    # not a GPU's name ('RTX PRO 6000 Server')
    # 'one 8-GPU H100 node': its GPUs per node were read between, its GPU's name is left
    Recogniser("servers_owned", ("nodes_owned",), re.compile(
        rf"(?<!pro )(?<!rtx ){N}\s*(?:(?:x\s*)?{terms('servers')}\b(?!\s+edition)"
        rf"|\|(?=\s*(?:[a-z][\w-]*\s+)?{terms('servers')}\b(?!\s+edition)))"), _nodes_owned,
        # cued by every word the lexicon has for them ('2 boxes with 4x L40S' too)
        cues=tuple(entries("servers"))),
    # 'the 4xL40S box we already own': one node, theirs (its GPU's name is left)
    Recogniser("server_owned", ("nodes_owned",), re.compile(
        rf"\b{terms('server_one')}\s+{terms('owned_after')}\b"), lambda m, c: {"nodes_owned": 1},
        cues=("own", "have", "got", "avons", "possed", " a ")),
    Recogniser("gpus_per_node", ("gpus_per_node",), re.compile(
        # '8 GPUs', 'an 8-GPU node'; never a GPU's own number ('RTX 5090 cards')
        rf"(?<!rtx )(?<!pro ){N}[\s-]*(?:x\s*)?{terms('gpu_words')}\b"), _gpus,
        cues=("gpu", "card", "carte", "accelerat", "device")),
)


#: What spreads GPUs over servers: '16 H200 across 2 nodes', '16 H100 réparties sur 2 nœuds'
#: (in what is left, both spans already read are '|'; said, the GPUs come first).
_OVER = terms("spread_over")
_SPREAD = re.compile(rf"\|\s+{_OVER}\s+\|")
_SPREAD_SAID = re.compile(rf"(?<![\w.])(?P<n>\d+)\s*x?\s+(?:[^\s|]+\s+){{1,4}}?{_OVER}\s+{N2}\s*"
                          rf"(?:x\s*)?{terms('servers')}\b")


def spread(rest: str, said: str, answers: dict[str, AnswerValue]) -> str:
    """GPUs counted over the servers they said they have are per node divided by the
    servers ('16 H200 across 2 nodes': 8 per node), when the count divides; never two
    other answers side by side ('8 H100 ... 32 users en contexte 32k')."""
    m, s = _SPREAD.search(rest), _SPREAD_SAID.search(said)
    gpus, nodes = answers.get("gpus_per_node"), answers.get("nodes_owned")
    if m is None or s is None or not isinstance(gpus, int) or not isinstance(nodes, int):
        return rest
    said_pair = (number(s["n"]), number(s["m"]))
    if said_pair == (gpus, nodes) and not gpus % nodes:
        answers["gpus_per_node"] = gpus // nodes
    elif said_pair != (gpus * nodes, nodes):  # already read as its nodes ('16 H100': 2 x 8)
        return rest
    return rest[: m.start()] + "| |" + rest[m.end():]
