"""The calibration file: measured kernel and collective curves per GPU, validated once.

engine/data/calibration.toml is derived (engine/catalog/derive.py, run by ``python
bench/calibrate.py fit``) from the measured tables of NVIDIA aiconfigurator 0.12.0 in
engine/data/measured/. This module reads it into frozen, typed rows keyed the way the
physics asks (GPU and dtype; link, GPU, operation, implementation and GPU count), and fails
with :class:`engine.errors.CatalogError` naming the row and field when the file is broken,
as the rest of the catalog does (engine/catalog/load.py). Loaded once per process, on first
use. What the curves mean: docs/calibration.md.
"""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engine.catalog.load import DATA_DIR
from engine.errors import CatalogError

__all__ = ["CALIBRATION_FILE", "AttnDecodeRow", "AttnPrefillRow", "Calibration",
           "CollectiveRow", "GemmRow", "MoERow", "calibration", "load_calibration"]

CALIBRATION_FILE = DATA_DIR / "calibration.toml"
KernelDtype = Literal["bf16", "fp8", "nvfp4", "int8_wo", "int4_wo"]
KVDtype = Literal["bf16", "fp8"]


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    gpu: str
    source: str = Field(min_length=1)
    fitted_to: str = Field(min_length=1)


class GemmRow(_Row):
    """Dense GEMMs: decode = fixed latency + weight bytes / streamed bandwidth; prefill MFU."""

    dtype: KernelDtype
    weight_bytes_per_element: float = Field(gt=0)
    tokens: tuple[float, ...]
    fixed_us: tuple[float, ...]
    stream_share: tuple[float, ...]
    prefill_tokens: tuple[float, ...]
    square_nk: tuple[float, ...]
    prefill_mfu: tuple[tuple[float, ...], ...]


class AttnDecodeRow(_Row):
    """One decode-attention layer by units (batch x KV heads of 128 dims) and KV length."""

    kv_dtype: KVDtype
    units: tuple[float, ...]
    kv_len: tuple[float, ...]
    latency_us: tuple[tuple[float, ...], ...]


class AttnPrefillRow(_Row):
    """Causal prefill attention MFU by prompt length, per q heads per GPU."""

    dtype: KVDtype
    heads: tuple[float, ...]
    isl: tuple[float, ...]
    mfu: tuple[tuple[float, ...], ...]


class MoERow(_Row):
    """A grouped-GEMM MoE layer: fixed + touched bytes / (share x bandwidth), MFU by width."""

    dtype: KernelDtype
    distribution: str
    fixed_us: float = Field(ge=0)
    bw_share: float = Field(gt=0, le=1)
    fit_max_rel_err: float = Field(ge=0)
    widths: tuple[float, ...]
    tokens_per_expert: tuple[float, ...]
    mfu: tuple[tuple[float, ...], ...]


class CollectiveRow(_Row):
    """One collective's measured time by message size, for one GPU count on one link."""

    link: str
    op: Literal["all_reduce", "all_gather", "reduce_scatter"]
    implementation: Literal["nccl", "trtllm_custom"]
    num_gpus: int = Field(ge=2)
    message_bytes: tuple[float, ...]
    latency_us: tuple[float, ...]


class Calibration(BaseModel):
    """Every calibrated curve, keyed for lookup."""

    model_config = ConfigDict(frozen=True)

    aiconfigurator: str
    measured_gpus: tuple[str, ...]
    gemm: dict[tuple[str, str], GemmRow]
    decode_attention: dict[tuple[str, str], AttnDecodeRow]
    prefill_attention: dict[tuple[str, str], AttnPrefillRow]
    moe: dict[tuple[str, str], MoERow]
    #: (link, gpu, op, implementation) -> {GPU count: row}
    collectives: dict[tuple[str, str, str, str], dict[int, CollectiveRow]]

    def collective_gpus(self, link: str) -> list[str]:
        """The GPUs whose hosts measured collectives on ``link``."""
        return sorted({k[1] for k in self.collectives if k[0] == link})


def _rows(doc: dict[str, Any], table: str, cls: type[_Row]) -> list[Any]:
    out = []
    for i, item in enumerate(doc.get(table, [])):
        try:
            out.append(cls.model_validate(item))
        except ValidationError as exc:
            where = f"{item.get('gpu', '?')} #{i + 1}" if isinstance(item, dict) else f"#{i + 1}"
            detail = "; ".join(f"field '{'.'.join(str(p) for p in e['loc'])}': {e['msg']}"
                               for e in exc.errors())
            raise CatalogError(f"calibration.toml: [[{table}]] {where}: {detail}") from None
    return out


def load_calibration(path: Path = CALIBRATION_FILE) -> Calibration:
    """Read and validate the calibration file."""
    try:
        with path.open("rb") as fh:
            doc = tomllib.load(fh)
    except FileNotFoundError:
        raise CatalogError(f"calibration.toml: file not found at {path}") from None
    except tomllib.TOMLDecodeError as exc:
        raise CatalogError(f"calibration.toml: not valid TOML: {exc}") from None
    meta = doc.get("meta", {})
    collectives: dict[tuple[str, str, str, str], dict[int, CollectiveRow]] = {}
    for c in _rows(doc, "collective", CollectiveRow):
        collectives.setdefault((c.link, c.gpu, c.op, c.implementation), {})[c.num_gpus] = c
    return Calibration(
        aiconfigurator=str(meta.get("aiconfigurator", "?")),
        measured_gpus=tuple(meta.get("measured_gpus", ())),
        gemm={(g.gpu, g.dtype): g for g in _rows(doc, "gemm", GemmRow)},
        decode_attention={(a.gpu, a.kv_dtype): a
                          for a in _rows(doc, "decode_attention", AttnDecodeRow)},
        prefill_attention={(a.gpu, a.dtype): a
                           for a in _rows(doc, "prefill_attention", AttnPrefillRow)},
        moe={(m.gpu, m.dtype): m for m in _rows(doc, "moe", MoERow)},
        collectives=collectives,
    )


@cache
def calibration() -> Calibration:
    """The packaged calibration, loaded once per process."""
    return load_calibration()
