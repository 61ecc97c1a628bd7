"""Typed text of any kind, at every state: never an exception, never a lost answer."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.wording import say
from dialogue import Dialogue, MemoryStore, command
from dialogue.conversation import Proposal
from dialogue.keys import KEYS
from dialogue.readings import Fetch, Reading, Refusal
from dialogue.slots import SLOTS
from dialogue.understand.commands import Command
from engine.units import Lang
from tests.dialogue.helpers import every_message

# an opening (and follow-ups) that puts a fresh conversation in each state; a name with a
# '/' is a state with a proposal waiting for a click (the state before the '/'), one
# with a ':' a state reached another way (an inferred answer to confirm)
REACH: dict[str, tuple[str, list[str]]] = {
    "model": ("", []),
    "model/names": ("llama 70b inference 64 users", []),
    "model/size": ("34b inference 64 users", []),
    "workload": ("llama 3.1 70b", []),
    "workload/finetune": ("llama 3.1 70b fine-tune", []),
    "workload:assumed": ("llama 3.1 8b for 200 employees 8k context", []),
    "concurrency": ("llama 3.1 70b inference", []),
    "concurrency/context": ("llama 3.1 70b inference", ["32k"]),
    "context": ("llama 3.1 70b inference 64 users", []),
    # the speed is assumed once the context is known: its question is a 'change' away
    "target_tokens_per_s": ("llama 3.1 70b inference 64 users", ["8k", "change speed"]),
    "int4": ("llama 3.1 405b inference 48 users 16k context no target", []),
    "train_tokens": ("llama 3.1 70b full fine-tune", []),
    "deadline_days": ("llama 3.1 70b full fine-tune 1B tokens", []),
    "interconnect": ("llama 3.1 70b full fine-tune 1B tokens 30 days", []),
    "gpu": ("llama 3.1 70b inference", ["change gpu"]),
    "done": ("llama 3.1 70b inference 64 users 8k context no target", []),
    "done:speed": ("llama 3.1 70b inference 64 users", ["8k"]),  # the speed assumed
    "cancelled": ("llama 3.1 70b inference", ["cancel"]),
    # the same states in a French conversation
    "context_fr": ("inférence llama 3.1 70b pour 64 utilisateurs", []),
    "int4_fr": ("inférence llama 3.1 405b 48 utilisateurs contexte 16k pas d'objectif", []),
    "done_fr": ("inférence llama 3.1 70b 64 utilisateurs contexte 8k pas d'objectif", []),
    "model/names_fr": ("nous voulons faire tourner Llama 70B pour 50 utilisateurs", []),
}

WORDS = [
    "back", "help", "restart", "cancel", "change context", "change gpu", "change", "change x",
    "yes", "no", "ok", "nope", "8k", "32k", "128 000", "0", "-1", "1e9", "100000", "100001",
    "64 users", "1.5T tokens", "2 weeks", "3 months", "no target", "6k tokens per second",
    "ib-200", "25 GbE", "rtx-5090", "70b", "405b", "30b params", "inference", "lora", "pretrain",
    "llama 3.1 70b", "deepseek v3", "   ", "", "∞", "3O", "１２", "NaN", "½", "8k context 64 users",
    # what the QA pass found people typing: values with 'change', labels, decimal commas,
    # spelled numbers, several answers at once, doubt, pasted pages, huge numbers
    "change context to 32k", "change gpu to H100s", "change model to gemma 2 9b", "1,5T",
    "sixty four", "64 users, 32k context", "NVIDIA L40S (48 GB)", "not sure", "why?",
    "x" * 600, "1" * 400, "llama 3 70b", "no target: 1k",
    # French, and the language asked for
    "oui", "non", "aide", "retour", "annuler", "recommencer", "pas d'objectif", "inférence",
    "affinage", "64 utilisateurs", "2 semaines", "3 mois", "changer le contexte à 32k",
    "en français", "in English", "je ne sais pas", "-64 users", "what is int4?", "avoid int4",
    # issue #10: corrections, negations, questions, the customer's terms, names near others
    "64 users, sorry 128 users", "plutôt 128", "actually 32k", "no int4", "int4 pas acceptable",
    "c'est quoi le contexte ?", "why?", "30 tok/s per user", "as fast as chatgpt",
    "20 requests per second", "200 employees", "on our 4x L40S", "on 2 GPUs", "none of these",
    "10M documents of 2k tokens by Friday", "fine-tune", "sft", "lora", "0.5b", "34b",
    "llama 70b", "mistral large 3", "GLM-4.5", "1T total, 32B active MoE", "llama-3.1-70b",
    "a 34B dense model", "32k context", "1k prompts, 300-token answers", "ab/cd",
]
UNITS = ["", "k", "K", "m", "b", "T", " users", " tokens", " tok/s", " days", " weeks", "k ctx"]
TEXT = st.one_of(
    st.text(max_size=30),
    st.sampled_from(WORDS),
    st.builds(lambda n, u: f"{n}{u}", st.one_of(st.integers(-10, 10**7), st.floats(0, 1e6)),
              st.sampled_from(UNITS)),
    st.lists(st.sampled_from(WORDS), min_size=2, max_size=4).map(" ".join),
)


def _command(text: str) -> Command | None:
    """The command a text is, past the languages asked for around it ('in French: restart',
    'restart en français en français'), as the dialogue reads it."""
    cmd = command(text)
    while cmd is not None and cmd.kind == "language" and cmd.value:
        cmd = command(cmd.value)
    return cmd


def _answered(cmd: Command | None, state: str) -> str:
    """The question a text answers: a 'change <answer> to <value>' its own, else the one
    asked."""
    if cmd is not None and cmd.kind == "change" and cmd.value is not None and cmd.slot:
        return cmd.slot
    return state


def _restarts(text: str) -> bool:
    cmd = _command(text)
    return cmd is not None and cmd.kind == "restart"


def _at(state: str) -> Dialogue:
    d = Dialogue(MemoryStore())
    opening, more = REACH[state]
    r = d.start("k", opening)
    for text in more:
        r = d.handle("k", text)
    name = state.removesuffix("_fr")
    assert r.state == name.split("/")[0].split(":")[0], (state, r.state, r.error)
    conv = d.load("k")
    assert conv is not None and ("/" in name) == (r.state in conv.proposals), state
    assert r.language == ("fr" if state.endswith("_fr") else "en")
    return d


@pytest.mark.parametrize("state", list(REACH))
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXT)
def test_any_text_at_any_state(state: str, text: str) -> None:
    d = _at(state)
    before = d.load("k")
    assert before is not None
    reply = d.handle("k", text)
    after = d.load("k")
    assert after is not None
    assert reply.state == after.state and reply.version == after.version
    assert reply.kind in ("question", "result", "ended", "error")
    for m in every_message(reply):  # every message renders, in the reply's language
        assert say(m, reply.language)
    cmd = _command(text)
    if reply.kind == "error":  # refused: nothing moved, nothing was lost
        assert (after.state, after.answers, after.version) == (
            before.state, before.answers, before.version)
        assert reply.error
    if before.state == "done" and cmd is None:
        # after the card, answers typed are changes ('in fact 40 users'): never silent
        changed = {k for k in before.answers if before.answers[k] != after.answers.get(k)}
        notices = {n.text.id for n in reply.notices}
        assert not changed or notices & {"dialogue.notice.changed", "dialogue.notice.noted"}
    elif not _restarts(text):
        # only the question being answered may change, and a new answer to it replaces the
        # old whatever its shape (a rate for a count); the model question reads a sentence;
        # 'change context to 32k' answers the context question; another answer corrected
        # ('actually 100 users') changes, and the reply says so
        answered = _answered(cmd, before.state)
        said = "dialogue.notice.changed" in {n.text.id for n in reply.notices}
        lost = set(before.answers) - set(after.answers)
        assert said or {KEYS[k].slot for k in lost} <= {answered}, ("an answer was lost", lost)
        changed = {k for k in before.answers if before.answers[k] != after.answers.get(k)}
        assert answered == "model" or said or {KEYS[k].slot for k in changed} <= {answered}
    assert d.current("k") is not None  # what was stored renders again


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(start=st.sampled_from(list(REACH)), texts=st.lists(TEXT, min_size=1, max_size=8))
def test_any_sequence_of_texts(start: str, texts: list[str]) -> None:
    """Conversations wander (back, change, nonsense, answers); each step keeps the rules."""
    d = _at(start)
    for text in texts:
        before = d.load("k")
        assert before is not None
        reply = d.handle("k", text)
        after = d.load("k")
        assert after is not None and reply.version == after.version
        assert after.version in (before.version, before.version + 1)
        lost = set(before.answers) - set(after.answers)
        if before.state == "done" and _command(text) is None:  # a change, said
            notices = {n.text.id for n in reply.notices}
            assert not lost or notices & {"dialogue.notice.changed", "dialogue.notice.noted"}
        elif not _restarts(text):
            answered = _answered(_command(text), before.state)
            assert {KEYS[k].slot for k in lost} <= {answered}, (text, before.answers)
        if after.state not in ("done", "cancelled"):
            assert reply.choices and reply.nav  # always something to click


@pytest.mark.parametrize("state", [s for s in REACH
                                   if s.removesuffix("_fr").split(":")[0]
                                   not in ("done", "cancelled")])
def test_every_button_is_an_answer(state: str) -> None:
    """Each choice offered is accepted, by click and typed alike, to the same place."""
    probe = _at(state).current("k")
    assert probe is not None and probe.choices
    for choice in probe.choices:
        a, b = _at(state), _at(state)
        ra = a.handle("k", choice.value, version=a.current("k").version)  # type: ignore[union-attr]
        rb = b.handle("k", choice.value)
        assert ra.kind != "error", (state, choice.value, ra.error)
        assert (ra.state, ra.answers) == (rb.state, rb.answers)


@pytest.mark.parametrize("slot", list(SLOTS))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXT, lang=st.sampled_from(["en", "fr"]))
def test_a_question_reads_any_text_into_a_value(slot: str, text: str, lang: Lang) -> None:
    """A question's reader returns what it read (``dialogue/readings.py``), never raises:
    answers, a proposal, a Hub id to fetch, or a refusal that says why in the person's
    language."""
    answers = {"model": "llama-3.1-70b", "workload": "inference"}
    got = SLOTS[slot].read(text, answers, lang, None)
    assert isinstance(got, Reading | Proposal | Fetch | Refusal), got
    if isinstance(got, Refusal):
        assert say(got.message, lang)
    if isinstance(got, Proposal):
        assert say(got.text, lang) and got.options
