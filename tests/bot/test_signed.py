"""What the server puts in its messages comes back signed, or changes nothing (issue 13, item 8).

Block ids carry a conversation key and a version, a start button's value a channel and a
thread: a client can send anything there. Through signed HTTP into the real app: an unsigned
block id (the old ``gs1`` format), one signed with another secret, a forged signature on
someone else's sizing, a version that is not ASCII digits, a start button naming another
channel: each is answered 200 without a traceback, changes nothing stored, and the clicker is
told privately that the button could not be checked.
"""

from __future__ import annotations

import json
import logging

import pytest

from bot.slack.cards import ids
from tests.bot.harness import (
    CUSTOMER,
    EXTERNAL_TEAM,
    INTERNAL_TEAM,
    REP,
    SALES,
    SHARED,
    BotServer,
    click,
    first_choice,
    message,
    said,
    stored_conversations,
    wait_shown,
)
from tests.bot.threads import mention, question_ts
from tests.fakeslack import FakeSlack


def _other_secrets_id(body: str) -> str:
    key = ids.derive_key("another deployment's secret")
    import base64
    import hashlib
    import hmac

    mac = hmac.new(key, body.encode(), hashlib.sha256).digest()[:16]
    return f"gs2|{body}|" + base64.urlsafe_b64encode(mac).decode().rstrip("=")


def test_unsigned_forged_or_malformed_block_ids_change_nothing(
    bot: BotServer, fake: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    root = mention(bot, fake, text="llama 3.1 70b inference")
    q_ts = question_ts(fake, SALES, root)
    wait_shown(bot)
    shown = message(fake, SALES, q_ts)
    block_id, action_id, value, _ = first_choice(shown)
    before = stored_conversations(bot)
    (key,) = before
    version = before[key]["version"]
    forged = [
        f"gs1|{version}|1|{key}",  # the old, unsigned format, naming another message
        _other_secrets_id(f"{version}|1|{key}"),  # signed by someone else
        block_id.rsplit("|", 1)[0] + "|" + "A" * 22,  # our format, a forged signature
        f"gs2|²|1|{key}|" + ids.sign(f"²|1|{key}"),  # a version that is not ASCII digits
        "gs2|" + "9" * 300,  # far too long
    ]
    for n, bad in enumerate(forged, 1):
        clicked = "1800000009.000100" if bad.startswith("gs1") else q_ts
        status, body = click(bot, user=REP, user_team=INTERNAL_TEAM, channel=SALES,
                             message_ts=clicked, block_id=bad, action_id=action_id, value=value,
                             thread_ts=root)
        assert status == 200 and "Traceback" not in body
        (note, *_) = fake.wait_for("chat.postEphemeral", n)[n - 1:]
        assert note.params["user"] == REP and note.params["text"] == said("slack.unverified")
    fake.quiet(0.3)
    assert stored_conversations(bot) == before
    assert message(fake, SALES, q_ts) == shown
    assert not fake.calls("chat.update")
    assert not [r for r in caplog.records if r.exc_info or "Traceback" in r.getMessage()]


def test_someone_elses_key_under_a_forged_signature_is_refused(
    bot: BotServer, fake: FakeSlack
) -> None:
    root = mention(bot, fake, text="llama 3.1 70b inference")
    q_ts = question_ts(fake, SALES, root)
    wait_shown(bot)
    (key,) = stored_conversations(bot)
    # a customer writes the rep's key into a block id of their own making
    status, _ = click(bot, user=CUSTOMER, user_team=EXTERNAL_TEAM, channel=SALES,
                      message_ts=q_ts, block_id=f"gs2|1|1|{key}|{'B' * 22}",
                      action_id=f"{ids.A_NAV}_restart", value="restart", thread_ts=root)
    assert status == 200
    (note,) = fake.wait_for("chat.postEphemeral", 1)
    assert note.params["user"] == CUSTOMER and note.params["text"] == said("slack.unverified")
    (doc,) = stored_conversations(bot).values()
    assert doc["version"] == 1 and doc["owner"] == REP


def test_a_start_button_naming_another_channel_starts_nothing_there(
    bot: BotServer, fake: FakeSlack
) -> None:
    """A start value is signed: one naming the shared channel's thread without the server's
    signature is not followed; the sizing starts where the button was clicked."""
    root = mention(bot, fake, text="llama 3.1 70b inference")
    question_ts(fake, SALES, root)
    wait_shown(bot)
    forged = json.dumps({"c": SHARED, "t": "1800000000.000100", "s": "C" * 22})
    from tests.slackreq import block_actions

    payload = block_actions(user=REP, user_team=INTERNAL_TEAM, channel=SALES,
                            message_ts="1800000001.000100", action_id=ids.A_START,
                            block_id="start0", value=forged, team=INTERNAL_TEAM)
    status, _ = bot.client.post_action(payload)
    assert status == 200
    fake.wait_for("chat.postMessage", 2)
    fake.quiet(0.3)
    assert SHARED not in fake.messages
    assert all(k.split(":")[1] == SALES for k in stored_conversations(bot))


def test_a_message_from_before_the_ids_were_signed_is_looked_up_and_brought_up_to_date(
    bot: BotServer, fake: FakeSlack
) -> None:
    """An unsigned (``gs1``) block id is believed only when the stored sizing says the clicked
    message is its own and the clicker its owner: then the message is re-rendered with signed
    ids; nothing else changes."""
    root = mention(bot, fake, text="llama 3.1 70b inference")
    q_ts = question_ts(fake, SALES, root)
    wait_shown(bot)
    shown = message(fake, SALES, q_ts)
    _, action_id, value, _ = first_choice(shown)
    (key,) = stored_conversations(bot)
    before = stored_conversations(bot)
    legacy = f"gs1|1|1|{key}"
    # someone else, with the owner's legacy id: refused
    click(bot, user=CUSTOMER, user_team=EXTERNAL_TEAM, channel=SALES, message_ts=q_ts,
          block_id=legacy, action_id=action_id, value=value, thread_ts=root)
    (note,) = fake.wait_for("chat.postEphemeral", 1)
    assert note.params["user"] == CUSTOMER and note.params["text"] == said("slack.unverified")
    # the owner, on the sizing's own message: brought up to date, the click changed nothing
    click(bot, user=REP, user_team=INTERNAL_TEAM, channel=SALES, message_ts=q_ts,
          block_id=legacy, action_id=action_id, value=value, thread_ts=root)
    note = fake.wait_for("chat.postEphemeral", 2)[-1]
    assert note.params["user"] == REP and note.params["text"] == said("slack.behind")
    (update,) = fake.wait_for("chat.update", 1)
    assert all(b["block_id"].startswith("gs2|") for b in update.params["blocks"]
               if b["type"] == "actions")
    assert stored_conversations(bot) == before
