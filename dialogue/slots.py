"""The questions: what each slot asks, offers, accepts and shows, in decision-tree order.

A slot is data plus three small functions (choices, parse, show), so the machine, the
renderer and the opening parser all read the same definition. ``ORDER`` is the order of
the article's tree: model and workload first, then what step 1 needs (inference: load and
context, and a throughput target; training: token budget and deadline), then what only a
"no" at step 1 makes necessary (INT4 consent, the link between nodes).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from dialogue import parse
from dialogue.conversation import AnswerValue
from dialogue.reply import Choice
from engine.catalog import ModelSpec, catalog
from engine.request import DEFAULT_GPU, DEFAULT_INTERCONNECT

Answers = Mapping[str, AnswerValue]

PARAMS_MAX_CONTEXT = 1_048_576  # a model we only know by size: accept up to 1M tokens


@dataclass(frozen=True)
class Slot:
    name: str
    label: str
    aliases: tuple[str, ...]
    numeric: bool
    help: str
    ask: Callable[[Answers], str]
    choices: Callable[[Answers], list[Choice]]
    read: Callable[[str, Answers], AnswerValue]
    show: Callable[[AnswerValue], str]


def model_spec(answers: Answers) -> ModelSpec | None:
    m = answers.get("model")
    return catalog().models.get(m) if isinstance(m, str) else None


def max_context(answers: Answers) -> int:
    spec = model_spec(answers)
    return spec.max_context if spec is not None else PARAMS_MAX_CONTEXT


def model_name(answers: Answers) -> str:
    return show_model(answers.get("model"))


def is_training(answers: Answers) -> bool:
    w = answers.get("workload")
    return isinstance(w, str) and w != "inference"


# -- display -------------------------------------------------------------------------------

WORKLOAD_LABELS = {
    "inference": "Inference (serving)",
    "lora": "LoRA fine-tune",
    "qlora": "QLoRA fine-tune",
    "full-finetune": "Full fine-tune",
    "pretrain": "Pretraining from scratch",
}


def show_model(v: AnswerValue) -> str:
    if isinstance(v, str):
        spec = catalog().models.get(v)
        return spec.name if spec else v
    if isinstance(v, int | float) and not isinstance(v, bool):
        size = f"{v:g}B" if v >= 1 else f"{v * 1000:g}M"  # 0.35 -> '350M', not '0.35B'
        return f"a {size}-parameter dense model"
    return "-"


def _k(v: float) -> str:
    for unit, size in (("T", 1e12), ("B", 1e9), ("M", 1e6)):
        if v >= size:
            return f"{v / size:g}{unit}"
    return f"{v:,.0f}"


def show_tokens(v: AnswerValue) -> str:
    return f"{_k(float(v))} tokens" if isinstance(v, int | float) else "-"


def show_context(v: AnswerValue) -> str:
    if not isinstance(v, int | float):
        return "-"
    n = int(v)
    # '(32k)' for the powers of two people write as 32k; 128,000 typed is not '(125k)'
    short = f" ({n // 1024}k)" if n >= 1024 and n % 1024 == 0 and n % 1000 else ""
    return f"{n:,} tokens{short}"


def show_target(v: AnswerValue) -> str:
    return "none" if v is None else f"{float(v):,.0f} tokens/s"


def show_deadline(v: AnswerValue) -> str:
    return f"{float(v):g} days" if isinstance(v, int | float) else "-"


def show_yes_no(v: AnswerValue) -> str:
    return "yes" if v is True else "no"


def show_link(v: AnswerValue) -> str:
    link = catalog().links.get(str(v))
    return link.name if link else str(v)


def show_gpu(v: AnswerValue) -> str:
    g = catalog().gpus.get(str(v))
    return g.name if g else str(v)


def show_int(v: AnswerValue) -> str:
    return f"{int(v):,}" if isinstance(v, int | float) else "-"


# -- choices -------------------------------------------------------------------------------

_POPULAR = ("llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "qwen-2.5-72b", "deepseek-v3",
            "gpt-oss-120b")


def _model_choices(_: Answers) -> list[Choice]:
    models = catalog().models
    ids = [m for m in _POPULAR if m in models] or sorted(models)[:6]
    return [Choice(value=m, label=models[m].name) for m in ids]


def _workload_choices(_: Answers) -> list[Choice]:
    return [Choice(value=k, label=v) for k, v in WORKLOAD_LABELS.items()]


def _concurrency_choices(_: Answers) -> list[Choice]:
    return [Choice(value=str(n), label=f"{n} at once") for n in (1, 8, 16, 32, 48, 64, 128, 256)]


def _context_choices(answers: Answers) -> list[Choice]:
    top = max_context(answers)
    out = [Choice(value=f"{k}k", label=f"{k}k tokens") for k in (4, 8, 32, 128) if k * 1024 <= top]
    return out or [Choice(value=str(top), label=f"{top:,} tokens")]


def _target_choices(_: Answers) -> list[Choice]:
    out = [Choice(value="no target", label="No target", style="primary")]
    out += [Choice(value=f"{n} tok/s", label=f"{n:,} tokens/s") for n in (1000, 3000, 6000, 20000)]
    return out


def _yes_no_choices(_: Answers) -> list[Choice]:
    return [Choice(value="yes", label="Yes, INT4 is fine", style="primary"),
            Choice(value="no", label="No, keep FP8")]


def _tokens_choices(_: Answers) -> list[Choice]:
    return [Choice(value=v, label=v, style="primary" if v == "1B tokens" else None)
            for v in ("1B tokens", "10B tokens", "100B tokens", "1.5T tokens", "15T tokens")]


def _deadline_choices(_: Answers) -> list[Choice]:
    return [Choice(value=v, label=v, style="primary" if v == "30 days" else None)
            for v in ("7 days", "2 weeks", "30 days", "3 months", "1 year")]


def _link_choices(_: Answers) -> list[Choice]:
    return [Choice(value=lk.id, label=lk.name, style="primary" if lk.id == DEFAULT_INTERCONNECT
                   else None)
            for lk in catalog().links.values() if lk.scope == "inter"]


def _gpu_choices(_: Answers) -> list[Choice]:
    gpus = sorted(catalog().gpus.values(), key=lambda g: (not g.vendor_builds, -g.memory_gb))
    return [Choice(value=g.id, label=f"{g.name} ({g.memory_gb:g} GB)",
                   style="primary" if g.id == DEFAULT_GPU else None) for g in gpus]


# -- the slots -----------------------------------------------------------------------------


def _ask_context(a: Answers) -> str:
    return (f"How many tokens of context per request (prompt plus answer)? "
            f"{model_name(a)} takes up to {max_context(a):,}.")


SLOTS: dict[str, Slot] = {
    s.name: s
    for s in (
        Slot("model", "Model", ("model", "llm", "the model"), False,
             "The open-weight model to run: a name from the catalog (e.g. Llama 3.1 70B, "
             "DeepSeek-V3) or, for a model we do not list, its size ('a 30B dense model'). "
             "The size of its weights decides almost everything else.",
             lambda a: "Which model do you want to run?",
             _model_choices, lambda t, a: parse.model(t), show_model),
        Slot("workload", "Workload", ("workload", "task", "job", "use"), False,
             "Serving (inference) needs the weights plus a KV cache per request; LoRA and QLoRA "
             "train small adapters on a frozen base; a full fine-tune or pretraining keeps "
             "gradients and optimizer state for every weight, several times the model's size.",
             lambda a: f"What will you do with {model_name(a)}?",
             _workload_choices, lambda t, a: parse.workload(t),
             lambda v: WORKLOAD_LABELS.get(str(v), str(v))),
        Slot("concurrency", "Concurrent requests",
             ("concurrency", "users", "concurrent", "requests", "load"), True,
             "The number of requests in flight at the busiest moment. Each one holds its own "
             "KV cache in GPU memory, so this, times the context, is the working set.",
             lambda a: "How many requests will run at the same time, at peak?",
             _concurrency_choices, lambda t, a: parse.concurrency(t), show_int),
        Slot("context", "Context per request", ("context", "ctx", "context length", "window"),
             True,
             "Prompt plus generated tokens for one request. The KV cache grows linearly with "
             "it: 64 requests at 32k hold 8 times the memory of 64 at 4k.",
             _ask_context, _context_choices,
             lambda t, a: parse.context(t, max_context(a), model_name(a)), show_context),
        Slot("target", "Throughput target",
             ("target", "throughput", "tok/s", "tokens per second", "speed"), True,
             "The aggregate output rate you must sustain across all users, in tokens per "
             "second. Without one, the answer sizes for memory; with one, it checks that one "
             "node is fast enough and otherwise adds replicas.",
             lambda a: "Do you have an aggregate throughput target (tokens per second)?",
             _target_choices, lambda t, a: parse.target(t), show_target),
        Slot("int4", "INT4 weights acceptable", ("int4", "quantization", "quantisation", "4-bit"),
             False,
             "INT4 weights take half the memory of FP8, with a small quality loss that matters "
             "for some tasks (code, maths, long reasoning). Only inference can use them.",
             lambda a: f"{model_name(a)} does not fit one node in FP8 with the headroom it "
                       "needs (step 1). Is INT4 (4-bit) quality acceptable?",
             _yes_no_choices, lambda t, a: parse.yes_no(t), show_yes_no),
        Slot("tokens", "Training tokens", ("tokens", "token budget", "budget", "dataset", "data"),
             True,
             "The number of tokens the run will process (dataset size times epochs). Fine-tunes "
             "are typically 0.1-10B tokens; pretraining 1.5-15T.",
             lambda a: "How many tokens will training process (dataset x epochs)?",
             _tokens_choices, lambda t, a: parse.tokens(t), show_tokens),
        Slot("deadline", "Deadline", ("deadline", "days", "time", "duration"), True,
             "How long the run may take, wall-clock. A short deadline can turn one node into "
             "several.",
             lambda a: "How many days may the training run take?",
             _deadline_choices, lambda t, a: parse.deadline(t), show_deadline),
        Slot("interconnect", "Interconnect", ("interconnect", "network", "link", "fabric", "nic"),
             False,
             "The network between nodes. InfiniBand 200 Gb/s is 2x slower than PCIe inside a "
             "node, 100 GbE 4-5x, 25 GbE 15x: it decides how well work split across nodes "
             "scales.",
             lambda a: "The answer spans several nodes. What network links them? (Not sure? "
                       "Say so, and I will assume InfiniBand HDR 200 Gb/s, the usual.)",
             _link_choices, lambda t, a: parse.interconnect(t), show_link),
        Slot("gpu", "GPU", ("gpu", "gpus", "card", "cards", "hardware", "accelerator"), False,
             "The GPU in each 8-GPU node. The RTX PRO 6000 (96 GB) is the default; the SXM "
             "parts (H100, B200) are for comparison.",
             lambda a: "Which GPU should each 8-GPU node use?",
             _gpu_choices, lambda t, a: parse.gpu(t), show_gpu),
    )
}

ORDER: tuple[str, ...] = tuple(SLOTS)
QUESTIONS = ORDER
ALIASES: dict[str, str] = {alias: s.name for s in SLOTS.values() for alias in s.aliases}


def in_sentence(label: str) -> str:
    """A label inside a sentence: 'Concurrent requests' -> 'concurrent requests', but
    acronyms stay: 'GPU', 'INT4 weights acceptable'."""
    first = label.split(" ", 1)[0]
    if first.isupper() or any(c.isdigit() for c in first):
        return label
    return label[:1].lower() + label[1:]


def expects_number(state: str) -> bool:
    """True when a bare number typed at this question is the answer, not a choice index."""
    slot = SLOTS.get(state)
    return slot is not None and slot.numeric


def relevant(slot: str, answers: Answers) -> bool:
    """Whether the slot can matter given the answers so far (training never asks users)."""
    if slot in ("concurrency", "context", "target", "int4"):
        return not is_training(answers)
    if slot in ("tokens", "deadline"):
        return is_training(answers)
    return True


def valid(slot: str, answers: Answers) -> bool:
    """Answered, and still valid for the other answers (a context beyond a new model's max)."""
    if slot not in answers:
        return False
    v = answers[slot]
    if slot == "context":
        return isinstance(v, int) and v <= max_context(answers)
    return True


def labelled(answers: Answers) -> dict[str, str]:
    """The answers that matter, labelled for people, in question order (GPU always shown)."""
    out: dict[str, str] = {}
    for name in ORDER:
        if name == "gpu":
            out[SLOTS[name].label] = show_gpu(answers.get("gpu", DEFAULT_GPU))
        elif name in answers and relevant(name, answers) and valid(name, answers):
            out[SLOTS[name].label] = SLOTS[name].show(answers[name])
    return out
