"""How each question reads its answer: the readers ``dialogue/slots.py`` names, and what they
need to know of the answers so far (the model's context window, its name).

Why a room of their own: a reader is where a question's *meaning* is decided beyond one
pattern: the load question takes a count, a headcount, a request rate or a
batch job; the context question prompt and answer lengths; the speed question a per-user
speed or a total, and asks which when a bare number could be either; "32k" where a context
is more likely than the question's own unit gets "did you mean a context of 32k?"; a yes or
no is read from its last correction. Each returns a value (``dialogue/readings.py``): the
:class:`~dialogue.readings.Reading` of the keys it sets, a proposal, or a refusal. The
parsers it calls raise :class:`dialogue.errors.ParseError`; a reader returns its refusal.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from functools import wraps

import engine
from dialogue import keys as answer_keys
from dialogue.conversation import AnswerValue, Option, Proposal, SlotName
from dialogue.errors import ParseError
from dialogue.keys import Answers, show_model
from dialogue.readings import Read, Reading, Refusal
from dialogue.understand import audience, dataset, gpus, load, names, negation, numbers
from dialogue.understand.opening import extract
from dialogue.understand.text import fold, shown, words
from engine import EngineError
from engine.catalog import catalog
from engine.units import Lang
from engine.wording import Message, msg

#: A question's reader: the text, the answers so far, the language, today (for 'by Friday').
Reader = Callable[[str, Answers, Lang, "date | None"], Read]


def _refusing(read: Reader) -> Reader:
    """The reader, its parsers' refusal (:class:`ParseError`) returned as a value."""
    @wraps(read)
    def reader(t: str, a: Answers, lang: Lang, today: date | None) -> Read:
        try:
            return read(t, a, lang, today)
        except ParseError as exc:
            return exc.refusal
    return reader


def reading_speed() -> float:
    """The comfortable per-user reading speed: the engine's (one definition for both)."""
    return float(catalog().policy.comfortable_tokens_per_s)


def context_limit(answers: Answers) -> int | None:
    """The model's context window, from the engine (None before the model is known, or for
    a stored model the catalog no longer holds: the engine then refuses it, and says so)."""
    m = answers.get("model")
    try:
        if isinstance(m, str) and m.startswith(answer_keys.CONFIG):
            return None
        if isinstance(m, str):
            return engine.max_context(m, None)
        if isinstance(m, int | float) and not isinstance(m, bool):
            return engine.max_context(None, float(m))
    except EngineError:
        return None
    return None


def model_name(answers: Answers) -> Message:
    return show_model(answers.get("model"))


# -- reading ---------------------------------------------------------------------------------

_K_ONLY = re.compile(r"^(\d{1,4})\s*k$")
_BARE = re.compile(r"\s*[\d.,\s]+\s*k?\s*")


def _elsewhere(t: str, here: SlotName, value: float, here_label: Message) -> Proposal | None:
    """'32k' at the load or speed question is most often a context: ask, with both."""
    m = _K_ONLY.match(words(t))
    if m is None:
        return None
    n = int(m[1])
    options = [Option(value=f"{n}k context", label=msg("dialogue.choice.context_of",
                                                       tokens=n * 1024),
                      answers={"context": n * 1024}),
               Option(value=f"{value:g}" + (" tok/s" if here == "target_tokens_per_s" else ""),
                      label=here_label, answers={here: value})]
    return Proposal(text=msg("dialogue.confirm.context", tokens=n * 1024, other=here_label),
                    options=options, confirms=True)


def _phrases(t: str, a: Answers, lang: Lang, today: date | None,
             wanted: tuple[str, ...], *, training: bool | None = None) -> Reading | Refusal:
    if _BARE.fullmatch(t):  # '64', '8k': the question's own reader, no phrase to find
        return Reading({})
    found = extract(t, lang, find_model=False, today=today, training=training)
    if found.refusals and not any(k in found.answers for k in wanted):
        if found.refusals[0].message.id.startswith(("dialogue.error.batch",
                                                    "dialogue.error.headcount")):
            return found.refusals[0]  # a batch job without its deadline or document size, a
            # headcount whose share at once is past what is sized
        return Reading({})  # a minus sign: the question's own reader says what it refuses
    got = {k: v for k, v in found.answers.items() if k in wanted}
    return Reading(got, frozenset(k for k in found.inferred if k in got))


#: what a batch job is said with: its documents, their length, its deadline, and what it does
#: to each (a translation keeps translating when its documents or deadline change)
BATCH = ("documents", "document_tokens", "batch_days", "task")


def undated_batch(a: Answers) -> bool:
    """A batch job said without its deadline ('10M documents of 2k tokens'): the load
    question asks it."""
    return "documents" in a and "batch_days" not in a


def share_of_people(t: str, a: Answers) -> dict[str, AnswerValue] | None:
    """'What if half of them are online at once', 'et si 30 % sont connectés en même
    temps ?' after a headcount: that share of the people counted (all of them, when the
    count was taken as all at once), as said."""
    people = a.get("users_total", a.get("concurrency"))
    share = audience.share_alone(numbers.digits_in(fold(t)))  # 'one in ten at once' too
    if share is None or not isinstance(people, int) or isinstance(people, bool) or people < 2:
        return None
    return {"users_total": people, "concurrency": load.at_once(people, share)}


@_refusing
def read_load(t: str, a: Answers, lang: Lang, today: date | None) -> Read:
    """'64', '64 users', '200 employees', '20 requests per second', a batch job; for a batch
    job said without its deadline, the deadline ('by Friday', 'in 3 days') keeps the job."""
    if undated_batch(a):
        days = _deadline_said(t, lang, today)  # the deadline question's own reading
        if days is not None:
            return Reading({k: a[k] for k in ("documents", "document_tokens") if k in a} | {
                "batch_days": days})
    got = _phrases(t, a, lang, today, answer_keys.of_slot("concurrency"))
    if isinstance(got, Refusal):
        return got
    if not got.answers and "documents" not in a and (share := share_of_people(t, a)):
        got = Reading(share)
    if "documents" in a and set(got.answers) <= set(BATCH):  # a batch changed in part keeps
        if not got.answers:  # the rest; 'in 1 day', 'by tomorrow': the job's new deadline
            days = _deadline_said(t, lang, today)
            got = Reading({} if days is None else {"batch_days": days})
        if got.answers:
            return Reading({k: a[k] for k in BATCH if k in a} | got.answers, got.inferred)
    if got.answers:
        return got
    n = numbers.concurrency(t)
    elsewhere = _elsewhere(t, "concurrency", n, msg("dialogue.choice.concurrency", n=n))
    return Reading({"concurrency": n}) if elsewhere is None else elsewhere


def sizeless_batch(a: Answers) -> bool:
    """A batch job said without its documents' size ('10k contracts by Friday'): the context
    question asks it, and its answer is the documents' length."""
    return "documents" in a and "document_tokens" not in a


@_refusing
def read_context(t: str, a: Answers, lang: Lang, today: date | None) -> Read:
    """A context length, or prompt and answer lengths (their sum is the context); for a
    batch job without its documents' size, the size of each document."""
    try:
        got = _read_context(t, a, lang, today)
    except ParseError as exc:
        got = exc.refusal
    if isinstance(got, Refusal):
        each = numbers.length(t, lang) if sizeless_batch(a) else None  # '3000 tokens each'
        if each is None and sizeless_batch(a):  # 'Each e-mail is around 800 tokens.'
            said = extract(t, lang, find_model=False, today=today).answers.get("document_tokens")
            each = float(said) if isinstance(said, int) else None
        return got if each is None else Reading({"document_tokens": int(each)})
    if sizeless_batch(a):
        size = got.answers.get("context") or got.answers.get("prompt_tokens")
        if isinstance(size, int):
            return Reading({"document_tokens": size})
        # '5000 tokens per contract, output 400 tokens': the documents' size said beside
        said = extract(t, lang, find_model=False, today=today).answers.get("document_tokens")
        if isinstance(said, int):
            return Reading({**got.answers, "document_tokens": said}, got.inferred)
    return got


def _read_context(t: str, a: Answers, lang: Lang, today: date | None) -> Reading | Refusal:
    got = _phrases(t, a, lang, today, ("context", "prompt_tokens", "output_tokens"))
    if isinstance(got, Refusal):
        return got
    said = got.answers
    if "context" not in said and ("prompt_tokens" in said or "output_tokens" in said):
        return got  # the engine takes the context they make (and the share it assumes)
    if "context" in said:
        limit = context_limit(a) or 10**9
        c = said["context"]
        if isinstance(c, int) and c > limit:
            return Refusal(msg("dialogue.error.context_beyond", model=model_name(a),
                               limit=limit, text=t, tokens=c))
        return got
    return Reading({"context": numbers.context(t, context_limit(a) or 10**9, model_name(a))})


@_refusing
def read_speed(t: str, a: Answers, lang: Lang, today: date | None) -> Read:
    """A per-user speed, a total, 'as fast as ChatGPT', 'no target'; a bare small number
    could be either: asked."""
    got = _phrases(t, a, lang, today, answer_keys.of_slot("target_tokens_per_s"))
    if isinstance(got, Refusal) or got.answers:
        return got
    value = numbers.target(t)
    if value is None:
        return Reading({"target_tokens_per_s": None})
    elsewhere = _elsewhere(t, "target_tokens_per_s", value, msg("dialogue.choice.total",
                                                                rate=value))
    if elsewhere is not None:
        return elsewhere
    if value <= names.PER_USER_MAX and not names.says_total(fold(t)):
        return names.which_speed(value)
    return Reading({"target_tokens_per_s": value})


@_refusing
def read_budget(t: str, a: Answers, lang: Lang, today: date | None) -> Read:
    """'1B tokens', '50M'; or as an opening says it: '20k examples of 1k tokens', '50M tokens,
    3 epochs' (dialogue/understand/dataset.py). What a data set is made of (its count, one
    example's length, the epochs: ``dataset.PARTS``) is completed from what was kept: '800'
    after '50k tickets, 3 epochs' is 120M tokens; '2 epochs' after '20k examples of 1k
    tokens' is 40M. A total said while the parts wait is one pass over the data set (the
    question says so): kept epochs multiply it, unless it counts its own ('50M tokens, 2
    epochs'); a total said to change one is the total, and replaces what the old was made of."""
    phrases = _phrases(t, a, lang, today, ("train_tokens", *dataset.PARTS), training=True)
    if isinstance(phrases, Refusal):
        return phrases
    got = phrases.answers
    parts = {k: a[k] for k in dataset.PARTS if k in a} | {
        k: got[k] for k in dataset.PARTS if k in got}
    said, items = _number(got.get("train_tokens")), parts.get("examples")
    typed = length_in(t, lang) if isinstance(items, int) else None
    if typed is not None:  # '800', '2k tokens each': a length, never a total
        parts["example_tokens"], said = dataset.whole(typed), None
    passes = parts.get("epochs")
    n = passes if isinstance(passes, int) else 1
    each = _number(parts.get("example_tokens"))
    fresh = "examples" in got or (said is None and (typed is not None or bool(
        set(got) & set(dataset.PARTS))))  # this reply says a part: the parts make the budget
    if isinstance(items, int) and each is not None and fresh:
        total = dataset.budget(items, each, n)
        if total is None:
            return Refusal(msg("dialogue.error.examples_budget", n=items, each=each,
                               passes=n, hi=numbers.TOKENS_MAX))
        return Reading(parts | {"train_tokens": total})
    old = _number(a.get("train_tokens"))
    before = a.get("epochs")
    if said is None and "epochs" in got and old is not None:  # new passes over a known set
        return Reading(parts | {"train_tokens": _sized(old / (
            before if isinstance(before, int) else 1) * n, t)})
    if said is None and set(got) & set(dataset.PARTS):
        return Reading(parts)  # a part alone ('3 epochs', '50k tickets'): kept, the rest asked
    if said is None:
        try:
            said = numbers.tokens(t, lang)
        except ParseError:
            if isinstance(items, int):  # a length was asked: say what it takes
                return Refusal(msg("dialogue.error.example_length", n=items, text=shown(t)))
            raise
    change = "train_tokens" in a
    total = _sized(said if "epochs" in got or change else said * n, t)  # '..., 2 epochs': done
    kept = {k: got[k] for k in ("epochs",) if k in got} if change else {
        k: v for k, v in parts.items() if k != "example_tokens"}
    return Reading(kept | {"train_tokens": total})


#: where a reply's parts split ('~900 tokens each, 3 epochs'), never inside '1,200'
_PARTS = re.compile(r"(?<!\d),|,(?!\d)|;")


def length_in(t: str, lang: Lang) -> float | None:
    """One item's length said as the whole reply ('800', '2k tokens each') or as one of its
    parts beside the others ('~900 tokens each, 3 epochs', '6 000 tokens chacun, pour des
    résumés de 400 tokens'): the other parts are read as their own answers."""
    whole = numbers.length(t, lang)
    if whole is not None or not _PARTS.search(t):
        return whole
    return next((n for p in _PARTS.split(t) if (n := numbers.length(p, lang)) is not None), None)


def _sized(tokens: float, t: str) -> float:
    """A training budget the engine sizes, or the budget question's refusal of ``t``."""
    if tokens > numbers.TOKENS_MAX:
        raise ParseError(msg("dialogue.error.tokens", lo=numbers.TOKENS_MIN,
                             hi=numbers.TOKENS_MAX, text=shown(t)))
    return tokens


def _number(v: AnswerValue) -> float | None:
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None


def _days(t: str, lang: Lang, today: date | None) -> float:
    """A deadline in days: '3 days', '2 weeks', or a date ('Friday', 'by next week')."""
    try:
        return numbers.deadline(t)
    except ParseError:
        days = load.batch_days("by " + words(t).removeprefix("by "), load.Context(lang, today))
        if days is None:
            raise
        return days


def _deadline_said(t: str, lang: Lang, today: date | None) -> float | None:
    try:
        return _days(t, lang, today)
    except ParseError:
        return None


@_refusing
def read_deadline(t: str, a: Answers, lang: Lang, today: date | None) -> Read:
    return Reading({"deadline_days": _days(t, lang, today)})


def one(key: str, read: Callable[[str], AnswerValue | Proposal]) -> Reader:
    """A reader of one key by a function of the text alone (or the proposal it makes); a
    sentence that says it among other words ('we have InfiniBand NDR between the nodes',
    'les nœuds sont reliés en ethernet 100G') is read as an opening reads it."""
    @_refusing
    def reader(t: str, a: Answers, lang: Lang, today: date | None) -> Read:
        try:
            value = read(t)
        except ParseError:
            got = _phrases(t, a, lang, today, (key,))
            if isinstance(got, Reading) and key in got.answers and key not in got.inferred:
                return got  # said, not inferred ('100 users' is no workload said)
            raise
        return value if isinstance(value, Proposal) else Reading({key: value})
    return reader


@_refusing
def read_gpu(t: str, a: Answers, lang: Lang, today: date | None) -> Read:
    """The GPU, its count per node, or both ('4x L40S')."""
    return Reading(gpus.hardware(t))


def yes_no(t: str) -> bool:
    """Yes or no, the last of a correction ('yes, sorry, no' is no)."""
    readings = negation.corrected(t)
    for part in readings[:-1]:
        if negation.polarity(part) is not None:
            return negation.yes_no(part)
    return negation.yes_no(readings[-1] if len(readings) > 1 else t)
