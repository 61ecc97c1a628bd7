"""Drive a Dialogue like a person: click a button (a choice value, with the version it was
rendered at) or type text (no version), and fail loudly when a button is not on offer."""

from __future__ import annotations

from dialogue import Dialogue, Reply


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
