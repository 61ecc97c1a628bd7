"""The model a person names: taken only when certain, otherwise proposed for confirmation.

Issue #10: fuzzy names silently became other models ("0.5b" -> Llama 3.1 405B, "34b" ->
Gemma 3 4B, "mistral large 3" -> Mistral Large 2). So a model is *taken* only when the text
names it exactly (an id, a name, an alias, a Hugging Face id, ``engine.catalog.names``'s
``exact``), or describes one outside the catalog (its counts, its config.json). Anything
else is proposed (a :class:`~dialogue.conversation.Proposal`) with the candidates as buttons
(sizes agreeing, never another size), "a <size> dense model" when only a size was given, and
"none of these", which reopens the question with the ways to describe a model; a text that
names nothing the catalog is near is refused with those ways at once. A Hugging Face id the
catalog does not hold is a :class:`~dialogue.readings.Fetch`: the service asks the Hub (I/O
stays out of the readers). Each is a value (``dialogue/readings.py``), returned.

In a sentence (:func:`find`), the model is the run of words that could be part of a name
("llama 3.1 70b", "yi 34b", "internlm 3"); a part of the run that names a model exactly is
taken only if the words left over do not contradict it ("mistral large" inside "mistral
large 3" does not make it Mistral Large 2: the "3" is not one of its words).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from dialogue.conversation import Option, Proposal
from dialogue.errors import ParseError
from dialogue.readings import Fetch, Read, Reading, Refusal
from dialogue.understand import config, custom
from dialogue.understand.lexicon import entries, terms
from dialogue.understand.negation import CORRECTION, REVALUE
from dialogue.understand.text import fold, shown
from engine.catalog import catalog
from engine.catalog.names import Resolution, known_word, lookup, sizes
from engine.units import Lang
from engine.wording import Message, msg, text

Answers = dict[str, str | int | float | bool | None]

NONE_OF_THESE = "none of these"
_HF = re.compile(r"(?:https?://)?(?:www\.)?(?:huggingface\.co|hf\.co)/(?:models/)?"
                 r"(?P<repo>[\w.-]+/[\w.-]+)", re.I)
_REPO = re.compile(r"^(?P<repo>[a-z0-9][\w.-]{1,95}/[\w.-]{2,95})$", re.I)
_UNIT_SLASH = re.compile(r"^(?:\d|tok|tokens?|t|req|requests?|gb|go|mb|and|or|et|ou|jetons?"
                         r"|per|s|sec|w)/", re.I)
_SHAPE = re.compile(r"^[a-z]{1,12}[-.]?\d[\w.+-]*$")
_SIZE_WORD = re.compile(r"^\d+(?:[.,]\d+)?[bmt]$|^\d+x\d+b$")
#: an MoE's size written without its 'b' ('mixtral 8x7'): a size only beside a family's name
_BARE_MOE = re.compile(r"^\d+x\d+$")
MAX_RUN = 7  # words in one model mention ('deepseek r1 distill llama 70b instruct awq')
MAX_RUNS = 8  # mentions read in one message: a pasted list of names stays a fast turn
LOOKUPS = 12  # catalog look-ups for one message (each well under 0.2 ms): a bounded turn
#: Words that name a checkpoint of a model rather than another one: they join a mention
#: beside a name ('meta llama 3.1 70b instruct') and never make it uncertain.
_CHECKPOINT = frozenset({"instruct", "chat", "it", "base", "hf", "meta", "preview", "latest",
                         "gguf", "fp8", "bf16", "fp16", "mlx", "exl2", "v"})


def hub_id(said: str) -> str | None:
    """'moonshotai/Kimi-K2-Instruct' or its huggingface.co URL -> the repo id; None for a
    text that is not one ('tok/s', '24/7', two words)."""
    t = said.strip().rstrip("/.,;)")
    m = _HF.search(t)
    if m is not None:
        return m["repo"].rstrip("/.")
    m = _REPO.match(t)
    if m is None or _UNIT_SLASH.match(t):
        return None
    org, name = m["repo"].split("/", 1)
    if not any(c.isalpha() for c in org) or not any(c.isalpha() for c in name):
        return None
    return m["repo"]


# -- options ---------------------------------------------------------------------------------


def none_option() -> Option:
    return Option(value=NONE_OF_THESE, label=msg("dialogue.choice.none_of_these"))


def dense_option(size: float) -> Option:
    return Option(value=f"a {size:g}B dense model", label=msg("dialogue.choice.dense",
                                                               params=size * 1e9),
                  answers={"model": size})


def moe_option(total: float, active: float) -> Option:
    return Option(value=f"{total:g}B total, {active:g}B active", label=msg(
        "dialogue.choice.moe", params=total * 1e9, active=active * 1e9),
                  answers={"model": total, "active_params_b": active})


def model_options(ids: list[str] | tuple[str, ...], size: float | None = None) -> list[Option]:
    models = catalog().models
    out = [Option(value=i, label=text(models[i].name), answers={"model": i})
           for i in ids if i in models]
    if size is not None:
        out.append(dense_option(size))
    return [*out, none_option()]


def _names(ids: list[str] | tuple[str, ...]) -> list[Message]:
    models = catalog().models
    return [text(models[i].name) for i in ids if i in models]


def describe(said: str) -> Refusal:
    """No model comes near: the ways to describe one (counts, config.json, a Hub id)."""
    return Refusal(msg("dialogue.error.model_unknown", text=shown(said)))


# -- one answer: the whole text is the model -------------------------------------------------


def model(said: str, lang: Lang = "en") -> Read:
    """What a text says the model is (see the module doc): the model, a proposal, a Hub id
    to fetch, or the refusal saying what to type."""
    try:
        if config.looks_like(said):
            cfg = config.read(said)
            return Reading({"model": f"config:{config.label(cfg)}",
                            "model_config": config.dumps(cfg)})
        counted = custom.counts(said, lang)
        if counted is None:
            return _named(said, lang)
    except ParseError as exc:
        return exc.refusal
    out: Answers = {"model": counted.total}
    if counted.active is not None:
        out["active_params_b"] = counted.active
    return Reading(out)


def _named(said: str, lang: Lang) -> Read:
    repo = hub_id(said)
    found = lookup(repo or _bare(said), catalog().models, "model")
    if found.how == "exact" and found.entry_id is not None:
        return Reading({"model": found.entry_id})
    if repo is not None:
        return Fetch(repo)
    return _unsure(said, list(found.candidates), lang)


_MODEL_LEAD = re.compile(rf"^{terms('model_lead')}\s+")


def _bare(said: str) -> str:
    return _MODEL_LEAD.sub("", fold(said)).strip()


def _unsure(said: str, candidates: list[str], lang: Lang,
            inside: str | None = None) -> Proposal | Refusal:
    """The proposal for a name the catalog only comes near, or for a size alone; the ways
    to describe a model when nothing comes near."""
    bare = custom.bare_size(said, lang)  # the whole text is a size: '34b', '0.5b', '1,5T'
    named = sizes(said)  # a size inside a name: 'yi 34b'
    if inside is not None and inside not in candidates:
        candidates = [inside, *candidates]
    if candidates:
        key = ("dialogue.confirm.model_one" if len(candidates) == 1
               else "dialogue.confirm.model_which")
        return Proposal(text=msg(key, text=shown(said), names=_names(candidates)),
                        options=model_options(candidates, bare), confirms=len(candidates) == 1)
    size = bare if bare is not None else (named[0] if named else None)
    active = sizes(said, active=True) if bare is None and len(named) == 1 else ()
    if size is not None and len(active) == 1 and 0 < active[0] < size <= custom.PARAMS_MAX_B:
        # an MoE's name says both counts ('qwen3-coder-480b-a35b'): never sized as dense
        return Proposal(text=msg("dialogue.confirm.model_moe", text=shown(said),
                                 params=size * 1e9, active=active[0] * 1e9),
                        options=[moe_option(size, active[0]), none_option()], confirms=True)
    if size is not None and 0 < size <= custom.PARAMS_MAX_B:
        return Proposal(text=msg("dialogue.confirm.model_dense", text=shown(said),
                                 params=size * 1e9),
                        options=[dense_option(size), none_option()], confirms=True)
    return describe(said)


# -- a sentence: the model among other words --------------------------------------------------


@dataclass
class Mention:
    """What a sentence says of its model: answers when certain, else the problem (a
    proposal, a Hub id to fetch, or the ways to describe), and the sentence without it."""

    answers: Answers = field(default_factory=dict)
    problem: Proposal | Fetch | Refusal | None = None
    rest: str = ""


@lru_cache(maxsize=8192)
def _modelish(word: str) -> bool:
    if len(word) > 120:
        return False
    if "/" in word:
        return hub_id(word) is not None
    return (known_word(word, catalog().models) or _SHAPE.match(word) is not None
            or _SIZE_WORD.match(word) is not None)


def _runs(ws: list[str], noise: re.Pattern[str]) -> list[tuple[int, int]]:
    """Spans of words that could be one model's name; a word just before a size or a
    name-shaped word joins it ('yi 34b', 'internlm 3', 'hermes 3 llama 3.1 70b')."""
    flags = [_modelish(w) and not (noise.fullmatch(w) and not _SIZE_WORD.match(w))
             for w in ws]
    for i in range(len(ws)):
        if not flags[i] and ws[i] in _CHECKPOINT and (
                (i > 0 and flags[i - 1]) or (i + 1 < len(ws) and flags[i + 1])):
            flags[i] = True
    for i in range(1, len(ws)):  # 'mixtral 8x7': a size without its 'b', beside a name
        if not flags[i] and _BARE_MOE.match(ws[i]) and flags[i - 1] and _family(ws[i - 1]):
            flags[i] = True
    for i in range(len(ws) - 1):
        # a word before a size or a name the catalog does not know ('yi 34b'); never before
        # a name it knows ('prod qwen3 235b', 'rouler qwen2.5 14b': the name starts there)
        if (not flags[i] and flags[i + 1] and ws[i].isalpha() and len(ws[i]) >= 2
                and not noise.fullmatch(ws[i])
                and (_SIZE_WORD.match(ws[i + 1]) or (
                    _SHAPE.match(ws[i + 1]) and not _known(ws[i + 1])))):
            flags[i] = True
    for i in range(1, len(ws)):  # 'qwen2.5 7b, a one-word label': a count after a size
        if flags[i] and flags[i - 1] and ws[i].isdigit() and _SIZE_WORD.match(ws[i - 1]):
            flags[i] = False
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(ws):
        if flags[i]:
            j = i
            while j < len(ws) and flags[j] and j - i < MAX_RUN:
                j += 1
            # 'deux fois plus', 'c pr demain': everyday words or a letter name no model alone
            if not (all(w in _ORDINARY for w in ws[i:j])
                    or (j - i == 1 and ws[i].isalpha() and len(ws[i]) <= 2)):
                spans.append((i, j))
            i = j
        else:
            i += 1
    return spans


@lru_cache(maxsize=8192)
def _known(word: str) -> bool:
    """A word the catalog's names hold (or a typo of one): 'qwen3', 'lama'; never 'prod'."""
    return len(word) <= 120 and known_word(word, catalog().models)


def _family(word: str) -> bool:
    """A word of a model family's name ('mixtral', 'qwen3'), not a bare number or size."""
    return any(c.isalpha() for c in word) and not _SIZE_WORD.match(word) and _known(word)


#: everyday words a name also holds ('plus', 'large'): never a name alone
_ORDINARY = frozenset(entries("ordinary"))


class _Budget:
    """The look-ups one message may still cost (a long list of names is read in part)."""

    def __init__(self, n: int) -> None:
        self.left = n

    def lookup(self, said: str) -> Resolution:
        if self.left <= 0:
            return Resolution("none")
        self.left -= 1
        return lookup(said, catalog().models, "model")


#: Models that are no LLM, by kind: named where a model goes, they are said to be none (a
#: near LLM name is never proposed for them: 'whisper large v3' is no Mistral Large).
_NOT_LLM = {kind: terms(f"not_llm_{kind}") for kind in ("speech", "image", "embedding", "vision")}
_NOT_LLM["embedding"] += r"|text-embedding\S*"  # OpenAI's, any size after the dash
_NOT_LLM_RE = re.compile(r"\b(?:" + "|".join(rf"(?P<{k}>{p})" for k, p in _NOT_LLM.items())
                         + r")\b")


def _not_llm(rest: str) -> Refusal | None:
    m = _NOT_LLM_RE.search(rest)
    if m is None or m.lastgroup is None:
        return None
    return Refusal(msg("dialogue.error.not_llm", text=shown(m.group(0)),
                       kind=msg(f"dialogue.kind.{m.lastgroup}")))


def find(rest: str, lang: Lang, noise: re.Pattern[str]) -> Mention:
    """The model a sentence names (``rest``: folded words, chunks split by '|')."""
    budget = _Budget(LOOKUPS)
    chunks = [c.split() for c in rest.split("|")]
    runs = sorted(((ci, a, b) for ci, ws in enumerate(chunks) for a, b in _runs(ws, noise)
                   if any(not w.replace(".", "").isdigit() for w in ws[a:b])),
                  key=lambda r: (-(r[2] - r[1]), r[0], r[1]))[:MAX_RUNS]
    first_problem: tuple[int, int, int, Proposal | Fetch | Refusal] | None = None
    seen: dict[str, tuple[Answers, Proposal | Fetch | Refusal | None]] = {}
    for ci, a, b in runs:
        said = " ".join(chunks[ci][a:b])
        if said not in seen:  # 'llama llama llama ...': each run of words read once
            seen[said] = _mention(chunks[ci][a:b], lang, budget)
        answers, problem = seen[said]
        if answers:
            later = _corrected(chunks, runs, (ci, a, b), answers, lang, budget, seen)
            if later is None:
                return Mention(answers, None, _without(chunks, ci, a, b))
            # 'qwen2.5 32b, sorry, I meant qwen2.5 72b': the last, the name it corrects used
            (cj, a2, b2), answers = later
            chunks[ci][a:b] = [""] * (b - a)
            if cj == ci:  # 'non pardon' between them: the correction's words, used too
                chunks[ci][b:a2] = _uncorrected(chunks[ci][b:a2])
            return Mention(answers, None, _without(chunks, cj, a2, b2))
        if problem is not None and first_problem is None:
            first_problem = (ci, a, b, problem)
    not_llm = _not_llm(rest)  # no LLM named, and a model that is none: said so
    if not_llm is not None:
        return Mention({}, not_llm, rest)
    if first_problem is not None:
        ci, a, b, problem = first_problem
        return Mention({}, problem, _without(chunks, ci, a, b))
    return Mention({}, None, " | ".join(" ".join(c) for c in chunks))


def _corrected(chunks: list[list[str]], runs: list[tuple[int, int, int]],
               found: tuple[int, int, int], answers: Answers, lang: Lang, budget: _Budget,
               seen: dict[str, tuple[Answers, Proposal | Fetch | Refusal | None]]
               ) -> tuple[tuple[int, int, int], Answers] | None:
    """Another model named after ``found`` with a correction between them ('Qwen2.5 32B
    (sorry, I meant Qwen2.5 72B)'): that one, the person's last word. A correction that
    says only the part that changes ('Qwen 2.5 32B, non pardon, 72B', 'Llama 3.1 70B, sorry,
    3.3 70B') names the first model with its last words replaced by it."""
    ci, a, b = found
    old = chunks[ci][a:b]
    for cj, a2, b2 in sorted(runs, key=lambda r: (r[0], r[1])):
        if (cj, a2) <= (ci, b - 1):
            continue
        between = " ".join([*chunks[ci][b:], *(w for c in chunks[ci + 1:cj] for w in c),
                            *chunks[cj][:a2]] if cj > ci else chunks[ci][b:a2])
        if not CORRECTION.search(f" {between} "):
            continue
        for start in range(a2, b2):  # 'meant qwen2.5 72b': the name, without what leads it
            new = chunks[cj][start:b2]
            tries = [new]
            # '72b' after 'qwen 2.5 32b': 'qwen 2.5 72b' (a part without a family's name)
            if start == a2 and len(new) < len(old) and not any(_family(w) for w in new):
                tries.append([*old[:len(old) - len(new)], *new])
            for words_ in tries:
                said = " ".join(words_)
                if said not in seen:
                    seen[said] = _mention(words_, lang, budget)
                other = seen[said][0]
                if other and other.get("model") != answers.get("model"):
                    return (cj, start, b2), other
    return None


def _uncorrected(words: list[str]) -> list[str]:
    """The words between a name and its correction, the correction's own blanked (its
    places kept: the spans found in the sentence stay where they are)."""
    said = " ".join(words)
    cut = [(m.start(), m.end()) for m in REVALUE.finditer(f" {said} ")]
    out, at = [], 0
    for w in words:
        start = at + 1  # the sentence searched starts with a space
        out.append("" if any(a <= start and start + len(w) <= b for a, b in cut) else w)
        at += len(w) + 1
    return out


def _without(chunks: list[list[str]], ci: int, a: int, b: int) -> str:
    out = [list(c) for c in chunks]
    out[ci] = [*out[ci][:a], "|", *out[ci][b:]]
    return " | ".join(" ".join(c) for c in out)


def _mention(words: list[str], lang: Lang,
             budget: _Budget) -> tuple[Answers, Proposal | Fetch | Refusal | None]:
    words = [f"{w}b" if _BARE_MOE.match(w) else w for w in words]  # 'mixtral 8x7': 8x7b
    said = " ".join(words)
    repo = next((r for w in words if (r := hub_id(w)) is not None), None)
    if repo is not None:
        found = budget.lookup(repo)
        if found.how == "exact" and found.entry_id is not None:
            return {"model": found.entry_id}, None
        return {}, Fetch(repo)
    models = catalog().models
    whole = budget.lookup(said)
    if whole.how == "exact" and whole.entry_id is not None:
        return {"model": whole.entry_id}, None
    inside = _inside(words, budget)
    if inside is not None and inside[1]:
        return {"model": inside[0]}, None
    if not any(_SIZE_WORD.match(w) or not w.replace(".", "").isdigit() for w in words):
        return {}, None  # bare numbers are not a model
    if len(words) == 1 and not (_SIZE_WORD.match(words[0]) or known_word(words[0], models)
                                or _SHAPE.match(words[0])):
        return {}, None
    # a size said beside a part that names a model ('deepseek-r1 70b distill') is the
    # whole's: its candidates agree with it, and the part (the 671B R1) is not proposed
    sized = bool(sizes(said)) and bool(whole.candidates)
    return {}, _unsure(said, list(whole.candidates), lang,
                       inside[0] if inside is not None and not sized else None)


def _inside(words: list[str], budget: _Budget) -> tuple[str, bool] | None:
    """The longest part of the run that names a model exactly, and whether the words left
    over agree with it (each left-over word, added back, still names the same model). A part
    opens and closes on a word of a name, not on a bare number ('3 70b' is not a name)."""
    n = len(words)
    edge = [not w.replace(".", "").isdigit() for w in words]
    if budget.left <= 0:
        return None
    for size in range(n - 1, 0, -1):
        for i in range(n - size + 1):
            if not (edge[i] and edge[i + size - 1]):
                continue
            if budget.left <= 0:
                return None
            part = words[i:i + size]
            found = budget.lookup(" ".join(part))
            if found.how != "exact" or found.entry_id is None:
                continue
            left = [*words[:i], *words[i + size:]]
            agree = all(budget.lookup(" ".join([*part, w])).entry_id == found.entry_id
                        or budget.lookup(" ".join([w, *part])).entry_id == found.entry_id
                        for w in left)
            return found.entry_id, agree
    return None
