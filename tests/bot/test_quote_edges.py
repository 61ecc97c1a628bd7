"""The quote hand-off when people and Slack misbehave: a customer in a Slack Connect channel,
retried and doubled submissions, a form whose sizing changed meanwhile, a forged form,
Slack refusing the form or the upload. Over signed HTTP against the fake Slack."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from bot.slack.cards import ids
from bot.slack.cards.quote_modal import B_COPY, B_EMAIL, B_NAME, B_NOTES, encode_metadata
from bot.slack.keys import ConversationKey
from engine.wording import msg
from tests.bot.harness import (
    CUSTOMER,
    EXTERNAL_TEAM,
    INTERNAL_TEAM,
    QUOTES,
    REP,
    SALES,
    SHARED,
    BotServer,
    click,
    click_to_card,
    find_element,
    is_card,
    message,
    plain,
    said,
    wait_shown,
    wait_version_change,
)
from tests.bot.quoteflow import Values, open_form, pdf_text, submit
from tests.bot.test_quote import GOOD, latest_audit, shared_in, summaries
from tests.bot.threads import NOT_OWNER, click_element, finished_card
from tests.fakeslack import FakeSlack

CUSTOMER_DM = "DCUST001"
THEIRS: Values = {B_NAME: "Zoë Martin", B_EMAIL: "zoe@client.example", B_COPY: True,
                  B_NOTES: "<!channel> *urgent* [click](http://evil.example)"}


def _customer_card(bot: BotServer, fake: FakeSlack) -> tuple[str, str, dict[str, Any]]:
    """A customer's own sizing in the shared channel (started from a rep's Start post)."""
    bot.client.post_command("/gpu-sizing", "post", user=REP, channel=SHARED,
                            team=INTERNAL_TEAM, response_url=fake.response_url("c"))
    fake.wait_for("chat.postMessage", 1)
    start_ts = next(iter(fake.messages[SHARED]))
    block_id, el = find_element(message(fake, SHARED, start_ts), ids.A_START)
    click(bot, user=CUSTOMER, user_team=EXTERNAL_TEAM, channel=SHARED, message_ts=start_ts,
          block_id=block_id, action_id=ids.A_START, value=el.get("value"))
    fake.wait_for("chat.postMessage", 2)
    q_ts = next(ts for ts, m in fake.messages[SHARED].items() if m["thread_ts"] == start_ts)
    wait_shown(bot)
    card = click_to_card([bot], user=CUSTOMER, user_team=EXTERNAL_TEAM, channel=SHARED,
                         ts=q_ts, root=start_ts)
    return start_ts, q_ts, card


def test_a_customer_in_slack_connect_sees_only_their_own_data(
    bot: BotServer, fake: FakeSlack
) -> None:
    fake.users[CUSTOMER]["profile"] = {"real_name": "Zoë Martin"}
    root, q_ts, card = _customer_card(bot, fake)
    posted_in_shared = len([c for c in fake.calls("chat.postMessage")
                            if c.params["channel"] == SHARED])
    view = open_form(bot, card, user=CUSTOMER, team=EXTERNAL_TEAM, ts=q_ts, root=root,
                     channel=SHARED)
    shown = json.dumps(view["blocks"], ensure_ascii=False)
    for internal in (QUOTES, INTERNAL_TEAM, REP, EXTERNAL_TEAM):
        assert internal not in shown
    assert '"initial_value": "Zoë Martin"' in shown  # their own name, from Slack
    status, ack = submit(bot, view, THEIRS, user=CUSTOMER, team=EXTERNAL_TEAM)
    assert status == 200 and ack == {}
    (summary,) = fake.wait_for("chat.postMessage", 1,
                               where=lambda c: c.params.get("channel") == QUOTES)
    blocks = json.dumps(summary.params["blocks"], ensure_ascii=False)
    assert said("slack.quote.requested_external", team=EXTERNAL_TEAM,
                mentions={"who": f"<@{CUSTOMER}>"}) in blocks
    assert "&lt;!channel&gt;" in blocks and "<!channel>" not in blocks  # typed text is inert
    fake.wait_for("files.completeUploadExternal", 2)
    (told,) = fake.wait_for("chat.postEphemeral", 1)
    assert told.params["channel"] == SHARED and told.params["user"] == CUSTOMER
    assert told.params["text"] == said("slack.quoting.thanks", name="Zoë Martin",
                                       email="zoe@client.example",
                                       copy=msg("slack.quoting.copy_sent"))
    record = latest_audit(bot)
    assert json.loads(record["note"])["requester"] == "external"
    for internal in (QUOTES, record["id"]):
        assert internal not in told.params["text"]
    # their copy: their sizing and their details, nothing of the vendor's side
    copies = shared_in(fake, CUSTOMER_DM)
    assert len(copies) == 2
    copy = pdf_text(fake.files.content(next(f["id"] for f in copies
                                            if f["filename"].endswith(".pdf"))))
    assert "Zoë Martin" in copy and "<!channel> *urgent*" in copy
    for internal in (INTERNAL_TEAM, EXTERNAL_TEAM, record["id"], record["key"], QUOTES, SHARED):
        assert internal not in copy
    markdown = fake.files.content(next(f["id"] for f in copies
                                       if f["filename"].endswith(".md"))).decode()
    assert "\\[click\\](http://evil.example)" in markdown and "\\<!channel\\>" in markdown
    # nothing at all was posted or shared in the shared channel
    fake.quiet(0.3)
    assert len([c for c in fake.calls("chat.postMessage")
                if c.params["channel"] == SHARED]) == posted_in_shared
    assert not shared_in(fake, SHARED)
    # the export is the vendor's: the customer is refused privately, nothing is uploaded
    uploads = len(fake.calls("files.getUploadURLExternal"))
    click_element(bot, card, ids.A_EXPORT, user=CUSTOMER, team=EXTERNAL_TEAM, ts=q_ts,
                  root=root, channel=SHARED, selected="export")
    (refused,) = fake.wait_for("chat.postEphemeral", 2)[1:]
    assert refused.params["user"] == CUSTOMER and refused.params["text"] == said("slack.refused")
    fake.quiet(0.3)
    assert len(fake.calls("files.getUploadURLExternal")) == uploads


def test_a_guest_of_the_vendors_workspace_cannot_export(bot: BotServer, fake: FakeSlack) -> None:
    fake.add_user("UGUEST01", INTERNAL_TEAM, is_restricted=True)  # the vendor's team id, a guest
    root, q_ts, card = finished_card(bot, fake)
    click_element(bot, card, ids.A_EXPORT, user="UGUEST01", ts=q_ts, root=root,
                  selected="export")
    (note,) = fake.wait_for("chat.postEphemeral", 1)
    assert note.params["user"] == "UGUEST01" and note.params["text"] == said("slack.refused")
    fake.quiet(0.3)
    assert not fake.calls("files.getUploadURLExternal")


def test_retries_and_double_submits_give_one_request(bot: BotServer, fake: FakeSlack) -> None:
    root, q_ts, card = finished_card(bot, fake)
    view = open_form(bot, card, user=REP, ts=q_ts, root=root, channel=SALES)
    no_copy = {**GOOD, B_COPY: False}
    for retry in (None, 1, None):  # the submission, Slack's retry of it, a double submit
        status, _ = submit(bot, view, no_copy, user=REP, retry=retry)
        assert status == 200
    fake.wait_for("files.completeUploadExternal", 1)
    fake.quiet(0.4)
    assert len(summaries(fake)) == 1 and len(shared_in(fake, QUOTES)) == 2
    assert len(fake.calls("chat.postEphemeral")) == 1
    # a second form for the same result: already with sales, nothing posted again
    again = open_form(bot, card, user=REP, ts=q_ts, root=root, channel=SALES)
    submit(bot, again, no_copy, user=REP)
    (_, note) = fake.wait_for("chat.postEphemeral", 2)
    assert note.params["text"] == said("slack.quote_already")
    fake.quiet(0.3)
    assert len(summaries(fake)) == 1 and len(fake.calls("files.completeUploadExternal")) == 1


def test_a_summary_slack_refused_does_not_block_the_next_form(
    bot: BotServer, fake: FakeSlack
) -> None:
    """Sales never got the first request: the person is told so, and their next form is
    applied (never "already with our sales team")."""
    root, q_ts, card = finished_card(bot, fake)
    no_copy = {**GOOD, B_COPY: False}
    view = open_form(bot, card, user=REP, ts=q_ts, root=root, channel=SALES)
    fake.fail("chat.postMessage", "channel_not_found")  # the summary, refused for good
    submit(bot, view, no_copy, user=REP)
    (note,) = fake.wait_for("chat.postEphemeral", 1)
    assert note.params["text"] == said("slack.quote_unreachable")
    again = open_form(bot, card, user=REP, ts=q_ts, root=root, channel=SALES)
    submit(bot, again, no_copy, user=REP)
    fake.wait_for("files.completeUploadExternal", 1)
    (_, second) = fake.wait_for("chat.postEphemeral", 2)
    assert second.params["text"] != said("slack.quote_already")
    assert len([c for c in summaries(fake) if c.ok]) == 1


def test_a_form_for_a_changed_sizing_sends_nothing_and_keeps_what_was_typed(
    bot: BotServer, fake: FakeSlack
) -> None:
    root, q_ts, card = finished_card(bot, fake)
    view = open_form(bot, card, user=REP, ts=q_ts, root=root, channel=SALES)
    # meanwhile the rep compares another GPU: the card shows another result
    other = find_element(card, ids.A_COMPARE)[1]["options"][0]["value"]
    before = json.dumps(card["blocks"])
    click_element(bot, card, ids.A_COMPARE, user=REP, ts=q_ts, root=root, selected=other)
    new = wait_version_change(fake, SALES, q_ts, before)
    while not is_card(new):
        new = wait_version_change(fake, SALES, q_ts, json.dumps(new["blocks"]))
    status, ack = submit(bot, view, GOOD, user=REP)
    assert status == 200 and ack == {}
    (note,) = fake.wait_for("chat.postEphemeral", 1)
    assert note.params["text"] == said("slack.quoting.changed")
    fake.quiet(0.3)
    assert not summaries(fake) and not fake.calls("files.getUploadURLExternal")
    # the new card's form starts with everything typed in the old one
    fresh = open_form(bot, new, user=REP, ts=q_ts, root=root, channel=SALES)
    initial = {b["block_id"]: b["element"].get("initial_value") for b in fresh["blocks"]
               if b["type"] == "input"}
    assert initial[B_NAME] == GOOD[B_NAME] and initial[B_EMAIL] == GOOD[B_EMAIL]
    assert initial[B_NOTES] == GOOD[B_NOTES]


def test_a_forged_form_is_refused(bot: BotServer, fake: FakeSlack) -> None:
    root, q_ts, card = finished_card(bot, fake)
    view = open_form(bot, card, user=REP, ts=q_ts, root=root, channel=SALES)
    # a customer replays the rep's form as their own: not their sizing, nothing happens
    submit(bot, view, THEIRS, user=CUSTOMER, team=EXTERNAL_TEAM)
    (note,) = fake.wait_for("chat.postEphemeral", 1)
    assert note.params["user"] == CUSTOMER and note.params["text"] == NOT_OWNER
    # metadata the bot never wrote: answered in the form itself
    _, ack = submit(bot, view, GOOD, user=REP, metadata='{"k":"TINT0001:CX:dm:U1","v":"1"}')
    assert ack == {"response_action": "errors",
                   "errors": {B_NAME: plain("slack.modal.error.broken")}}
    # a key the bot wrote, for a sizing that does not exist
    ghost = encode_metadata(ConversationKey.dm("TINT0001", "DGHOST01", REP), 3, "en")
    submit(bot, view, GOOD, user=REP, metadata=ghost)
    (_, note) = fake.wait_for("chat.postEphemeral", 2)
    assert note.params["text"] == said("slack.quote_needs_result")
    fake.quiet(0.3)
    assert not summaries(fake) and not fake.calls("files.getUploadURLExternal")
    assert not [r for r in _audit_kinds(bot) if r == "quote"]


def _audit_kinds(bot: BotServer) -> list[str]:
    from dialogue import RedisStore

    return [str(r.get("kind")) for r in RedisStore(str(bot.settings.redis_url)).audit_log(50)]


def test_slack_refusing_the_form_or_the_upload_is_told_and_never_logged_raw(
    bot: BotServer, fake: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    root, q_ts, card = finished_card(bot, fake)
    fake.fail("views.open", "expired_trigger_id")  # the click reached us too late
    click_element(bot, card, ids.A_QUOTE, user=REP, ts=q_ts, root=root)
    (note,) = fake.wait_for("chat.postEphemeral", 1)
    assert note.params["text"] == said("slack.quoting.form_failed")
    # Slack refuses to share the brief: the summary is there, the requester is still told
    # (a passing failure of the upload is retried instead: tests/bot/test_written.py)
    view = open_form(bot, card, user=REP, ts=q_ts, root=root, channel=SALES)
    fake.fail("files.completeUploadExternal", "restricted_action")
    submit(bot, view, {**GOOD, B_COPY: False}, user=REP)
    fake.wait_for("chat.postMessage", 1, where=lambda c: c.params.get("channel") == QUOTES)
    (_, told) = fake.wait_for("chat.postEphemeral", 2)
    record = latest_audit(bot)
    assert told.params["text"] == said("slack.quoting.posted_bare", audit=record["id"],
                                       copy=msg("slack.quoting.copy_none"),
                                       mentions={"channel": f"<#{QUOTES}>"})
    fake.quiet(0.3)
    assert not shared_in(fake, QUOTES)
    (_, missing) = summaries(fake)  # sales is told in the summary's thread
    (summary_ts,) = [ts for ts, m in fake.messages[QUOTES].items() if m["thread_ts"] is None]
    assert missing.params["thread_ts"] == summary_ts
    assert missing.params["text"] == said("slack.quoting.brief_missing")
    logged = "\n".join(f"{r.getMessage()} {getattr(r, 'json_fields', '')} {r.exc_text or ''}"
                       for r in caplog.records)
    assert "files_upload_v2" in logged  # the failure is counted and logged once, by its kind
    for secret in ("/upload/", "Traceback", str(GOOD[B_EMAIL]), str(GOOD[B_NAME]),
                   fake.bot_token):
        assert secret not in logged
