"""Every sentence the engine can say exists in English and French and renders with its numbers.

The sweep walks every catalog model through every workload (and the answers the claims
exercise, alternatives included), then renders every message of every answer in both
languages: an id missing from a catalog, a field a template names but the code does not
pass, or a unit format that cannot take the value fails here, not in front of a customer.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from engine import SizingRequest, recommend
from engine.catalog import catalog
from engine.result import VERDICT_IDS, Recommendation, verdict_name
from engine.units import LANGS
from engine.wording import Message, engine_catalog, render

CAT = catalog()
WORKLOADS = ["inference", "lora", "qlora", "full-finetune", "pretrain"]
#: The claims' operating points and the answers that take the rarer branches.
SPECIAL = [
    {"model": "llama-3.1-70b", "concurrency": 64, "context": 8192},
    {"model": "llama-3.1-405b", "concurrency": 48, "context": 16384},
    {"model": "llama-3.1-405b", "concurrency": 64, "context": 32768},
    {"model": "llama-3.1-70b", "concurrency": 64, "context": 8192, "target_tokens_per_s": 6000},
    {"model": "llama-3.1-405b", "concurrency": 64, "context": 32768, "gpu": "b200",
     "allow_int4": False},
    {"model": "llama-3.1-70b", "concurrency": 512, "context": 32768},
    {"model": "qwen-2.5-32b", "workload": "full-finetune", "gpus_per_node": 4},
    {"model": "llama-3.1-70b", "workload": "pretrain", "train_tokens": 1.5e12, "gpu": "h100-sxm"},
    {"params_b": 560, "concurrency": 1, "context": 1024, "allow_int4": False},
    {"params_b": 13, "workload": "full-finetune"},
    {"model": "llama-3.1-70b", "workload": "full-finetune", "interconnect": "eth-25"},
    {"model": "llama-3.1-8b", "gpu": "a100-sxm-80gb"},
    {"model": "llama-3.1-405b", "concurrency": 256, "context": 131072,
     "target_tokens_per_s": 20000},
    {"model": "llama-3.1-405b", "precision": "int4", "concurrency": 600, "context": 131072},
    {"model": "llama-2-70b"},
    {"model": "deepseek-v3", "gpus_per_node": 3},
    {"model": "llama-3.1-405b", "concurrency": 100, "context": 32768,
     "per_user_tokens_per_s": 20},
    {"model": "deepseek-v3", "allow_int4": False, "concurrency": 64, "context": 16384,
     "per_user_tokens_per_s": 20},
    {"model": "deepseek-v3", "allow_int4": False, "concurrency": 64, "context": 16384,
     "ttft_s": 0.05},
]


def _sweep() -> Iterator[Recommendation]:
    for m in sorted(CAT.models):
        for w in WORKLOADS:
            yield recommend(SizingRequest(model=m, workload=w),
                            alternatives=False)
    for kw in SPECIAL:
        yield recommend(SizingRequest(**kw))  # type: ignore[arg-type]


def _messages(rec: Recommendation) -> Iterator[Message]:
    yield rec.headline
    for q in rec.questions:
        yield q.question
        yield q.because
    yield from rec.caveats
    yield from rec.assumptions
    yield from rec.math
    for a in rec.alternatives:
        yield a.label
        yield a.summary


def _nested(m: Message) -> Iterator[Message]:
    yield m
    for value in m.params.values():
        if isinstance(value, Message):
            yield from _nested(value)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, Message):
                    yield from _nested(item)


SWEEP = list(_sweep())


def test_every_message_of_every_answer_renders_in_both_languages() -> None:
    seen: set[str] = set()
    for rec in SWEEP:
        for m in _messages(rec):
            for lang in LANGS:
                words = render(m, lang)
                assert words and "{" not in words and "}" not in words, (m.id, lang, words)
            seen |= {n.id for n in _nested(m)}
    # the sweep reaches every part of the catalog that answers use
    for prefix in ("question.", "evidence.", "caveat.", "assumption.", "math.", "headline.",
                   "tax.", "alternative."):
        assert any(i.startswith(prefix) for i in seen), prefix
    assert len(seen) > 100


def test_numbers_are_passed_raw_and_formatted_by_the_templates() -> None:
    """No sentence arrives preformatted: a parameter that is a string is a name (a model,
    a GPU, a link, a layout notation, a catalog detail), never a figure with its unit."""
    unit = re.compile(r"\d\s*(GB|TB|tok/s|%|days)\b")
    # catalog names ("A100 80GB") as typed: GPUs, the measured part and host, models, links
    names = {"gpu", "name", "model", "link", "text", "part", "host"}
    for rec in SWEEP:
        for m in _messages(rec):
            for n in _nested(m):
                for key, value in n.params.items():
                    if key in names:
                        continue
                    assert not (isinstance(value, str) and unit.search(value)), (n.id, key, value)


def test_verdict_names_and_estimated_entries_have_both_languages() -> None:
    words = engine_catalog()
    ids = words.ids()
    assert set(VERDICT_IDS.values()) <= ids
    flagged = [e.id for e in (*CAT.gpus.values(), *CAT.links.values()) if e.estimated]
    assert flagged
    for entry_id in flagged:
        for lang in LANGS:
            assert words.template(f"estimated.{entry_id}", lang)
    # and no statement is left for an entry that is no longer flagged
    assert {i.removeprefix("estimated.") for i in ids if i.startswith("estimated.")} == \
        set(flagged)


def test_a_verdict_names_the_node_it_sizes() -> None:
    """A 4-GPU node is no '8-GPU node': the card's header and an alternative's summary say
    the node's own count (the article's 8 is the usual node, not every node)."""
    rec = recommend(SizingRequest(model="llama-3.1-8b", gpus_per_node=4), alternatives=True)
    assert rec.verdict == "single_node" and rec.gpus_per_node == 4
    name = verdict_name(rec.verdict, rec.gpus_per_node)
    assert render(name, "en") == "One 4-GPU node"
    assert render(name, "fr") == "Un seul nœud de 4 GPU"
    other = [a for a in rec.alternatives if a.kind == "gpu" and a.verdict == "single_node"]
    assert other and all(render(a.summary, "en").startswith("One 4-GPU node") for a in other)


def test_french_is_written_the_french_way() -> None:
    rec = recommend(SizingRequest(model="llama-3.1-70b", concurrency=64, context=8192),
                    alternatives=False)
    en = render(rec.questions[0].because, "en")
    fr = render(rec.questions[0].because, "fr")
    free = round((rec.numbers.free_share or 0) * 100)
    assert "72.7 GB" in en and f"{free}% stays free" in en
    assert "72,7\u202fGo" in fr and f"{free}\u202f%" in fr and "restent libres" in fr
    assert "tok/s per user" in en and "par utilisateur" in fr
    assert render(rec.headline, "fr").startswith("Un nœud 8x NVIDIA RTX PRO 6000")


def test_french_answers_say_jeton_never_token() -> None:
    # one word for one thing in front of a French reader: the faces say "jeton", so does the
    # engine (the unit "tok/s" stays, as French technical writing has it)
    english = re.compile(r"\btokens?\b", re.IGNORECASE)
    said = {render(m, "fr") for rec in SWEEP for m in _messages(rec)}
    assert not [s for s in said if english.search(s)]


def test_one_of_a_thing_is_singular_in_both_languages() -> None:
    # a copy serving a single request is common once a per-user speed is asked
    wrong = re.compile(r"(?<![\d.,\u202f])1 (?:requests|requêtes|mixed steps|étapes)\b")
    said = {render(m, lang) for rec in SWEEP for m in _messages(rec) for lang in LANGS}
    assert any(re.search(r"(?<![\d.,\u202f])1 (?:request|requête)\b", s) for s in said)
    assert not [s for s in said if wrong.search(s)]


def test_link_names_leave_the_nic_count_to_the_answer() -> None:
    # the frontier projection gives each GPU its own NIC: a link named "one NIC per node"
    # would contradict it in the same answer
    assert not [link.name for link in CAT.links.values() if "NIC" in link.name]
    rec = recommend(SizingRequest(model="llama-3.1-70b", workload="pretrain",
                                  train_tokens=15e12, gpu="h100-sxm"), alternatives=False)
    assert rec.verdict == "frontier"
    (fabric,) = [a for a in rec.assumptions if a.id == "assumption.fabric_documented"]
    assert fabric.params["nics"] == rec.gpus_per_node  # one per GPU, as the frontier sentence


@pytest.mark.parametrize("lang", LANGS)
def test_the_math_quotes_the_constants_it_used(lang: str) -> None:
    rec = recommend(SizingRequest(model="llama-3.1-70b", precision="int4"), alternatives=False)
    weights = next(m for m in rec.math if m.id == "math.weights_quantized")
    assert weights.params["bits"] == pytest.approx(4.15625)
    assert ("4.156" if lang == "en" else "4,156") in render(weights, lang)  # type: ignore[arg-type]
