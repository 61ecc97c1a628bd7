"""What the command line checks before it asks the engine: names and flags.

Why its own room: the engine resolves a loose GPU name to its closest part, which is right for
a person typing in a conversation (it says what it took) and wrong for a script, where
``--gpu h100`` would silently mean the SXM5 part, twice as fast as the PCIe card for a
tensor-parallel 70B (claim C17, docs/decision-tree.md). So the command line refuses a name
that starts the names of several parts, naming each (one retyped id is cheaper than a quote
off by 2x), lists the valid ids with the nearest ones when a name is unknown, and refuses a
flag the workload does not use (``--train-tokens`` on inference, ``--deadline-days`` on
inference that is no batch of ``--documents``) instead of ignoring it.
Every refusal is a message (engine/data/messages/cli.*.toml), said in ``--lang``.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from engine.catalog import Catalog
from engine.catalog.names import entry_keys, lookup, normalize
from engine.request import TRAINING
from engine.wording import Message, msg

__all__ = ["UsageError", "check_flags", "epilog", "gpu_id", "link_id"]

#: Flags only training reads (argparse dest -> the flag as typed).
TRAINING_ONLY = {"train_tokens": "--train-tokens"}
#: Flags only serving reads.
INFERENCE_ONLY = {
    "concurrency": "--concurrency", "target_tokens_per_s": "--target-tokens-per-s",
    "per_user_tokens_per_s": "--per-user-tokens-per-s", "ttft_s": "--ttft-s",
    "requests_per_s": "--requests-per-s", "prompt_tokens": "--prompt-tokens",
    "output_tokens": "--output-tokens", "kv_precision": "--kv-precision",
    "no_int4": "--no-int4", "work": "--work", "documents": "--documents",
}


class UsageError(Exception):
    """Input the engine cannot use; exits 2 with this message (a catalog message, or an
    operator's English text)."""

    def __init__(self, message: Message | str) -> None:
        self.message = message
        super().__init__(message if isinstance(message, str) else message.id)


def _siblings(text: str, chosen: str, gpus: Mapping[str, Any]) -> list[str]:
    """Other parts whose names start with ``text`` as typed ('h100' starts 'H100 PCIe' as
    well as 'H100 SXM5'); none when ``text`` is an id."""
    want = normalize(text)
    if any(normalize(g) == want for g in gpus):
        return []
    return [g for g, spec in gpus.items()
            if g != chosen and any(k.startswith(want) for k in entry_keys(spec))]


def gpu_id(text: str, cat: Catalog, flag: str) -> str:
    """The one GPU ``text`` names, or a refusal naming the nearest ids, every id, or the
    parts an ambiguous name could mean."""
    found = lookup(text, cat.gpus, "gpu", n=3)
    valid = sorted(cat.gpus)
    if found.entry_id is None:
        if found.candidates:
            raise UsageError(msg("cli.error.unknown_gpu", flag=flag, text=text,
                                 nearest=list(found.candidates), valid=valid))
        raise UsageError(msg("cli.error.unknown_gpu_bare", flag=flag, text=text, valid=valid))
    others = _siblings(text, found.entry_id, cat.gpus)
    if others:
        parts = [msg("cli.error.part", id=g, name=cat.gpus[g].name)
                 for g in sorted([found.entry_id, *others])]
        raise UsageError(msg("cli.error.ambiguous_gpu", flag=flag, text=text, parts=parts))
    return found.entry_id


def link_id(text: str, cat: Catalog, flag: str) -> str:
    """The link ``text`` names (an in-node link is left to the engine, which says why it
    cannot run between nodes), or a refusal naming the nearest and every inter-node id."""
    found = lookup(text, cat.links, "link", n=3)
    if found.entry_id is not None:
        return found.entry_id
    valid = sorted(lk.id for lk in cat.inter_links())
    nearest = [c for c in found.candidates if c in valid]
    if nearest:
        raise UsageError(msg("cli.error.unknown_link", flag=flag, text=text, nearest=nearest,
                             valid=valid))
    raise UsageError(msg("cli.error.unknown_link_bare", flag=flag, text=text, valid=valid))


def check_flags(args: argparse.Namespace) -> None:
    """Refuse the flags ``args.workload`` does not read."""
    def given(table: dict[str, str]) -> list[str]:
        return [flag for dest, flag in table.items()
                if getattr(args, dest, None) not in (None, False)]

    if args.workload in TRAINING:
        extra = given(INFERENCE_ONLY)
        if extra:
            raise UsageError(msg("cli.error.not_for_training", flags=extra, n=len(extra),
                                 workload=args.workload))
    else:
        extra = given(TRAINING_ONLY)
        if extra:
            raise UsageError(msg("cli.error.not_for_inference", flags=extra, n=len(extra),
                                 training=[str(w) for w in TRAINING]))
        if args.deadline_days is not None and args.documents is None:
            raise UsageError(msg("cli.error.deadline_without_documents"))


def epilog(cat: Catalog) -> str:
    """The ids ``--help`` lists: GPUs, links between nodes, models."""
    def block(title: str, ids: list[str]) -> str:
        lines, line = [], " "
        for i in ids:
            if len(line) + len(i) + 2 > 92:
                lines.append(line)
                line = " "
            line += f" {i},"
        lines.append(line.rstrip(","))
        return f"{title}:\n" + "\n".join(lines)

    return "\n\n".join([
        block("GPU ids (--gpu, --avoid-gpu)", sorted(cat.gpus)),
        block("interconnect ids (--interconnect)", sorted(lk.id for lk in cat.inter_links())),
        block("model ids (--model; a Hugging Face id or a loose name also works)",
              sorted(cat.models)),
    ])
