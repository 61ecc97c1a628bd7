"""Drive a Dialogue like a person: click a button (a choice value, with the version it was
rendered at) or type text (no version), and fail loudly when a button is not on offer.
Read a reply the way a face does: by slot, id and number, never by English sentence."""

from __future__ import annotations

from bot.wording import say
from dialogue import Dialogue, Reply
from engine.wording import Message


def click(d: Dialogue, key: str, reply: Reply, value: str) -> Reply:
    values = [c.value for c in reply.choices + reply.nav]
    assert value in values, f"no button {value!r} on {reply.state}: {values}"
    return d.handle(key, value, version=reply.version)


def answer(d: Dialogue, key: str, reply: Reply, value: str, *, buttons: bool) -> Reply:
    """A button when one carries this value, else typed text (e.g. 48 concurrent)."""
    if buttons and value in [c.value for c in reply.choices + reply.nav]:
        return click(d, key, reply, value)
    return d.handle(key, value)


def run(d: Dialogue, key: str, script: list[str], *, buttons: bool, opening: str = "") -> Reply:
    reply = d.start(key, opening)
    for value in script:
        assert reply.kind != "error", (reply.state, reply.error)
        reply = answer(d, key, reply, value, buttons=buttons)
    return reply


def ids(messages: list[Message]) -> list[str]:
    return [m.id for m in messages]


def notice_ids(reply: Reply) -> list[str]:
    return [n.text.id for n in reply.notices]


def shown(reply: Reply) -> dict[str, str]:
    """Each answer as the reply shows it, rendered in its language (slot -> text)."""
    return {a.slot: say(a.shown, reply.language) for a in reply.answers}


def every_message(reply: Reply) -> list[Message]:
    """Every message a face would render for this reply (to render them all in a test)."""
    out: list[Message] = [reply.text, *(n.text for n in reply.notices)]
    out += [m for m in (reply.help, reply.error) if m is not None]
    out += [c.label for c in reply.choices] + [n.label for n in reply.nav]
    out += [a.label for a in reply.answers] + [a.shown for a in reply.answers]
    for q in reply.steps:
        out += [q.question, q.because]
    if reply.default is not None:
        out.append(reply.default.label)
    return out
