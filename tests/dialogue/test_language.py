"""French throughout: the language comes from the opening or the person's choice, is kept
in the conversation and every reply, French is understood at every question, and every
reply renders in the conversation's language."""

from __future__ import annotations

import pytest

from bot.wording import catalog, say
from dialogue import Dialogue, MemoryStore, Reply
from tests.dialogue.helpers import every_message, notice_ids


def _in_french(reply: Reply) -> None:
    """The reply speaks French: its language says so and its question or headline renders
    with the French catalog (not the English one)."""
    assert reply.language == "fr"
    for m in every_message(reply):
        catalog().render(m, "fr")  # every message it carries exists in French
    if reply.text.id.startswith("dialogue."):
        assert say(reply.text, "fr") != say(reply.text, "en")


def test_a_french_opening_is_answered_in_french_to_the_card() -> None:
    d = Dialogue(MemoryStore())
    r = d.start("k", "nous voulons faire tourner Llama 3.1 70B pour 50 utilisateurs")
    _in_french(r)
    assert r.asking == "context" and r.request["concurrency"] == 50
    # the speed assumed at the card; 'pas d'objectif' typed after it is its change
    for said, asking in (("32k", None), ("pas d'objectif", None)):
        r = d.handle("k", said)
        _in_french(r)
        assert r.asking == asking, (said, r.error)
    assert r.recommendation is not None and r.request["target_tokens_per_s"] is None
    conv = d.load("k")
    assert conv is not None and (conv.language, conv.language_source) == ("fr", "detected")


@pytest.mark.parametrize(("opening", "script", "expected"), [
    ("llama 3.1 70b", ["inférence", "64 utilisateurs", "contexte 8k", "pas d'objectif"],
     {"workload": "inference", "concurrency": 64, "context": 8192, "target_tokens_per_s": None}),
    ("llama 3.1 70b en français", ["affinage complet", "1 Md de jetons", "2 semaines",
                                   "je ne sais pas"],
     {"workload": "full-finetune", "train_tokens": 1e9, "deadline_days": 14.0,
      "interconnect": "ib-200"}),
    ("inférence llama 3.1 405b 48 utilisateurs contexte 16k pas d'objectif", ["oui"],
     {"int4": True, "concurrency": 48}),
    ("inférence llama 3.1 405b 48 utilisateurs contexte 16k pas d'objectif", ["non"],
     {"int4": False}),
    ("nous voulons faire tourner Llama 70B pour 50 utilisateurs",
     ["Llama 3.1 70B", "contexte 8k", "changer la vitesse", "vitesse de lecture"],
     {"model": "llama-3.1-70b", "concurrency": 50, "context": 8192,
      "per_user_tokens_per_s": 20.0}),
    ("affinage de llama 3.1 8b", ["LoRA", "", ""], {"workload": "lora"}),
    ("llama 3.1 70b pré-entraînement", ["1,5 T de jetons", "un mois", "InfiniBand NDR"],
     {"workload": "pretrain", "train_tokens": 1.5e12, "deadline_days": 30.0,
      "interconnect": "ib-400"}),
])
def test_french_is_understood_at_every_question(
    opening: str, script: list[str], expected: dict[str, object]
) -> None:
    d = Dialogue(MemoryStore())
    r = d.start("k", opening)
    for said in script:  # at a question, or after the card (the speed assumed there)
        assert r.kind in ("question", "result"), (r.asking, r.error)
        r = d.handle("k", said)
    assert r.kind == "result", (r.asking, r.error)
    _in_french(r)
    assert {k: r.request[k] for k in expected} == expected


def test_french_navigation_words() -> None:
    d = Dialogue(MemoryStore())
    d.start("k", "inférence llama 3.1 70b pour 64 utilisateurs")
    r = d.handle("k", "aide")
    assert notice_ids(r) == ["dialogue.help.question"] and r.asking == "context"
    r = d.handle("k", "retour")
    assert r.asking == "concurrency" and r.text.id == "dialogue.question.now"
    r = d.handle("k", "changer le contexte à 32k")
    assert r.request["context"] == 32768
    r = d.handle("k", "annuler")
    assert r.state == "cancelled"
    r = d.handle("k", "recommencer")
    assert r.asking == "model"
    _in_french(r)


def test_the_language_asked_for_at_any_point_is_kept() -> None:
    d = Dialogue(MemoryStore())
    r = d.start("k", "we want to serve llama 3.1 70b")
    assert r.language == "en"
    version = r.version
    r = d.handle("k", "in French")
    _in_french(r)
    assert r.asking == "concurrency" and r.version == version + 1
    assert notice_ids(r) == ["dialogue.notice.language"]
    r = d.handle("k", "64 users")  # English words do not switch a chosen language back
    _in_french(r)
    r = d.handle("k", "in English: 8k")  # a choice and an answer in one message
    assert r.language == "en" and r.request["context"] == 8192
    assert d.current("k") is not None and d.current("k").language == "en"  # type: ignore[union-attr]


def test_a_language_nobody_chose_follows_the_first_words_that_say_one() -> None:
    d = Dialogue(MemoryStore())
    r = d.start("k", "llama 3.1 70b")  # a name says nothing of a language
    assert r.language == "en"
    r = d.handle("k", "inférence")
    _in_french(r)
    r = d.handle("k", "64 users")  # detected once: kept
    assert r.language == "fr"


def test_a_face_hint_is_the_starting_language_and_words_override_it() -> None:
    d = Dialogue(MemoryStore())
    assert d.start("k", "llama 3.1 70b", language="fr").language == "fr"
    assert d.start("k", "we want to serve llama 3.1 70b", language="fr").language == "en"


def test_an_english_conversation_understands_french_answers_and_stays_english() -> None:
    d = Dialogue(MemoryStore())
    d.start("k", "we want to serve llama 3.1 405b for 48 users")
    r = d.handle("k", "16k")  # the speed assumed: the 4-bit question
    assert r.asking == "int4"
    r = d.handle("k", "oui")
    assert r.language == "en" and r.request["int4"] is True


def test_a_click_never_switches_the_language() -> None:
    # buttons carry English values ('no target'): clicking one is not a word in English
    d = Dialogue(MemoryStore())
    r = d.start("k", "llama 3.1 70b", language="fr")
    # the card's change button, then the speed question's button
    for value in ("inference", "64", "8k", "change target", "no target"):
        assert value in [c.value for c in r.choices + r.nav]
        r = d.handle("k", value, version=r.version)
        assert r.language == "fr"
    assert r.kind == "result"


def test_help_asked_in_french_keeps_the_conversation_in_french() -> None:
    d = Dialogue(MemoryStore())
    r = d.start("k", "llama 3.1 70b")
    r = d.handle("k", "aide")
    assert r.language == "fr" and r.asking == "workload"
    assert d.handle("k", "inference").language == "fr"  # the next reply did not flip back
