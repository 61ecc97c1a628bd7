"""The sizing engine: catalog data in, numbers and a verdict out. No I/O but its data files.

Public API::

    from engine import SizingRequest, recommend
    rec = recommend(SizingRequest(model="llama 3.1 70b", concurrency=64, context=8192))
    rec.verdict, rec.step, rec.numbers.weights_gb, rec.numbers.memory

    engine.max_context("llama-3.1-70b", None)   # 131072: the one context limit to enforce
    engine.max_context(None, 30.0)              # a model known by its size

Every sentence of an answer is an :class:`engine.wording.Message` (id + params) that a face
renders in English or French; errors are the tree of :mod:`engine.errors`. The packaged
catalog is ``engine.catalog.catalog()`` (loaded once per process).
"""

from engine.catalog import Catalog, load_catalog
from engine.decision import max_context, recommend
from engine.errors import (
    CatalogError,
    EngineError,
    UnknownEntry,
    UnknownModel,
    UnknownName,
    UnsizableRequest,
)
from engine.request import SizingRequest
from engine.result import Recommendation

__all__ = [
    "Catalog",
    "CatalogError",
    "EngineError",
    "Recommendation",
    "SizingRequest",
    "UnknownEntry",
    "UnknownModel",
    "UnknownName",
    "UnsizableRequest",
    "load_catalog",
    "max_context",
    "recommend",
]
