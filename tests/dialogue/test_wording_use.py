"""The dialogue's messages built from data (a slot's name, a workload, a source) exist in
both languages, and every label a face shows can be typed back with the click's effect."""

from __future__ import annotations

import pytest

from bot.wording import catalog, say
from dialogue import Dialogue, MemoryStore
from dialogue.slots import SLOTS
from dialogue.understand.names import WORKLOADS
from engine.units import LANGS, Lang
from engine.wording import msg


def test_every_slot_has_its_messages_in_every_language() -> None:
    cat = catalog()
    for slot in SLOTS:
        for part in ("label", "ask", "help", "word", "change"):
            for lang in LANGS:
                assert cat.template(f"dialogue.slot.{slot}.{part}", lang)
    for w in WORKLOADS:
        for lang in LANGS:
            assert cat.template(f"dialogue.choice.workload.{w.replace('-', '_')}", lang)
            assert cat.template(f"workload.{w.replace('-', '_')}", lang)
    for source in ("said", "assumed", "default", "confirmed"):
        assert cat.template(f"console.source.{source}", "fr")


def test_a_slots_word_is_what_change_takes() -> None:
    # the error 'I can change: model, workload, ...' lists words a person can type back
    from dialogue import command

    verbs: tuple[tuple[Lang, str], ...] = (("en", "change"), ("fr", "changer"))
    for slot in SLOTS:
        for lang, verb in verbs:
            typed = f"{verb} {say(msg(f'dialogue.slot.{slot}.word'), lang)}"
            cmd = command(typed)
            assert cmd is not None and cmd.slot == slot, typed


@pytest.mark.parametrize("lang", LANGS)
def test_every_navigation_label_typed_does_what_its_value_does(lang: str) -> None:
    opening = "llama 3.1 70b inference 64 users 8k context no target"
    if lang == "fr":
        opening += " en français"
    probe = Dialogue(MemoryStore()).start("k", opening)
    assert probe.kind == "result" and probe.language == lang
    for nav in probe.nav:
        a, b = Dialogue(MemoryStore()), Dialogue(MemoryStore())
        a.start("k", opening)
        b.start("k", opening)
        ra, rb = a.handle("k", say(nav.label, lang)), b.handle("k", nav.value)
        assert ra.kind != "error", (nav.label, ra.error)
        assert (ra.state, ra.request) == (rb.state, rb.request), say(nav.label, lang)
