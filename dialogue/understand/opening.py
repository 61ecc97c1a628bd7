"""Several answers in one sentence: "405b inference 64 users 32k context int4 ok",
"inférence llama 3.1 70b pour 64 utilisateurs, contexte 32k", "process 10M documents of 2k
tokens by Friday on our 4x L40S".

Each recogniser (``dialogue/understand/phrases.py`` names them all, in the order they run)
takes the span it understood out of the text, so the model is looked for in what is left, never
in "64 users". Meaning, not keywords (``dialogue/understand/negation.py``): a thing refused
("not on H100s", "pas de LoRA") is not taken; a value corrected ("64 users, sorry 128
users") is the last one; a minus sign is refused by name, never read as its absolute value.
What no recogniser used is reported back; what was inferred rather than said (users mean
serving, "as fast as ChatGPT" means a reading speed) is marked, so the reply says "I
assumed"; what needs a confirmation (a model the catalog only comes near, a bare
"fine-tune") comes back as a proposal for its question; what is refused comes back as a
refusal (``dialogue/readings.py``: values, never raised). Answers are keyed as the engine CLI
names them (``dialogue.slots.KEYS``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date

from dialogue.conversation import Proposal, SlotName
from dialogue.errors import ParseError
from dialogue.readings import Fetch, Refusal
from dialogue.understand import (
    audience,
    custom,
    dataset,
    dates,
    fields,
    gpus,
    load,
    models,
    names,
    numbers,
    task,
)
from dialogue.understand.lexicon import terms
from dialogue.understand.load import AnswerValue, Context, Recogniser
from dialogue.understand.negation import CORRECTION, REVALUE, negated, resaid
from dialogue.understand.noise import NOISE, PUNCT
from dialogue.understand.patterns import TOK, N, number
from dialogue.understand.phrases import RECOGNISERS
from dialogue.understand.text import fold, shown
from dialogue.understand.unknown import refuse_unknown_gpu
from engine.catalog import catalog
from engine.units import NUMBER, SCALE, Kind, Lang
from engine.wording import msg

#: a minus sign: stuck to its number ('-64'), or spaced where no word comes before ('users:
#: - 64'); a dash between words is a dash ('engineers - 25 of them at once - with')
_MINUS = re.compile(rf"(?:^|\s)(?:[-\u2212](?=\d)|(?<![\w)] )[-\u2212]\s*)"
                    rf"{NUMBER}\s*{SCALE}?(?:\s*[a-z/]+){{0,2}}")
_NUMBERS_APART = re.compile(r"(?<=\d),\s+(?=\d)")
_APART = re.compile(r"(?<!\d),|,(?!\d)|(?<!\d):(?!//)|:(?![\d/])|[;!?()]|(?<=[a-z\d])\.(?=\s|$)")


@dataclass
class Found:
    """What a sentence gave: answers by key, the keys inferred, the words no reader used,
    what needs a confirmation (by slot), a Hub id to fetch, and the refusals (a minus sign,
    a name the catalog does not know) to say."""

    answers: dict[str, str | int | float | bool | None] = field(default_factory=dict)
    inferred: set[str] = field(default_factory=set)
    leftovers: list[str] = field(default_factory=list)
    hint: Refusal | None = None
    unsure: dict[SlotName, Proposal] = field(default_factory=dict)
    fetch: str | None = None
    refusals: list[Refusal] = field(default_factory=list)
    #: the keys whose answer was refused, with the refusal
    refused: dict[str, Refusal] = field(default_factory=dict)


def extract(said: str, lang: Lang = "en", *, find_model: bool = True,
            today: date | None = None, training: bool | None = None) -> Found:
    """The answers a sentence gives (see the module doc). ``find_model=False`` skips the
    catalog search (answers typed beside another question's); ``training``: the conversation
    is about training (by default, whether the sentence names one)."""
    found = Found()
    # a value corrected inside a form's field too ('Load: 30 users, no, make that 50')
    t = _asides_last(resaid(numbers.digits_in(fold(said))))
    formed = fields.as_phrases(t)
    t = resaid(formed) if formed != t else t
    ctx = Context(lang, today, names.trains(t) if training is None else training)
    # commas and colons split phrases, never a number ('1,5T', '10:30') nor a link ('https:');
    # so does a full stop after a word ('We'd rent H200s. Thanks'), never one in '3.1'.
    # Numbers in groups of three are joined first ("2 000 000" -> "2000000"): a group never
    # spans what split them ('Mistral Small 3 : 120 000 exemples' is no 3,120,000)
    # and a comma between two numbers keeps them two ('mistral small 3, 300M tokens')
    rest = numbers.whole_groups(t)
    rest = " " + " ".join(_APART.sub(" ", _NUMBERS_APART.sub(" | ", rest)).split()) + " "
    rest = numbers.approximate(rest)  # 'une cinquantaine', '40-60 users': the peak
    rest = _minus(rest, found)
    unused = list(found.leftovers)
    rest = _counts(rest, lang, found) if find_model else rest
    for rec in RECOGNISERS:
        if all(k in found.answers for k in rec.keys) or not rec.may(rest, ctx):
            continue
        rest = _recognise(rec, rest, ctx, found)
    rest = _share_apart(rest, found)
    rest = _batch(rest, ctx, found)
    rest = _each(rest, found)
    rest = _by_date(rest, ctx, found)
    rest = load.spread(gpus.find_gpu(rest, found.answers), t, found.answers)
    rest = refuse_unknown_gpu(rest, found.answers, found.refusals, found.refused)
    rest = dataset.epochs(rest, found.answers, training=ctx.training)  # '50M, 3 epochs': 150M
    rest = _workload(rest, found)
    if (kind := task.task(t, found.answers)) is not None:  # 'translate 80k product sheets'
        found.answers["task"] = kind
    _whose_speed(t, found)
    rest = _vague_speed(rest, found)
    if find_model and found.answers.get("workload") == "pretrain":
        rest = _size_to_train(rest, found)
    if find_model and isinstance(found.answers.get("model"), float):
        rest = _named_too(rest, lang, found)
    if find_model and "model" not in found.answers and found.hint is None:
        mention = models.find(rest, lang, NOISE)
        rest = mention.rest
        found.answers.update(mention.answers)
        _problem(mention.problem, found)
        if found.fetch is not None:  # the Hub id as typed: repository names keep their case
            typed = re.search(re.escape(found.fetch), said, re.I)
            found.fetch = typed.group(0) if typed is not None else found.fetch
    # a sentence's full stop or a stray dash is no word left unused ('8k context.' left '.')
    found.leftovers = unused + [c for c in (PUNCT.sub(" ", c).strip() for c in rest.split("|"))
                                if c]
    if find_model:
        found.leftovers = [" ".join(w for w in c.split() if not NOISE.fullmatch(w)
                                    and not CORRECTION.fullmatch(" " + w))
                           for c in found.leftovers]
        found.leftovers = [c for c in found.leftovers if c]
    return found


#: a model to pre-train said by its size alone ('a 7b from scratch', 'a 13B model')
_SIZE_TO_TRAIN = re.compile(
    rf"(?:^|\s){terms('one_article')}\s+(?P<v>\d+(?:[.,]\d+)?\s*b)(?:[\s-]+{terms('params')})?"
    rf"(?:\s+{terms('model_word')})?(?=[\s|]|$)")


#: an aside in brackets without a number ('25 000 exemples (dossiers annotés) de 3 000
#: tokens'): words about what was just named
_ASIDE = re.compile(r"\s*\(([^()\d]*)\)")


def _asides_last(t: str) -> str:
    """``t`` with its asides said after it, apart: what stood on either side of one is read
    together ('25 000 exemples de 3 000 tokens'), and the aside is still read."""
    asides = [m[1] for m in _ASIDE.finditer(t) if m[1].strip()]
    if not asides:
        return t
    return _ASIDE.sub(" ", t) + "".join(f" | {a}" for a in asides)


def _size_to_train(rest: str, found: Found) -> str:
    """A pre-training's model said by its size ('pretraining a 7b from scratch'): a model
    of that size, dense, is what is trained (no catalog model is pre-trained again)."""
    if "model" in found.answers:
        return rest
    m = _SIZE_TO_TRAIN.search(rest)
    size = custom.bare_size(m["v"], "en") if m is not None else None
    if m is None or size is None or not 0 < size <= custom.PARAMS_MAX_B:
        return rest
    found.answers["model"] = size
    return rest[: m.start()] + " | " + rest[m.end():]


def _named_too(rest: str, lang: Lang, found: Found) -> str:
    """A catalog model named beside its counts ('DeepSeek-R1 (le modèle complet de 671
    milliards de paramètres)'): the named one, when the counts agree with its own."""
    mention = models.find(rest, lang, NOISE)
    named = mention.answers.get("model")
    entry = catalog().models.get(named) if isinstance(named, str) else None
    total, active = found.answers.get("model"), found.answers.get("active_params_b")
    if entry is None or not isinstance(total, float) or not _near(total, entry.params_b) or (
            isinstance(active, float) and not _near(active, entry.active_params_b)):
        return rest
    found.answers["model"] = entry.id
    found.answers.pop("active_params_b", None)
    return mention.rest


def _near(said: float, published: float | None) -> bool:
    """A count said agrees with a published one (within 2.5 %: '671 milliards' is R1's)."""
    return published is not None and abs(said - published) <= 0.025 * max(said, published)


def _counts(rest: str, lang: Lang, found: Found) -> str:
    """A model described by its counts ('1T total, 32B active MoE', 'our own 30B dense
    model'), taken out before anything else reads its numbers."""
    try:
        counted = custom.find(rest, lang)
    except ParseError as exc:
        found.hint = exc.refusal
        return rest
    if counted is None:
        return rest
    counts, (a, b) = counted
    found.answers["model"] = counts.total
    if counts.active is not None:
        found.answers["active_params_b"] = counts.active
    return rest[:a] + " | " + rest[b:]


def _minus(rest: str, found: Found) -> str:
    """'-64 users', '−8k': refused by name (never read as 64 or 8k), and taken out."""
    m = _MINUS.search(rest)
    if m is not None:
        said = m.group(0).strip()
        found.refusals.append(Refusal(msg("dialogue.error.negative_any", text=shown(said))))
        found.leftovers.append(said)
    return _MINUS.sub(" | ", rest)


def _recognise(rec: Recogniser, rest: str, ctx: Context, found: Found) -> str:
    """Run one recogniser: the first value that reads, or the last when the person corrected
    themselves between them; a refused one is said only when no other reads ('llama 2 70b
    chat for 20 users': '70b chat' is no count, '20 users' is, and the model keeps its name);
    every span it read is taken out."""
    hits = [m for m in rec.rx.finditer(rest) if not (rec.keys != ("int4",)
                                                      and negated(rest, m.start()))]
    if not hits:
        return rest
    corrected = len(hits) > 1 and REVALUE.search(rest, hits[0].end(), hits[-1].start())
    refusal: tuple[Refusal, re.Match[str]] | None = None
    for chosen in [hits[-1]] if corrected else hits:
        joined = [chosen]
        if rec.adds is not None and not corrected:  # '2000 nurses and 300 doctors'
            for h in hits[hits.index(chosen) + 1:]:
                if not load.JOINED.fullmatch(rest, joined[-1].end(), h.start()):
                    break
                joined.append(h)
        try:
            reading = rec.read(chosen, ctx) if len(joined) == 1 or rec.adds is None \
                else rec.adds(joined, ctx)
        except ParseError as exc:  # its kind of answer, out of range
            refusal = refusal or (exc.refusal, chosen)
            continue
        if reading is not None:
            break
    else:  # nothing read: the first refusal is said, and its span taken out
        if refusal is None:
            return rest
        said, at = refusal
        found.refusals.append(said)
        found.refused.update(dict.fromkeys(rec.keys, said))
        return rest[: at.start()] + " | " + rest[at.end():]
    assumed = (set(str(reading.pop(load.ASSUMED)).split(",")) if load.ASSUMED in reading
               else rec.assumed)
    for key, value in reading.items():
        if key not in found.answers:
            found.answers[key] = value
            if key in assumed:
                found.inferred.add(key)
    for m in sorted(hits if corrected else joined, key=lambda h: -h.start()):
        rest = rest[: m.start()] + " | " + rest[m.end():]
    return rest


#: one thing's length said apart from its count ('50k emails a day, 500 tokens each')
_EACH_LENGTH = re.compile(rf"{N}\s*{TOK}\s+{terms('apiece')}\b")


def _share_apart(rest: str, found: Found) -> str:
    """A headcount taken whole ('200 people') and its share at once said apart from it
    ('..., 8k context, 10% concurrent'): that share of them, as said. People first read as
    at once ('5000 clients actifs') with a share of them at once said later ('genre 2 %
    connectés en même temps') were the headcount the share divides."""
    people = found.answers.get("users_total")
    at_once = found.answers.get("concurrency")
    if people is None and isinstance(at_once, int) and at_once > 1:
        people = at_once
    if not isinstance(people, int) or at_once != people:
        return rest
    apart = audience.share_apart(rest)
    if apart is None:
        return rest
    found.answers["users_total"] = people
    found.answers["concurrency"] = load.at_once(people, apart[0])
    found.inferred.discard("concurrency")  # said, even when it is the share assumed
    return apart[1]


def _each(rest: str, found: Found) -> str:
    """Things counted by a rate ('50k emails a day') and their length said apart ('500
    tokens each'): each one is a prompt of that length, never a question asked again; a
    data set's examples and their length said apart (a form's 'Longueur moyenne : 2 000
    tokens' lines after its 'Jeu de données : 20 000 exemples'): the data set's tokens."""
    items = found.answers.get("examples")
    if isinstance(items, int) and not {"example_tokens", "train_tokens"} & set(found.answers):
        m = _EACH_LENGTH.search(rest)
        n = number(load.group(m, "n"), Kind.TOKENS) if m is not None else None
        if m is not None and n is not None and n == int(n) and n > 0:
            found.answers["example_tokens"] = int(n)
            found.answers["train_tokens"] = dataset.whole(items * n)
            return rest[: m.start()] + " | " + rest[m.end():]
    if "requests_per_s" not in found.answers or {"context", "prompt_tokens"} & set(
            found.answers):
        return rest
    if "document_tokens" in found.answers and "documents" not in found.answers:
        found.answers["prompt_tokens"] = found.answers.pop("document_tokens")  # read apart
        return rest
    m = _EACH_LENGTH.search(rest)
    n = number(load.group(m, "n"), Kind.TOKENS) if m is not None else None
    if m is None or n is None or n != int(n):
        return rest
    found.answers["prompt_tokens"] = int(n)
    return rest[: m.start()] + " | " + rest[m.end():]


def _batch(rest: str, ctx: Context, found: Found) -> str:
    """A batch job's deadline ('by Friday', 'in 3 days') once documents were named. Without
    one, the documents are kept and the load question asks it (the deadline decides the
    throughput); without their size, the context question asks that."""
    if "documents" not in found.answers:
        return rest  # (without their size, the context question asks it)
    if "prompt_tokens" in found.answers and "document_tokens" not in found.answers:
        found.answers["document_tokens"] = found.answers.pop("prompt_tokens")  # '800 en entrée'
    m = load.BATCH_WHEN.search(rest)
    days = load.batch_days(rest, ctx) if m is not None else None
    if m is None and isinstance(found.answers.get("deadline_days"), float):
        found.answers["batch_days"] = found.answers.pop("deadline_days")  # 'within 2 days'
        return rest
    if days is None:  # kept: the load question asks the deadline ('by sometime' is refused)
        said = m.group(0).strip() if m is not None else ""
        if said:
            found.refusals.append(Refusal(msg("dialogue.error.batch_when", text=shown(said))))
        return rest
    found.answers["batch_days"] = days
    found.answers.pop("deadline_days", None)
    assert m is not None
    return rest[: m.start()] + " | " + rest[m.end():]


def _by_date(rest: str, ctx: Context, found: Found) -> str:
    """A deadline said as a date ('by next week', "d'ici vendredi"): the days from today (a
    batch job's was read by :func:`_batch`; 'in 10 days' by its recogniser)."""
    if "deadline_days" in found.answers or "batch_days" in found.answers or any(
            r.message.id.startswith("dialogue.error.batch") for r in found.refusals):
        return rest  # a batch job's date, refused with its job
    m = load.BATCH_WHEN.search(rest)
    days = dates.days_until(m["when"], ctx.today) if m is not None and m["when"] else None
    if m is None or days is None:
        return rest
    found.answers["deadline_days"] = days
    return rest[: m.start()] + " | " + rest[m.end():]


def _workload(rest: str, found: Found) -> str:
    work = names.find_workload(rest)
    if work is not None:
        if work[0] == "finetune":
            found.unsure["workload"] = names.finetune_kind()
        elif work[0] == "train":
            found.unsure["workload"] = names.training_kind()
        else:
            found.answers["workload"] = work[0]
        rest = rest[: work[1][0]] + " | " + rest[work[1][1]:]
        # the same workload said twice ('servir ... en inférence'): one answer, both read
        rest = names.WORKLOAD_RE[work[0]].sub(" | ", rest)
        if work[0] in names.FINETUNES:  # 'fine-tune it with LoRA': the words agree
            rest = names.WORKLOAD_RE["finetune"].sub(" | ", rest)
        if work[0] in (*names.FINETUNES, "pretrain"):  # 'train it from scratch', 'train a LoRA'
            rest = names.WORKLOAD_RE["train"].sub(" | ", rest)
    if "workload" not in found.answers and "workload" not in found.unsure and any(
            k in found.answers for k in ("concurrency", "target_tokens_per_s", "requests_per_s",
                                         "per_user_tokens_per_s", "documents", "users_total")):
        found.answers["workload"] = "inference"  # users and tokens/s are only ever served
        if not serving_said(found.answers):
            found.inferred.add("workload")
    return rest


def serving_said(answers: Mapping[str, AnswerValue]) -> bool:
    """Whether the answers say serving, as 'inference' does: a load said at once ('60
    concurrent users', 'a third of them at the same time', '20 requests per second', '30
    tok/s per user') or a batch of documents to get through ('summarise 2M tickets by
    Friday') is only ever served. A headcount alone ('for our 600 employees') is not: the
    workload it implies is confirmed."""
    if answers.get("work") == "batch" or ("documents" in answers and "batch_days" in answers):
        return True
    if "users_total" in answers:
        return answers.get("concurrency", answers["users_total"]) != answers["users_total"]
    return any(k in answers for k in ("concurrency", "requests_per_s", "target_tokens_per_s",
                                      "per_user_tokens_per_s"))


def _whose_speed(folded: str, found: Found) -> None:
    """'200 users at 20 tok/s': a rate small enough to be one user's, with nothing to say
    whose, is asked (per user, or in total?), never taken as a total."""
    rate = found.answers.get("target_tokens_per_s")
    if isinstance(rate, float) and rate <= names.PER_USER_MAX and not names.says_total(folded):
        del found.answers["target_tokens_per_s"]
        found.unsure["target_tokens_per_s"] = names.which_speed(rate)


def _vague_speed(rest: str, found: Found) -> str:
    """'réponse rapide': how fast is asked (no speed is assumed for it). The quickness of
    the request itself ('quick one', 'un chiffrage rapide') is read too, and asks nothing."""
    if names.FAST.search(rest) is None:
        return rest
    rest = names.QUICK_ASK.sub(" | ", rest)
    m = names.fast(rest)
    if m is None or "target_tokens_per_s" in found.unsure or any(
            k in found.answers for k in ("per_user_tokens_per_s", "target_tokens_per_s")):
        return rest
    found.unsure["target_tokens_per_s"] = names.how_fast()
    return rest[: m.start()] + " | " + rest[m.end():]


def _problem(problem: Proposal | Fetch | Refusal | None, found: Found) -> None:
    if isinstance(problem, Fetch):
        found.fetch = problem.repo
    elif isinstance(problem, Proposal):
        found.unsure["model"] = problem
    elif problem is not None:
        found.hint = problem
