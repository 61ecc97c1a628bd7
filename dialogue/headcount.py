"""A headcount and the share of it at once, against the conversation: read as it counts its
users, said once as the assumption it is.

'500 users' is a headcount, all of them taken at once (an assumption, with one click to a
share); where a conversation said its load at once ('64 concurrent users'), a later '200
users' is that load, said. The card, an opening and an answer at a question say it the same
way, from here.
"""

from __future__ import annotations

from collections.abc import Container, Mapping

from dialogue.assumptions import assumptions
from dialogue.conversation import AnswerValue, Conversation
from dialogue.keys import pair
from dialogue.reply import Notice
from dialogue.understand.load import at_once
from dialogue.understand.phrases import counts_users
from engine.wording import Message, msg

__all__ = ["as_counted", "assumed_pairs", "headcount"]


def as_counted(conv: Conversation, answers: Mapping[str, AnswerValue],
               inferred: Container[str], text: str) -> tuple[dict[str, AnswerValue],
                                                            frozenset[str]]:
    """Users counted as this conversation counts them: where its load was said at once
    ('64 concurrent users'), a later '200 users' is 200 at once, said, never a headcount of
    which all are assumed at once ('800 employees' stays a headcount)."""
    out, kept = dict(answers), frozenset(k for k in answers if k in inferred)
    if ("concurrency" in kept and out.get("users_total") == out.get("concurrency")
            and counts_users(text)
            and "users_total" not in conv.answers and "concurrency" in conv.answers
            and conv.sources.get("concurrency") in ("said", "confirmed")):
        del out["users_total"]
        kept -= {"concurrency"}
    return out, kept


def assumed_pairs(answers: Mapping[str, AnswerValue], keys: list[str]) -> list[Message]:
    """The answers ``keys`` the bot assumed, each as it is said: a headcount's share at once
    as '20 of the 200 people at once (10 %)'; all of them at once is said apart, by
    :func:`headcount`, with its one click to a share."""
    out: list[Message] = []
    for k in keys:
        if k not in answers:
            continue
        if k == "concurrency" and "users_total" in answers:
            n, people = answers["concurrency"], answers["users_total"]
            assert isinstance(n, int) and isinstance(people, int)
            if n != people:
                out.append(msg("dialogue.notice.share", n=n, people=people, share=n / people))
        else:
            out.append(pair(k, answers[k]))
    return out


def headcount(answers: Mapping[str, AnswerValue]) -> Notice | None:
    """'500 people, taken as all 500 at once: or people of whom some are active at the
    same time?': a headcount (users, people, employees, seats: one rule) sized as all of
    them at once, an assumption said with the share a headcount usually has at once."""
    people, n = answers.get("users_total"), answers.get("concurrency")
    if not isinstance(people, int) or isinstance(people, bool) or n != people or people < 2:
        return None
    part = assumptions().peak_share
    return Notice(kind="assumed", text=msg("dialogue.notice.headcount", people=people,
                                           n=at_once(people, part), share=part))
