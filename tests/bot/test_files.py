"""A model's config.json shared as a Slack file or snippet is read as if it had been pasted.

Everything goes through signed HTTP into the real app, the fake Slack (which serves shared
files at private URLs that only the bot token opens: ``tests/fakedownloads.py``) and a
throwaway Redis. What is asserted is what a person sees: the sizing's message as it is after
the turn (compared with the same config.json pasted in another sizing), the private notes, and
that nothing moved when a file could not be read.
"""

from __future__ import annotations

import json
import logging
import re
import time
from pathlib import Path
from typing import Any

import pytest

from bot.slack import filebytes
from bot.slack.flows.files import LIMIT
from tests.bot.harness import (
    COLLEAGUE,
    INTERNAL_TEAM,
    REP,
    SALES,
    BotServer,
    assert_valid,
    message,
    said,
    stored_conversations,
    wait_shown,
    wait_version_change,
)
from tests.bot.threads import mention, question_ts
from tests.fakeslack import FakeSlack
from tests.slackreq import event_envelope, file_share_event, mention_event, message_event

ROOT = Path(__file__).resolve().parents[1]
LLAMA = (ROOT / "dialogue" / "fixtures" / "llama-3.1-8b-finetune.config.json").read_bytes()
MOE = (ROOT / "engine" / "data" / "hf_configs" / "Qwen--Qwen3-30B-A3B.json").read_bytes()
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"
DM, DM2 = "DREP0001", "DOTHER01"  # what the fake's conversations.open answers


# ------------------------------------------------------------------ driving a conversation


def _post(bot: BotServer, event: dict[str, Any]) -> None:
    status, _ = bot.client.post_event(event_envelope(event))
    assert status == 200


def _key(channel: str = DM, user: str = REP) -> str:
    return f"{INTERNAL_TEAM}:{channel}:dm:{user}"


def _blocks(fake: FakeSlack, channel: str, ts: str) -> str:
    return json.dumps(message(fake, channel, ts)["blocks"])


def _dm_at_model_question(bot: BotServer, fake: FakeSlack, *, user: str = REP,
                          channel: str = DM) -> str:
    """``new`` in the person's DM: the model question's ts (a top-level message)."""
    before = set(fake.messages.get(channel, {}))
    _post(bot, message_event(user=user, channel=channel, text="new", channel_type="im"))
    deadline = time.monotonic() + 10
    while not (new := [ts for ts in list(fake.messages.get(channel, {})) if ts not in before]):
        assert time.monotonic() < deadline, "no question"
        time.sleep(0.02)
    wait_shown(bot, new[0], _key(channel, user))
    assert stored_conversations(bot)[_key(channel, user)]["state"] == "model"
    return new[0]


def _share_in_dm(bot: BotServer, fake: FakeSlack, q_ts: str, files: list[dict[str, Any]],
                 text: str = "") -> dict[str, Any]:
    """Share ``files`` at top level of the DM; the question message once it changed."""
    before = _blocks(fake, DM, q_ts)
    _post(bot, file_share_event(user=REP, channel=DM, files=files, text=text,
                                channel_type="im"))
    msg = wait_version_change(fake, DM, q_ts, before)
    assert_valid(msg)
    return msg


def _paste_in_dm(bot: BotServer, fake: FakeSlack, q_ts: str, text: str, *, user: str,
                 channel: str) -> dict[str, Any]:
    before = _blocks(fake, channel, q_ts)
    _post(bot, message_event(user=user, channel=channel, text=text, channel_type="im"))
    return wait_version_change(fake, channel, q_ts, before)


def _seen(msg: dict[str, Any]) -> str:
    """What a person sees of a message: its words and buttons, without what names its
    sizing (block ids) or its owner (a mention)."""
    text = json.dumps({"text": msg.get("text"), "blocks": msg.get("blocks")}, sort_keys=True)
    return re.sub(r"<@U[A-Z0-9]+>", "<@U>", re.sub(r'"block_id": "[^"]*"', '"block_id": ""',
                                                   text))


def _logged(caplog: pytest.LogCaptureFixture) -> str:
    """Every log line of the test, with its structured fields and any traceback."""
    return "\n".join(f"{r.getMessage()} {json.dumps(getattr(r, 'json_fields', {}), default=str)}"
                     f" {r.exc_text or ''}" for r in caplog.records)


def _refused_unchanged(bot: BotServer, fake: FakeSlack, q_ts: str,
                       files: list[dict[str, Any]], note: str, text: str = "") -> None:
    """Sharing ``files`` gets the private ``note`` and changes nothing."""
    doc = stored_conversations(bot)[_key()]
    before = message(fake, DM, q_ts)
    n = len(fake.calls("chat.postEphemeral"))
    _post(bot, file_share_event(user=REP, channel=DM, files=files, text=text,
                                channel_type="im"))
    told = fake.wait_for("chat.postEphemeral", n + 1)[-1]
    assert told.params["text"] == note
    assert told.params["channel"] == DM and told.params["user"] == REP
    fake.quiet(0.2)
    assert message(fake, DM, q_ts) == before  # the question is where it was
    after = stored_conversations(bot)[_key()]
    assert after["version"] == doc["version"] and after["answers"] == doc["answers"]
    assert not [c for c in fake.calls("chat.update") if c.params.get("ts") == q_ts
                and c.at > told.at]


# ------------------------------------------------------------------ (a) (b): read as if pasted


def test_a_config_json_file_at_the_model_question_is_read_as_if_pasted(
    bot: BotServer, fake: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    q_ts = _dm_at_model_question(bot, fake)
    shared = fake.downloads.share(LLAMA, name="config.json")
    # the words with the file are not the answer: the file is
    got = _share_in_dm(bot, fake, q_ts, [shared], text="here is our fine-tune's config")
    # the same config.json pasted by someone else, in their own DM
    q2 = _dm_at_model_question(bot, fake, user=COLLEAGUE, channel=DM2)
    pasted = _paste_in_dm(bot, fake, q2, LLAMA.decode(), user=COLLEAGUE, channel=DM2)
    assert _seen(got) == _seen(pasted)
    assert stored_conversations(bot)[_key()]["state"] != "model"  # past the model question
    assert "acme/support-llama-8b" in json.dumps(got["blocks"])  # the next question names it
    assert fake.calls("chat.postEphemeral") == []
    (download,) = fake.downloads.downloads()
    assert download.headers["authorization"] == f"Bearer {fake.bot_token}"
    # neither the token nor the file's content nor its private URL is in any log line
    logged = _logged(caplog)
    assert '"event": "turn"' in logged  # the turns were logged
    assert fake.bot_token not in logged and "files-pri" not in logged
    assert "acme/support-llama-8b" not in logged and "14336" not in logged


def test_b_a_snippet_in_a_sizing_thread_is_read_as_if_pasted(bot: BotServer,
                                                             fake: FakeSlack) -> None:
    roots = []
    for _ in range(2):
        seen = tuple(fake.messages.get(SALES, {}))
        root = mention(bot, fake, text="")
        roots.append((root, question_ts(fake, SALES, root, skip=seen)))
        wait_shown(bot)
    (root, q_ts), (root2, q2) = roots
    snippet = fake.downloads.share(MOE, name="qwen3-30b-a3b", filetype="json",
                                   mimetype="text/plain", mode="snippet")
    before = _blocks(fake, SALES, q_ts)
    _post(bot, file_share_event(user=REP, channel=SALES, files=[snippet], thread_ts=root))
    got = wait_version_change(fake, SALES, q_ts, before)
    before = _blocks(fake, SALES, q2)
    _post(bot, message_event(user=REP, channel=SALES, text=MOE.decode(), thread_ts=root2))
    pasted = wait_version_change(fake, SALES, q2, before)
    assert_valid(got)
    assert _seen(got) == _seen(pasted)
    assert fake.calls("chat.postEphemeral") == []


# ------------------------------------------------------------------ (c) (d) (e): refused, unchanged


def test_c_an_image_or_binary_file_is_not_text_and_changes_nothing(bot: BotServer,
                                                                   fake: FakeSlack) -> None:
    q_ts = _dm_at_model_question(bot, fake)
    png = fake.downloads.share(PNG, name="diagram.png", filetype="png", mimetype="image/png")
    _refused_unchanged(bot, fake, q_ts, [png], said("slack.file.not_text", name="diagram.png"))
    assert fake.downloads.downloads() == []  # Slack says it is an image: not even fetched
    # said to be text, but binary
    fake_json = fake.downloads.share(PNG, name="config.json")
    _refused_unchanged(bot, fake, q_ts, [fake_json],
                       said("slack.file.not_text", name="config.json"))
    # an image with words: the words are the answer, as typed
    before = _blocks(fake, DM, q_ts)
    _post(bot, file_share_event(user=REP, channel=DM, files=[png], channel_type="im",
                                text="llama 3.1 8b"))
    assert "8B" in json.dumps(wait_version_change(fake, DM, q_ts, before)["blocks"])


def test_d_a_file_too_large_changes_nothing(bot: BotServer, fake: FakeSlack) -> None:
    q_ts = _dm_at_model_question(bot, fake)
    big = LLAMA + b" " * LIMIT
    note = said("slack.file.too_large", name="config.json", n=LIMIT)
    stated = fake.downloads.share(big, name="config.json")
    _refused_unchanged(bot, fake, q_ts, [stated], note)
    assert fake.downloads.downloads() == []  # refused by the size Slack states
    understated = fake.downloads.share(big, name="config.json", size=len(LLAMA))
    _refused_unchanged(bot, fake, q_ts, [understated], note)
    assert len(fake.downloads.downloads()) == 1  # read up to the limit, then refused


@pytest.mark.parametrize("status", [403, 404])
def test_e_a_download_slack_refuses_says_paste_it_instead(bot: BotServer, fake: FakeSlack,
                                                          status: int) -> None:
    q_ts = _dm_at_model_question(bot, fake)
    shared = fake.downloads.share(LLAMA, name="config.json")
    fake.downloads.refuse(shared["id"], status)
    _refused_unchanged(bot, fake, q_ts, [shared],
                       said("slack.file.unreadable", name="config.json"))
    assert [c.status for c in fake.downloads.downloads()] == [status]  # tried once


def test_e_slack_failing_for_a_moment_puts_the_turn_off_and_retries_it(
    bot: BotServer, fake: FakeSlack
) -> None:
    q_ts = _dm_at_model_question(bot, fake)
    shared = fake.downloads.share(LLAMA, name="config.json")
    fake.http_error("files.download", 503, times=1)
    before = _blocks(fake, DM, q_ts)
    _post(bot, file_share_event(user=REP, channel=DM, files=[shared], channel_type="im"))
    (note,) = fake.wait_for("chat.postEphemeral", 1)
    assert note.params["text"] == said("slack.waits.slack")  # told once that it waits
    wait_version_change(fake, DM, q_ts, before, timeout=20)  # ... and applied on the retry
    assert [c.status for c in fake.downloads.downloads()] == [503, 200]
    assert len(fake.calls("chat.postEphemeral")) == 1


# ------------------------------------------------------------------ (f): the token stays with Slack


def test_f_the_bot_token_goes_to_slack_only(bot: BotServer, fake: FakeSlack,
                                           caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    q_ts = _dm_at_model_question(bot, fake)
    with FakeSlack() as elsewhere:  # another server on this machine: another port
        foreign = elsewhere.downloads.share(LLAMA, name="config.json")
        _refused_unchanged(bot, fake, q_ts, [foreign],
                           said("slack.file.unreadable", name="config.json"))
        assert elsewhere.calls() == []  # not a single request, so never the token
    assert fake.downloads.downloads() == []
    logged = _logged(caplog)
    assert "slack file download failed" in logged  # the refusal is logged, by its kind
    assert fake.bot_token not in logged and "files-pri" not in logged and "127.0.0.1" not in logged
    api = fake.url
    assert filebytes.allowed("https://files.slack.com/files-pri/T1-F1/config.json", api)
    assert filebytes.allowed(f"{fake.url.removesuffix('/api/')}/files-pri/T-F/x.json", api)
    for url in ("http://files.slack.com/files-pri/T1-F1/config.json",
                "https://files.slack.com.example.com/files-pri/T1-F1/config.json",
                "https://files.slack.com:8443/files-pri/T1-F1/config.json",
                "https://x@files.slack.com/files-pri/T1-F1/config.json",
                "https://slack-files.com/T1-F1-abc", "file:///etc/passwd",
                f"http://127.0.0.1:{fake.port + 1}/files-pri/T-F/x.json"):
        assert not filebytes.allowed(url, api), url


def test_f_someone_elses_file_in_a_sizing_thread_is_not_read(bot: BotServer,
                                                            fake: FakeSlack) -> None:
    root = mention(bot, fake, text="")
    q_ts = question_ts(fake, SALES, root)
    wait_shown(bot)
    before = message(fake, SALES, q_ts)
    shared = fake.downloads.share(LLAMA, name="config.json", user=COLLEAGUE)
    n = len(fake.calls())
    _post(bot, file_share_event(user=COLLEAGUE, channel=SALES, files=[shared],
                                thread_ts=root))
    fake.quiet(0.4)
    assert fake.downloads.downloads() == [] and message(fake, SALES, q_ts) == before
    assert not [c for c in fake.calls()[n:] if c.method.startswith("chat.")]


def test_a_slack_connect_file_is_described_by_files_info_then_read(bot: BotServer,
                                                                   fake: FakeSlack) -> None:
    """A Slack Connect event names the file only (``file_access: check_file_info``)."""
    q_ts = _dm_at_model_question(bot, fake)
    shared = fake.downloads.share(LLAMA, name="config.json")
    got = _share_in_dm(bot, fake, q_ts, [fake.downloads.connect_stub(shared)])
    assert fake.calls("files.info")[0].params["file"] == shared["id"]
    assert stored_conversations(bot)[_key()]["state"] != "model"
    assert_valid(got)


def test_a_config_json_shared_with_a_mention_opens_the_sizing_from_it(
    bot: BotServer, fake: FakeSlack
) -> None:
    """``@GPU Sizing`` with the file attached: Slack sends the ``app_mention`` (with the
    files) and a ``file_share`` message that mentions the bot, which is not an answer."""
    shared = fake.downloads.share(LLAMA, name="config.json")
    ev = mention_event(user=REP, channel=SALES, text="<@UBOT0001> size this one")
    _post(bot, {**ev, "files": [shared]})
    _post(bot, file_share_event(user=REP, channel=SALES, files=[shared], ts=ev["ts"],
                                text="<@UBOT0001> size this one"))
    q_ts = question_ts(fake, SALES, str(ev["ts"]))
    wait_shown(bot)
    assert "acme/support-llama-8b" in json.dumps(message(fake, SALES, q_ts)["blocks"])
    fake.quiet(0.3)
    assert len(fake.downloads.downloads()) == 1 and fake.calls("chat.postEphemeral") == []


def test_a_config_json_shared_in_a_dm_without_a_sizing_opens_one(bot: BotServer,
                                                                 fake: FakeSlack) -> None:
    """As a pasted config.json would: the DM's new sizing starts from the file."""
    shared = fake.downloads.share(LLAMA, name="config.json")
    _post(bot, file_share_event(user=REP, channel=DM, files=[shared], channel_type="im"))
    (post,) = fake.wait_for("chat.postMessage", 1)
    assert post.params["channel"] == DM and not post.params.get("thread_ts")
    assert "acme/support-llama-8b" in json.dumps(post.params["blocks"])
    assert stored_conversations(bot)[_key()]["state"] == "workload"


def test_the_queued_delivery_names_the_file_and_holds_none_of_it() -> None:
    """The turn queue keeps the file's description (small), never its content: a snippet's
    ``preview`` (its first lines) is not kept either; the turn downloads the file."""
    from slack_bolt.request import BoltRequest

    from bot.slack import payloads

    obj = {"id": "F0000000001", "name": "config.json", "title": "config.json",
           "mimetype": "text/plain", "filetype": "json", "pretty_type": "JSON", "mode": "snippet",
           "size": len(MOE), "preview": MOE.decode()[:400], "lines": 40,
           "url_private": "https://files.slack.com/files-pri/TINT0001-F0000000001/config.json",
           "url_private_download":
               "https://files.slack.com/files-pri/TINT0001-F0000000001/download/config.json"}
    ev = file_share_event(user=REP, channel=DM, files=[obj, "junk", {"name": "no id"}],
                          channel_type="im", text="our MoE")
    req = BoltRequest(body=json.dumps(event_envelope(ev)),
                      headers={"content-type": ["application/json"]})
    d = payloads.message(req.body, req.context)
    assert d is not None and d.text == "our MoE"
    (f,) = d.files
    assert (f.id, f.name, f.filetype, f.mode, f.size) == (
        "F0000000001", "config.json", "json", "snippet", len(MOE))
    assert f.url_private_download == obj["url_private_download"] and f.described
    raw = d.model_dump_json()
    assert "hidden_size" not in raw and len(raw) < 1500
    assert payloads.parse(raw) == d
