"""Derive the engine's calibration file from the measured tables: the fit, in one place.

Why a derived file: the measured tables (engine/data/measured/*.toml, reduced from NVIDIA
aiconfigurator 0.12.0's measurements by bench/calibrate.py) hold ~500 KB of curves that take
~0.3 s to parse; the engine needs a few small curves per GPU and must answer in a
millisecond. So the fit is run offline (``python bench/calibrate.py fit``, no aiconfigurator
needed) and writes engine/data/calibration.toml; tests/engine/test_measured_data.py checks
that the packaged file is exactly what this module derives from the tables. What each
constant means and how the engine uses it: docs/calibration.md.

Every row keeps the ``source`` of the measured table it comes from (data file,
aiconfigurator version, framework version) and says what it was ``fitted_to``.
"""

from __future__ import annotations

import math
import statistics
import tomllib
from pathlib import Path
from typing import Any

__all__ = ["KERNEL_DTYPES", "derive", "render"]

#: aiconfigurator dtype names -> the engine's kernel dtypes.
KERNEL_DTYPES = {"bfloat16": "bf16", "fp8": "fp8", "nvfp4": "nvfp4", "int8_wo": "int8_wo",
                 "int4_wo": "int4_wo"}
#: Common axes of the derived curves.
UNITS = [1, 4, 8, 16, 32, 64, 128]
MOE_TPE = [0.0625, 0.25, 1.0, 4.0, 16.0, 64.0, 256.0, 1024.0]
#: The MoE memory model is fitted on the points with at most this many tokens per expert
#: (memory-bound: the measured MFU there is below 5 %).
MOE_MEMORY_TPE = 4.0
#: A measured MoE latency this far above the memory model is compute-bound: its MFU is the
#: kernel's compute efficiency there (below it the kernel is memory-bound and says nothing).
COMPUTE_MARGIN = 1.15
#: One KV "unit" is one 128-dim head's K and V: 256 cached elements per token.
UNIT_ELEMENTS = 256


def _r(x: float, digits: int = 4) -> float:
    if x == 0 or not math.isfinite(x):
        return float(x)
    return float(f"{x:.{digits}g}")


def _load(path: Path) -> dict[str, Any]:
    with path.open("rb") as fh:
        return tomllib.load(fh)


def _interp_log(xs: list[float], ys: list[float], x: float) -> float:
    """Linear in log x, clamped at the ends (for re-gridding measured curves)."""
    if x <= xs[0]:
        return ys[0]
    if x >= xs[-1]:
        return ys[-1]
    for i in range(len(xs) - 1):
        if xs[i] <= x <= xs[i + 1]:
            f = (math.log(x) - math.log(xs[i])) / (math.log(xs[i + 1]) - math.log(xs[i]))
            return ys[i] + (ys[i + 1] - ys[i]) * f
    raise AssertionError("unreachable")


def _cite(src: str) -> str:
    """The measured table's source with the derived file it went through."""
    return src.replace("; reduced by bench/calibrate.py",
                       "; reduced by bench/calibrate.py into engine/data/measured/")


def _gemm(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for g in rows:
        out.append({
            "gpu": g["gpu"], "dtype": KERNEL_DTYPES[g["dtype"]],
            "source": _cite(g["source"]) + "gemm.toml",
            "fitted_to": "engine/data/measured/gemm.toml as measured: fixed_us = "
            "fixed_latency_us, stream_share = stream_bw_share (of the catalog bandwidth), "
            "prefill_mfu = prefill_mfu (of the catalog peak); see that file's fitted_to",
            "weight_bytes_per_element": g["weight_bytes_per_element"],
            "tokens": g["tokens"], "fixed_us": g["fixed_latency_us"],
            "stream_share": g["stream_bw_share"],
            "prefill_tokens": g["prefill_tokens"], "square_nk": g["square_nk"],
            "prefill_mfu": g["prefill_mfu"],
        })
    return out


def _monotone(grid: list[list[float]]) -> list[list[float]]:
    """Running maximum along both axes: more work is never faster (L2-resident benchmark
    loops make some mid cells faster than their smaller neighbours)."""
    out = [list(row) for row in grid]
    for i, row in enumerate(out):
        for j in range(len(row)):
            best = row[j]
            if j:
                best = max(best, row[j - 1])
            if i:
                best = max(best, out[i - 1][j])
            row[j] = _r(best)
    return out


def _decode_attention(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One grid per GPU and KV dtype over units = batch x KV heads per GPU (head_dim 128)."""
    by: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for a in rows:
        by.setdefault((a["gpu"], a["kv_dtype"]), []).append(a)
    out = []
    for (gpu, kv), shapes in by.items():
        cells: dict[int, list[float]] = {}
        kv_len = shapes[0]["kv_len"]
        for s in shapes:
            assert s["kv_len"] == kv_len and s["head_dim"] == 128
            for b, row in zip(s["batch"], s["latency_us"], strict=True):
                cells.setdefault(b * s["num_kv_heads"], row)
        units = [u for u in UNITS if u in cells]
        out.append({
            "gpu": gpu, "kv_dtype": KERNEL_DTYPES[kv],
            "source": _cite(shapes[0]["source"]) + "attention.toml",
            "fitted_to": "engine/data/measured/attention.toml decode_attention, both measured "
            "head shapes (8 q / 1 kv and 32 q / 8 kv heads of 128 dims) merged on units = "
            "batch x KV heads (the same KV bytes read); latency made non-decreasing along "
            "units and kv_len (running maximum)",
            "units": units, "kv_len": kv_len,
            "latency_us": _monotone([cells[u] for u in units]),
        })
    return out


def _prefill_attention(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for a in rows:
        by.setdefault((a["gpu"], a["dtype"]), []).append(a)
    out = []
    for (gpu, dtype), shapes in by.items():
        shapes.sort(key=lambda s: s["num_heads"])
        isl = shapes[0]["isl"]
        assert all(s["isl"] == isl for s in shapes)
        out.append({
            "gpu": gpu, "dtype": KERNEL_DTYPES[dtype],
            "source": _cite(shapes[0]["source"]) + "attention.toml",
            "fitted_to": "engine/data/measured/attention.toml prefill_attention as measured: "
            "mfu of causal attention (batch 1) by prompt length, per q heads per GPU",
            "heads": [s["num_heads"] for s in shapes], "isl": isl,
            "mfu": [s["mfu"] for s in shapes],
        })
    return out


def _moe(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per GPU and dtype: the memory model (fixed + bytes / share) over the shapes, and the
    compute efficiency by tokens per expert and expert width (balanced routing)."""
    by: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for m in rows:
        by.setdefault((m["gpu"], m["dtype"]), []).append(m)
    for key, group in by.items():
        # Balanced routing where measured; else the power-law table closest to uniform
        # (A100 has only power-law MoE measurements).
        for dist in ("balanced", "power_law_1.2", "power_law_1.01"):
            pick = [m for m in group if m["distribution"] == dist]
            if pick:
                by[key] = pick
                break
    out = []
    for (gpu, dtype), shapes in by.items():
        fixed, shares, errs = [], [], []
        widths: dict[int, list[float]]
        for m in shapes:
            e, k, h, inter = m["num_experts"], m["topk"], m["hidden_size"], m["moe_inter_size"]
            per = 3.0 * h * inter * m["weight_bytes_per_element"]
            bw = m["catalog_mem_bw_gbs"] * 1e9
            # balanced routing: each expert gets tokens x k / E tokens; all are touched
            # once tokens x k >= E
            pts = [(min(e, t * k) * per, lat * 1e-6) for t, lat in
                   zip(m["tokens"], m["latency_us"], strict=True) if t * k / e <= MOE_MEMORY_TPE]
            if len(pts) < 3:
                continue
            mx = statistics.fmean(p[0] for p in pts)
            my = statistics.fmean(p[1] for p in pts)
            sxx = sum((p[0] - mx) ** 2 for p in pts)
            slope = sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx
            a = my - slope * mx
            if slope <= 0 or a < 0:
                continue  # a shape whose small-batch points do not follow the model
            fixed.append(a)
            shares.append(1.0 / slope / bw)
        if not fixed:
            continue
        f = statistics.median(fixed)
        s = min(1.0, statistics.median(shares))
        widths = {}
        for m in shapes:
            e, k, h, inter = m["num_experts"], m["topk"], m["hidden_size"], m["moe_inter_size"]
            per = 3.0 * h * inter * m["weight_bytes_per_element"]
            bw = m["catalog_mem_bw_gbs"] * 1e9
            curve: list[float | None] = []
            for t, lat, mfu in zip(m["tokens"], m["latency_us"], m["mfu"], strict=True):
                model = f + min(e, t * k) * per / (s * bw)
                if t * k / e <= MOE_MEMORY_TPE:
                    errs.append(abs(model - lat * 1e-6) / (lat * 1e-6))
                # compute-bound where the measurement is well above the memory model
                curve.append(mfu if lat * 1e-6 > COMPUTE_MARGIN * model else None)
            known = [x for x in curve if x is not None]
            if not known:  # never compute-bound: the best it reached is a floor on the rate
                known = [max(m["mfu"])]
                curve[-1] = known[0]
            nxt = known[-1]
            for i in range(len(curve) - 1, -1, -1):  # fill leftwards with the next one right
                if curve[i] is None:
                    curve[i] = nxt
                nxt = curve[i]  # type: ignore[assignment]
            filled = [float(x) for x in curve if x is not None]
            widths.setdefault(inter, [_interp_log(m["tokens_per_expert"], filled, t)
                                      for t in MOE_TPE])
        ws = sorted(widths)
        out.append({
            "gpu": gpu, "dtype": KERNEL_DTYPES[dtype],
            "source": _cite(shapes[0]["source"]) + "moe.toml",
            "distribution": shapes[0]["distribution"],
            "fitted_to": "engine/data/measured/moe.toml, balanced routing where measured (else "
            "the `distribution` named), one GPU holding all "
            "experts: fixed_us and bw_share = medians over the measured shapes of a "
            "least-squares fit t = fixed + touched bytes / (bw_share x catalog bandwidth) on "
            f"the points with at most {MOE_MEMORY_TPE:g} tokens per expert (touched experts = "
            "min(E, tokens x top-k)); fit_max_rel_err = worst residual of that model with "
            "the medians; mfu[width][tokens_per_expert] = the compute efficiency by expert width "
            f"(moe_inter_size): the measured MFU where the latency is above {COMPUTE_MARGIN:g}x "
            "the memory model (compute-bound), filled toward fewer tokens with the next "
            "compute-bound value, re-gridded by log interpolation",
            "fixed_us": _r(f * 1e6), "bw_share": _r(s, 3),
            "fit_max_rel_err": _r(max(errs), 2),
            "widths": ws, "tokens_per_expert": MOE_TPE,
            "mfu": [[_r(x, 3) for x in widths[w]] for w in ws],
        })
    return out


def _collectives(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for c in rows:
        out.append({
            "gpu": c["gpu"], "link": c["link"], "op": c["op"],
            "implementation": c["implementation"], "num_gpus": c["num_gpus"],
            "source": _cite(c["source"]) + "collectives.toml",
            "fitted_to": "engine/data/measured/collectives.toml as measured (monotone "
            "envelope, see that file's fitted_to)",
            "message_bytes": c["message_bytes"], "latency_us": c["latency_us"],
        })
    return out


def derive(measured: Path) -> dict[str, Any]:
    """The calibration document derived from the tables in ``measured``."""
    gemm = _load(measured / "gemm.toml")
    attn = _load(measured / "attention.toml")
    moe = _load(measured / "moe.toml")
    coll = _load(measured / "collectives.toml")
    meta = gemm["meta"]
    return {
        "meta": {
            "kind": "calibration",
            "generator": "bench/calibrate.py fit (engine/catalog/derive.py)",
            "aiconfigurator": meta["aiconfigurator"],
            "aiconfigurator_core": meta["aiconfigurator_core"],
            "derived_from": ["engine/data/measured/gemm.toml",
                             "engine/data/measured/attention.toml",
                             "engine/data/measured/moe.toml",
                             "engine/data/measured/collectives.toml"],
            "license": meta["license"],
            "measured_gpus": sorted({g["gpu"] for g in gemm["gemm"]}),
        },
        "gemm": _gemm(gemm["gemm"]),
        "decode_attention": _decode_attention(attn["decode_attention"]),
        "prefill_attention": _prefill_attention(attn["prefill_attention"]),
        "moe": _moe(moe["moe"]),
        "collective": _collectives(coll["collective"]),
    }


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        text = repr(v)
        return text if ("." in text or "e" in text or "inf" in text) else text + ".0"
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list):
        if v and isinstance(v[0], list):
            return "[\n" + "".join(f"  {_value(x)},\n" for x in v) + "]"
        return "[" + ", ".join(_value(x) for x in v) + "]"
    raise TypeError(type(v))


def render(doc: dict[str, Any]) -> str:
    """The document as the TOML text of engine/data/calibration.toml."""
    lines = [
        "# GENERATED by `python bench/calibrate.py fit` (engine/catalog/derive.py) from the\n",
        "# measured tables in engine/data/measured/ (NVIDIA aiconfigurator 0.12.0, Apache-2.0).\n",
        "# Do not edit by hand. Meaning and use: docs/calibration.md.\n",
        "[meta]\n",
    ]
    lines += [f"{k} = {_value(v)}\n" for k, v in doc["meta"].items()]
    for table, rows in doc.items():
        if table == "meta":
            continue
        for row in rows:
            lines.append(f"\n[[{table}]]\n")
            lines += [f"{k} = {_value(v)}\n" for k, v in row.items()]
    return "".join(lines)
