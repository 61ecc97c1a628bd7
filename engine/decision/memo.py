"""Plan searches kept across requests, keyed by the facts that decide them.

Why: a conversation asks the engine again on every turn, each answer compares several GPUs,
and the same searches recur (the same model on the same GPU at the same load and shape,
behind another request's alternatives). A search is a pure function of catalog entries and
a handful of numbers, so it is kept in a bounded table keyed by those: the entries by
identity (the packaged catalog's objects live for the process; the table holds a reference,
so an identity is never reused while its entry is kept) and the numbers by value. Results
are never mutated by their users (engine/decision/facts.py). The oldest entry goes first
when the table is full (a hit does not reorder: cheaper than an LRU, as good for a
conversation's repeated turns). ``clear()`` empties it for benchmarks of the cold path
(engine/decision/__init__.py ``clear_cache(physics=True)``).
"""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Callable
from typing import TypeVar

__all__ = ["MAX_ENTRIES", "clear", "kept"]

MAX_ENTRIES = 4096
_T = TypeVar("_T")
_TABLE: OrderedDict[tuple[object, ...], tuple[tuple[object, ...], object]] = OrderedDict()


def kept(refs: tuple[object, ...], numbers: tuple[object, ...], compute: Callable[[], _T]) -> _T:
    """``compute()``'s result for these catalog entries (``refs``, by identity) and values
    (``numbers``), computed once while it stays among the last entries made."""
    key = (*map(id, refs), *numbers)
    hit = _TABLE.get(key)
    if hit is not None:
        held = hit[0]
        if all(map(operator.is_, held, refs)):
            return hit[1]  # type: ignore[return-value]
    value = compute()
    _TABLE[key] = (refs, value)
    if len(_TABLE) > MAX_ENTRIES:  # the oldest first: a table, not an LRU, kept cheap
        _TABLE.popitem(last=False)
    return value


def clear() -> None:
    _TABLE.clear()
