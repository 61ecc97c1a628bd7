"""What a text typed at a question is before it is read as an answer: a click on one of the
question's buttons, or a question about the question (help, and on which topic); and, after a
card, whether a new message is about that card.

Why apart from ``dialogue/turn.py``: these are pure tests of the text against the
question's slot and buttons; the turn routes on them (a click is never taken for a typed
answer's language, a question about the question changes nothing).
"""

from __future__ import annotations

from dialogue.conversation import Conversation
from dialogue.slots import ALIASES, SLOTS, is_question, question
from dialogue.understand import commands, names, negation
from dialogue.understand.opening import extract
from dialogue.understand.text import fold
from dialogue.understand.tidy import tidy
from engine.units import Lang

__all__ = ["NAV_VALUES", "asks", "clicked", "follow_up", "topic"]


def asks(text: str, state: str) -> bool:
    """A question about the question is help, not an answer; at the model question, where a
    sentence is read for its answers ('can you size llama 3.1 70b for 50 users?'), only a
    request for an explanation ('what is ...', 'why ...') is."""
    slot = SLOTS[question(state)]
    if slot.sentence:
        return negation.asks_about(text)
    if names.unsure(text):  # 'dunno?' leaves it to the bot (its default, or how to guess)
        return False
    if negation.suggests(fold(text)):  # 'what if only 10% are on at once?' carries an answer
        return False
    if not slot.numeric and fold(text).endswith("?"):  # 'int4?' asks; a number
        return not negation.plain(text)  # ('8k?') or a plain 'ok?' is a tentative answer
    return negation.is_question(text)


def topic(text: str) -> str | None:
    """The question a question is about ('what is int4?' -> int4), if it names one."""
    words = f" {fold(text).rstrip('?')} "
    for alias, slot in sorted(ALIASES.items(), key=lambda kv: -len(kv[0])):
        if f" {alias} " in words:
            return slot
    return None


NAV_VALUES = frozenset({"back", "help", "restart", "cancel",
                         *(f"change {s.aliases[0]}" for s in SLOTS.values())})


def clicked(conv: Conversation, text: str) -> bool:
    """Whether ``text`` is a button's value (a choice of the question, a proposal's option,
    or navigation)."""
    if text in NAV_VALUES:
        return True
    proposal = conv.proposals.get(conv.state)
    if proposal is not None and text in {o.value for o in proposal.options}:
        return True
    return is_question(conv.state) and text in {
        c.value for c in SLOTS[conv.state].choices(conv.answers)}


def follow_up(text: str, lang: Lang = "en") -> bool:
    """Whether a text typed after a card is about that card ('what about 128 users?', 'et
    sur H100 ?'): it gives answers and names no model (a face that starts a new sizing on a
    new message asks this first; the result then takes it as its changes)."""
    text = tidy(text) or text
    if commands.read(text, ALIASES) is not None or negation.asks_about(text):
        return False
    found = extract(text, lang)
    return bool(found.answers) and "model" not in found.answers and "model" not in (
        found.unsure) and found.fetch is None
