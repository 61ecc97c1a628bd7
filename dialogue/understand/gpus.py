"""GPUs as people name them: "8x H100s", "on our 4x L40S", "a single RTX 4090", a button's
label "NVIDIA L40S (48 GB)", and the ones refused ("not on L40S", "pas sur des H100").

The catalog resolves names (``engine.catalog``); this module finds them in a sentence with
the count per node said beside them, and keeps a GPU refused there as one to avoid: the
answer never offers it (engine ``avoid_gpus``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache, lru_cache

from dialogue.errors import ParseError
from dialogue.understand.lexicon import terms
from dialogue.understand.load import AnswerValue
from dialogue.understand.negation import may_refuse, refusal_start
from dialogue.understand.numbers import GPUS_PER_NODE_MAX
from dialogue.understand.text import shown, words
from engine.catalog import UnknownEntry, catalog, normalize
from engine.request import SizingRequest
from engine.wording import msg

_GPU_COUNT = re.compile(r"^(?:(?P<n>\d+)\s*(?:x|×)\s*|(?P<m>\d+)\s+)")
#: what may open a GPU answer ('on our H100s', 'sur nos H100'), taken off before the name
_LEAD = re.compile(rf"^{terms('gpu_lead')}\s+", re.I)
_OUR = re.compile(rf"^{terms('our_the')}\s+", re.I)
_GPU_SIZE = re.compile(r"\s*\(\s*\d+(?:[.,]\d+)?\s*(?:gb|go)\s*\)\s*$", re.I)


@lru_cache(maxsize=4096)
def gpu_candidates(said: str) -> tuple[str, ...]:
    """What a person may type for a GPU, bare: '8x H100s' -> 'H100s', 'H100'; a label
    read off a button 'NVIDIA L40S (48 GB)' -> 'NVIDIA L40S'."""
    t = _GPU_SIZE.sub("", " ".join(said.split()))
    t = _OUR.sub("", _LEAD.sub("", t))
    t = _GPU_COUNT.sub("", t, count=1) or t
    out = [t]
    if t.lower().endswith("s") and not t.lower().endswith(("l40s", "gpus")):
        out.append(t[:-1])  # a plural: 'H100s', '5090s'
    return tuple(out)


#: the GPUs of one node when none is said: the engine's own default (an HGX board's 8)
_NODE: int = SizingRequest.model_fields["gpus_per_node"].default
_NODES_MAX = 10_000  # as many servers as a person may say they own


def gpu_count(said: str) -> int | None:
    """The count before a GPU name ('4x L40S', '8 H100') within the engine's bound."""
    t = _OUR.sub("", _LEAD.sub("", said.strip()))
    m = _GPU_COUNT.match(t)
    if m is None:
        return None
    n = int(m["n"] or m["m"])
    return n if 1 <= n <= GPUS_PER_NODE_MAX or (n % _NODE == 0 and n <= _NODE * _NODES_MAX) \
        else None


def whole_nodes(count: int) -> dict[str, AnswerValue]:
    """A count of GPUs as the nodes it makes: 'we have 16 H100' is two nodes of the usual 8
    (no HGX board holds 16), '4x L40S' one node of 4."""
    if count > _NODE and count % _NODE == 0:
        return {"gpus_per_node": _NODE, "nodes_owned": count // _NODE}
    return {"gpus_per_node": count}


def gpu(said: str) -> str:
    cands = gpu_candidates(said)
    for cand in cands[1:]:
        try:
            return catalog().gpu(cand).id
        except UnknownEntry:
            continue
    try:
        return catalog().gpu(cands[0]).id
    except UnknownEntry as exc:
        gpus = catalog().gpus
        names = [gpus[s].name for s in exc.suggestions if s in gpus]
        message = (msg("dialogue.error.gpu_unknown_near", text=shown(said), names=names)
                   if names else msg("dialogue.error.gpu_unknown", text=shown(said)))
        raise ParseError(message, exc.suggestions) from None


def hardware(said: str) -> dict[str, str | int | float | bool | None]:
    """The GPU question's answer: the GPU, and the count per node when one is given ('4x
    L40S'); a count alone ('4 GPUs') keeps the GPU."""
    t = words(said)
    alone = re.fullmatch(rf"(?:on\s+|sur\s+)?(\d+)\s*(?:x\s*)?{terms('gpu_words')}", t)
    if alone is not None:
        n = int(alone[1])
        if 1 <= n <= GPUS_PER_NODE_MAX:
            return {"gpus_per_node": n}
        raise ParseError(msg("dialogue.error.gpus_per_node", hi=GPUS_PER_NODE_MAX,
                             text=shown(said)))
    try:
        out: dict[str, str | int | float | bool | None] = {"gpu": gpu(said)}
    except ParseError:
        named: dict[str, AnswerValue] = {}  # 'pour des H200 stp': the GPU the sentence names
        find_gpu(f" {t} ", named)
        if "gpu" in named and "nodes_owned" not in named:
            return dict(named)
        if t.isdigit():  # '16' at the GPU question: no GPU is named so; a count, said alone
            n = int(t)
            if not 1 <= n <= GPUS_PER_NODE_MAX:
                raise ParseError(msg("dialogue.error.gpus_per_node", hi=GPUS_PER_NODE_MAX,
                                     text=shown(said))) from None
            raise ParseError(msg("dialogue.error.gpu_number", text=shown(said), n=n),
                             retry=[f"{n} GPU" if n == 1 else f"{n} GPUs"]) from None
        raise
    count = gpu_count(said)
    if count is not None:
        out |= whole_nodes(count)
    return out


@cache
def _gpu_keys() -> frozenset[str]:
    """Every GPU name the catalog knows, normalized; bare numbers ('5090') left out, since
    in a sentence a number is more often a count."""
    keys = {normalize(k) for g in catalog().gpus.values() for k in (g.id, g.name, *g.aliases)}
    return frozenset(k for k in keys if not k.isdigit())


@cache
def _gpu_blob() -> str:
    return "|".join(_gpu_keys())


@lru_cache(maxsize=8192)
def _gpu_word(w: str) -> bool:
    """Whether a word could be part of a GPU's name ('h100s', 'rtx', 'l40s'; not '4')."""
    if not w or w == "|" or w.isdigit() or w[:-1].isdigit():
        return False
    blob = _gpu_blob()
    return normalize(w) in blob or normalize(w.rstrip("s")) in blob


#: Words that count one GPU before its name ('a single H100'; 'une seule H100' folds to 'seule').
_ONE = frozenset({"single", "one", "seule", "seul", "unique"})


@cache
def _bare_gpu_keys() -> frozenset[str]:
    """The GPU names that are a number alone ('4090', '5090'): a GPU only where the words
    before it say hardware (:data:`_HARDWARE_BEFORE`), a count everywhere else."""
    return frozenset(normalize(k) for g in catalog().gpus.values() for k in g.aliases
                     if normalize(k).isdigit())


#: Words before a bare number that make it a GPU's name ('on a 4090', 'sur une 5090', '2x
#: 4090', 'a single 4090').
_HARDWARE_BEFORE = frozenset({"a", "an", "one", "single", "un", "une", "seul", "seule", "on",
                              "sur", "our", "nos", "notre", "with", "avec"})


def _bare_gpu(ws: list[str], i: int) -> bool:
    w = ws[i].rstrip("s")
    before = ws[i - 1] if i > 0 else ""
    return w in _bare_gpu_keys() and (before in _HARDWARE_BEFORE
                                      or re.fullmatch(r"\d+x", before) is not None)


def _named(ws: list[str]) -> Iterator[tuple[int, int, str]]:
    """Each window of words naming a catalog GPU, as (first word, words, candidate name),
    the longest windows first."""
    # a word no GPU name holds ('company') cannot be in one: windows across it are skipped,
    # and a window of counts alone ('4 8') names no GPU
    named = [_gpu_word(w) or _bare_gpu(ws, i) for i, w in enumerate(ws)]
    near = [n or (w[:-1].isdigit() and w != "|") for w, n in zip(ws, named, strict=True)]
    for size in (4, 3, 2, 1):
        for i in range(len(ws) - size + 1):
            if not all(near[i : i + size]) or not any(named[i : i + size]):
                continue
            for cand in gpu_candidates(" ".join(ws[i : i + size])):
                bare = size == 1 and not _gpu_word(ws[i])  # named[i] by _bare_gpu alone
                if normalize(cand) in (_bare_gpu_keys() if bare else _gpu_keys()):
                    yield i, size, cand


_NODES = re.compile(terms("nodes_words"))
#: a vendor's system before its GPU's name ('DGX H100'): one board, a node
_SYSTEM = re.compile(rf"{terms('node_systems')}\b")
#: another GPU joined to one just refused ('not on L40S or B200', 'ni L40S ni L4')
_ALSO = re.compile(rf"\|\s+{terms('or_and')}\s+(?:{terms('on_the')}\s+)*$")


def _avoided(rest: str, answers: dict[str, AnswerValue]
             ) -> tuple[str, list[tuple[int, int, str]] | None]:
    """The GPUs a sentence refuses ('not on L40S', 'pas sur des H100'), kept in
    ``avoid_gpus`` (comma-separated ids: never offered), their words taken out; and the GPU
    names of what is left when they had to be listed (None: none refused was looked for)."""
    if not may_refuse(rest):
        return rest, None
    for _ in range(8):  # a few refused at most; each pass takes one out
        ws = rest.split(" ")
        hits = list(_named(ws))
        for i, size, cand in hits:
            start = len(" ".join(ws[:i])) + 1
            at = refusal_start(rest, start)
            also = _ALSO.search(rest[:start]) if at is None else None  # 'not L40S or B200'
            at = also.start() + 1 if also is not None else at
            if at is None:
                continue
            try:
                refused = gpu(cand)
            except ParseError:  # a name two GPUs share: not one GPU refused
                continue
            said = [g for g in str(answers.get("avoid_gpus") or "").split(",") if g]
            answers["avoid_gpus"] = ",".join(dict.fromkeys([*said, refused]))
            rest = rest[:at] + "| " + rest[len(" ".join(ws[: i + size])):]
            break
        else:
            return rest, hits
    return rest, None


#: a count written as GPUs per node ('8x H100', '8 × H100'), never a count of servers
_PER_NODE = re.compile(r"\d+\s*[x×]\s")
_GLUED_COUNT = re.compile(r"(?<!\S)(\d+x)([a-z][a-z0-9-]*)(?!\S)")


def find_gpu(rest: str, answers: dict[str, AnswerValue]) -> str:
    """Take a GPU named in the sentence ('on 8x H100s', 'on our 4x L40S', 'on a 4090') out
    of it, with the count per node before it: exact catalog names only; a refused one ('not
    on H100s') is one to avoid."""
    if "x" in rest:  # a count glued to the GPU's name ('4xL40S'): '4x L40S'
        rest = _GLUED_COUNT.sub(
            lambda m: f"{m[1]} {m[2]}" if _gpu_word(m[2]) else m[0], rest)
    rest, hits = _avoided(rest, answers)
    ws = rest.split(" ")
    for i, size, cand in _named(ws) if hits is None else hits:
        try:
            answers.setdefault("gpu", gpu(cand))
        except ParseError:  # a name two GPUs share: not an answer
            continue
        window = " ".join(ws[i : i + size])
        count = gpu_count(window)
        before = ws[i - 1] if i > 0 else ""
        if count is None and re.fullmatch(r"\d+x?", before):
            count = gpu_count(before.rstrip("x") + "x " + cand)
            i -= 1
            size += 1
        elif count is None and before in _ONE:  # 'a single RTX 4090', 'une seule'
            count, i, size = 1, i - 1, size + 1
        after = ws[i + size] if i + size < len(ws) else ""
        if _SYSTEM.match(window):  # 'one DGX H100': a node of a board's GPUs, counted
            answers.setdefault("gpus_per_node", _NODE)
            n = 1 if before in _ONE else int(before) if before.isdigit() else 0
            if 1 <= n <= _NODES_MAX:
                answers.setdefault("nodes_owned", n)
                i, size = i - 1, size + 1
            size += 1 if _NODES.fullmatch(after) else 0
            return " ".join([*ws[:i], "|", *ws[i + size :]])
        per_node = _PER_NODE.match(" ".join(ws[i : i + size])) is not None
        if count is not None and _NODES.fullmatch(after) and per_node:
            # '2 8x H100 servers': 2 servers of 8 each; '8x H100 servers': 8 in each
            answers.setdefault("gpus_per_node", count)
            pre = ws[i - 1] if i > 0 else ""
            if pre.isdigit() and 1 <= int(pre) <= _NODES_MAX:
                answers.setdefault("nodes_owned", int(pre))
                i -= 1
                size += 1
            size += 1
        elif count is not None and _NODES.fullmatch(after):  # '4 H100 nodes': 4 nodes of them
            answers.setdefault("nodes_owned", count)
            size += 1
        elif count is not None:
            for k, v in whole_nodes(count).items():
                answers.setdefault(k, v)
        elif "nodes_owned" in answers and _NODES.fullmatch(after):  # 'one 8-GPU H100 node'
            size += 1
        return " ".join([*ws[:i], "|", *ws[i + size :]])
    return rest
