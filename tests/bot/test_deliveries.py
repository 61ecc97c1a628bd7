"""What a listener hands the pipeline: conversation keys and typed deliveries built from Bolt's
request context, plain JSON a queue could hold, and nothing that can never be an answer."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

import pytest
from slack_bolt.request import BoltRequest

from bot.slack import payloads
from bot.slack.keys import ConversationKey
from tests.slackreq import (
    block_actions,
    command_form,
    event_envelope,
    mention_event,
    message_event,
)

ROOT = "1700000001.000100"


def request(body: dict[str, Any], *, form: bool = False) -> BoltRequest:
    """The request as Bolt builds it (its context is what the listeners read)."""
    if form:
        raw = urlencode(body if "payload" not in body else {"payload": json.dumps(body["payload"])})
        form_type = "application/x-www-form-urlencoded"
        return BoltRequest(body=raw, headers={"content-type": [form_type]})
    return BoltRequest(body=json.dumps(body), headers={"content-type": ["application/json"]})


def test_keys_format_and_parse_and_refuse_forgeries() -> None:
    thread = ConversationKey.thread("TINT0001", "CSALES01", ROOT, "UREP0001")
    dm = ConversationKey.dm("TINT0001", "DREP0001", "UREP0001")
    assert thread.format() == f"TINT0001:CSALES01:{ROOT}:UREP0001"
    assert dm.format() == "TINT0001:DREP0001:dm:UREP0001" and dm.is_dm and not thread.is_dm
    assert ConversationKey.dm(None, "DREP0001", "UREP0001").format() == "-:DREP0001:dm:UREP0001"
    for key in (thread, dm, ConversationKey.dm(None, "DREP0001", "UREP0001")):
        assert ConversationKey.parse(key.format()) == key
    for forged in (None, "", "a:b:c", f"TINT0001:CSALES01:{ROOT}:UREP0001:x",
                   f"TINT0001:#sales:{ROOT}:UREP0001", "TINT0001:CSALES01:yesterday:UREP0001",
                   f"TINT0001:CSALES01:{ROOT}:<!channel>", f"evil:CSALES01:{ROOT}:UREP0001"):
        assert ConversationKey.parse(forged) is None, forged


def test_every_delivery_is_plain_json_a_queue_can_hold() -> None:
    req = request(command_form("/gpu-sizing", "llama 3.1 70b &lt;x&gt; \u202e", trigger_id="t1"),
                  form=True)
    cmd = payloads.command(req.body, req.context)
    assert cmd is not None and cmd.id == "cmd:t1" and cmd.text == "llama 3.1 70b <x>"
    ev = mention_event(user="UREP0001", channel="CSALES01", text="<@UBOT0001> 70b",
                       thread_ts=ROOT)
    req = request(event_envelope(ev, event_id="Ev1"))
    mention = payloads.mention(req.body, req.context)
    assert mention is not None and mention.text == "70b" and mention.thread_ts == ROOT
    req = request(event_envelope(message_event(user="UREP0001", channel="DREP0001", text="64",
                                               channel_type="im")))
    dm = payloads.message(req.body, req.context)
    assert dm is not None and dm.im and dm.text == "64"
    click = block_actions(user="UCUST001", user_team="TEXT0001", channel="CSHARED1",
                          message_ts=ROOT, action_id="gs_answer_0", block_id="gs1|1|0|x",
                          value="64")
    req = request({"payload": click}, form=True)
    action = payloads.action(req.body, req.context, "answer")
    assert action is not None and action.value == "64" and action.block_id == "gs1|1|0|x"
    for delivery in (cmd, mention, dm, action):
        assert payloads.parse(delivery.model_dump_json()) == delivery


def test_a_click_names_the_clickers_own_team_not_the_installs() -> None:
    """In Slack Connect ``team.id`` is the app's workspace; ``user.team_id`` the clicker's."""
    click = block_actions(user="UCUST001", user_team="TEXT0001", channel="CSHARED1",
                          message_ts=ROOT, action_id="gs_quote", team="TINT0001")
    req = request({"payload": click}, form=True)
    action = payloads.action(req.body, req.context, "quote")
    assert action is not None
    assert action.actor_team == "TEXT0001" and action.team == "TINT0001"


@pytest.mark.parametrize("event", [
    {"subtype": "message_changed", "message": {"user": "UREP0001", "text": "64"}},
    {"subtype": "bot_message", "bot_id": "BOTHER01"},
    {"bot_id": "BBOT0001"},
    {"user": "UBOT0001"},  # ourselves (context.bot_user_id)
    {"thread_ts": None},  # top-level chatter in a channel
    {"text": "<@UBOT0001> 64"},  # app_mention answers it
])
def test_what_can_never_be_an_answer_is_no_delivery(event: dict[str, Any]) -> None:
    ev = message_event(user="UREP0001", channel="CSALES01", text="64", thread_ts=ROOT)
    ev.update(event)
    if ev.get("thread_ts") is None:
        ev.pop("thread_ts")
    req = request(event_envelope(ev))
    req.context["bot_user_id"] = "UBOT0001"
    assert payloads.message(req.body, req.context) is None


def test_every_click_kind_has_a_listener_and_a_flow() -> None:
    """A button the table forgets is a click nobody answers: each kind a click can be is
    matched on Slack's side and applied on the delivery's side."""
    from typing import get_args

    from bot.slack import routes
    from bot.slack.payloads import ActionKind

    kinds = set(get_args(ActionKind))
    assert set(routes.CLICKS) == kinds
    assert {k for k in routes.FLOWS if k.startswith("action:")} == {f"action:{k}" for k in kinds}
