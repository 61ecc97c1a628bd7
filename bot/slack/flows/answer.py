"""One answer (typed or clicked) applied to a sizing, and the refusals a person is told.

The dialogue loads, dedupes (the delivery id is recorded inside its atomic write),
compare-and-sets and answers with plain data; this module turns what it raised or returned
into what the person sees: the question message updated in place (``show``), or a private
note saying why nothing changed (someone else's sizing, a concurrent answer, a defect). A
typed message in a thread that is not its author's sizing is not an answer at all, so it is
silently ignored rather than refused.

A click on a message that is behind (an update that never landed, or an older message of the
sizing) changes nothing but brings that message to the current state and says so privately;
a delivery already applied (a replay of a turn whose worker died
before its update) shows the current state too. The store down mid-turn raises: the queue
retries the turn (``bot/slack/flows/face.py``).
"""

from __future__ import annotations

from dataclasses import replace

from bot.slack.cards.words import Words
from bot.slack.flows.face import Audience, Face
from bot.slack.flows.show import counted, reconcile, show
from bot.slack.flows.turn import Turn
from bot.slack.keys import ConversationKey
from dialogue import Conflict, Duplicate, NotOwner, Reply, StoreUnavailable
from engine.wording import msg


def stale(reply: Reply, version: int | None) -> bool:
    """A click from an older message: the dialogue changed nothing and says why.

    A turn that changes the sizing never carries an error, and one that changes nothing keeps
    the stored version, so "an error, and a version other than the clicked one" is exactly a
    stale click, whatever the reply's kind (a cancelled sizing answers with ``ended``).
    """
    return (version is not None and reply.version != version
            and (reply.kind == "error" or reply.error is not None))


def start_button(key: ConversationKey) -> tuple[str, str] | None:
    """Where a "Start my own sizing" button starts one: the same thread (not in a DM)."""
    return (key.channel, key.root) if key.root else None


def not_owner(face: Face, t: Turn, key: ConversationKey, owner: str, aud: Audience) -> None:
    """Tell someone whose sizing this is (in its language), with a button to start theirs."""
    t.outcome = "not_owner"
    aud = replace(aud, lang=face.lang_of(key, aud.lang))
    face.tell(aud, msg("slack.not_owner"), start=start_button(key),
              owner=Words(aud.lang).user(owner))


def refused(face: Face, t: Turn, exc: Exception, key: ConversationKey, aud: Audience,
            message_ts: str | None = None) -> None:
    """Say why a turn the dialogue refused changed nothing (a replay shows the current state;
    the store down raises, for the queue to retry the turn)."""
    if isinstance(exc, Duplicate):
        t.outcome = "duplicate"
        reconcile(face, key, aud, message_ts)
    elif isinstance(exc, NotOwner):
        not_owner(face, t, key, exc.owner, aud)
    elif isinstance(exc, Conflict):
        t.outcome = "conflict"
        face.tell(aud, msg("slack.conflict"))
    elif isinstance(exc, StoreUnavailable):
        face.store_down(t, aud)


def answer(face: Face, t: Turn, key: ConversationKey, text: str, aud: Audience, *,
           version: int | None = None, delivery_id: str | None = None,
           message_ts: str | None = None, typed: bool = False,
           file: str | None = None) -> Reply | None:
    """Apply ``text`` to the sizing at ``key`` and show the result; the reply, if any.
    ``file``: ``text`` is the content of the file of that name (``Dialogue.attach``)."""
    try:
        if file is not None:
            reply = face.dialogue.attach(key.format(), text, name=file, version=version,
                                         delivery_id=delivery_id, actor=aud.user)
        else:
            reply = face.dialogue.handle(key.format(), text, version=version,
                                         delivery_id=delivery_id, actor=aud.user)
    except NotOwner as exc:
        if typed:  # someone else talking in the thread: not an answer
            t.outcome = "not_owner"
        else:
            not_owner(face, t, key, exc.owner, aud)
        return None
    except (Duplicate, Conflict, StoreUnavailable) as exc:
        refused(face, t, exc, key, aud, message_ts)
        return None
    except Exception:  # a dialogue defect must not leave the person without an answer
        face.failed(t, aud)
        return None
    t.from_reply(reply)
    aud = replace(aud, lang=reply.language)
    if stale(reply, version):
        t.outcome = "conflict"
        t.extra["stale"] = True
        caught_up = reconcile(face, key, aud, message_ts)
        face.tell(aud, msg("slack.behind" if caught_up else "slack.stale"))
        return None
    show(face, key, reply, aud, message_ts)
    counted(reply)
    return reply
