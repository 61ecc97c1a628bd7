"""Command line: ``python -m engine recommend|memory|scaling|catalog [...] [--json] [--lang]``.

A contract for tests, operators and the other layers' engineers: ``--json`` prints exactly
one JSON object on stdout (for ``recommend``, the :class:`engine.result.Recommendation` dump,
its sentences as messages: id + params); without it, a readable table in ``--lang`` (en or
fr), rendered from the same messages. Quantities are read by engine/units.py, so ``--context
6k`` is 6,144 tokens and ``--target-tokens-per-s 6k`` is 6,000 tokens/s, as everywhere else.
A model outside the catalog: ``--params-b`` (with ``--active-params-b`` for an MoE) or
``--hf-config path/to/config.json``. Serving targets: ``--per-user-tokens-per-s``,
``--ttft-s``, ``--requests-per-s`` with ``--prompt-tokens`` / ``--output-tokens``.
``recommend --charts DIR`` also writes its charts as PNG files and prints their paths.
Bad flags or unknown names exit with status 2 and a message that says what was wrong (and the
nearest catalog names); no traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any, get_args

from pydantic import ValidationError

from engine import units
from engine.catalog import catalog
from engine.cli_charts import ChartsNotWritten, write_charts
from engine.cli_checks import UsageError, check_flags, epilog, gpu_id, link_id
from engine.cli_output import render_result
from engine.decision import recommend
from engine.decision.facts import build_facts
from engine.decision.models import resolve_model
from engine.errors import EngineError, UnknownModel
from engine.physics.memory import (
    activations_per_gpu,
    kv_bytes_per_token,
    kv_cache_bytes,
    training_state,
    weights_bytes,
)
from engine.physics.params import count_params
from engine.request import DEFAULT_GPU, DEFAULT_INTERCONNECT, TRAINING, SizingRequest, Work
from engine.units import GB, Kind, Lang
from engine.wording import msg, render, with_text

__all__ = ["main"]

WORKLOADS = ["inference", *TRAINING]
PRECISIONS = ["bf16", "fp16", "fp8", "int4", "nvfp4"]


def _reader(kind: Kind, unit: str = "") -> Callable[[str], float]:
    """An argparse type that reads a quantity the way every face does (engine/units.py)."""
    def read(text: str) -> float:
        try:
            return units.parse(text, kind, unit=unit)
        except units.UnitError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return read


def _whole(kind: Kind) -> Callable[[str], int]:
    base = _reader(kind)

    def read(text: str) -> int:
        value = base(text)
        if value != int(value):
            raise argparse.ArgumentTypeError(f"'{text}' is not a whole number")
        return int(value)
    return read


_context = _whole(Kind.CONTEXT)
_count = _whole(Kind.COUNT)
_rate = _reader(Kind.RATE, unit=r"tok(?:en)?s?/s")
_requests = _reader(Kind.RATE, unit=r"(?:req(?:uest)?s?/s|rps)")
_tokens = _reader(Kind.TOKENS, unit=r"tok(?:en)?s?")
_length = _whole(Kind.CONTEXT)  # tokens per request, like a context: 2k = 2,048


def _model_args(p: argparse.ArgumentParser, default: str | None = None) -> None:
    g = p.add_mutually_exclusive_group(required=default is None)
    g.add_argument("--model", default=default,
                   help="catalog id, Hugging Face id or a loose name"
                   + (f" (default {default})" if default else ""))
    g.add_argument("--params-b", type=float,
                   help="size a model from its parameter count (dense, or MoE with "
                   "--active-params-b)")
    g.add_argument("--hf-config", metavar="PATH",
                   help="size a model from its Hugging Face config.json")
    p.add_argument("--active-params-b", type=float,
                   help="active parameters per token of an MoE given by --params-b")


def _output_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.add_argument("--lang", choices=list(units.LANGS), default="en",
                   help="language of the readable output (default en)")


def _parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="python -m engine", description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = root.add_subparsers(dest="command", required=True)

    ids = epilog(catalog())
    raw = argparse.RawDescriptionHelpFormatter
    r = sub.add_parser("recommend", help="run the five questions and print the verdict",
                       epilog=ids, formatter_class=raw)
    _model_args(r)
    r.add_argument("--workload", choices=WORKLOADS, default="inference")
    r.add_argument("--precision", choices=PRECISIONS,
                   help="weight format (default FP8, or the model's native 4-bit checkpoint)")
    r.add_argument("--no-int4", action="store_true", help="INT4 quality is not acceptable")
    r.add_argument("--concurrency", type=_count, help="requests at once (default 32)")
    r.add_argument("--context", type=_context, help="tokens (8k = 8,192; default 8k)")
    r.add_argument("--kv-precision", choices=["bf16", "fp8"], help="(default bf16)")
    r.add_argument("--target-tokens-per-s", type=_rate, help="tokens/s (6k = 6,000)")
    r.add_argument("--per-user-tokens-per-s", type=_rate,
                   help="the speed each user must see, tokens/s")
    r.add_argument("--ttft-s", type=float, help="the first token within this many seconds")
    r.add_argument("--requests-per-s", type=_requests, help="arrivals per second")
    r.add_argument("--prompt-tokens", type=_length, help="prompt tokens per request")
    r.add_argument("--output-tokens", type=_length, help="generated tokens per request")
    r.add_argument("--gpu", default=DEFAULT_GPU,
                   help=f"GPU id (listed below; default {DEFAULT_GPU})")
    r.add_argument("--avoid-gpu", action="append", metavar="GPU",
                   help="a GPU never to offer as an alternative (repeatable)")
    r.add_argument("--gpus-per-node", type=int, default=8)
    r.add_argument("--interconnect", default=DEFAULT_INTERCONNECT,
                   help=f"link between nodes (listed below; default {DEFAULT_INTERCONNECT})")
    r.add_argument("--train-tokens", type=_tokens,
                   help="training only: token budget (1.5T = 1.5 x 10^12)")
    r.add_argument("--deadline-days", type=float,
                   help="days a training run, or a batch of --documents, must finish in")
    r.add_argument("--work", choices=get_args(Work),
                   help="inference only: the kind of serving work: its request shape and the "
                        "least its users accept (default chat; batch with --documents; a "
                        "translation's answers are as long as their text, a label is short)")
    r.add_argument("--documents", type=float,
                   help="inference only: a batch: documents to process by --deadline-days")
    r.add_argument("--nodes-owned", type=int,
                   help="nodes of --gpu x --gpus-per-node the customer already has: the "
                        "answer says first what they do")
    r.add_argument("--no-alternatives", action="store_true")
    r.add_argument("--charts", metavar="DIR", help="also write the charts (PNG) into DIR")
    _output_args(r)

    m = sub.add_parser("memory", help="weights, KV cache and training state of one model",
                       epilog=ids, formatter_class=raw)
    _model_args(m)
    m.add_argument("--workload", choices=WORKLOADS, default="inference")
    m.add_argument("--precision", choices=PRECISIONS,
                   help="weight format (default: what the workload uses: FP8 or the model's "
                   "native 4-bit checkpoint for inference, BF16 for a full fine-tune)")
    m.add_argument("--kv-precision", choices=["bf16", "fp8"], default="bf16")
    m.add_argument("--concurrency", type=_count, default=1)
    m.add_argument("--context", type=_context,
                   help="tokens (8k = 8,192; default 8k, or the model's limit when lower)")
    m.add_argument("--tp", type=int, default=1, help="tensor parallelism (KV head replication)")
    _output_args(m)

    s = sub.add_parser("scaling", help="step time and scaling efficiency of a layout",
                       epilog=ids, formatter_class=raw)
    # The article's scaling table is for a 70B-class training step: that is the default.
    _model_args(s, default="llama-3.1-70b")
    s.add_argument("--workload", choices=list(TRAINING), default="full-finetune")
    s.add_argument("--gpu", default=DEFAULT_GPU)
    s.add_argument("--nodes", type=int, default=1)
    s.add_argument("--gpus-per-node", type=int, default=8)
    s.add_argument("--tp", type=int, default=8)
    s.add_argument("--pp", type=int, default=1)
    s.add_argument("--dp", type=int, default=1)
    s.add_argument("--strategy", choices=["zero2", "zero3"], default="zero2")
    s.add_argument("--interconnect", default=DEFAULT_INTERCONNECT)
    _output_args(s)

    c = sub.add_parser("catalog", help="the GPUs, links and models the engine knows")
    _output_args(c)
    return root


def _hf_config(path: str | None) -> str | None:
    if path is None:
        return None
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except OSError as exc:
        raise UsageError(f"--hf-config: cannot read {path}: {exc.strerror}") from None


def _request(args: argparse.Namespace, **fields: Any) -> SizingRequest:
    """A SizingRequest from the flags; a bad value exits 2 naming the flag."""
    fields = {"model": args.model, "params_b": args.params_b,
              "active_params_b": args.active_params_b,
              "hf_config": _hf_config(args.hf_config), **fields}
    try:
        return SizingRequest.model_validate({k: v for k, v in fields.items() if v is not None})
    except ValidationError as exc:
        err = exc.errors()[0]
        field = str(err["loc"][0]).replace("_", "-") if err["loc"] else "input"
        raise UsageError(f"--{field}: {err['msg']}") from None


def _positive(**values: int) -> None:
    for name, v in values.items():
        if v < 1:
            raise UsageError(f"--{name.replace('_', '-')} must be at least 1 (got {v})")


def cmd_recommend(args: argparse.Namespace) -> dict[str, Any]:
    check_flags(args)
    cat = catalog()
    # a flag left unset is not "given" (SizingRequest's default): the engine may then use a
    # model's native format, cap a context at its limit, or count the requests in flight
    req = _request(
        args, workload=args.workload, precision=args.precision,
        allow_int4=not args.no_int4, concurrency=args.concurrency,
        context=args.context, kv_precision=args.kv_precision,
        target_tokens_per_s=args.target_tokens_per_s,
        per_user_tokens_per_s=args.per_user_tokens_per_s, ttft_s=args.ttft_s,
        requests_per_s=args.requests_per_s, prompt_tokens=args.prompt_tokens,
        output_tokens=args.output_tokens, gpu=gpu_id(args.gpu, cat, "--gpu"),
        gpus_per_node=args.gpus_per_node,
        interconnect=link_id(args.interconnect, cat, "--interconnect"),
        train_tokens=args.train_tokens, deadline_days=args.deadline_days,
        avoid_gpus=tuple(gpu_id(g, cat, "--avoid-gpu") for g in args.avoid_gpu)
        if args.avoid_gpu else None,
        work=args.work, documents=args.documents, nodes_owned=args.nodes_owned,
    )
    rec = recommend(req, alternatives=not args.no_alternatives)
    if args.charts:  # printed after the answer (on stderr with --json: one object on stdout)
        args.chart_paths = write_charts(req, rec, args.lang, args.charts)
    return rec.model_dump(mode="json")


def cmd_memory(args: argparse.Namespace) -> dict[str, Any]:
    """One model's memory, validated as ``recommend`` validates (a context beyond the model's
    limit is refused), its weights in the format the workload runs (BF16 for a full
    fine-tune, FP8 or the native 4-bit checkpoint for inference)."""
    _positive(concurrency=args.concurrency, tp=args.tp)
    if args.params_b is not None and args.params_b <= 0:
        raise UsageError("--params-b must be a positive number of billions")
    req = _request(args, workload=args.workload, precision=args.precision,
                   context=args.context, concurrency=args.concurrency,
                   kv_precision=args.kv_precision)
    resolved = resolve_model(req, catalog())
    facts = build_facts(req, catalog(), model=resolved)
    m, pc, pol = facts.model, count_params(facts.model), facts.policy
    context, precision = facts.request.context, facts.precision
    weights = weights_bytes(pc, precision, pol, m)
    state = training_state(m, pc, args.workload, pol) if args.workload in TRAINING else None
    if state is not None:  # what training holds: BF16 weights, or a frozen NF4 base
        precision, weights = state.base_precision, state.weights
    # the model's notes, and a context capped at its limit (not the GPU's: none is sized here)
    notes = [*resolved[3], *(n for n in facts.assumptions if n.id == "assumption.context_capped")]
    out: dict[str, Any] = {
        "model": m.id,
        "params": pc.total,
        "active_params": pc.active,
        "workload": args.workload,
        "precision": precision,
        "weights_gb": round(weights / GB, 3),
        "kv_precision": args.kv_precision,
        "kv_bytes_per_token": kv_bytes_per_token(m, args.kv_precision),
        "context": context,
        "concurrency": args.concurrency,
        "kv_cache_gb": round(
            kv_cache_bytes(m, args.kv_precision, context, args.concurrency, args.tp) / GB, 3
        ),
        "training_state_gb": None,
        "assumptions": [n.model_dump(mode="json") for n in notes],
    }
    if state is not None:
        out["training_state_gb"] = round(state.total / GB, 3)
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
    facts = build_facts(_request(args, workload=args.workload,
                                 gpu=gpu_id(args.gpu, cat, "--gpu"),
                                 gpus_per_node=args.gpus_per_node,
                                 interconnect=link_id(args.interconnect, cat, "--interconnect")),
                        cat)
    m, notes = facts.model, list(facts.assumptions)
    gpu, link = facts.gpu, facts.link
    plan = facts.search.project(nodes=args.nodes, tp=args.tp, pp=args.pp, dp=args.dp,
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
        "assumptions": [n.model_dump(mode="json") for n in notes],
    }


def cmd_catalog(args: argparse.Namespace) -> dict[str, Any]:
    cat = catalog()
    return {
        "gpus": [g.model_dump(mode="json") for g in cat.gpus.values()],
        "links": [lk.model_dump(mode="json") for lk in cat.links.values()],
        "models": [m.model_dump(mode="json") for m in cat.models.values()],
    }


COMMANDS: dict[str, Callable[[argparse.Namespace], dict[str, Any]]] = {
    "recommend": cmd_recommend,
    "memory": cmd_memory,
    "scaling": cmd_scaling,
    "catalog": cmd_catalog,
}


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    lang: Lang = args.lang
    try:
        result = COMMANDS[args.command](args)
    except UnknownModel as exc:  # the nearest names, and where every name is listed
        print("error: " + render(msg("cli.error.models_hint", error=exc.message,
                                     count=len(catalog().models)), lang), file=sys.stderr)
        return 2
    except EngineError as exc:
        print(f"error: {render(exc.message, lang)}", file=sys.stderr)
        return 2
    except UsageError as exc:
        print(f"error: {render(exc.message, lang)}", file=sys.stderr)
        return 2
    except ChartsNotWritten as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        print(json.dumps(with_text(result, lang)) if args.json
              else render_result(args.command, result, lang))
        if getattr(args, "chart_paths", None):
            print(*args.chart_paths, sep="\n", file=sys.stderr if args.json else None)
    except BrokenPipeError:  # the reader stopped early (``| head``): nothing left to say
        sys.stderr.close()
    return 0
