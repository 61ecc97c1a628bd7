"""Name resolution: what a person types ("llama 3.1 70b", "RTX Pro 6000") to one catalog entry.

People write names loosely (case, separators, an ``-Instruct`` suffix, an HF id with an
organisation we do not list, a fragment such as ``405b``). Resolution folds all of that the
same way for models, GPUs and links, and when nothing matches it says which ids come
nearest, so every face can offer "did you mean ...?" instead of a bare refusal.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping
from typing import Any, Literal, Protocol, TypeVar

from engine.errors import UnknownEntry, UnknownModel

__all__ = ["entry_keys", "model_keys", "normalize", "resolve", "suggest"]

Kind = Literal["model", "gpu", "link"]

_SEP = re.compile(r"[\s_./:-]+")
_SUFFIXES = ("instruct", "chat", "it", "base", "hf")


class _HasId(Protocol):
    @property
    def id(self) -> str: ...


_E = TypeVar("_E", bound=_HasId)


def normalize(text: str) -> str:
    """Fold case and separators: 'Llama3.1-70B', 'llama 3.1 70b' -> 'llama3170b'."""
    return _SEP.sub("", text.strip().lower())


def _strip(key: str) -> str:
    for suffix in _SUFFIXES:
        if key.endswith(suffix) and len(key) > len(suffix) + 2:
            return key[: -len(suffix)]
    return key


def model_keys(m: Any) -> list[str]:
    """Every normalized name a model answers to: id, name, HF id and repo, aliases."""
    keys = [m.id, m.name, m.hf_id, m.hf_id.split("/")[-1], *m.aliases]
    return [normalize(k) for k in keys]


def entry_keys(e: Any) -> list[str]:
    """Every normalized name a GPU or link answers to: id, name, aliases."""
    return [normalize(k) for k in (e.id, e.name, *e.aliases)]


def _miss(kind: Kind, text: str, suggestions: list[str], ambiguous: bool = False) -> Exception:
    if kind == "model":
        return UnknownModel(text, suggestions, ambiguous=ambiguous)
    return UnknownEntry(kind, text, suggestions)


def resolve(text: str, entries: Mapping[str, _E], kind: Kind) -> _E:
    """The one entry ``text`` names; raises UnknownModel / UnknownEntry with suggestions."""
    keys = model_keys if kind == "model" else entry_keys
    raw = text.strip()
    if not raw:
        raise _miss(kind, text, [])
    if raw in entries:
        return entries[raw]
    want = normalize(raw)
    variants = {want, _strip(want)}
    if "/" in raw:  # an HF id with an org we do not list: match on the repo name
        tail = normalize(raw.split("/")[-1])
        variants |= {tail, _strip(tail)}
    exact = [e for e in entries.values() if variants & set(keys(e))]
    if len(exact) == 1:
        return exact[0]
    if len(exact) > 1:
        raise _miss(kind, text, sorted(e.id for e in exact), ambiguous=True)
    # A fragment such as '405b', 'maverick' or 'qwen3 235': a unique key that starts or ends
    # with it wins. Only the ends count, so a typo inside a name ('lama 3.1 70') is not
    # silently taken for a model; it gets 'did you mean' suggestions instead.
    if kind == "model" and len(want) >= 3:
        # A tail match must start at a size ('405b', '8x22b') or carry no digits
        # ('maverick'): 'llama 70b' must not pick the one repo whose name ends that way.
        tail_ok = want[0].isdigit() or not any(ch.isdigit() for ch in want)
        contained = [
            e
            for e in entries.values()
            if any(k.startswith(want) or (tail_ok and k.endswith(want)) for k in keys(e))
        ]
        ids = sorted({e.id for e in contained})
        if len(ids) == 1:
            return contained[0]
        if len(ids) > 1:
            raise _miss(kind, text, ids[:6], ambiguous=True)
    raise _miss(kind, text, suggest(text, entries, keys))


def suggest(
    text: str, entries: Mapping[str, Any], keys: Callable[[Any], list[str]], n: int = 3
) -> list[str]:
    """The catalog ids nearest to ``text``, for 'did you mean ...?'."""
    want = normalize(text)
    scored: list[tuple[float, str]] = []
    for e in entries.values():
        best = max(difflib.SequenceMatcher(None, want, k).ratio() for k in keys(e))
        scored.append((best, str(e.id)))
    scored.sort(reverse=True)
    return [eid for score, eid in scored[:n] if score >= 0.4]
