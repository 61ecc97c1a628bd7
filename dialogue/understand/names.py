"""Names typed at a question: the model, the workload, the GPU, the link between nodes.

The catalog resolves names (``engine.catalog``: one resolution for the CLI, the dialogue and
every face); this module adds what people wrap around them ("we want to run the ...",
"8x H100s", a button's label "NVIDIA L40S (48 GB)"), a parameter count for a model the
catalog does not hold ("a 30B dense model", "30 milliards de paramètres"), the workload words
of both languages ("serving", "inférence", "affinage"), and the refusals with the nearest
catalog names, so a face can offer them as choices.
"""

from __future__ import annotations

import re
from typing import get_args

from dialogue.errors import ParseError
from dialogue.understand.text import fold, shown, words
from engine.catalog import UnknownEntry, UnknownModel, catalog
from engine.request import Workload
from engine.units import Kind, Lang, quantity
from engine.wording import msg

WORKLOADS: tuple[Workload, ...] = get_args(Workload)

# -- parameter counts ------------------------------------------------------------------------

PARAMS_MAX_B = 100_000.0  # the engine's bound (SizingRequest.params_b)
_EXPLICIT = frozenset({"params", "param", "parameters", "parameter", "parametres", "parametre",
                       "dense", "model", "modele", "llm", "billion", "billions", "milliard",
                       "milliards", "million", "millions", "trillion"})
_PARAM_FILLER = frozenset({"a", "an", "un", "une", "our", "own", "notre", "nos", "custom",
                           "dense", "model", "modele", "llm", "with", "de", "d", "of", "params",
                           "param", "parameters", "parameter", "parametres", "parametre",
                           "total", "maison", "propre"})


def params(text: str, lang: Lang = "en", *, explicit: bool = True) -> float | None:
    """A parameter count in billions from '30b params', 'a 30B dense model', '70 billion',
    'un modèle de 30 milliards de paramètres'; None when the text is not one.

    ``explicit`` demands a word ('params', 'dense', 'billion', 'model') so that '405b' stays
    a model name the catalog can resolve; the model question falls back to bare sizes.
    """
    toks = words(text).replace("'", " ").split()
    if explicit and not any(w in _EXPLICIT for w in toks):
        return None
    rest = " ".join(w for w in toks if w not in _PARAM_FILLER)
    q = quantity(rest, Kind.PARAMS, lang)
    if q is None or q[1] or q[0] < 1e6:  # a bare '30' is not a parameter count
        return None
    value = q[0] / 1e9
    return value if 0 < value <= PARAMS_MAX_B else None


# -- models ----------------------------------------------------------------------------------

_MODEL_FILLER = re.compile(
    r"^(?:(?:we|i)\s+(?:want|would like|need|plan)\s+to\s+(?:run|serve|use|train|deploy)\s+"
    r"|(?:run|serve|use|deploy|train)\s+|(?:nous\s+voulons|je\s+veux|on\s+veut)\s+"
    r"(?:faire\s+tourner|utiliser|servir|deployer|entrainer)\s+)?"
    r"(?:the\s+|a\s+|an\s+|le\s+|la\s+|un\s+|une\s+)?", re.I,
)


def model(text: str, lang: Lang = "en") -> str | float:
    """A catalog model id, or a parameter count in billions for a model it does not hold."""
    p = params(text, lang)
    if p is not None:
        return p
    cleaned = _MODEL_FILLER.sub("", fold(text))
    try:
        return catalog().model(cleaned or text).id
    except UnknownModel as exc:
        bare = params(text, lang, explicit=False)
        if bare is not None and not exc.ambiguous:
            return bare
        models = catalog().models
        names = [models[s].name for s in exc.suggestions if s in models]
        said = shown(text)
        if exc.ambiguous:
            message = msg("dialogue.error.model_ambiguous", text=said, names=names)
        elif names:
            message = msg("dialogue.error.model_unknown_near", text=said, names=names)
        else:
            message = msg("dialogue.error.model_unknown", text=said)
        raise ParseError(message, exc.suggestions, ambiguous=exc.ambiguous) from None


# -- workloads -------------------------------------------------------------------------------

_WORKLOAD_PATTERNS: dict[Workload, str] = {
    "qlora": r"q-?lora",
    "lora": r"lora|peft|adapters?|adaptateurs?",
    "pretrain": r"pre-?train(?:ing|ed)?|(?:train(?:ing)?|build(?:ing)?) (?:it |a model |one )?"
                r"from scratch|from scratch|pre-?entrain\w*|(?:depuis|a partir de) (?:zero|rien)",
    "full-finetune": r"(?:full[- ]?)?fine[- ]?tun(?:e|ed|es|ing)|full[- ]?finetun\w*|finetun\w*"
                     r"|full[- ]?ft|sft|full[- ]train(?:ing)?|full|affinage|affiner|ajustement fin"
                     r"|reglage fin|entrainement complet",
    "inference": r"inferenc\w*|serv(?:e|es|ed|ing)|deploy\w*|chat\w*|api|production|rag|host\w*"
                 r"|run(?:ning)? it|servir|service|deploie\w*|heberg\w*|faire tourner",
}
assert set(_WORKLOAD_PATTERNS) == set(WORKLOADS), "a workload of engine.request has no words"
WORKLOAD_RE = {w: re.compile(rf"\b(?:{p})\b") for w, p in _WORKLOAD_PATTERNS.items()}
_SPECIFIC: tuple[Workload, ...] = ("qlora", "lora")  # named anywhere, they win


def find_workload(folded: str) -> tuple[Workload, tuple[int, int]] | None:
    """The workload a folded sentence names, and where: LoRA or QLoRA named anywhere win
    ('fine-tune it with LoRA'); otherwise the first workload word in the sentence."""
    for w in _SPECIFIC:
        m = WORKLOAD_RE[w].search(folded)
        if m is not None:
            return w, m.span()
    found = [(m.start(), w, m.span()) for w in WORKLOADS if w not in _SPECIFIC
             for m in [WORKLOAD_RE[w].search(folded)] if m is not None]
    if not found:
        return None
    _, w, span = min(found)
    return w, span


def workload(text: str) -> Workload:
    t = fold(text)
    if t in WORKLOADS:
        return WORKLOADS[WORKLOADS.index(t)]
    found = find_workload(t)
    if found is not None:
        return found[0]
    raise ParseError(msg("dialogue.error.workload", text=shown(text)))


# -- GPUs ------------------------------------------------------------------------------------

_GPU_COUNT = re.compile(r"^(?:\d+\s*(?:x|×)\s*|\d+\s+)")
_GPU_SIZE = re.compile(r"\s*\(\s*\d+(?:[.,]\d+)?\s*(?:gb|go)\s*\)\s*$", re.I)


def gpu_candidates(text: str) -> list[str]:
    """What a person may type for a GPU, bare: '8x H100s' -> 'H100s', 'H100'; a label
    read off a button 'NVIDIA L40S (48 GB)' -> 'NVIDIA L40S'."""
    t = _GPU_SIZE.sub("", " ".join(text.split()))
    t = _GPU_COUNT.sub("", t, count=1) or t
    out = [t]
    if t.lower().endswith("s") and not t.lower().endswith(("l40s", "gpus")):
        out.append(t[:-1])  # a plural: 'H100s', '5090s'
    return out


def gpu(text: str) -> str:
    cands = gpu_candidates(text)
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
        message = (msg("dialogue.error.gpu_unknown_near", text=shown(text), names=names) if names
                   else msg("dialogue.error.gpu_unknown", text=shown(text)))
        raise ParseError(message, exc.suggestions) from None


# -- the link between nodes ------------------------------------------------------------------

_UNSURE = re.compile(
    r"(?:i\s+)?(?:don'?\s?t|do not)\s+know|not sure|no idea|unsure|dunno|idk|default|whatever"
    r"|any|either|you (?:pick|choose|decide)|recommend\w*|what do you (?:recommend|suggest)"
    r"|(?:je\s+)?(?:ne\s+)?sais pas|(?:je\s+)?n'en sais rien|aucune idee|pas sur|par defaut"
    r"|peu importe|n'importe|a vous de voir|vous choisissez|que recommandez-vous"
    r"|que conseillez-vous"
)


def unsure(text: str) -> bool:
    """'not sure', 'je ne sais pas', 'default': the person leaves the choice to the bot."""
    said = words(text).rstrip("?").strip()
    return bool(said) and _UNSURE.fullmatch(said) is not None


def interconnect(text: str) -> str:
    """A link between nodes (an ``inter`` link of the catalog). An unsure answer is not read
    here: the slot takes the default then, marked as assumed, so the person sees it."""
    t = text.strip()
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
    raise ParseError(msg("dialogue.error.link", text=shown(text), names=names),
                     [s for s in suggestions if s in ids])
