"""Name resolution: what a person types ("llama 3.1 70b", "RTX Pro 6000") to one catalog entry,
or the entries it could be, best first, never one of another size.

People write names loosely (case, separators, an ``-Instruct`` or ``-AWQ`` suffix, an HF id
with an organisation we do not list, a fragment such as ``405b``, a typo). :func:`lookup`
says *how* a text names an entry: ``exact`` (an id, name, alias or HF id, less the suffixes
that do not change the weights), ``fragment`` (the start or end of one entry's names:
``405b``, ``qwen 2.5 72``), ``near`` (candidates scored token by token) or ``none``; a
conversation takes only ``exact`` and confirms the rest (docs/dialogue-notes.md, "Names").
:func:`resolve` (the engine's, the CLI's) takes ``exact`` and a unique ``fragment`` and
raises :class:`engine.errors.UnknownModel` / ``UnknownEntry`` with the candidates otherwise.

Sizes must agree, everywhere: a text that names a size (``34b``, ``0.5b``, ``8x22b``,
``a3b`` for the active count) never matches or suggests a model of another size, so ``34b``
is never a 4B and ``0.5b`` never the 405B whose key ends in ``05b``. A family word typed
(``glm``, ``yi``) must match a model's words, so a family the catalog lacks suggests
nothing rather than the nearest string. The per-catalog index (keys, tokens, sizes, the
vocabulary) is built once per entries mapping and cached, so a look-up costs microseconds.
"""

from __future__ import annotations

import bisect
import difflib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal, Protocol, TypeVar

from engine.errors import UnknownEntry, UnknownModel

__all__ = ["Resolution", "entry_keys", "known_word", "lookup", "model_keys", "normalize",
           "resolve", "sizes", "suggest"]

Kind = Literal["model", "gpu", "link"]
How = Literal["exact", "fragment", "near", "none"]

_SEP = re.compile(r"[\s_./:-]+")
#: Suffixes that name the same weights (a chat tune, a quantized checkpoint of the same
#: model): stripped, repeatedly, before an exact comparison.
_SUFFIXES = ("instruct", "chat", "it", "base", "hf", "awq", "gptq", "int4", "int8", "fp8",
             "bf16", "fp16", "gguf", "w4a16", "4bit", "8bit", "bnb", "nf4", "mlx", "exl2")
#: Words that describe a checkpoint rather than a model: never required to match.
_GENERIC = frozenset({"instruct", "chat", "it", "base", "hf", "model", "dense", "moe", "the",
                      "awq", "gptq", "int", "fp", "bf", "gguf", "w", "a", "bit", "bnb", "nf",
                      "pt", "v", "preview", "latest", "meta", "open", "weights", "llm"})
_TOKEN = re.compile(
    r"(?P<moe>\d+(?:\.\d+)?x\d+(?:\.\d+)?b)(?![a-z])"
    r"|(?P<active>(?<![a-z0-9])a\d+(?:\.\d+)?b)(?![a-z])"
    r"|(?P<size>\d+(?:\.\d+)?[bmt])(?![a-z])"
    r"|(?P<ver>v?\d+(?:\.\d+)*)"
    r"|(?P<word>[a-z]+\+?)"
)
_SCALE = {"b": 1.0, "m": 1e-3, "t": 1e3}
#: A size agrees with a name's within 1 %, with a published count within 2.5 %: '70b' is
#: Llama 3.1 70B (70.6B), '8b' Qwen3 8B (8.2B), never a 7.6B; '34b' never 32.5B.
_NAME_TOLERANCE, _COUNT_TOLERANCE = 0.01, 0.025


class _HasId(Protocol):
    @property
    def id(self) -> str: ...


_E = TypeVar("_E", bound=_HasId)


def normalize(text: str) -> str:
    """Fold case and separators: 'Llama3.1-70B', 'llama 3.1 70b' -> 'llama3170b'."""
    return _SEP.sub("", text.strip().lower())


def _strip(key: str) -> str:
    """Suffixes that do not change the weights off: 'llama3170binstructawq' -> 'llama3170b'."""
    for _ in range(4):
        for suffix in _SUFFIXES:
            if key.endswith(suffix) and len(key) > len(suffix) + 2:
                key = key[: -len(suffix)]
                break
        else:
            break
    return key


def model_keys(m: Any) -> list[str]:
    """Every normalized name a model answers to: id, name, HF id and repo, aliases."""
    return [normalize(k) for k in (m.id, m.name, m.hf_id, m.hf_id.split("/")[-1], *m.aliases)]


def entry_keys(e: Any) -> list[str]:
    """Every normalized name a GPU or link answers to: id, name, aliases."""
    return [normalize(k) for k in (e.id, e.name, *e.aliases)]


@dataclass(frozen=True)
class _Tokens:
    """A name's words, versions ('3.1' -> '31'), sizes and active sizes (billions)."""

    words: frozenset[str]
    versions: frozenset[str]
    sizes: tuple[float, ...]
    active: tuple[float, ...]


@dataclass(frozen=True)
class _Sizes:
    named: tuple[float, ...]  # the sizes its names state (billions)
    counts: tuple[float, ...]  # its published counts


def _size(tok: str) -> float:
    n, _, each = tok[:-1].partition("x")  # '8x22b' is 176B nominal
    return float(n) * float(each) if each else float(tok.lstrip("a")[:-1]) * _SCALE[tok[-1]]


@lru_cache(maxsize=4096)
def _tokens(text: str) -> _Tokens:
    t = re.sub(r"(\d),(\d)", r"\1.\2", text.lower())  # a decimal comma: 'qwen 2,5'
    t = re.sub(r"[\s_/:()\[\],;'\"-]+", " ", t)
    words, versions, sized, active = set[str](), set[str](), list[float](), list[float]()
    for m in _TOKEN.finditer(t):
        if m["moe"] or m["size"]:
            sized.append(_size(m["moe"] or m["size"]))
        elif m["active"]:
            active.append(_size(m["active"]))
        elif m["ver"]:
            versions.add(m["ver"].lstrip("v").replace(".", "") or "0")
        elif m["word"]:
            words.add(m["word"])
    return _Tokens(frozenset(words), frozenset(versions), tuple(sized), tuple(active))


def sizes(text: str, *, active: bool = False) -> tuple[float, ...]:
    """The parameter sizes a text names, in billions: '70b' -> (70,), '8x22b' -> (176,), '0.5b'
    -> (0.5,); an MoE name's active counts ('a35b' -> (35,)) apart, with ``active``."""
    return _tokens(text).active if active else _tokens(text).sizes  # cached: one parse


def _agrees(want: float, have: _Sizes) -> bool:
    return (any(abs(want - h) <= _NAME_TOLERANCE * max(want, h) for h in have.named)
            or any(abs(want - h) <= _COUNT_TOLERANCE * max(want, h) for h in have.counts))


@dataclass(frozen=True)
class Resolution:
    """How a text names catalog entries: ``entry_id`` is set for ``exact`` and ``fragment``;
    ``candidates`` are ids, best first (for ``exact`` and ``fragment``: that entry);
    ``ambiguous`` when several entries answer to it equally (a shared key, a fragment)."""

    how: How
    entry_id: str | None = None
    candidates: tuple[str, ...] = ()
    ambiguous: bool = False


@dataclass(frozen=True)
class _Entry:
    id: str
    keys: frozenset[str]
    words: frozenset[str]
    versions: frozenset[str]
    sizes: _Sizes
    active: _Sizes
    own: frozenset[str]  # the words of its id and display name (not its aliases)
    released: str


@dataclass(frozen=True)
class _Index:
    entries: tuple[_Entry, ...]
    by_key: dict[str, tuple[str, ...]]
    vocabulary: frozenset[str]
    versions: frozenset[str]
    starts: tuple[str, ...] = ()  # every key, sorted: a prefix is a range (bisect)
    ends: tuple[str, ...] = ()  # every key reversed, sorted: so is a suffix
    #: answers already given (a conversation asks the same names again on every turn)
    memo: dict[tuple[str, int], Resolution] = field(default_factory=dict)
    agreeing: dict[tuple[tuple[float, ...], tuple[float, ...]], tuple[_Entry, ...]] = field(
        default_factory=dict)


_INDEXES: dict[int, tuple[Mapping[str, Any], _Index]] = {}


def _index(entries: Mapping[str, Any], kind: Kind) -> _Index:
    """The index of ``entries``, built once per mapping (the catalog's are loaded once)."""
    cached = _INDEXES.get(id(entries))
    if cached is not None and cached[0] is entries:
        return cached[1]
    keyf = model_keys if kind == "model" else entry_keys
    rows: list[_Entry] = []
    by_key: dict[str, set[str]] = {}
    for e in entries.values():
        keys = {k for k in keyf(e) if k} | {_strip(k) for k in keyf(e) if k}
        names = [e.id, e.name, *getattr(e, "aliases", [])]
        if kind == "model":
            names += [e.hf_id]
        toks = [_tokens(n) for n in names]
        total = _Sizes(tuple(sorted({s for t in toks for s in t.sizes})),
                       (float(e.params_b),) if kind == "model" else ())
        active = _Sizes(tuple(sorted({s for t in toks for s in t.active})),
                        (float(e.active_params_b),) if getattr(e, "active_params_b", None)
                        else ())
        own = (_tokens(e.id).words | _tokens(e.name).words) - _GENERIC
        rows.append(_Entry(str(e.id), frozenset(keys),
                           frozenset(w for t in toks for w in t.words),
                           frozenset(v for t in toks for v in t.versions), total, active,
                           own, str(getattr(e, "released", None) or "")))
        for k in keys:
            by_key.setdefault(k, set()).add(str(e.id))
    index = _Index(tuple(rows), {k: tuple(sorted(v)) for k, v in by_key.items()},
                   frozenset(w for r in rows for w in r.words),
                   frozenset(v for r in rows for v in r.versions),
                   tuple(sorted(by_key)), tuple(sorted(k[::-1] for k in by_key)))
    if len(_INDEXES) > 16:
        _INDEXES.clear()
    _INDEXES[id(entries)] = (entries, index)
    return index


@lru_cache(maxsize=4096)
def _near_word(word: str, vocabulary: frozenset[str]) -> tuple[str, ...]:
    """Catalog words a typed word is a typo of ('lama' -> 'llama', 'qewn' -> 'qwen')."""
    if len(word) < 3:
        return ()
    out = []
    for v in vocabulary:
        # a word of three letters is a typo of too many others ('more' is no 'moe')
        if v == word or len(v) < 4 or abs(len(v) - len(word)) > 2 or v[0] != word[0]:
            continue
        sm = difflib.SequenceMatcher(None, word, v)
        if sm.quick_ratio() >= 0.75 and sm.ratio() >= 0.75:
            out.append(v)
    return tuple(out)


def known_word(word: str, entries: Mapping[str, Any], kind: Kind = "model") -> bool:
    """Whether every token of a word is one the catalog's names hold (a family word, a
    version, a size), or a typo of a family word: 'llama', '3.1', '70b', 'qwen2.5', 'lama'.
    A sentence's words are tested with it before any look-up (cheap, cached)."""
    index = _index(entries, kind)
    t = _tokens(word)
    if not (t.words - _GENERIC or t.versions or t.sizes or t.active):
        return False
    return (all(w in index.vocabulary or w in _GENERIC or _near_word(w, index.vocabulary)
                for w in t.words)
            and all(v in index.versions for v in t.versions))


def lookup(text: str, entries: Mapping[str, Any], kind: Kind, n: int = 4) -> Resolution:
    """How ``text`` names one of ``entries`` (see the module doc); never raises."""
    raw = text.strip()
    if not raw:
        return Resolution("none")
    if raw in entries:
        return Resolution("exact", raw, (raw,))
    return _lookup(raw.lower(), entries, kind, n)


def _lookup(raw: str, entries: Mapping[str, Any], kind: Kind, n: int) -> Resolution:
    index = _index(entries, kind)
    if len(index.memo) >= 4096:
        index.memo.clear()
    if (raw, n) not in index.memo:
        index.memo[(raw, n)] = _find(raw, index, kind, n)
    return index.memo[(raw, n)]


def _find(raw: str, index: _Index, kind: Kind, n: int) -> Resolution:
    want = normalize(raw)
    variants = {want, _strip(want)}
    if "/" in raw:  # an HF id with an org we do not list: match on the repo name
        tail = normalize(raw.split("/")[-1])
        variants |= {tail, _strip(tail)}
    exact = sorted({i for v in variants for i in index.by_key.get(v, ())})
    if len(exact) == 1:
        return Resolution("exact", exact[0], (exact[0],))
    if exact:
        return Resolution("near", None, tuple(exact), ambiguous=True)
    typed = _tokens(raw)
    rows = _rows_agreeing(typed, index)
    if kind == "model" and len(want) >= 3:
        # A fragment: the start of a key ('qwen 2.5 72'), or its end when that starts at a
        # size ('405b', '8x22b') or holds no digit ('maverick'), so that 'llama 70b' is not
        # the one repo whose name ends that way. Sizes must agree ('0.5b' is not '...405b').
        tail_ok = want[0].isdigit() or not any(ch.isdigit() for ch in want)
        keys = _affixed(index.starts, want) + (
            [k[::-1] for k in _affixed(index.ends, want[::-1])] if tail_ok else [])
        agree = {r.id for r in rows}
        hits = sorted({i for k in keys for i in index.by_key[k] if i in agree})
        if len(hits) == 1:
            return Resolution("fragment", hits[0], (hits[0],))
        if hits:
            return Resolution("near", None, tuple(hits[:6]), ambiguous=True)
    if kind != "model":
        return Resolution("none", None, tuple(_suggest_keys(want, index, n)))
    near = _scored(typed, rows, index, n)
    return Resolution("near" if near else "none", None, near)


def _affixed(keys: tuple[str, ...], want: str) -> list[str]:
    """The sorted keys that start with ``want``: one bisect, then the run of them."""
    i = bisect.bisect_left(keys, want)
    out: list[str] = []
    while i < len(keys) and keys[i].startswith(want):
        out.append(keys[i])
        i += 1
    return out


def _rows_agreeing(typed: _Tokens, index: _Index) -> tuple[_Entry, ...]:
    """The entries whose sizes agree with every size typed (all of them when none is)."""
    if not typed.sizes and not typed.active:
        return index.entries
    key = (typed.sizes, typed.active)
    rows = index.agreeing.get(key)
    if rows is None:
        rows = index.agreeing[key] = tuple(
            r for r in index.entries if all(_agrees(s, r.sizes) for s in typed.sizes)
            and all(_agrees(a, r.active) for a in typed.active))
    return rows


def _scored(typed: _Tokens, rows: tuple[_Entry, ...], index: _Index, n: int) -> tuple[str, ...]:
    """Candidates for a text no key holds, token by token: each typed word must be a word of
    the model or a typo of one (a family the catalog lacks, 'glm', suggests nothing), sizes
    agree (already filtered), versions count for or against ('mistral large 3' ranks Mistral
    Large 2 below a Mistral 3, and never takes it)."""
    distinctive = [w for w in typed.words if w not in _GENERIC]
    if not distinctive and not typed.sizes:
        return ()  # versions alone ('3 1 2') name no model
    fuzzy = {w: _near_word(w, index.vocabulary) for w in distinctive}
    if any(w not in index.vocabulary and not fuzzy[w] for w in distinctive):
        return ()  # a word no model holds, nor a typo of one: another family
    scored: list[tuple[float, str, str]] = []
    for r in rows:
        score = 0.0
        for w in distinctive:
            if w in r.words:
                score += 1.0
            elif any(f in r.words for f in fuzzy.get(w, ())):
                score += 0.7
            else:
                score -= 1.0  # the model lacks a word typed ('vision', 'coder')
        if distinctive and score <= 0:
            continue
        for v in typed.versions:
            if v in r.versions:
                score += 1.0
            elif typed.sizes or not (v.isdecimal() and _agrees(float(v), r.sizes)):
                score -= 0.5 if len(v) > 1 else 0.25
            else:
                score += 0.8  # a size without its 'b' ('lama 3.1 70')
        if typed.sizes:
            score += 1.5
        score -= 0.1 * len(r.own - typed.words)  # 'llama 70b': Llama 3.1 70B before a distill
        scored.append((score, r.released, r.id))
    scored.sort(key=lambda s: (-round(s[0], 6), _newest(s[1]), s[2]))
    if not scored:
        return ()
    best = scored[0][0]
    return tuple(i for s, _, i in scored if s >= best - 1.0)[:n]


def _newest(released: str) -> str:
    """A sort key putting later releases first ('2024-12' before '2024-07', unknown last)."""
    return released.translate(_FLIP) or "~"


_FLIP = str.maketrans("0123456789", "9876543210")


def _suggest_keys(want: str, index: _Index, n: int) -> list[str]:
    """GPUs and links: the nearest keys by edit similarity (a quick ratio filters first)."""
    scored: list[tuple[float, str]] = []
    for r in index.entries:
        best = max((sm.ratio() for k in r.keys for sm in [difflib.SequenceMatcher(None, want, k)]
                    if sm.real_quick_ratio() >= 0.4 and sm.quick_ratio() >= 0.4), default=0.0)
        if best >= 0.4:
            scored.append((best, r.id))
    scored.sort(key=lambda s: (-s[0], s[1]))
    return [i for _, i in scored[:n]]


def resolve(text: str, entries: Mapping[str, _E], kind: Kind) -> _E:
    """The one entry ``text`` names (exactly, or as a unique fragment of the same size);
    raises UnknownModel / UnknownEntry with the candidates as suggestions."""
    found = lookup(text, entries, kind, n=3)
    if found.entry_id is not None:
        return entries[found.entry_id]
    if kind == "model":
        raise UnknownModel(text, list(found.candidates), ambiguous=found.ambiguous)
    raise UnknownEntry(kind, text, list(found.candidates))


def suggest(text: str, entries: Mapping[str, Any], keys: Callable[[Any], list[str]],
            n: int = 3) -> list[str]:
    """The catalog ids nearest to ``text``, for 'did you mean ...?' (sizes agreeing)."""
    return list(lookup(text, entries, "model" if keys is model_keys else "gpu", n).candidates)
