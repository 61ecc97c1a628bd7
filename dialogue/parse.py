"""LLM-free reading of what people type: numbers with units, yes/no, workloads, names.

Each parser takes the raw text and returns a normalized value or raises ``ParseError``
with the sentence a person should read ("I need a number of concurrent requests between
1 and 100,000; '3O' isn't one"). Shorthands follow how people write sizing questions:
``32k`` context is 32,768 tokens (context windows are powers of two), but ``6k tok/s`` is
6,000 and ``1.5T tokens`` is 1.5e12 (rates and budgets are decimal).
"""

from __future__ import annotations

import math
import re

from engine.catalog import UnknownEntry, UnknownModel, catalog, normalize
from engine.request import DEFAULT_INTERCONNECT

__all__ = ["ParseError", "normalize"]


class ParseError(ValueError):
    """The text does not answer the question; ``message`` says what was expected."""

    def __init__(
        self, message: str, suggestions: list[str] | None = None, *, ambiguous: bool = False
    ) -> None:
        self.message = message
        self.suggestions = suggestions or []
        self.ambiguous = ambiguous  # the text named several catalog entries, not none
        super().__init__(message)


# -- numbers -------------------------------------------------------------------------------

# "128 000", "100,000", "1.5", ".5": thousands groups only with exactly three digits; a
# comma followed by one or two digits is a decimal comma ("1,5T", as French speakers write).
NUMBER = (r"(?:\d{1,3}(?:[ ,_]\d{3})+(?:\.\d+)?(?!,\d)|\d+,\d{1,2}(?![\d,])|\d+(?:\.\d+)?"
          r"|\.\d+)")
_SCALE_WORDS = {
    "k": 1e3, "thousand": 1e3, "m": 1e6, "mn": 1e6, "million": 1e6, "b": 1e9, "bn": 1e9,
    "billion": 1e9, "t": 1e12, "trillion": 1e12,
}
SCALE = r"(?:thousand|million|billion|trillion|bn|mn|k|m|b|t)"
_QUANTITY = re.compile(rf"^\s*(?P<num>{NUMBER})\s*(?P<scale>{SCALE})?(?![a-z])\s*(?P<rest>.*?)\s*$")
_WORD_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "twelve": 12,
}


def to_number(num: str) -> float:
    if re.fullmatch(r"\d+,\d{1,2}", num):  # a decimal comma
        return float(num.replace(",", "."))
    return float(re.sub(r"[ ,_]", "", num))


_UNITS_WORDS = [
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen",
]
_TENS_WORDS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_SPELLED = re.compile(
    r"^\s*(?P<words>(?:(?:" + "|".join(_UNITS_WORDS + _TENS_WORDS + ["hundred", "a"])
    + r")(?:[\s-]+|$))+)(?P<rest>.*)$"
)


def spelled(text: str) -> str:
    """'sixty four users' -> '64 users', 'two hundred' -> '200'; anything else unchanged."""
    m = _SPELLED.match(text.lower())
    if m is None:
        return text
    total, words = 0, m["words"].replace("-", " ").split()
    if words == ["a"]:
        return text
    for w in words:
        if w == "hundred":
            total = max(total, 1) * 100
        elif w == "a":
            total += 1
        elif w in _TENS_WORDS:
            total += 20 + 10 * _TENS_WORDS.index(w)
        else:
            total += _UNITS_WORDS.index(w)
    return f"{total} {m['rest']}".strip()


def quantity(text: str, *, k: float = 1e3) -> tuple[float, str] | None:
    """Split '32k tokens' into (32 * k, 'tokens'); None when no number leads the text."""
    m = _QUANTITY.match(spelled(text).lower())
    if m is None:
        return None
    value = to_number(m["num"])
    scale = m["scale"]
    if scale:
        value *= k if scale in ("k", "thousand") else _SCALE_WORDS[scale]
    if not math.isfinite(value):  # '1' x 400 digits: no answer is that large
        return None
    return value, m["rest"]


def _show(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 40 else text[:37] + "..."


def _words(text: str) -> str:
    """Lower-cased words; a comma survives only between digits ('1,5T', '100,000')."""
    t = re.sub(r"[^\w/.,+-]+", " ", text.lower())
    return " ".join(re.sub(r"(?<!\d),|,(?!\d)", " ", t).split())


_FILLER = (r"(?:about|around|roughly|approx(?:imately)?|~|up to|max(?:imum)?|at most"
           r"|peak(?: of)?)\s*")


def _strip_filler(text: str) -> str:
    return re.sub(rf"^(?:{_FILLER})+", "", text.strip().lower())


def _bounded_int(text: str, lo: int, hi: int, units: str, what: str, k: float = 1e3) -> int:
    q = quantity(_strip_filler(text), k=k)
    ok = q is not None and re.fullmatch(units, q[1]) is not None
    if q is not None and ok and q[0] == int(q[0]) and lo <= q[0] <= hi:
        return int(q[0])
    raise ParseError(f"I need {what} between {lo:,} and {hi:,}; '{_show(text)}' isn't one")


CONCURRENCY_MAX = 100_000
_USERS = r"(?:(?:concurrent|simultaneous|parallel|active)?\s*(?:users?|requests?|sessions?|streams?"
_USERS += r"|conversations?|chats?|clients?|utilisateurs?|requetes?)?"
_USERS += r"\s*(?:at once|in parallel|concurrently|at peak)?"
_USERS += r"|concurrent|in parallel|at once|parallel)"


def concurrency(text: str) -> int:
    return _bounded_int(
        text, 1, CONCURRENCY_MAX, _USERS, "a number of concurrent requests"
    )


_CONTEXT_UNITS = (r"(?:(?:tokens?|toks?)?\s*(?:of\s+)?(?:contexte?(?: window| length)?|ctx)?"
                  r"(?: per request)?)")


def context(text: str, max_context: int, model: str = "The model") -> int:
    t = _strip_filler(text)
    if re.fullmatch(r"\d{1,3}", t) and int(t) >= 1:
        # a bare '64' is almost always 64k (or a choice's number): ask, do not size 64 tokens
        k = int(t) * 1024
        if k <= max_context:
            raise ParseError(f"Only {t} tokens per request, or did you mean {t}k ({k:,} "
                             f"tokens)? Type '{t}k', or '{t} tokens' to size {t}")
        raise ParseError(f"Only {t} tokens per request? Type '{t} tokens' to size that, or a "
                         "context such as 8k")
    try:
        return _bounded_int(
            text, 1, max_context, _CONTEXT_UNITS,
            "a context length in tokens (e.g. 8k, 32k)", k=1024,
        )
    except ParseError:
        wide = None
        if _fits_units(text):
            wide = _bounded_int(text, 1, 10**9, _CONTEXT_UNITS, "a context length", k=1024)
        if wide is not None and wide > max_context:  # a length, just beyond this model
            raise ParseError(f"{model} takes at most {max_context:,} tokens of context; "
                             f"'{_show(text)}' is {wide:,}") from None
        raise


def _fits_units(text: str) -> bool:
    q = quantity(_strip_filler(text), k=1024)
    return q is not None and re.fullmatch(_CONTEXT_UNITS, q[1]) is not None and q[0] == int(q[0])


TARGET_MAX = 1e9
_NO = r"(?:no|none|nope|n/a|na|skip|no target|no throughput target|nothing|not really|don't care"
_NO += r"|dont care|no requirement|-)"
_RATE = (r"(?:tok(?:en)?s?\s*(?:/|per)\s*s(?:ec(?:ond)?)?|tps|t/s|tok/s)"
         r"(?: aggregate| total| overall)?")


def target(text: str) -> float | None:
    """An aggregate throughput target in tokens/s, or None for 'no target'."""
    t = _words(text)
    if re.fullmatch(_NO, t):
        return None
    q = quantity(_strip_filler(t.replace("aggregate ", "")))
    if q is not None and re.fullmatch(rf"(?:{_RATE})?", q[1]) and 1 <= q[0] <= TARGET_MAX:
        return q[0]
    if t in _YES:  # 'yes' to 'do you have a target?': then which one
        raise ParseError("Which target? Type it in tokens per second (e.g. 6000 tok/s)")
    raise ParseError(
        f"I need a throughput target in tokens per second (e.g. 6000 tok/s, 6k tokens per "
        f"second) or 'no target'; '{_show(text)}' isn't one"
    )


TOKENS_MIN, TOKENS_MAX = 1e6, 1e15


def tokens(text: str) -> float:
    """A training token budget: '1B tokens', '1.5T', '500 million tokens'."""
    q = quantity(_strip_filler(_words(text)))
    units = r"(?:training\s+)?(?:tokens?|toks?)?(?: of (?:data|text))?"
    if q is not None and re.fullmatch(units, q[1]) and TOKENS_MIN <= q[0] <= TOKENS_MAX:
        return q[0]
    raise ParseError(
        "I need a training token budget between 1M and 1,000T tokens (e.g. 1B tokens, "
        f"1.5T tokens); '{_show(text)}' isn't one"
    )


DEADLINE_MAX_DAYS = 3650
_DAYS = {
    "h": 1 / 24, "hr": 1 / 24, "hrs": 1 / 24, "hour": 1 / 24, "hours": 1 / 24,
    "d": 1, "day": 1, "days": 1, "w": 7, "wk": 7, "wks": 7, "week": 7, "weeks": 7,
    "mo": 30, "month": 30, "months": 30, "y": 365, "yr": 365, "year": 365, "years": 365,
}
_DURATION = re.compile(
    rf"^(?:in|within|under|less than|by|about|around|max|at most)?\s*(?P<num>{NUMBER}|"
    + "|".join(_WORD_NUMBERS) + r")\s*(?P<unit>" + "|".join(sorted(_DAYS, key=len, reverse=True))
    + r")?$"
)


def deadline(text: str) -> float:
    """A deadline in days: '30 days', '2 weeks', '3 months' (30 days each), a bare number."""
    m = _DURATION.match(_words(text))
    if m is not None:
        raw = m["num"]
        n = float(_WORD_NUMBERS[raw]) if raw in _WORD_NUMBERS else to_number(raw)
        days = n * _DAYS[m["unit"] or "d"]
        if 0 < days <= DEADLINE_MAX_DAYS:
            return days
    raise ParseError(
        "I need a deadline (e.g. 30 days, 2 weeks, 3 months) of at most 10 years; "
        f"'{_show(text)}' isn't one"
    )


# -- yes / no ------------------------------------------------------------------------------

_YES = {"yes", "y", "yeah", "yep", "yup", "ok", "okay", "sure", "fine", "acceptable", "true",
        "allowed", "good", "go", "agreed", "absolutely", "please", "int4"}
_NEG = {"no", "n", "nope", "nah", "not", "never", "don't", "dont", "unacceptable", "false",
        "without", "avoid", "rather"}


def yes_no(text: str) -> bool:
    words = set(re.findall(r"[a-z0-9']+", text.lower()))
    if words & _NEG:
        return False
    if words & _YES:
        return True
    raise ParseError(f"I need a yes or a no; '{_show(text)}' isn't one")


# -- workloads -----------------------------------------------------------------------------

WORKLOADS = ("inference", "lora", "qlora", "full-finetune", "pretrain")
_WORKLOAD_PATTERNS: tuple[tuple[str, str], ...] = (
    ("qlora", r"q-?lora"),
    ("lora", r"lora|peft|adapters?"),
    ("pretrain", r"pre-?train(?:ing|ed)?|(?:train(?:ing)?|build(?:ing)?) (?:it |a model |one )?"
                 r"from scratch|from scratch"),
    ("full-finetune", r"(?:full[- ]?)?fine[- ]?tun(?:e|ed|es|ing)|full[- ]?finetun\w*|finetun\w*|"
                      r"full[- ]?ft|sft|full[- ]train(?:ing)?|full"),
    ("inference", r"inferenc\w*|serv(?:e|es|ed|ing)|deploy\w*|chat\w*|api|production|rag|host\w*|"
                  r"run(?:ning)? it"),
)
WORKLOAD_RE = re.compile(
    "|".join(rf"(?P<{name.replace('-', '_')}>\b(?:{pat})\b)" for name, pat in _WORKLOAD_PATTERNS)
)


def workload(text: str) -> str:
    t = text.strip().lower()
    if t in WORKLOADS:
        return t
    m = WORKLOAD_RE.search(t)
    if m is not None and m.lastgroup is not None:
        return m.lastgroup.replace("_", "-")
    raise ParseError(
        "I need a workload: inference (serving), LoRA, QLoRA, full fine-tune or pretraining "
        f"from scratch; '{_show(text)}' isn't one"
    )


# -- names from the catalog ---------------------------------------------------------------

_PARAMS = re.compile(
    rf"^(?:an?\s+)?(?P<num>{NUMBER})\s*(?P<scale>b|bn|billion|m|million|t|trillion)\b\s*"
    r"(?P<rest>(?:dense\s*)?(?:param(?:eter)?s?|model|llm)?(?:\s*dense)?(?:\s*(?:param(?:eter)?s?|model|llm))?)$"
)
PARAMS_MAX_B = 100_000.0
_MODEL_FILLER = re.compile(
    r"^(?:(?:we|i)\s+(?:want|would like|need|plan)\s+to\s+(?:run|serve|use|train|deploy)\s+|"
    r"(?:run|serve|use|deploy|train)\s+)?(?:the\s+|a\s+|an\s+)?", re.I
)


def params(text: str, *, explicit: bool = True) -> float | None:
    """A parameter count in billions from '30b params', 'a 30B dense model', '70 billion'.

    ``explicit`` demands a word ('params', 'dense', 'billion', 'model') so that '405b' stays
    a model name the catalog can resolve; the model question falls back to bare sizes.
    """
    m = _PARAMS.match(_words(text))
    if m is None:
        return None
    scale = {"b": 1.0, "bn": 1.0, "billion": 1.0, "m": 1e-3, "million": 1e-3, "t": 1e3,
             "trillion": 1e3}[m["scale"]]
    if explicit and not m["rest"] and m["scale"] in ("b", "m", "t"):
        return None
    value = to_number(m["num"]) * scale
    return value if 0 < value <= PARAMS_MAX_B else None


def model(text: str) -> str | float:
    """A catalog model id, or a parameter count (billions) as a float."""
    p = params(text)
    if p is not None:
        return p
    cleaned = _MODEL_FILLER.sub("", text.strip())
    try:
        return catalog().model(cleaned or text).id
    except UnknownModel as exc:
        bare = params(text, explicit=False)
        if bare is not None and not exc.ambiguous:
            return bare
        names = [catalog().models[s].name for s in exc.suggestions if s in catalog().models]
        if exc.ambiguous:
            msg = f"'{_show(text)}' could be several models: {', '.join(names)}. Which one?"
        elif names:
            msg = f"I don't know '{_show(text)}'; did you mean {', '.join(names)}?"
        else:
            msg = f"I don't know '{_show(text)}'."
        msg += " You can also give a parameter count, e.g. 'a 30B dense model' or '30b params'."
        raise ParseError(msg, exc.suggestions, ambiguous=exc.ambiguous) from None


_GPU_COUNT = re.compile(r"^(?:\d+\s*(?:x|×)\s*|\d+\s+)")
_GPU_SIZE = re.compile(r"\s*\(\s*\d+(?:\.\d+)?\s*gb\s*\)\s*$", re.I)


def gpu_candidates(text: str) -> list[str]:
    """What a person may type for a GPU, bare: '8x H100s' -> 'H100s', 'H100'; a label
    read off a button 'NVIDIA L40S (48 GB)' -> 'NVIDIA L40S'."""
    t = _GPU_SIZE.sub("", " ".join(text.split()))
    t = _GPU_COUNT.sub("", t, count=1) or t
    out = [t]
    if t.lower().endswith("s") and not t.lower().endswith(("l40s", "gpus")):
        out.append(t[:-1])  # a plural: 'H100s', '5090s'
    return out


def gpu(text: str) -> str:
    for cand in gpu_candidates(text)[1:]:
        try:
            return catalog().gpu(cand).id
        except UnknownEntry:
            continue
    try:
        return catalog().gpu(gpu_candidates(text)[0]).id
    except UnknownEntry as exc:
        names = [catalog().gpus[s].name for s in exc.suggestions if s in catalog().gpus]
        hint = f"; did you mean {', '.join(names)}?" if names else ""
        raise ParseError(f"I don't know the GPU '{_show(text)}'{hint}", exc.suggestions) from None


_UNSURE = re.compile(r"(?:i\s+)?(?:don'?\s?t|do not)\s+know|not sure|no idea|unsure|dunno|idk|"
                     r"default|whatever|any|either|you (?:pick|choose|decide)|recommend\w*|"
                     r"what do you (?:recommend|suggest)")


def interconnect(text: str) -> str:
    """A link between nodes; 'don't know' takes the default (the usual InfiniBand HDR), which
    the answers then show, so the person sees what was assumed."""
    t = text.strip()
    said = _words(t).rstrip("?")
    if said and _UNSURE.fullmatch(said):
        return DEFAULT_INTERCONNECT
    try:
        link = catalog().link(t)
    except UnknownEntry as exc:
        link = None
        suggestions = exc.suggestions
    else:
        suggestions = []
    if link is not None and link.scope == "inter":
        return link.id
    choices = [lk.name for lk in catalog().links.values() if lk.scope == "inter"]
    inside = f"{link.name} links the GPUs inside a node. " if link is not None else ""
    raise ParseError(
        f"{inside}I need the link between nodes ({', '.join(choices)}); "
        f"'{_show(text)}' isn't one",
        [s for s in suggestions if catalog().links[s].scope == "inter"],
    )
