"""Loading the catalog: read ``engine/data/*.toml``, validate, and say exactly what is wrong.

A broken file fails with :class:`engine.errors.CatalogError` naming the file, the entry and
the field, never with a pydantic traceback: the person who edits these files is an operator,
not a Python programmer. The packaged catalog is loaded once per process (:func:`catalog`).
"""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from engine.catalog.schema import Catalog, GPUSpec, LinkSpec, ModelSpec, Policy, WorkProfile
from engine.errors import CatalogError

__all__ = ["DATA_DIR", "catalog", "entries", "load_catalog"]

DATA_DIR = Path(__file__).resolve().parent.parent / "data"

_M = TypeVar("_M", bound=BaseModel)


def _read(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise CatalogError(f"{path.name}: file not found at {path}") from None
    except tomllib.TOMLDecodeError as exc:
        raise CatalogError(f"{path.name}: not valid TOML: {exc}") from None


def _problems(exc: ValidationError) -> str:
    """Each validation error as "field 'x': why", so an operator knows what to fix."""
    return "; ".join(
        f"field '{'.'.join(str(p) for p in err['loc']) or '(entry)'}': {err['msg']}"
        for err in exc.errors()
    )


def entries(path: Path, table: str, cls: type[_M]) -> dict[str, _M]:
    """The ``[[table]]`` array of one file, validated as ``cls`` and keyed by id."""
    raw = _read(path).get(table)
    if not isinstance(raw, list) or not raw:
        raise CatalogError(f"{path.name}: expected a non-empty [[{table}]] array")
    out: dict[str, _M] = {}
    for i, item in enumerate(raw):
        label = item.get("id", f"#{i + 1}") if isinstance(item, dict) else f"#{i + 1}"
        try:
            entry = cls.model_validate(item)
        except ValidationError as exc:
            raise CatalogError(f"{path.name}: entry '{label}': {_problems(exc)}") from None
        key = str(getattr(entry, "id"))  # noqa: B009 - every catalog table is keyed by id
        if key in out:
            raise CatalogError(f"{path.name}: entry '{label}': duplicate id")
        out[key] = entry
    return out


def load_catalog(data_dir: Path = DATA_DIR) -> Catalog:
    """Load and validate every data file in ``data_dir``."""
    models = entries(data_dir / "models.toml", "models", ModelSpec)
    gpus = entries(data_dir / "gpus.toml", "gpus", GPUSpec)
    links = entries(data_dir / "links.toml", "links", LinkSpec)
    work = entries(data_dir / "work.toml", "kinds", WorkProfile)
    policy_path = data_dir / "policy.toml"
    try:
        policy = Policy.model_validate(_read(policy_path))
    except ValidationError as exc:
        raise CatalogError(f"{policy_path.name}: entry 'policy': {_problems(exc)}") from None
    for gpu in gpus.values():
        if gpu.in_node_link not in links:
            raise CatalogError(
                f"gpus.toml: entry '{gpu.id}': field 'in_node_link': no link '{gpu.in_node_link}'"
            )
    for kind in ("chat", "batch"):  # what the engine takes when the person names none
        if kind not in work:
            raise CatalogError(f"work.toml: no kind '{kind}' (the default kinds)")
    return Catalog(models=models, gpus=gpus, links=links, policy=policy, work=work)


@cache
def catalog() -> Catalog:
    """The packaged catalog, loaded once per process."""
    return load_catalog()
