"""Each question's buttons: the fixed menus (built once: a choice is frozen data) and the
ones that follow the answers (a headcount's shares, a model's window, a GPU's formats).

Why apart from ``dialogue/slots.py``: the questions are data; what they offer is built from
the catalog (models, GPUs, links), the engine's defaults and ``dialogue/data/
assumptions.toml``, and listed nowhere else.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from dialogue import readers
from dialogue.assumptions import assumptions
from dialogue.keys import Answers, avoided
from dialogue.reply import Choice
from dialogue.understand import load, names, numbers
from engine.catalog import catalog
from engine.request import DEFAULT_GPU, DEFAULT_INTERCONNECT, SizingRequest
from engine.wording import msg, text

#: The models offered as buttons at the first question (any catalog model can be typed).
FEATURED_MODELS = ("llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "qwen-2.5-72b",
                   "deepseek-v3", "gpt-oss-120b")


def model_choices(ids: list[str] | tuple[str, ...]) -> list[Choice]:
    models_ = catalog().models
    return [Choice(value=m, label=text(models_[m].name)) for m in ids if m in models_]


@cache
def models_menu() -> tuple[Choice, ...]:
    return tuple(model_choices([m for m in FEATURED_MODELS if m in catalog().models]
                               or sorted(catalog().models)[:6]))


@cache
def workloads_menu() -> tuple[Choice, ...]:
    return tuple(Choice(value=w, label=msg(f"dialogue.choice.workload.{w.replace('-', '_')}"))
                 for w in names.WORKLOADS)


@cache
def concurrencies_menu() -> tuple[Choice, ...]:
    return tuple(Choice(value=str(n), label=msg("dialogue.choice.concurrency", n=n))
                 for n in (1, 8, 16, 32, 48, 64, 128, 256))


def concurrencies(answers: Answers) -> list[Choice]:
    """At once: with a headcount said, all of them (how a headcount is read) and its usual
    shares, one click each; otherwise the usual counts."""
    people = answers.get("users_total")
    if not isinstance(people, int) or isinstance(people, bool):
        return list(concurrencies_menu())
    a = assumptions()
    shares = [1.0, a.peak_share, *(x for x in a.peak_shares if x != a.peak_share)]
    out: list[Choice] = []
    for share in shares:
        n = load.at_once(people, share)
        if n <= numbers.CONCURRENCY_MAX and str(n) not in {c.value for c in out}:
            out.append(Choice(value=str(n), label=msg("dialogue.choice.share", n=n, share=share,
                                                      people=people)))
    return out


def contexts(answers: Answers) -> list[Choice]:
    top = readers.context_limit(answers)  # the model's window: no choice beyond it
    out = [Choice(value=f"{k}k", label=msg("dialogue.choice.context", tokens=k * 1024))
           for k in (4, 8, 32, 128) if top is None or k * 1024 <= top]
    if out or top is None:
        return out
    return [Choice(value=str(top), label=msg("dialogue.choice.context", tokens=top))]


@cache
def speeds_menu() -> tuple[Choice, ...]:
    a, reading = assumptions(), readers.reading_speed()
    return (
        Choice(value=f"{reading:g} tok/s per user", style="primary",
               label=msg("dialogue.choice.reading", rate=reading)),
        Choice(value=f"{a.chatgpt_tokens_per_s:g} tok/s per user",
               label=msg("dialogue.choice.chatgpt", rate=a.chatgpt_tokens_per_s)),
        Choice(value="no target", label=msg("dialogue.choice.no_target")),
        *(Choice(value=f"{n} tok/s", label=msg("dialogue.choice.total", rate=n))
          for n in (3000, 6000, 20000)),
    )


@cache
def int4s_menu() -> tuple[Choice, ...]:
    return (Choice(value="yes", label=msg("dialogue.choice.int4_yes"), style="primary"),
            Choice(value="no", label=msg("dialogue.choice.int4_no")))


def precisions(answers: Answers) -> list[Choice]:
    """The weight formats one can ask for: NVFP4 only on a GPU with FP4 tensor cores."""
    gpu = catalog().gpus.get(str(answers.get("gpu") or DEFAULT_GPU))
    formats = ["fp8", "bf16", "fp16"] + (["nvfp4"] if gpu is not None and gpu.fp4_tflops
                                         else [])
    return [Choice(value=f, label=msg(f"dialogue.choice.precision.{f}"),
                   style="primary" if f == SizingRequest.model_fields["precision"].default
                   else None) for f in formats]


_DEADLINES = (("7 days", "dialogue.choice.days", 7), ("2 weeks", "dialogue.choice.weeks", 2),
              ("30 days", "dialogue.choice.days", 30), ("3 months", "dialogue.choice.months", 3),
              ("1 year", "dialogue.choice.years", 1))


def deadlines(answers: Answers) -> list[Choice]:
    days = catalog().policy.default_deadline_days
    return [Choice(value=value, label=msg(mid, n=n),
                   style="primary" if numbers.deadline(value) == days else None)
            for value, mid, n in _DEADLINES]


@cache
def links_menu() -> tuple[Choice, ...]:
    return tuple(Choice(value=lk.id, label=text(lk.name),
                        style="primary" if lk.id == DEFAULT_INTERCONNECT else None)
                 for lk in catalog().inter_links())


@cache
def gpus_menu() -> tuple[Choice, ...]:
    gpus = sorted(catalog().gpus.values(), key=lambda g: (not g.vendor_builds, -g.memory_gb))
    return tuple(Choice(value=g.id, label=msg("dialogue.choice.gpu", name=g.name,
                                              memory=g.memory_gb),
                        style="primary" if g.id == DEFAULT_GPU else None) for g in gpus)


def gpus_offered(answers: Answers) -> list[Choice]:
    """The GPU question's buttons: every GPU but those refused ('not on L40S')."""
    refused = avoided(answers.get("avoid_gpus"))
    return [c for c in gpus_menu() if c.value not in refused]


def menu(build: Callable[[], tuple[Choice, ...]]) -> Callable[[Answers], list[Choice]]:
    return lambda a: list(build())
