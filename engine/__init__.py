"""The sizing engine: catalog data in, numbers and a verdict out. No I/O but its data files.

Public API::

    from engine import SizingRequest, recommend
    rec = recommend(SizingRequest(model="llama 3.1 70b", concurrency=64, context=8192))
    rec.verdict, rec.step, rec.numbers.weights_gb

The packaged catalog is ``engine.catalog.catalog()`` (loaded once per process).
"""

from engine.catalog import Catalog, CatalogError, UnknownEntry, UnknownModel, load_catalog
from engine.decision import recommend
from engine.request import SizingRequest
from engine.result import Recommendation

__all__ = [
    "Catalog",
    "CatalogError",
    "Recommendation",
    "SizingRequest",
    "UnknownEntry",
    "UnknownModel",
    "load_catalog",
    "recommend",
]
