"""Several answers in one sentence: "405b inference 64 users 32k context int4 ok",
"inférence llama 3.1 70b pour 64 utilisateurs, contexte 32k".

Each recogniser takes the span it understood out of the text, so the model name is looked
for in what is left ("405b"), never in "64 users". What no recogniser used is reported
back, so a person sees what was ignored rather than guessing; what was inferred rather than
said (users mean serving; an ``-awq`` checkpoint means INT4 weights are fine) is marked, so
the reply says "I assumed". Answers are keyed by slot name (``dialogue.slots``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

from dialogue.errors import ParseError
from dialogue.understand import names, numbers
from dialogue.understand.text import fold
from engine.catalog import catalog, normalize
from engine.units import NUMBER, SCALE, Lang
from engine.wording import text

AnswerValue = str | int | float | bool | None

_N = rf"(?<![\w.\-\u2212]){NUMBER}\s*{SCALE}?(?![a-z0-9])"  # a minus sign is not taken
_UNLIMITED = 10**9  # the opening reads any length; the model's limit is checked by the flow
_Reader = Callable[[str, Lang], AnswerValue]


def _ctx(s: str, lang: Lang) -> AnswerValue:
    return numbers.context(s, _UNLIMITED, text(""))


_PATTERNS: tuple[tuple[str, str, _Reader, bool], ...] = (
    # (slot, pattern, reader, inferred)
    ("target_tokens_per_s", r"\bno (?:throughput )?target\b|\bpas d'objectif(?: de debit)?\b"
     r"|\bsans objectif\b|\baucun objectif\b", lambda s, lang: None, False),
    ("target_tokens_per_s", rf"{_N}\s*(?:{numbers.RATE})", lambda s, lang: numbers.target(s),
     False),
    ("concurrency", rf"{_N}\s*(?:concurrent|simultaneous|parallel)?\s*(?:users?|requests?"
     r"|sessions?|streams?|concurrent|clients?|utilisateurs?|requetes?|personnes?)\b"
     r"(?:\s+(?:simultanes?|simultanees?|en parallele|a la fois|en meme temps|at once"
     r"|concurrently|in parallel))?", lambda s, lang: numbers.concurrency(s), False),
    ("concurrency", rf"\bconcurren(?:cy|ce)(?: of| de)?\s*({_N})",
     lambda s, lang: numbers.concurrency(s), False),
    ("context", rf"{_N}\s*(?:tokens?\s+(?:of\s+)?|jetons?\s+(?:de\s+)?|de\s+)?(?:contexte?|ctx)"
     r"\b(?:\s+window)?", _ctx, False),
    ("context", rf"\b(?:context|contexte|ctx)(?: of| window of| de)?\s*({_N})", _ctx, False),
    ("train_tokens", rf"(?<![\w.\-]){NUMBER}\s*(?:m|b|t|md|mrd|million|billion|trillion|bn"
     r"|milliards?)\s*(?:training\s+|de\s+|d')?(?:tokens?|jetons?)\b", numbers.tokens, False),
    ("deadline_days", rf"\b(?:in|within|under|en|sous|dans)?\s*(?<![\w.\-]){NUMBER}\s*"
     r"(?:days?|weeks?|months?|years?|jours?|semaines?|mois|ans|annees?)\b",
     lambda s, lang: numbers.deadline(s), False),
    ("int4", r"\b(?:no|not|without|sans|pas d'|pas de|avoid\w*|eviter?)\s*(?:l')?int4\b"
     r"|\bint4\s+(?:is\s+)?(?:not\s+ok|not\s+acceptable|no|pas acceptable|non|exclue?)\b",
     lambda s, lang: False, False),
    ("int4", r"\bint4\s+(?:is\s+|est\s+)?(?:ok|okay|fine|acceptable|allowed|yes|oui|acceptee?)\b",
     lambda s, lang: True, False),
    # a quantized checkpoint named ('...-instruct-awq') says INT4 weights are acceptable
    ("int4", r"\b(?:int4|awq|gptq|4-?bit|w4a16)(?:[-_ ](?:int4|awq|gptq|4-?bit|w4a16)\b)*\b",
     lambda s, lang: True, True),
    # a bare "8k" left over is a context length: nothing else in a sizing is written so
    ("context", r"(?<![\w.\-])\d+\s*k(?![a-z0-9/])", _ctx, False),
    ("interconnect", r"\b(?:infiniband|ib)\s*(?:ndr|hdr)?\s*\d*(?:\s*gb/?s)?\b|\b\d+\s*g(?:b)?e\b",
     lambda s, lang: names.interconnect(s), False),
)
_COMPILED = [(slot, re.compile(p), fn, inferred) for slot, p, fn, inferred in _PATTERNS]
_NOISE = re.compile(
    r"\b(?:we|i|want|would|like|need|plan|to|run|serving?|use|the|a|an|with|and|for|on|at|of|"
    r"please|model|size|sizing|our|in|it|is|ok|okay|hi|hello|hey|how|many|gpus?|do|needs?|over|"
    r"via|using|from|by|about|around|per|requests?|tokens?|can|you|me|help|let's|lets|what|"
    r"which|scratch|own|custom|"
    r"nous|voulons|voudrions|veux|voudrais|souhaitons|je|on|faire|tourner|pour|avec|les|des|"
    r"un|une|le|la|de|du|d'|l'|notre|nos|modele|sur|en|et|servir|deployer|combien|il|faut|"
    r"bonjour|salut|svp|merci|dimensionner|dimensionnement|cartes?|serveurs?|zero)\b"
)


@dataclass
class Found:
    """What an opening gave: answers by slot, which of them were inferred, the words no
    reader used, and why a word that looked like a model named none (or several)."""

    answers: dict[str, AnswerValue] = field(default_factory=dict)
    inferred: set[str] = field(default_factory=set)
    leftovers: list[str] = field(default_factory=list)
    hint: ParseError | None = None


def extract(said: str, lang: Lang = "en", *, find_model: bool = True) -> Found:
    """The answers an opening sentence gives (see the module doc). ``find_model=False``
    skips the catalog search: the answers typed beside another question's, cheaply."""
    found = Found()
    t = fold(said)
    rest = " " + " ".join(re.sub(r"(?<!\d),|,(?!\d)", " ", t).split()) + " "
    rest = re.sub(r"(\d) (\d{3})\b", r"\1\2", rest)  # "128 000" -> "128000"
    for slot, rx, fn, inferred in _COMPILED:
        if slot in found.answers:
            continue
        m = rx.search(rest)
        if m is None:
            continue
        span = m.group(1) if m.groups() and m.group(1) else m.group(0)
        try:
            found.answers[slot] = fn(span.strip(), lang)
        except ParseError:
            continue
        if inferred:
            found.inferred.add(slot)
        rest = rest[: m.start()] + " | " + rest[m.end():]
    rest = _find_gpu(rest, found)
    work = names.find_workload(rest)
    if work is not None:
        found.answers["workload"] = work[0]
        rest = rest[: work[1][0]] + " | " + rest[work[1][1]:]
    elif "concurrency" in found.answers or "target_tokens_per_s" in found.answers:
        found.answers["workload"] = "inference"  # users and tokens/s are only ever served
        found.inferred.add("workload")
    if find_model:
        rest = _find_model(rest, found, lang)
    found.leftovers = [c.strip() for c in rest.split("|") if c.strip()]
    if find_model:
        found.leftovers = [" ".join(w for w in c.split() if not _NOISE.fullmatch(w))
                           for c in found.leftovers]
        found.leftovers = [c for c in found.leftovers if c]
    return found


MODEL_TRIES = 48  # catalog look-ups per message: a long message stays a fast turn
_LONG_WORD = 120  # longer than any model name or Hugging Face URL
_SIZE = re.compile(r"\d+(?:\.\d+)?[bmt]")
_TOKEN_SEP = re.compile(r"[\s_/:()-]+")


@cache
def _model_token_lists() -> dict[str, tuple[tuple[str, ...], ...]]:
    """Per model id, each of its names split into normalized tokens ('3.3' stays one)."""
    out: dict[str, tuple[tuple[str, ...], ...]] = {}
    for m in catalog().models.values():
        all_names = [m.id, m.name, m.hf_id, *m.aliases]
        out[m.id] = tuple(
            tuple(t for t in (normalize(x) for x in _TOKEN_SEP.split(n.lower())) if t)
            for n in all_names
        )
    return out


@cache
def _model_blob() -> str:
    """Every catalog name of every model, normalized, for a cheap 'could be part of a name'."""
    return "|".join("".join(toks) for lists in _model_token_lists().values() for toks in lists)


def _aligned(window: list[str], model_id: str) -> bool:
    """Whether the words spell whole tokens of one of the model's names: 'llama 3.1 70b'
    and 'qwen 3 32b' do, but '3 70b' is not 'Llama 3.3 70B' (its '3' is half of '3.3')."""
    want = normalize("".join(window))
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


def _plausible(window: list[str], lang: Lang) -> bool:
    """A window of several words is worth a catalog look-up only if each word could be
    part of a model's name (or is a size such as '30b')."""
    blob = _model_blob()
    if all("/" in w or _SIZE.fullmatch(w) is not None or normalize(w) in blob for w in window):
        return True
    said = " ".join(window)  # 'a 30b dense', '70 billion params': a count has digits
    return any(c.isdigit() for c in said) and names.params(said, lang) is not None


@cache
def _gpu_keys() -> frozenset[str]:
    """Every GPU name the catalog knows, normalized; bare numbers ('5090') left out, since
    in a sentence a number is more often a count."""
    keys = {normalize(k) for g in catalog().gpus.values() for k in (g.id, g.name, *g.aliases)}
    return frozenset(k for k in keys if not k.isdigit())


@cache
def _gpu_blob() -> str:
    return "|".join(_gpu_keys())


def _find_gpu(rest: str, found: Found) -> str:
    """Take a GPU named in the sentence ('on 8x H100s') out of it: exact catalog names only."""
    ws = rest.split(" ")
    blob = _gpu_blob()
    # a word no GPU name holds ('company') cannot be in one: windows across it are skipped
    near = [bool(w) and w != "|" and (normalize(w) in blob or w[:-1].isdigit()
                                      or normalize(w.rstrip("s")) in blob) for w in ws]
    for size in (4, 3, 2, 1):
        for i in range(len(ws) - size + 1):
            if not all(near[i : i + size]):
                continue
            window = " ".join(ws[i : i + size])
            for cand in names.gpu_candidates(window):
                if normalize(cand) not in _gpu_keys():
                    continue
                try:
                    found.answers["gpu"] = names.gpu(cand)
                except ParseError:  # a name two GPUs share: not an answer
                    continue
                return " ".join([*ws[:i], "|", *ws[i + size :]])
    return rest


def _find_model(rest: str, found: Found, lang: Lang) -> str:
    """Take the longest run of words that names a model out of ``rest``; the words of its
    name the catalog did not need ("llama" beside "405b") go with it."""
    tries = 0
    chunks = [[w for w in c.split() if not _NOISE.fullmatch(w)] for c in rest.split("|")]
    for chunk_i, ws in sorted(enumerate(chunks), key=lambda c: -len(c[1])):
        for size in range(min(len(ws), 5), 0, -1):
            for i in range(len(ws) - size + 1):
                window = ws[i : i + size]
                if any(len(w) > _LONG_WORD for w in window):
                    continue
                # one word is tried even if no name holds it, for its 'did you mean'; once
                # a refusal with suggestions is in hand, only what could name a model
                if (size > 1 or found.hint is not None) and not _plausible(window, lang):
                    continue
                if tries >= MODEL_TRIES:
                    return " | ".join(" ".join(c) for c in chunks)
                tries += 1
                try:
                    model = names.model(" ".join(window), lang)
                except ParseError as exc:
                    if exc.suggestions and found.hint is None:  # the longest text with some
                        found.hint = exc
                    continue
                if size > 1 and isinstance(model, str) and not _aligned(window, model):
                    continue
                found.answers["model"] = model
                found.hint = None
                spec = catalog().models.get(model) if isinstance(model, str) else None
                key = normalize(str(model)) + (normalize(spec.name) if spec else "")
                chunks[chunk_i] = [w for w in ws[:i] + ws[i + size :] if normalize(w) not in key]
                return " | ".join(" ".join(c) for c in chunks)
    return " | ".join(" ".join(c) for c in chunks)
