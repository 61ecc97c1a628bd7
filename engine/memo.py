"""Results kept across requests, keyed by the catalog entries and numbers that decide them.

Why: a conversation asks the engine again on every turn, each answer compares several GPUs,
and the same searches, step models and byte counts recur (the same model on the same GPU at
the same load and shape, behind another request's alternatives). Each is a pure function of
catalog entries and a handful of numbers, so it is kept in a bounded :class:`Memo` keyed by
those: the entries by identity (the table holds a reference, so an identity is never reused
while its entry is kept) and the numbers by value. Results are never mutated by their users.
The oldest entry goes first when a table is full (a hit does not reorder: cheaper than an
LRU, as good for a conversation's repeated turns). ``clear()`` empties one for benchmarks of
the cold path (engine/decision/__init__.py ``clear_cache(physics=True)``).

One mechanism for every such table in the engine: the plan searches (engine/decision/
searches.py), the step models and request bytes (engine/physics/inference.py), the measured
collectives of a link (engine/decision/facts.py).
"""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["MAX_ENTRIES", "Memo", "clear", "kept"]

MAX_ENTRIES = 4096
_T = TypeVar("_T")


class Memo(Generic[_T]):
    """A bounded table of results keyed by catalog entries (identity) and numbers (value)."""

    __slots__ = ("_max", "_table")

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self._max = max_entries
        self._table: OrderedDict[tuple[object, ...], tuple[tuple[object, ...], _T]] = \
            OrderedDict()

    def kept(self, refs: tuple[object, ...], numbers: tuple[object, ...],
             compute: Callable[[], _T]) -> _T:
        """``compute()``'s result for these entries (``refs``, by identity) and values
        (``numbers``), computed once while it stays among the last entries made."""
        key = (*map(id, refs), *numbers)
        hit = self._table.get(key)
        if hit is not None and all(map(operator.is_, hit[0], refs)):
            return hit[1]
        value = compute()
        self._table[key] = (refs, value)
        if len(self._table) > self._max:  # the oldest first: a table, not an LRU
            self._table.popitem(last=False)
        return value

    def clear(self) -> None:
        self._table.clear()


#: The plan searches' table (engine/decision/searches.py).
_SEARCHES: Memo[object] = Memo()


def kept(refs: tuple[object, ...], numbers: tuple[object, ...], compute: Callable[[], _T]) -> _T:
    """A plan search's result, kept in the searches' table (:class:`Memo`)."""
    return _SEARCHES.kept(refs, numbers, compute)  # type: ignore[return-value]


def clear() -> None:
    """Empty the searches' table."""
    _SEARCHES.clear()
