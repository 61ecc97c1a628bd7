"""The catalog: models, GPUs, links and policy from ``engine/data/*.toml``, and their names.

``schema.py`` holds the pydantic models of the data files, ``load.py`` reads and validates
them (``catalog()`` is the packaged catalog, loaded once per process), ``names.py`` turns what
a person types into one entry, with suggestions when it cannot. The names below are what the
dialogue and the faces import; the errors live in :mod:`engine.errors`.
"""

from engine.catalog.load import DATA_DIR, catalog, entries, load_catalog
from engine.catalog.names import entry_keys, model_keys, normalize, suggest
from engine.catalog.schema import MLA, Catalog, GPUSpec, LinkSpec, ModelSpec, Policy, WorkProfile
from engine.errors import CatalogError, UnknownEntry, UnknownModel

__all__ = [
    "DATA_DIR",
    "MLA",
    "Catalog",
    "CatalogError",
    "GPUSpec",
    "LinkSpec",
    "ModelSpec",
    "Policy",
    "UnknownEntry",
    "UnknownModel",
    "WorkProfile",
    "catalog",
    "entries",
    "entry_keys",
    "load_catalog",
    "model_keys",
    "normalize",
    "suggest",
]
