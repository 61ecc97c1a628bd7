"""Pre-filled answers from an opening sentence: "405b inference 64 users 32k context int4 ok".

Each recogniser takes the span it understood out of the text, so the model name is looked
for in what is left ("405b"), never in "64 users". What no recogniser used is reported
back, so a person sees what was ignored rather than guessing.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from dialogue import parse
from dialogue.conversation import AnswerValue
from dialogue.parse import NUMBER, SCALE, ParseError

_N = rf"{NUMBER}\s*{SCALE}?(?![a-z0-9])"
_PATTERNS: tuple[tuple[str, str, Callable[[str], AnswerValue]], ...] = (
    ("target", r"\bno (?:throughput )?target\b", lambda s: None),
    ("target", rf"(?<![\w.]){_N}\s*(?:tok(?:en)?s?\s*(?:/|per)\s*s(?:ec(?:ond)?)?|tps|t/s)\b",
     parse.target),
    ("concurrency", rf"(?<![\w.]){_N}\s*(?:concurrent|simultaneous|parallel)?\s*"
     r"(?:users?|requests?|sessions?|streams?|concurrent|clients?)\b", parse.concurrency),
    ("concurrency", rf"\bconcurrency(?: of)?\s*({_N})", parse.concurrency),
    ("context", rf"(?<![\w.]){_N}\s*(?:tokens?\s+(?:of\s+)?)?(?:context|ctx)\b(?:\s+window)?",
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
    ("int4", r"\bint4(?:\s+(?:is\s+)?(?:ok|okay|fine|acceptable|allowed|yes))?\b", lambda s: True),
    # a bare "8k" left over is a context length: nothing else in a sizing is written so
    ("context", r"(?<![\w.])\d+\s*k(?![a-z0-9/])", lambda s: parse.context(s, 10_000_000)),
    ("interconnect", r"\b(?:infiniband|ib)\s*(?:ndr|hdr)?\s*\d*(?:\s*gb/?s)?\b|\b\d+\s*g(?:b)?e\b",
     parse.interconnect),
)
_COMPILED = [(slot, re.compile(p), fn) for slot, p, fn in _PATTERNS]
_NOISE = re.compile(
    r"\b(?:we|i|want|would|like|need|plan|to|run|serving?|use|the|a|an|with|and|for|on|at|of|"
    r"please|model|size|sizing|our|in|it|is|ok|okay|hi|hello|hey|how|many|gpus?|do|needs?|over|via|"
    r"using|from|by|about|around|per|requests?|tokens?|can|you|me|help|let's|lets|what|which)\b"
)


def extract(text: str) -> tuple[dict[str, AnswerValue], list[str], ParseError | None]:
    """The answers an opening sentence gives, the words it did not use, and, when a word
    looked like a model but named none or several, why (so the model question can offer
    the candidates as choices)."""
    answers: dict[str, AnswerValue] = {}
    rest = " " + " ".join(text.lower().replace(",", " ").split()) + " "
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
    wm = parse.WORKLOAD_RE.search(rest)
    if wm is not None and wm.lastgroup is not None:
        answers["workload"] = wm.lastgroup.replace("_", "-")
        rest = rest[: wm.start()] + " | " + rest[wm.end():]
    return (*_find_model(rest, answers),)


def _find_model(
    rest: str, answers: dict[str, AnswerValue]
) -> tuple[dict[str, AnswerValue], list[str], ParseError | None]:
    hint: ParseError | None = None
    chunks = [c.split() for c in rest.split("|")]
    chunks = [[w for w in c if not _NOISE.fullmatch(w)] for c in chunks]
    # the longest run of words that names a model wins; then shorter runs
    for chunk_i, words in sorted(enumerate(chunks), key=lambda c: -len(c[1])):
        for size in range(min(len(words), 5), 0, -1):
            for i in range(len(words) - size + 1):
                cand = " ".join(words[i : i + size])
                try:
                    found = parse.model(cand)
                except ParseError as exc:
                    if exc.suggestions and (hint is None or len(cand) > 2):
                        hint = hint if hint is not None and hint.suggestions else exc
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
