"""Helpers for the tests that drive sizings in a channel thread: mention the bot, find the
question it posted, finish a sizing, click an element of a message as a person would."""

from __future__ import annotations

import time
from typing import Any

from tests.bot.harness import (
    INTERNAL_TEAM,
    REP,
    SALES,
    BotServer,
    click,
    click_to_card,
    find_element,
    said,
    wait_shown,
)
from tests.fakeslack import FakeSlack
from tests.slackreq import event_envelope, mention_event

OPENING = "llama 3.1 70b inference 64 users 8k context"
NOT_OWNER = said("slack.not_owner", mentions={"owner": f"<@{REP}>"})  # REP's sizing


def question_ts(fake: FakeSlack, channel: str, root: str, *, skip: tuple[str, ...] = (),
                 timeout: float = 5.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for ts, m in list(fake.messages.get(channel, {}).items()):
            if m["thread_ts"] == root and ts not in skip:
                return ts
        time.sleep(0.02)
    raise AssertionError("no question message in the thread")


def mention(bot: BotServer, fake: FakeSlack, *, user: str = REP, channel: str = SALES,
             text: str = OPENING, thread_ts: str | None = None,
             envelope: dict[str, Any] | None = None) -> str:
    ev = mention_event(user=user, channel=channel, text=f"<@UBOT0001> {text}",
                       thread_ts=thread_ts)
    status, _ = bot.client.post_event(envelope or event_envelope(ev))
    assert status == 200
    return str(ev["ts"])


def finished_card(bot: BotServer, fake: FakeSlack, text: str = OPENING,
          thread_ts: str | None = None) -> tuple[str, str, dict[str, Any]]:
    """A finished sizing by REP in SALES: (root, question/card ts, card)."""
    before = set(fake.messages.get(SALES, {}))
    root = mention(bot, fake, text=text, thread_ts=thread_ts)
    root = thread_ts or root
    q_ts = question_ts(fake, SALES, root, skip=tuple(before))
    wait_shown(bot)
    card = click_to_card([bot], user=REP, user_team=INTERNAL_TEAM, channel=SALES, ts=q_ts,
                         root=root)
    return root, q_ts, card


def click_element(bot: BotServer, msg: dict[str, Any], action_id: str, *, user: str, ts: str,
              root: str, team: str | None = INTERNAL_TEAM, channel: str = SALES,
              value: str | None = None, selected: str | None = None) -> None:
    block_id, el = find_element(msg, action_id)
    if value is None and selected is None:
        value = el.get("value")
    status, _ = click(bot, user=user, user_team=team, channel=channel, message_ts=ts,
                      block_id=block_id, action_id=action_id, value=value, selected=selected,
                      thread_ts=root)
    assert status == 200
