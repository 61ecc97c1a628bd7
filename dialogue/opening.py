"""Pre-filled answers from an opening sentence: "405b inference 64 users 32k context int4 ok".

Each recogniser takes the span it understood out of the text, so the model name is looked
for in what is left ("405b"), never in "64 users". What no recogniser used is reported
back, so a person sees what was ignored rather than guessing.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import cache

from dialogue import parse
from dialogue.conversation import AnswerValue
from dialogue.parse import NUMBER, SCALE, ParseError

_N = rf"{NUMBER}\s*{SCALE}?(?![a-z0-9])"
_PATTERNS: tuple[tuple[str, str, Callable[[str], AnswerValue]], ...] = (
    ("target", r"\bno (?:throughput )?target\b", lambda s: None),
    ("target", rf"(?<![\w.]){_N}\s*(?:tok(?:en)?s?\s*(?:/|per)\s*s(?:ec(?:ond)?)?|tps|t/s)\b",
     parse.target),
    ("concurrency", rf"(?<![\w.]){_N}\s*(?:concurrent|simultaneous|parallel)?\s*"
     r"(?:users?|requests?|sessions?|streams?|concurrent|clients?|utilisateurs?|requetes?)\b",
     parse.concurrency),
    ("concurrency", rf"\bconcurrency(?: of)?\s*({_N})", parse.concurrency),
    ("context", rf"(?<![\w.]){_N}\s*(?:tokens?\s+(?:of\s+)?)?(?:contexte?|ctx)\b(?:\s+window)?",
     lambda s: parse.context(s, 10_000_000)),
    ("context", rf"\b(?:context|ctx)(?: of| window of)?\s*({_N})",
     lambda s: parse.context(s, 10_000_000)),
    ("tokens", rf"(?<![\w.]){NUMBER}\s*(?:m|b|t|million|billion|trillion|bn)\s*"
     r"(?:training\s+)?tokens?\b",
     parse.tokens),
    ("deadline", rf"\b(?:in|within|under)?\s*(?<![\w.]){NUMBER}\s*"
     r"(?:days?|weeks?|months?|years?)\b",
     parse.deadline),
    ("int4", r"\b(?:no|not|without)\s+int4\b|\bint4\s+(?:is\s+)?(?:not\s+ok|not\s+acceptable|no)\b",
     lambda s: False),
    # a quantized checkpoint named ('...-instruct-awq') says INT4 weights are acceptable
    ("int4", r"\b(?:int4|awq|gptq|4-?bit|w4a16)(?:[-_ ](?:int4|awq|gptq|4-?bit|w4a16)\b)*"
     r"(?:\s+(?:is\s+)?(?:ok|okay|fine|acceptable|allowed|yes))?\b", lambda s: True),
    # a bare "8k" left over is a context length: nothing else in a sizing is written so
    ("context", r"(?<![\w.])\d+\s*k(?![a-z0-9/])", lambda s: parse.context(s, 10_000_000)),
    ("interconnect", r"\b(?:infiniband|ib)\s*(?:ndr|hdr)?\s*\d*(?:\s*gb/?s)?\b|\b\d+\s*g(?:b)?e\b",
     parse.interconnect),
)
_COMPILED = [(slot, re.compile(p), fn) for slot, p, fn in _PATTERNS]
_NOISE = re.compile(
    r"\b(?:we|i|want|would|like|need|plan|to|run|serving?|use|the|a|an|with|and|for|on|at|of|"
    r"please|model|size|sizing|our|in|it|is|ok|okay|hi|hello|hey|how|many|gpus?|do|needs?|over|via|"
    r"using|from|by|about|around|per|requests?|tokens?|can|you|me|help|let's|lets|what|which|"
    r"scratch|own|custom)\b"
)


def extract(
    text: str, *, find_model: bool = True
) -> tuple[dict[str, AnswerValue], list[str], ParseError | None]:
    """The answers an opening sentence gives, the words it did not use, and, when a word
    looked like a model but named none or several, why (so the model question can offer
    the candidates as choices)."""
    answers: dict[str, AnswerValue] = {}
    text = _fold(text)
    rest = " " + " ".join(re.sub(r"(?<!\d),|,(?!\d)", " ", text.lower()).split()) + " "
    rest = re.sub(r"(\d) (\d{3})\b", r"\1\2", rest)  # "128 000" -> "128000"
    for slot, rx, fn in _COMPILED:
        if slot in answers:
            continue
        m = rx.search(rest)
        if m is None:
            continue
        span = m.group(1) if m.groups() and m.group(1) else m.group(0)
        try:
            answers[slot] = fn(span.strip())
        except ParseError:
            continue
        rest = rest[: m.start()] + " | " + rest[m.end():]
    rest = _find_gpu(rest, answers)
    wm = parse.WORKLOAD_RE.search(rest)
    if wm is not None and wm.lastgroup is not None:
        answers["workload"] = wm.lastgroup.replace("_", "-")
        rest = rest[: wm.start()] + " | " + rest[wm.end():]
    elif "concurrency" in answers or "target" in answers:
        answers["workload"] = "inference"  # users and tokens/s are only ever served
    if not find_model:  # the answers beside a question's own (no catalog search: cheap)
        return answers, [c.strip() for c in rest.split("|") if c.strip()], None
    return (*_find_model(rest, answers),)


MODEL_TRIES = 48  # catalog look-ups per message: a long message stays a fast turn
_LONG_WORD = 120  # longer than any model name or Hugging Face URL
_SIZE = re.compile(r"\d+(?:\.\d+)?[bmt]")
_TOKEN_SEP = re.compile(r"[\s_/:()-]+")


@cache
def _model_blob() -> str:
    """Every catalog key of every model, normalized, for a cheap 'could be part of a name'."""
    return "|".join(_model_token_lists_flat())


@cache
def _model_token_lists() -> dict[str, tuple[tuple[str, ...], ...]]:
    """Per model id, each of its names split into normalized tokens ('3.3' stays one)."""
    from engine.catalog import catalog

    out: dict[str, tuple[tuple[str, ...], ...]] = {}
    for m in catalog().models.values():
        names = [m.id, m.name, m.hf_id, *m.aliases]
        out[m.id] = tuple(
            tuple(t for t in (parse.normalize(x) for x in _TOKEN_SEP.split(n.lower())) if t)
            for n in names
        )
    return out


def _model_token_lists_flat() -> list[str]:
    return ["".join(toks) for lists in _model_token_lists().values() for toks in lists]


def _aligned(words: list[str], model_id: str) -> bool:
    """Whether the words spell whole tokens of one of the model's names: 'llama 3.1 70b'
    and 'qwen 3 32b' do, but '3 70b' is not 'Llama 3.3 70B' (its '3' is half of '3.3')."""
    want = parse.normalize("".join(words))
    for toks in _model_token_lists().get(model_id, ()):
        for i in range(len(toks)):
            joined = ""
            for t in toks[i:]:
                joined += t
                if joined == want:
                    return True
                if len(joined) >= len(want):
                    break
    return False


def _plausible(words: list[str]) -> bool:
    """A window of several words is worth a catalog look-up only if each word could be
    part of a model's name (or is a size such as '30b')."""
    if parse.params(" ".join(words)) is not None:  # 'a 30b dense', '70 billion params'
        return True
    blob = _model_blob()
    return all(
        "/" in w or _SIZE.fullmatch(w) is not None or parse.normalize(w) in blob for w in words
    )


def _fold(text: str) -> str:
    """Accents off ('inférence' -> 'inference'), so a French opening still matches."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


@cache
def _gpu_keys() -> frozenset[str]:
    """Every GPU name the catalog knows, normalized; bare numbers ('5090') left out, since
    in a sentence a number is more often a count."""
    from engine.catalog import catalog

    keys = {parse.normalize(k) for g in catalog().gpus.values() for k in (g.id, g.name, *g.aliases)}
    return frozenset(k for k in keys if not k.isdigit())


def _find_gpu(rest: str, answers: dict[str, AnswerValue]) -> str:
    """Take a GPU named in the sentence ('on 8x H100s') out of it: exact catalog names only."""
    words = rest.split(" ")
    for size in (4, 3, 2, 1):
        for i in range(len(words) - size + 1):
            window = " ".join(words[i : i + size])
            if "|" in window or not window.strip():
                continue
            for cand in parse.gpu_candidates(window):
                if parse.normalize(cand) in _gpu_keys():
                    answers["gpu"] = parse.gpu(cand)
                    return " ".join([*words[:i], "|", *words[i + size :]])
    return rest


def _find_model(
    rest: str, answers: dict[str, AnswerValue]
) -> tuple[dict[str, AnswerValue], list[str], ParseError | None]:
    hint: ParseError | None = None
    tries = 0
    chunks = [c.split() for c in rest.split("|")]
    chunks = [[w for w in c if not _NOISE.fullmatch(w)] for c in chunks]
    # the longest run of words that names a model wins; then shorter runs
    for chunk_i, words in sorted(enumerate(chunks), key=lambda c: -len(c[1])):
        for size in range(min(len(words), 5), 0, -1):
            for i in range(len(words) - size + 1):
                window = words[i : i + size]
                if any(len(w) > _LONG_WORD for w in window):
                    continue
                if size > 1 and not _plausible(window):
                    continue
                if tries >= MODEL_TRIES:
                    return answers, [" ".join(c) for c in chunks if c], hint
                tries += 1
                cand = " ".join(window)
                try:
                    found = parse.model(cand)
                except ParseError as exc:
                    if exc.suggestions and hint is None:  # the longest text with suggestions
                        hint = exc
                    continue
                if size > 1 and isinstance(found, str) and not _aligned(window, found):
                    continue
                answers["model"] = found
                # words of the name the catalog did not need ("llama" beside "405b")
                key = parse.normalize(str(found)) + parse.normalize(slots_name(found))
                left = [w for w in words[:i] + words[i + size :] if parse.normalize(w) not in key]
                chunks[chunk_i] = left
                return answers, [" ".join(c) for c in chunks if c], None
    return answers, [" ".join(c) for c in chunks if c], hint


def slots_name(found: AnswerValue) -> str:
    from engine.catalog import catalog

    spec = catalog().models.get(found) if isinstance(found, str) else None
    return spec.name if spec is not None else ""
