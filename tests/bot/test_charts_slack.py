""""Show the charts" over signed HTTP (issue #12): the charts uploaded once per card version
into the thread for the owner, under a double click and retried uploads; a private copy (the
viewer's DM) for anyone else; a failure to draw or to upload told, and asked again after."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from PIL import Image

from bot import charts as bot_charts
from bot.slack.cards import ids
from bot.slack.cards.ids import A_CHARTS
from engine.wording import msg
from tests.bot.harness import (
    COLLEAGUE,
    CUSTOMER,
    EXTERNAL_TEAM,
    REP,
    SALES,
    BotServer,
    is_card,
    said,
    until,
    wait_version_change,
)
from tests.bot.threads import click_element, finished_card
from tests.fakeslack import FakeSlack
from tests.slackreq import event_envelope, message_event

COMPLETE = "files.completeUploadExternal"


@pytest.fixture(autouse=True)
def _fresh_charts() -> None:
    """Each test draws its own charts (a sizing's key can repeat across tests)."""
    with bot_charts._LOCK:
        bot_charts._KEPT.clear()


def _click(bot: BotServer, card: dict[str, Any], ts: str, root: str, user: str = REP,
           team: str = "TINT0001") -> None:
    click_element(bot, card, A_CHARTS, user=user, team=team, ts=ts, root=root)


def _pngs(fake: FakeSlack, channel: str) -> list[dict[str, Any]]:
    return [f for f in fake.files.shared(channel) if f["filename"].endswith(".png")]


def _notes(fake: FakeSlack, user: str) -> list[str]:
    return [str(c.params["text"]) for c in fake.calls("chat.postEphemeral")
            if c.params.get("user") == user]


def test_the_owner_gets_the_charts_in_the_thread_once_per_card_version(
    bot: BotServer, fake: FakeSlack
) -> None:
    root, q_ts, card = finished_card(bot, fake)
    _, button = next((b, e) for b, e in _elements(card) if e.get("action_id") == A_CHARTS)
    assert button["text"]["text"] == "Show the charts"
    _click(bot, card, q_ts, root)
    _click(bot, card, q_ts, root)  # a double click
    fake.wait_for(COMPLETE, 1, timeout=30)
    fake.quiet(0.8)
    assert len(fake.calls(COMPLETE)) == 1
    files = _pngs(fake, SALES)
    names = sorted(f["filename"] for f in files)
    assert len(names) == 2 and names[0].endswith("-load.png") and names[1].endswith(
        "-memory.png")
    assert all(f["thread_ts"] == root for f in files)
    assert {f["title"] for f in files} == {said(msg("slack.charts.file_title",
                                                    caption=msg(f"chart.caption.{k}")))
                                           for k in ("load", "memory")}
    for f in files:
        with Image.open(io.BytesIO(fake.files.content(f["id"]))) as im:
            assert im.format == "PNG" and im.size == (800, 450)
    (note,) = _notes(fake, REP)  # the second click: told, nothing uploaded twice
    assert note in {said("slack.charts.on_their_way"), said("slack.charts.in_thread")}
    # asked again later: already in the thread
    _click(bot, card, q_ts, root)
    fake.wait_for("chat.postEphemeral", 2)
    fake.quiet(0.4)
    assert _notes(fake, REP)[-1] == said("slack.charts.in_thread")
    assert len(fake.calls(COMPLETE)) == 1


def _elements(card: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(b.get("block_id", ""), e) for b in card["blocks"] if b["type"] == "actions"
            for e in b["elements"]]


def test_an_upload_whose_answer_was_lost_is_found_not_shared_twice(
    bot: BotServer, fake: FakeSlack
) -> None:
    root, q_ts, card = finished_card(bot, fake)
    fake.reset_connection(COMPLETE)  # Slack shares the files, the answer never arrives
    _click(bot, card, q_ts, root)
    fake.wait_for("conversations.replies", 1, timeout=30)  # it looks for them by name
    fake.quiet(1.0)
    assert len(_pngs(fake, SALES)) == 2
    assert len(fake.calls(COMPLETE)) == 1
    _click(bot, card, q_ts, root)
    fake.wait_for("chat.postEphemeral", 1)
    fake.quiet(0.4)
    assert _notes(fake, REP) == [said("slack.charts.in_thread")]
    assert len(_pngs(fake, SALES)) == 2


def test_a_rate_limited_upload_is_retried_by_the_queue_and_shared_once(
    bot: BotServer, fake: FakeSlack
) -> None:
    root, q_ts, card = finished_card(bot, fake)
    fake.rate_limit(COMPLETE, times=3, retry_after=0)  # beyond the client's own retries
    _click(bot, card, q_ts, root)
    fake.wait_for(COMPLETE, 1, timeout=40)  # the successful one, on the turn's retry
    fake.quiet(1.0)
    assert len(fake.calls(COMPLETE)) == 4 and len(fake.wait_for(COMPLETE, 1)) == 1
    assert len(_pngs(fake, SALES)) == 2
    assert _notes(fake, REP) == [said("slack.waits.slack")]  # told once that it waits
    assert fake.calls("conversations.replies")  # the retry looked before sharing again


def test_someone_else_gets_a_private_copy_in_their_dm(bot: BotServer, fake: FakeSlack) -> None:
    root, q_ts, card = finished_card(bot, fake)
    _click(bot, card, q_ts, root, user=COLLEAGUE)
    fake.wait_for(COMPLETE, 1, timeout=30)
    fake.wait_for("chat.postEphemeral", 1)
    fake.quiet(0.5)
    dm = f"D{COLLEAGUE[1:]}"  # the fake's DM channel with that person
    assert len(_pngs(fake, dm)) == 2 and not _pngs(fake, SALES)
    assert all(f.get("thread_ts") is None for f in _pngs(fake, dm))
    (note,) = fake.calls("chat.postEphemeral")
    assert note.params["channel"] == SALES and note.params["user"] == COLLEAGUE
    assert note.params["text"] == said("slack.charts.sent_dm")
    # the owner's own click still shows them in the thread, once
    _click(bot, card, q_ts, root)
    fake.wait_for(COMPLETE, 2, timeout=30)
    fake.quiet(0.5)
    assert len(_pngs(fake, SALES)) == 2
    # the colleague again: already in their messages, nothing uploaded
    _click(bot, card, q_ts, root, user=COLLEAGUE)
    fake.wait_for("chat.postEphemeral", 2)
    fake.quiet(0.4)
    assert _notes(fake, COLLEAGUE)[-1] == said("slack.charts.in_dm")
    assert len(fake.calls(COMPLETE)) == 2


def test_where_slack_will_not_open_a_dm_the_person_is_told_and_nothing_is_shown(
    bot: BotServer, fake: FakeSlack
) -> None:
    root, q_ts, card = finished_card(bot, fake)
    fake.fail("conversations.open", "invalid_user_combination")  # another organisation
    _click(bot, card, q_ts, root, user=CUSTOMER, team=EXTERNAL_TEAM)
    fake.wait_for("chat.postEphemeral", 1, timeout=30)
    fake.quiet(0.5)
    assert _notes(fake, CUSTOMER) == [said("slack.charts.no_dm")]
    assert not fake.calls("files.getUploadURLExternal")


def test_charts_that_cannot_be_drawn_are_told_and_can_be_asked_again(
    bot: BotServer, fake: FakeSlack, monkeypatch: pytest.MonkeyPatch
) -> None:
    import engine.charts

    root, q_ts, card = finished_card(bot, fake)
    real = engine.charts.render

    def broken(*args: object, **kwargs: object) -> object:
        raise RuntimeError("a drawing defect")

    monkeypatch.setattr(engine.charts, "render", broken)
    _click(bot, card, q_ts, root)
    fake.wait_for("chat.postEphemeral", 1, timeout=30)
    fake.quiet(0.4)
    assert _notes(fake, REP) == [said("slack.charts.not_drawn")]
    assert not fake.calls("files.getUploadURLExternal")
    monkeypatch.setattr(engine.charts, "render", real)
    _click(bot, card, q_ts, root)
    fake.wait_for(COMPLETE, 1, timeout=30)
    fake.quiet(0.5)
    assert len(_pngs(fake, SALES)) == 2


def test_an_upload_slack_refuses_is_told_and_can_be_asked_again(
    bot: BotServer, fake: FakeSlack
) -> None:
    root, q_ts, card = finished_card(bot, fake)
    fake.fail(COMPLETE, "not_in_channel")
    _click(bot, card, q_ts, root)
    fake.wait_for("chat.postEphemeral", 1, timeout=30)
    fake.quiet(0.4)
    assert _notes(fake, REP) == [said("slack.cannot_post")]
    assert not _pngs(fake, SALES)
    _click(bot, card, q_ts, root)
    fake.wait_for(COMPLETE, 1, timeout=30)  # the one Slack accepted
    fake.quiet(0.5)
    assert len(_pngs(fake, SALES)) == 2


def test_a_new_card_version_gets_its_own_charts(bot: BotServer, fake: FakeSlack) -> None:
    root, q_ts, card = finished_card(bot, fake)
    _click(bot, card, q_ts, root)
    fake.wait_for(COMPLETE, 1, timeout=30)
    # compare with another GPU: the card shows another result (a new version)
    _, compare = next((b, e) for b, e in _elements(card) if e.get("action_id") == ids.A_COMPARE)
    before = json.dumps(card["blocks"])
    click_element(bot, card, ids.A_COMPARE, user=REP, ts=q_ts, root=root,
                  selected=compare["options"][0]["value"])
    new = wait_version_change(fake, SALES, q_ts, before)
    while not is_card(new):
        new = wait_version_change(fake, SALES, q_ts, json.dumps(new["blocks"]))
    # the old card's button is out of date; the new one uploads the new result's charts
    _click(bot, card, q_ts, root)
    fake.wait_for("chat.postEphemeral", 1)
    _click(bot, new, q_ts, root)
    fake.wait_for(COMPLETE, 2, timeout=30)
    fake.quiet(0.5)
    names = [f["filename"] for f in _pngs(fake, SALES)]
    assert len(names) == 4 and len(set(names)) == 4  # the version is in the names
    assert _notes(fake, REP)[0] == said("slack.out_of_date")


def test_the_charts_typed_under_the_card_are_uploaded_once_as_the_button_does(
    bot: BotServer, fake: FakeSlack
) -> None:
    root, _, _ = finished_card(bot, fake)
    envelope = event_envelope(message_event(user=REP, channel=SALES, thread_ts=root,
                                            text="show the charts please"),
                              event_id="EvTypedCharts1")
    status, _ = bot.client.post_event(envelope)
    assert status == 200
    fake.wait_for(COMPLETE, 1, timeout=30)
    bot.client.post_event(envelope, retry=1)
    fake.quiet(0.8)
    assert len(fake.calls(COMPLETE)) == 1  # Slack's redelivery uploads nothing again
    files = _pngs(fake, SALES)
    assert len(files) == 2 and all(f["thread_ts"] == root for f in files)


def test_a_quote_typed_under_the_card_says_where_the_form_opens(
    bot: BotServer, fake: FakeSlack
) -> None:
    root, _, _ = finished_card(bot, fake)
    status, _ = bot.client.post_event(event_envelope(message_event(
        user=REP, channel=SALES, thread_ts=root, text="can we get a quote?")))
    assert status == 200
    until(lambda: said("slack.quote_typed") in _notes(fake, REP), what="the note")
    assert fake.calls("views.open") == []
