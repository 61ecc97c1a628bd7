"""Command line: ``python -m engine recommend|memory|scaling|catalog [...] [--json]``.

A contract for tests and operators: ``--json`` prints exactly one JSON object on stdout;
without it, a readable table. Bad flags or unknown names exit with status 2 and a message
that says what was wrong (and the nearest catalog names).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from engine.catalog import UnknownEntry, UnknownModel, catalog
from engine.comm import Fabric
from engine.decision import recommend
from engine.memory import (
    GB,
    activations_per_gpu,
    kv_bytes_per_token,
    kv_cache_bytes,
    training_state,
    weights_bytes,
)
from engine.params import count_params, dense_spec_from_params
from engine.request import DEFAULT_GPU, DEFAULT_INTERCONNECT, TRAINING, SizingRequest
from engine.result import Recommendation
from engine.scaling import project

WORKLOADS = ["inference", "lora", "qlora", "full-finetune", "pretrain"]


class UsageError(Exception):
    """Input the engine cannot use; exits 2 with this message."""


def _tokens(text: str) -> float:
    """'8k' -> 8192, '32K' -> 32768, '1.5T' -> 1.5e12, '1B' -> 1e9, '128000' -> 128000."""
    t = text.strip().lower().replace(",", "").replace("_", "")
    mult = {"k": 1024.0, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}
    try:
        if t and t[-1] in mult:
            return float(t[:-1]) * mult[t[-1]]
        return float(t)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number (e.g. 8k, 32768, 1.5T)") \
            from None


def _int_tokens(text: str) -> int:
    return int(_tokens(text))


def _model_args(p: argparse.ArgumentParser, default: str | None = None) -> None:
    g = p.add_mutually_exclusive_group(required=default is None)
    g.add_argument("--model", default=default,
                   help="catalog id, Hugging Face id or a loose name"
                   + (f" (default {default})" if default else ""))
    g.add_argument("--params-b", type=float, help="size a dense model from its parameter count")


def _parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="python -m engine", description=__doc__)
    sub = root.add_subparsers(dest="command", required=True)

    r = sub.add_parser("recommend", help="run the five questions and print the verdict")
    _model_args(r)
    r.add_argument("--workload", choices=WORKLOADS, default="inference")
    r.add_argument("--precision", choices=["bf16", "fp16", "fp8", "int4"], default="fp8")
    r.add_argument("--no-int4", action="store_true", help="INT4 quality is not acceptable")
    r.add_argument("--concurrency", type=int, default=32)
    r.add_argument("--context", type=_int_tokens, default=8192)
    r.add_argument("--kv-precision", choices=["bf16", "fp8"], default="bf16")
    r.add_argument("--target-tokens-per-s", type=_tokens)
    r.add_argument("--gpu", default=DEFAULT_GPU)
    r.add_argument("--gpus-per-node", type=int, default=8)
    r.add_argument("--interconnect", default=DEFAULT_INTERCONNECT)
    r.add_argument("--train-tokens", type=_tokens)
    r.add_argument("--deadline-days", type=float)
    r.add_argument("--no-alternatives", action="store_true")
    r.add_argument("--json", action="store_true")

    m = sub.add_parser("memory", help="weights, KV cache and training state of one model")
    _model_args(m)
    m.add_argument("--workload", choices=WORKLOADS, default="inference")
    m.add_argument("--precision", choices=["bf16", "fp16", "fp8", "int4"], default="fp8")
    m.add_argument("--kv-precision", choices=["bf16", "fp8"], default="bf16")
    m.add_argument("--concurrency", type=int, default=1)
    m.add_argument("--context", type=_int_tokens, default=8192)
    m.add_argument("--tp", type=int, default=1, help="tensor parallelism (KV head replication)")
    m.add_argument("--json", action="store_true")

    s = sub.add_parser("scaling", help="step time and scaling efficiency of a layout")
    # The article's scaling table is for a 70B-class training step: that is the default.
    _model_args(s, default="llama-3.1-70b")
    s.add_argument("--workload", choices=[w for w in WORKLOADS if w != "inference"],
                   default="full-finetune")
    s.add_argument("--gpu", default=DEFAULT_GPU)
    s.add_argument("--nodes", type=int, default=1)
    s.add_argument("--gpus-per-node", type=int, default=8)
    s.add_argument("--tp", type=int, default=8)
    s.add_argument("--pp", type=int, default=1)
    s.add_argument("--dp", type=int, default=1)
    s.add_argument("--strategy", choices=["zero2", "zero3"], default="zero2")
    s.add_argument("--interconnect", default=DEFAULT_INTERCONNECT)
    s.add_argument("--json", action="store_true")

    c = sub.add_parser("catalog", help="the GPUs, links and models the engine knows")
    c.add_argument("--json", action="store_true")
    return root


def _model(args: argparse.Namespace) -> tuple[Any, list[str]]:
    if args.params_b is None and args.model is not None:
        return catalog().model(args.model), []
    if args.params_b is None or args.params_b <= 0:
        raise UsageError("--params-b must be a positive number of billions")
    return dense_spec_from_params(args.params_b)


def _positive(**values: int) -> None:
    for name, v in values.items():
        if v < 1:
            raise UsageError(f"--{name.replace('_', '-')} must be at least 1 (got {v})")


def cmd_recommend(args: argparse.Namespace) -> dict[str, Any]:
    try:
        req = SizingRequest(
            model=args.model, params_b=args.params_b, workload=args.workload,
            precision=args.precision, allow_int4=not args.no_int4,
            concurrency=args.concurrency, context=args.context,
            kv_precision=args.kv_precision, target_tokens_per_s=args.target_tokens_per_s,
            gpu=args.gpu, gpus_per_node=args.gpus_per_node, interconnect=args.interconnect,
            train_tokens=args.train_tokens, deadline_days=args.deadline_days,
        )
    except ValidationError as exc:
        err = exc.errors()[0]
        field = str(err["loc"][0]).replace("_", "-") if err["loc"] else "input"
        raise UsageError(f"--{field}: {err['msg']}") from None
    rec = recommend(req, alternatives=not args.no_alternatives)
    return rec.model_dump(mode="json")


def cmd_memory(args: argparse.Namespace) -> dict[str, Any]:
    _positive(concurrency=args.concurrency, context=args.context, tp=args.tp)
    m, notes = _model(args)
    pol = catalog().policy
    pc = count_params(m)
    out: dict[str, Any] = {
        "model": m.id,
        "params": pc.total,
        "active_params": pc.active,
        "precision": args.precision,
        "weights_gb": round(weights_bytes(pc, args.precision, pol) / GB, 3),
        "kv_precision": args.kv_precision,
        "kv_bytes_per_token": kv_bytes_per_token(m, args.kv_precision),
        "context": args.context,
        "concurrency": args.concurrency,
        "kv_cache_gb": round(
            kv_cache_bytes(m, args.kv_precision, args.context, args.concurrency, args.tp) / GB, 3
        ),
        "training_state_gb": None,
        "assumptions": notes,
    }
    if args.workload in TRAINING:
        st = training_state(m, pc, args.workload, pol)
        out["training_state_gb"] = round(st.total / GB, 3)
        out["activations_gb_per_gpu"] = round(activations_per_gpu(m, pol) / GB, 3)
    return out


def cmd_scaling(args: argparse.Namespace) -> dict[str, Any]:
    _positive(nodes=args.nodes, gpus_per_node=args.gpus_per_node, tp=args.tp, pp=args.pp,
              dp=args.dp)
    if args.tp * args.pp * args.dp != args.nodes * args.gpus_per_node:
        raise UsageError(
            f"--tp x --pp x --dp = {args.tp * args.pp * args.dp} must equal --nodes x "
            f"--gpus-per-node = {args.nodes * args.gpus_per_node}"
        )
    cat = catalog()
    m, notes = _model(args)
    gpu = cat.gpu(args.gpu)
    link = cat.link(args.interconnect)
    pc = count_params(m)
    st = training_state(m, pc, args.workload, cat.policy)
    fabric = Fabric(cat.links[gpu.in_node_link], link, cat.policy.nics_per_node)
    plan = project(m, pc, st, gpu, fabric, cat.policy, nodes=args.nodes,
                   gpus_per_node=args.gpus_per_node, tp=args.tp, pp=args.pp, dp=args.dp,
                   strategy=args.strategy)
    return {
        "model": m.id, "gpu": gpu.id, "interconnect": link.id, "nodes": args.nodes,
        "gpus_per_node": args.gpus_per_node,
        "layout": {"tp": args.tp, "pp": args.pp, "dp": args.dp, "strategy": args.strategy},
        "efficiency": round(plan.efficiency, 4),
        "step_time_s": round(plan.step_time_s, 3),
        "comm_share": round(plan.comm_share, 4),
        "fits": plan.fits,
        "memory_per_gpu_gb": round(
            (plan.state_per_gpu + plan.activations_per_gpu + plan.reserve_per_gpu) / GB, 2
        ),
        "assumptions": notes,
    }


def cmd_catalog(args: argparse.Namespace) -> dict[str, Any]:
    cat = catalog()
    return {
        "gpus": [g.model_dump(mode="json") for g in cat.gpus.values()],
        "links": [lk.model_dump(mode="json") for lk in cat.links.values()],
        "models": [m.model_dump(mode="json") for m in cat.models.values()],
    }


# -- readable output -------------------------------------------------------------------------


def _table(rows: list[tuple[str, str]]) -> str:
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k.ljust(width)}  {v}" for k, v in rows)


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:,.3g}" if abs(v) < 100 else f"{v:,.0f}"
    return str(v)


def render_recommendation(d: dict[str, Any]) -> str:
    rec = Recommendation.model_validate(d)
    lines = [rec.headline, ""]
    for q in rec.questions:
        lines.append(f"Step {q.step}: {q.question}")
        lines.append(f"  {q.answer.upper()}: {q.because}")
    lines.append("")
    lay = rec.layout
    rows = [
        ("verdict", f"{rec.verdict} (step {rec.step})"),
        ("hardware", f"{rec.nodes} x {rec.gpus_per_node}x {rec.gpu_name}"),
        ("precision", rec.precision),
        ("layout", f"TP={lay.tp} PP={lay.pp} DP={lay.dp}"),
    ]
    rows += [(k, _fmt(v)) for k, v in rec.numbers.model_dump().items() if v is not None]
    lines.append(_table(rows))
    for title, items in (("Caveats", rec.caveats), ("Assumptions", rec.assumptions)):
        if items:
            lines += ["", f"{title}:"] + [f"  - {c}" for c in items]
    if rec.alternatives:
        lines += ["", "Alternatives:"] + [f"  - {a.label}: {a.summary}" for a in rec.alternatives]
    return "\n".join(lines)


def render(command: str, d: dict[str, Any]) -> str:
    if command == "recommend":
        return render_recommendation(d)
    if command == "catalog":
        out = []
        for kind, key in (("GPUs", "gpus"), ("Links", "links"), ("Models", "models")):
            out.append(f"{kind}:")
            out += [f"  {e['id']:<24} {e['name']}" for e in d[key]]
        return "\n".join(out)
    return _table([(k, _fmt(v)) for k, v in d.items() if not isinstance(v, list | dict)] +
                  [(k, json.dumps(v)) for k, v in d.items() if isinstance(v, dict)])


COMMANDS = {
    "recommend": cmd_recommend,
    "memory": cmd_memory,
    "scaling": cmd_scaling,
    "catalog": cmd_catalog,
}


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        result = COMMANDS[args.command](args)
    except (UnknownModel, UnknownEntry, UsageError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result))
    else:
        print(render(args.command, result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
