"""Names typed at a question: the workload, the weight format, the link between nodes. Models
are ``dialogue/understand/models.py``'s, GPUs ``dialogue/understand/gpus.py``'s.

The catalog resolves names (``engine.catalog``: one resolution for the CLI, the dialogue and
every face); this module adds the workload words of both languages ("serving",
"inférence", "affinage"), and the refusals with the nearest catalog names, so a face can
offer them as choices. A bare "fine-tune" (or "sft", "affinage") names no workload: which
kind (LoRA, QLoRA, full) changes the answer several-fold, so it is asked, never taken as
full: the kind is returned as a proposal (:class:`~dialogue.conversation.Proposal`), a value
like the workload, and a text that names none raises :class:`~dialogue.errors.ParseError`.
"""

from __future__ import annotations

import re
from typing import Literal, get_args

from dialogue.assumptions import assumptions
from dialogue.conversation import Option, Proposal
from dialogue.errors import ParseError
from dialogue.understand.lexicon import terms
from dialogue.understand.negation import negated
from dialogue.understand.noise import NOISE
from dialogue.understand.text import fold, shown, words
from engine.catalog import UnknownEntry, catalog
from engine.request import AskedPrecision, Workload
from engine.wording import msg

WORKLOADS: tuple[Workload, ...] = get_args(Workload)
FINETUNES: tuple[Workload, ...] = ("lora", "qlora", "full-finetune")
#: What a sentence may name: a workload, "a fine-tune" of a kind not said, or "training" of
#: a kind not said (a fine-tune or a pre-training: the hardware differs several-fold).
Named = Workload | Literal["finetune", "train"]

# -- workloads -------------------------------------------------------------------------------

#: Each workload's words are the lexicon's, by its name ('full-finetune': 'full_finetune').
_WORKLOAD_PATTERNS: dict[Named, str] = {
    w: terms(w.replace("-", "_"))
    for w in ("qlora", "lora", "pretrain", "full-finetune", "finetune", "train", "inference")}
WORKLOAD_RE = {w: re.compile(rf"\b(?:{p})\b") for w, p in _WORKLOAD_PATTERNS.items()}
_SPECIFIC: tuple[Named, ...] = ("qlora", "lora", "full-finetune")  # named anywhere, they win


#: phrases that hold a workload's word and name none ('en train de': busy doing)
_NO_WORKLOAD = re.compile(rf"\b{terms('no_workload')}")


def _masked(folded: str) -> str:
    """The sentence with those phrases blanked, every other word where it was."""
    return _NO_WORKLOAD.sub(lambda m: " " * len(m.group(0)), folded)


def trains(folded: str) -> bool:
    """Whether a sentence names a training of any kind (a fine-tune, a pre-training)."""
    return (find_workload(folded) or ("inference",))[0] != "inference"


#: the rest of a word joined by hyphens to a workload word ('a reading-assistant pilot')
_JOINED_BEFORE = re.compile(r"(?<![\w-])(?:[^\W_]+-)+$")
_JOINED_AFTER = re.compile(r"^(?:-[^\W_]+)+(?![\w-])")


def _whole(folded: str, span: tuple[int, int]) -> tuple[int, int]:
    """A workload word inside a hyphenated word is read with the whole word ('a
    reading-assistant' is served): what is left unused is never half a word ('reading-')."""
    before = _JOINED_BEFORE.search(folded, 0, span[0])
    after = _JOINED_AFTER.match(folded[span[1]:])
    return (before.start() if before else span[0], span[1] + (after.end() if after else 0))


def find_workload(folded: str) -> tuple[Named, tuple[int, int]] | None:
    """The workload a folded sentence names, and where: a kind of fine-tune named anywhere
    wins ('fine-tune it with LoRA'); otherwise the first workload word. A refused one ('not
    a full fine-tune', 'pas d'inférence') does not count, nor a phrase that only holds
    its word ('en train de')."""
    folded = _masked(folded)
    for w in _SPECIFIC:
        for m in WORKLOAD_RE[w].finditer(folded):
            if not negated(folded, m.start()):
                return w, _whole(folded, m.span())
    found = [(m.start(), w, m.span()) for w in _WORKLOAD_PATTERNS if w not in _SPECIFIC
             for m in WORKLOAD_RE[w].finditer(folded) if not negated(folded, m.start())]
    if not found:
        return None
    # a training of no kind said is a pre-training when 'from scratch' comes anywhere
    # ('training llama 8b from scratch'); else the first word named, of two starting there
    # the longer
    def first(f: tuple[int, Named, tuple[int, int]]) -> tuple[int, int]:
        return f[0], f[2][0] - f[2][1]

    if min(found, key=first)[1] == "train":
        found = [f for f in found if f[1] == "pretrain"] or found
    _, w, span = min(found, key=first)
    return w, _whole(folded, span)


def finetune_kind() -> Proposal:
    """Which fine-tune: LoRA, QLoRA or full, each with one line on what it means."""
    options = [Option(value=w, label=msg(f"dialogue.choice.finetune.{w.replace('-', '_')}"),
                      answers={"workload": w}) for w in FINETUNES]
    return Proposal(text=msg("dialogue.confirm.finetune"), options=options)


#: Above this, a rate of tokens/s is a total: no one user reads that fast.
PER_USER_MAX = 500.0


_TOTAL = re.compile(rf"\b{terms('total')}\b")


def says_total(folded: str) -> bool:
    """Whether a sentence says its rate is a total ('in total', 'throughput', 'débit')."""
    return _TOTAL.search(folded) is not None


def which_speed(rate: float) -> Proposal:
    """'20 tok/s' with nothing to say whose: per user, or in total for everyone?"""
    return Proposal(text=msg("dialogue.confirm.speed", rate=rate), options=[
        Option(value=f"{rate:g} tok/s per user", label=msg("dialogue.choice.per_user", rate=rate),
               answers={"per_user_tokens_per_s": rate}),
        Option(value=f"{rate:g} tok/s in total", label=msg("dialogue.choice.total", rate=rate),
               answers={"target_tokens_per_s": rate})])


#: a speed wanted without a number ('fast answers', 'réponse rapide', 'low latency')
_ANSWERS = terms("answers_words")
_FAST = rf"(?:{terms('fast')}|quick)"
FAST = re.compile(rf"(?:\b{_ANSWERS}\s+)?\b{_FAST}\b(?:\s+{_ANSWERS}\b)?")
#: 'a quick sizing', 'un chiffrage rapide', 'quick question': the request is quick, not the
#: answers the model gives (no speed is wanted by it)
QUICK_ASK = re.compile(rf"\b{terms('quick_asks')}\s+{_FAST}\b|\b{_FAST}\s+{terms('quick_asks')}\b")


def fast(folded: str) -> re.Match[str] | None:
    """A speed wanted without a number, never the quickness of the request itself."""
    m = FAST.search(folded)
    if m is None or QUICK_ASK.search(folded) is None:
        return m
    return FAST.search(QUICK_ASK.sub(lambda q: " " * len(q[0]), folded))


def how_fast() -> Proposal:
    """'fast answers', 'réponse rapide': a speed wanted without a number, asked with the
    two speeds people mean (never sized on the reading speed assumed)."""
    chatgpt, reading = assumptions().chatgpt_tokens_per_s, catalog().policy.comfortable_tokens_per_s
    return Proposal(text=msg("dialogue.confirm.fast", reading=reading, chatgpt=chatgpt),
                    options=[
        Option(value=f"{reading:g} tok/s per user", label=msg("dialogue.choice.reading",
                                                               rate=reading),
               answers={"per_user_tokens_per_s": float(reading)}),
        Option(value=f"{chatgpt:g} tok/s per user", label=msg("dialogue.choice.chatgpt",
                                                               rate=chatgpt),
               answers={"per_user_tokens_per_s": float(chatgpt)})])


def training_kind() -> Proposal:
    """Which training: one of the fine-tunes, or a pre-training from scratch."""
    options = [*finetune_kind().options,
               Option(value="pretrain", label=msg("dialogue.choice.training.pretrain"),
                      answers={"workload": "pretrain"})]
    return Proposal(text=msg("dialogue.confirm.training"), options=options)


def workload(said: str) -> Workload | Proposal:
    """The workload a text names, or which kind of fine-tune or training it means."""
    t = fold(said)
    if t in WORKLOADS:
        return WORKLOADS[WORKLOADS.index(t)]
    found = find_workload(t)
    if found is not None:
        if found[0] == "finetune":
            return finetune_kind()
        if found[0] == "train":
            return training_kind()
        return found[0]
    raise ParseError(msg("dialogue.error.workload", text=shown(said)))


# -- weight formats ---------------------------------------------------------------------------

#: The weight formats a person may name (engine.request.AskedPrecision, INT4 aside: it is its
#: own question), each with the words people use for it, on folded text.
_PRECISION_PATTERNS: dict[AskedPrecision, str] = {
    f: terms(f"format_{f}") for f in ("fp8", "bf16", "fp16", "nvfp4")}
#: One weight format named anywhere: not inside a name ('llama-3.1-70b-fp8' is the model's).
PRECISION_RE = re.compile(r"(?<![\w-])(?:" + "|".join(_PRECISION_PATTERNS.values())
                          + r")(?![\w-])")
_KV_NEAR = re.compile(rf"\b{terms('kv_words')}\b")


def precision(said: str) -> AskedPrecision:
    """The weight format a text names (FP8, BF16, FP16, NVFP4): the first one, its words
    folded ('bfloat16', '16-bit', 'fp4')."""
    t = fold(said)
    for m in PRECISION_RE.finditer(t):
        for fmt, said_as in _PRECISION_PATTERNS.items():
            if re.fullmatch(said_as, m.group(0)):
                return fmt
    raise ParseError(msg("dialogue.error.precision", text=shown(said)))


#: A KV cache's format: 'fp8 kv (cache)', 'kv cache in fp8', 'cache kv en fp8'.
KV_FORMAT_RE = re.compile(
    r"\b(?P<a>fp8|bf16|fp16)\s+kv(?:[- ]?cache)?\b"
    r"|\b(?:kv[- ]?cache|cache\s+kv|kv)\s+(?:in\s+|en\s+|at\s+|=\s*|:\s*)?(?P<b>fp8|bf16|fp16)\b")


def kv_format(m: re.Match[str]) -> str:
    """The KV cache format a :data:`KV_FORMAT_RE` match names (FP16 is kept as BF16: the
    same two bytes a value)."""
    fmt = m.group("a") or m.group("b")
    return "fp8" if fmt == "fp8" else "bf16"


def weights_format_at(folded: str, start: int, end: int) -> bool:
    """Whether the format named at ``folded[start:end]`` is the weights' and not the KV
    cache's ('an FP8 KV cache', 'cache KV en FP8' name the cache)."""
    return _KV_NEAR.search(folded, max(0, start - 12), min(len(folded), end + 12)) is None


# -- the link between nodes ------------------------------------------------------------------

_UNSURE = re.compile(rf"(?:{terms('unsure_fillers')}\s+)*{terms('unsure')}"
                     rf"(?:\s+{terms('unsure_fillers')})*")


#: a bound refused outright at its own question ('no deadline', 'no rush', 'pas pressé'): the
#: choice is left to the bot as 'not sure' leaves it, with the same fillers around it
_OPEN_ENDED = re.compile(rf"(?:{terms('unsure_fillers')}\s+)*{terms('open_ended')}"
                         rf"(?:\s+{terms('unsure_fillers')})*")


def open_ended(said: str) -> bool:
    """'no deadline', 'whenever', 'pas de date limite': the person sets no bound, so the
    question's default is taken and said as assumed (a run needs some wall-clock time)."""
    return _OPEN_ENDED.fullmatch(words(said).rstrip("?").strip()) is not None


_UNSURE_IN = re.compile(rf"\b{_UNSURE.pattern}\b")
_DEFERRING = re.compile(rf"{terms('unsure_deferring')}")
#: why it is not known yet ('no idea yet, customer hasn't told us', 'aucune idée, le client
#: ne l'a pas dit'): no answer either
_NOT_TOLD = re.compile(rf"{terms('unsure_reasons')}")


def unsure(said: str) -> bool:
    """'not sure', 'je ne sais pas', 'default': the person leaves the choice to the bot; with
    words around it that only hand the choice over ('not sure, whatever you'd suggest', 'je
    ne sais pas, je vous laisse retenir la valeur par défaut') or say why it is not known
    ('no idea yet, the customer hasn't told us'), never with anything else
    ('not sure, maybe 32k' answers 32k)."""
    t = words(said).rstrip("?").strip()
    if not t or _UNSURE.fullmatch(t) is not None:
        return bool(t)
    if _UNSURE_IN.search(t) is None:
        return False
    rest = _UNSURE_IN.sub(" ", t).split()
    return all(NOISE.fullmatch(w) or _DEFERRING.fullmatch(w) or _NOT_TOLD.fullmatch(w)
               for w in rest)


#: A link named in a sentence: InfiniBand (NDR, HDR, a rate), or Ethernet by its rate, the
#: rate before or after the word ('25 GbE', 'Ethernet 25G', '100 Gbit RoCE').
LINK_RE = (r"(?P<v>\b(?:infiniband|ib)\s*(?:(?:ndr|hdr|xdr)\s*\d*|\d+)"
           r"(?:\s*g(?:b(?:it)?)?(?:/s|ps)?)?\b"
           r"|\b(?:\d+\s*g(?:b(?:/s|ps|it)?)?|ndr|hdr|xdr)\s*(?:ib|infiniband)\b"
           r"|\b\d+\s*g(?:b)?e\b"
           r"|\b(?:ethernet|roce)\s*\d+\s*g(?:b(?:it)?(?:/s)?|bps)?\b"
           r"|\b\d+\s*g(?:b(?:it)?(?:/s)?|bps)?\s*(?:ethernet|roce)\b)")
_ETHERNET = re.compile(r"\b(?:ethernet|roce)\s*(\d+)\s*g\S*|\b(\d+)\s*g(?:bit|bps|b/s)?\s*"
                       r"(?:ethernet|roce)\b")


_IB_FIRST = re.compile(r"\b(\d+|ndr|hdr|xdr)\s*(?:g(?:b(?:/s|ps|it)?)?)?\s*(?:ib|infiniband)\b")


_IB_RATE = re.compile(r"\b((?:infiniband|ib)\s*\d+)\s*g(?:b(?:it)?)?(?:/s|ps)?\b")


def interconnect(said: str) -> str:
    """A link between nodes (an ``inter`` link of the catalog). An unsure answer is not read
    here: the slot takes the default then, marked as assumed, so the person sees it."""
    t = _ETHERNET.sub(lambda m: f"{m[1] or m[2]} gbe", fold(said.strip()))
    t = _IB_FIRST.sub(lambda m: f"infiniband {m[1]}", t)  # '200 Gb/s InfiniBand', 'HDR IB'
    t = _IB_RATE.sub(r"\1", t)  # 'InfiniBand 400G': its rate, as the catalog names it
    inter = catalog().inter_links()
    try:
        link = catalog().link(t)
        suggestions: list[str] = []
    except UnknownEntry as exc:
        link = None
        suggestions = exc.suggestions
    if link is not None and link.scope == "inter":
        return link.id
    names = [lk.name for lk in inter]
    if link is not None:
        raise ParseError(msg("dialogue.error.link_inside", link=link.name, names=names))
    ids = {lk.id for lk in inter}
    raise ParseError(msg("dialogue.error.link", text=shown(said), names=names),
                     [s for s in suggestions if s in ids])
