"""The opening's own phrases, and the one order every recogniser runs in: speeds and
targets, first-token bounds, contexts, training budgets and deadlines, 4-bit consent and
refusal, weight and KV formats, users at once ('64 concurrent users', '500 users' taken
whole). The customer's terms (``load.py``), shares and periods of people (``audience.py``)
and training sets (``dataset.py``) bring theirs; ``ORDER`` names them all.

Why apart from ``opening.py``: these are the table of what a sentence may say, read by
``opening.extract`` one recogniser at a time; the extraction (spans taken out, corrections,
what is left over, the sentence-wide steps) is the procedure that uses it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from dialogue.understand import dataset, load, names, numbers
from dialogue.understand.audience import OVER_A_PERIOD, SHARE_FIRST, SHARE_OF_PEOPLE
from dialogue.understand.lexicon import entries, terms
from dialogue.understand.load import AnswerValue, Context, Reading, Recogniser
from dialogue.understand.negation import negated
from dialogue.understand.patterns import HEADS, TOK, N, counted
from dialogue.understand.text import fold
from engine.catalog import catalog
from engine.units import NUMBER

__all__ = ["ORDER", "RECOGNISERS", "counts_users"]

#: a number before 'context' is never in billions ('llama 3.3 70b contexte 16k': the model's)
_CTX_N = counted("n", terms("context_scales"))
_UNLIMITED = 10**9  # the opening reads any length; the model's limit is checked by the flow


def _one(key: str, reader: Callable[[str, Context], AnswerValue]
         ) -> Callable[[re.Match[str], Context], Reading | None]:
    """A recogniser's reading of one key by one of ``numbers``' readers (on the span); the
    reader's refusal ('200000 users': more than it takes) is the sentence's to say."""
    def read(m: re.Match[str], ctx: Context) -> Reading | None:
        span = m.groupdict().get("v") or m.group(0)
        return {key: reader(span.strip(), ctx)}
    return read


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


_CONTEXT = _one("context", lambda s, c: numbers.context(s, _UNLIMITED, None))


#: a verb that denies what was just named, a few words on ('..., we don't want it')
_DENIED_AFTER = re.compile(rf"(?:\s+[^\s|]+){{0,3}}?\s+{terms('denied_after')}(?=\s|$)")


def _denied(m: re.Match[str]) -> bool:
    """4-bit weights named with a refusal before them ('the client does not accept
    quantization in 4 bits') or a denying verb a few words after ('4-bit, we don't want
    it'): never a consent, whatever words stand between."""
    return _DENIED_AFTER.match(m.string, m.end()) is not None or negated(m.string, m.start())


#: not the whole of a share ('1 in 4', '1 sur 4'): what stands before it says so
_NOT_A_SHARE = re.compile(rf"(?:^|\s){terms('share_of')}\s*$")
_OWN: tuple[Recogniser, ...] = (
    Recogniser("no_target", ("target_tokens_per_s",), _rx(
        rf"\b{terms('no_target_said')}\b"), lambda m, c: {
            "target_tokens_per_s": None},
        cues=("target", "objectif", "requirement")),
    # a total's words go with it ('a throughput of 3000 tok/s', '300 tok/s in total')
    Recogniser("throughput", ("target_tokens_per_s",), _rx(
        rf"(?:\b(?:{terms('one_article')} )?(?:{terms('total_before')} )?{terms('throughput')}"
        rf"(?: {terms('total_after')})?(?: {terms('target_word')})?(?:\s?{terms('of_eq')})?\s*)?"
        rf"(?P<v>{N}\s*(?:{numbers.RATE}))(?:\s*{terms('in_total_after')}\b)?"),
               _one("target_tokens_per_s", lambda s, c: numbers.target(s)),
        cues=("tok", "tps", "jeton", "t/s")),
    # never a model's size before its checkpoint's word ('llama2 7b chat': no 7B chats)
    Recogniser("users_at_once", ("concurrency",), _rx(
        rf"(?P<v>(?![\d.]+b\b){N}\s*{terms('users_before')}?\s*{terms('users_counted')}\b"
        rf"(?:\s+(?:{terms('using_it')}\s+)?{terms('users_at_once_after')}\b)?)"),
        lambda m, c: _users(m["v"]),
        cues=("user", "req", "session", "stream", "concurren", "client",
              "utilisateur", "conversation", "chat")),
    # never the whole a share is of ('un utilisateur sur quatre en même temps')
    Recogniser("people_at_once", ("concurrency",), _rx(
        rf"(?P<v>{N})\s*(?:{terms('among_them')}\s+)?(?:{terms('people')}|{HEADS})?\s*"
        rf"(?:{terms('using_it')}\s+)?{terms('said_at_once')}"),
        lambda m, c: None if _NOT_A_SHARE.search(m.string, 0, m.start()) else {
            "concurrency": numbers.concurrency(m["v"].strip())},
        cues=("once", "same time", "concurren", "simultan", "parallel", "meme temps",
              "fois")),
    Recogniser("concurrency_named", ("concurrency",),
               # never a number of the next answer ('10% peak concurrency, 8k context')
               _rx(rf"\bconcurren(?:cy|ce)(?: of| de)?\s*(?P<v>{N})"
                   rf"(?!\s*{terms('context_word')}\b)"),
               _one("concurrency", lambda s, c: numbers.concurrency(s)),
        cues=("concurren",)),
    Recogniser("context_after", ("context",), _rx(
        rf"(?P<v>{_CTX_N}\s*(?:{terms('tokens_of')}\s+)?{terms('context_word')}\b"
        r"(?:\s+window)?)"), _CONTEXT, cues=("context", "ctx")),
    Recogniser("context_before", ("context",), _rx(
        rf"\b{terms('context_word')}(?: {terms('length_window')})?"
        # up to two words before its 'of' ('le contexte retenu serait de 16 000 tokens')
        rf"(?:(?:\s+(?!{terms('context_of')}\b)[a-z]+){{0,2}}?\s*{terms('context_of')})?"
        rf"\s*(?P<v>{N})(?:\s*{TOK})?"), _CONTEXT, cues=("context", "ctx")),
    Recogniser("training_budget", ("train_tokens",), _rx(
        # or in digits past a budget's floor ('30000000 tokens': '3 crore', '30 000 000')
        rf"(?P<v>(?<![\w.\-])(?:{NUMBER}\s*{terms('big_scales')}|\d{{7,}}(?![\w.,]))\s*"
        rf"(?:{terms('training_of')}\s*)?{TOK}\b)"),
        _one("train_tokens", lambda s, c: numbers.tokens(s, c.lang)),
        cues=("tok", "jeton")),
    Recogniser("deadline", ("deadline_days",), _rx(
        rf"(?P<v>\b{terms('within')}?\s*(?<![\w.\-]){NUMBER}[\s-]*{terms('duration_units')}\b"
        rf"(?!\s+{terms('every')}\s+{terms('period_unit')}\b"
        rf"|\s+{terms('of_amount')}\b\s*(?!{terms('compute')}\b)[a-z])"
        rf"(?:\s+{terms('at_most_after')})?)"),  # not '8 hours a day',
        # nor an amount ('1000 hours of audio', '500 heures de video')
        _one("deadline_days", lambda s, c: numbers.deadline(s)),
        cues=tuple(entries("duration_units"))),
    # no bound on a run's time ('no deadline', 'pas pressé'): the default, said as assumed
    Recogniser("deadline_open", ("deadline_days",), _rx(rf"\b{terms('open_ended_said')}\b"),
               lambda m, c: {"deadline_days": catalog().policy.default_deadline_days},
               frozenset({"deadline_days"}), training_only=True),
    Recogniser("int4_refused", ("int4",), _rx(
        rf"\b{terms('int4_refusing')}\s*(?:{terms('int4_filler')}\s+)*(?:l')?{terms('int4_words')}\b"
        # '... quantization in 4 bits', '4-bit quantization': one refusal, taken whole
        rf"(?:\s+(?:{terms('int4_filler')}\s+)?{terms('int4_words')}\b)*"
        rf"|\b{terms('int4_words')}\s+(?:{terms('is')}\s+)?{terms('refused_after')}\b"),
        lambda m, c: {"int4": False}, cues=("int", "4-bit", "4bit", "4 bit", "quanti")),
    Recogniser("int4_accepted", ("int4",), _rx(
        rf"\b{terms('int4_words')}\s+(?:{terms('is')}\s+)?{terms('accepted_after')}\b"
        # 'run it at 4-bit', 'quantifié en 4 bits'
        rf"|(?<!not )(?<!pas )\b{terms('int4_at')} (?:l'|the )?{terms('int4_bits')}\b"
        rf"|\b{terms('int4_bits')} {terms('weights_word')}\b"),
        # never a consent a verb just after denies ('la quantification en 4 bits, nous n'en
        # voulons pas'): nothing is taken, the question asks it
        lambda m, c: None if _denied(m) else {"int4": True},
        cues=("int", "4-bit", "4bit", "4 bit", "quanti")),
    # MXFP4 said (gpt-oss ships in it): 4-bit weights, the engine's best 4-bit format
    Recogniser("mxfp4", ("int4",), _rx(r"\bmx-?fp4\b"), lambda m, c: {"int4": True}, cues=("fp4",)),
    # a quantized checkpoint named ('...-instruct-awq') says INT4 weights are acceptable
    Recogniser("quantized_checkpoint", ("int4",), _rx(
        rf"\b{terms('quantized')}(?:[-_ ]{terms('quantized_tail')}\b)*\b"),
        lambda m, c: None if _denied(m) else {"int4": True},
        frozenset({"int4"}),
        cues=("int", "awq", "gptq", "w4a16", "4 bit", "4bit", "4-bit")),
    # a bare "8k" left over is a context length: nothing else in a sizing is written so
    Recogniser("bare_k", ("context",), _rx(r"(?P<v>(?<![\w.\-])\d+\s*k)(?![a-z0-9/])"), _CONTEXT,
               cues=("k",)),
    Recogniser("link", ("interconnect",), _rx(names.LINK_RE),
        _one("interconnect", lambda s, c: names.interconnect(s)),
        cues=("infiniband", "ib", "gb", "ge", "ethernet", "roce")),
    # InfiniBand said without its generation or speed: the catalog's (HDR 200), assumed
    Recogniser("infiniband_alone", ("interconnect",), _rx(rf"\b{terms('infiniband')}\b"),
               _one("interconnect", lambda s, c: names.interconnect(s)),
               frozenset({"interconnect"}), cues=("infiniband", "ib")),
    # a KV cache's format ('an FP8 KV cache', 'cache KV en FP8'), before the weights'
    Recogniser("kv_format", ("kv_precision",), _rx(names.KV_FORMAT_RE.pattern),
               lambda m, c: {"kv_precision": names.kv_format(m)}, cues=("kv",)),
    # a weight format ('in FP8', 'en bf16', '16-bit weights'); not a KV cache's ('FP8 KV')
    Recogniser("weight_format", ("precision",), _rx(rf"(?P<v>{names.PRECISION_RE.pattern})"),
               lambda m, c: {"precision": names.precision(m.group("v"))}
               if names.weights_format_at(m.string, m.start(), m.end()) else None,
               cues=("fp", "bf16", "bit", "float", "precision", "e4m3")),
)
#: what says a count of users is of users at once ('64 concurrent users', '64 users at once')
_AT_ONCE_SAID = re.compile(rf"{terms('at_once_hints')}|actifs?\b|\bpic\b")
_USERS = re.compile(rf"\b{terms('user_nouns')}\b")


def counts_users(text: str) -> bool:
    """Whether a text counts users ('200 users'), as against people, employees or seats."""
    return _USERS.search(fold(text)) is not None


def _users(said: str) -> Reading:
    """'64 concurrent users' is 64 at once; '500 users' a headcount of people, all of them
    taken at once (assumed and said so, with one click to a share of them), as '500 people' is."""
    n = numbers.concurrency(said)
    if _USERS.search(said) and not _AT_ONCE_SAID.search(said) and n >= 2:
        return {"users_total": n, "concurrency": n, load.ASSUMED: "concurrency"}
    return {"concurrency": n}


#: '1 million users' (more than are ever at once): a headcount, its share at once assumed
_MANY_USERS = Recogniser("many_users", ("users_total",), _rx(
    rf"{N}\s*{terms('user_nouns')}\b{load.NOT_AT_ONCE}"), load.many_users,
    frozenset({"concurrency"}), cues=("user", "utilisateur"))
#: The order the recognisers run in, by name: each takes its span out of the sentence, so
#: one that runs first wins the words it reads. A per-user speed before an aggregate rate;
#: examples before anything counted ('20k examples of 1k tokens' is a budget, not a 20k
#: context); requests/s and prompt and answer lengths before a bare '8k'; documents before
#: days; a share of people and people over a period before users at once; more users than
#: are ever at once before 'users' (a count at once), a headcount after it; a bare '8k'
#: after every named length.
ORDER: tuple[str, ...] = (
    "no_target", "speed_per_user", "speed_like_chatgpt", "reading_speed",
    "examples", "training_items", "size_on_disk",
    "first_token_after", "first_token_before", "latency",
    "requests_per_second", "rate_short", "rate_long",
    "prompt_and_answer", "documents", "volume", "prompt", "answer", "document_length",
    "share_of_people", "share_first", "people_over_a_period", "many_users",
    "throughput", "users_at_once", "people_at_once", "concurrency_named",
    "headcount",
    "context_after", "context_before", "training_budget", "deadline", "deadline_open",
    "int4_refused", "int4_accepted", "mxfp4", "quantized_checkpoint", "bare_k",
    "link", "infiniband_alone", "kv_format", "weight_format",
    "gpus_per_node", "servers_owned", "server_owned",
)
_ALL = {r.name: r for r in (*_OWN, *load.RECOGNISERS, *dataset.EXAMPLES, SHARE_OF_PEOPLE,
                            SHARE_FIRST, OVER_A_PERIOD, _MANY_USERS)}
if set(_ALL) != set(ORDER):  # a recogniser left out of the order, or a name no one has
    raise RuntimeError(f"recognisers and their order differ: {set(_ALL) ^ set(ORDER)}")
RECOGNISERS: tuple[Recogniser, ...] = tuple(_ALL[name] for name in ORDER)
