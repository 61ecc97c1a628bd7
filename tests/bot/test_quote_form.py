"""The quote form and the summary as data: what the form asks and checks, what its metadata
accepts, and that the form, the summary and the card stay within Slack's limits in both
languages (bot/slack/blockkit.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.brief.content import MAX_NOTES, Contact
from bot.slack import blockkit
from bot.slack.cards import ids, quote_modal
from bot.slack.cards.quote import quote_summary
from bot.slack.cards.quote_modal import (
    B_BUDGET,
    B_EMAIL,
    B_NAME,
    B_NOTES,
    Prefill,
    encode_metadata,
    parse_metadata,
    quote_view,
    read_submission,
)
from bot.slack.cards.result import card_message
from bot.slack.cards.words import Words
from bot.slack.keys import ConversationKey
from dialogue import Dialogue, MemoryStore, Reply
from engine.wording import msg
from tests.bot.quoteflow import submission

KEY = ConversationKey.thread("TINT0001", "CSHARED1", "1700000001.000100", "UCUST001")


@pytest.fixture(scope="module")
def reply() -> Reply:
    d = Dialogue(MemoryStore())
    out = d.start(KEY.format(), "llama 3.1 70b inference 64 users 8k context no target",
                  owner="UCUST001")
    assert out.recommendation is not None
    return out


def _view(reply: Reply, lang: str = "en", prefill: Prefill | None = None) -> dict[str, Any]:
    assert reply.recommendation is not None
    w = Words("fr" if lang == "fr" else "en")
    view = quote_view(reply.recommendation, KEY, reply.version, w, prefill or Prefill())
    return {**view, "id": "V0000000001"}


def _read(reply: Reply, **values: Any) -> tuple[Contact | None, dict[str, Any]]:
    payload = submission(_view(reply), values, user="UCUST001", team="TEXT0001")
    return read_submission(payload["view"])


def test_the_form_is_valid_in_both_languages_and_prefilled(reply: Reply) -> None:
    for lang in ("en", "fr"):
        prefill = Prefill(name="Zoë", email="zoe@example.fr", budget="over_1m", notes="x",
                          copy_requested=True)
        view = _view(reply, lang, prefill)
        assert blockkit.modal_problems({k: v for k, v in view.items() if k != "id"}) == []
        assert view["callback_id"] == ids.V_QUOTE
        inputs = {b["block_id"]: b for b in view["blocks"] if b["type"] == "input"}
        assert [b for b, i in inputs.items() if not i["optional"]] == [B_NAME, B_EMAIL]
        assert inputs[B_BUDGET]["element"]["initial_option"]["value"] == "over_1m"
        assert inputs[B_NOTES]["element"]["max_length"] == MAX_NOTES
        meta = parse_metadata(view["private_metadata"])
        assert meta is not None and meta.key == KEY and meta.version == reply.version
        assert meta.lang == lang


def test_the_modal_check_catches_what_slack_refuses(reply: Reply) -> None:
    view = {k: v for k, v in _view(reply).items() if k != "id"}
    assert any("title" in e for e in blockkit.modal_problems(
        {**view, "title": {"type": "plain_text", "text": "x" * 25}}))
    assert any("submit" in e for e in blockkit.modal_problems(
        {k: v for k, v in view.items() if k != "submit"}))
    assert blockkit.modal_problems({**view, "type": "home"})


def test_a_good_submission_reads_cleanly(reply: Reply) -> None:
    contact, errors = _read(reply, **{B_NAME: "  Zoë\u202e  Martin ", B_EMAIL: " zoe@ex.fr ",
                                      B_NOTES: "line 1\x07\n  line 2  ", B_BUDGET: "250k_1m",
                                      "q_copy": True})
    assert errors == {} and contact is not None
    assert contact.name == "Zoë Martin" and contact.email == "zoe@ex.fr"
    assert contact.notes == "line 1\n  line 2" and contact.budget == "250k_1m"
    assert contact.copy_requested is True


@pytest.mark.parametrize("email", ["", "   ", "zoe", "zoe@", "@example.fr", "zoe@example",
                                   "zoe example@ex.fr", "<zoe@ex.fr>", "zoe@ex..fr",
                                   "zoe@-ex.fr", "a" * 65 + "@ex.fr"])
def test_a_bad_email_names_its_field_and_keeps_the_rest(reply: Reply, email: str) -> None:
    contact, errors = _read(reply, **{B_NAME: "Zoë", B_EMAIL: email})
    assert contact is None and list(errors) == [B_EMAIL]
    expected = "email_missing" if not email.strip() else "email_bad"
    assert errors[B_EMAIL] == msg(f"slack.modal.error.{expected}")


@pytest.mark.parametrize("email", ["zoe@example.fr", "zoé.martin+devis@société.fr",
                                   "z@sub.domain.co.uk"])
def test_real_addresses_pass(reply: Reply, email: str) -> None:
    contact, errors = _read(reply, **{B_NAME: "Zoë", B_EMAIL: email})
    assert errors == {} and contact is not None and contact.email == email


def test_every_bad_field_is_named_at_once(reply: Reply) -> None:
    contact, errors = _read(reply, **{B_NAME: " \u200e ", B_EMAIL: "x", B_NOTES: "n" * 1001,
                                      "q_company": "c" * 121, B_BUDGET: "free"})
    assert contact is None
    assert errors == {
        B_NAME: msg("slack.modal.error.name_missing"),
        B_EMAIL: msg("slack.modal.error.email_bad"),
        B_NOTES: msg("slack.modal.error.too_long", n=MAX_NOTES),
        "q_company": msg("slack.modal.error.too_long", n=120),
        B_BUDGET: msg("slack.modal.error.budget"),
    }


@pytest.mark.parametrize("raw", [None, "", "[]", "{}", '{"k":"x","v":1,"l":"en"}',
                                 json.dumps({"k": KEY.format(), "v": True, "l": "en"}),
                                 json.dumps({"k": KEY.format(), "v": -1, "l": "en"}),
                                 json.dumps({"k": KEY.format(), "v": "3", "l": "en"}),
                                 json.dumps({"k": KEY.format(), "v": 3, "l": "de"}),
                                 json.dumps({"k": KEY.format() + ":x", "v": 3, "l": "en"})])
def test_metadata_is_read_strictly(raw: str | None) -> None:
    assert parse_metadata(raw) is None


def test_metadata_round_trips() -> None:
    meta = parse_metadata(encode_metadata(KEY, 7, "fr"))
    assert meta == quote_modal.Metadata(key=KEY, version=7, lang="fr")


def test_the_summary_and_the_card_stay_within_slacks_limits(reply: Reply) -> None:
    rec = reply.recommendation
    assert rec is not None
    contact = Contact(name="N" * 100, email="e" * 60 + "@example.fr", company="<!here>" * 17,
                      timeline="t" * 100, budget="undecided", notes="<@U123> & *x*\n" * 70,
                      copy_requested=True)
    for lang in ("en", "fr"):
        w = Words("fr" if lang == "fr" else "en")
        summary = quote_summary({"id": "1-0"}, requester="UCUST001", requester_team="TEXT0001",
                                internal=False, channel="CSHARED1", shared=True, key=KEY,
                                rec=rec, answers=reply.answers, w=w, contact=contact)
        assert blockkit.message_problems(summary) == []
        text = json.dumps(summary["blocks"], ensure_ascii=False)
        assert "<!here>" not in text and "<@U123>" not in text and "&lt;!here&gt;" in text
        card = card_message(reply, KEY, w)
        assert blockkit.message_problems(card) == []
        (row,) = [b for b in card["blocks"] if b["type"] == "actions"]
        (menu,) = [e for e in row["elements"] if e["action_id"] == ids.A_EXPORT]
        assert menu["type"] == "overflow"
        assert menu["options"][0]["text"]["text"] == w.plain(msg("slack.button.export"))


def test_a_submission_delivery_survives_a_queue(reply: Reply) -> None:
    """What the listener hands on is plain JSON (a durable queue may hold it, issue 13)."""
    from bot.slack import payloads

    contact, _ = _read(reply, **{B_NAME: "Zoë", B_EMAIL: "zoe@ex.fr", B_BUDGET: "over_1m"})
    assert contact is not None
    d = payloads.ViewSubmissionDelivery(id="view:V1", team="TINT0001", user="UCUST001",
                                        actor_team="TEXT0001", view="quote", view_id="V1",
                                        metadata=encode_metadata(KEY, 3, "fr"), contact=contact)
    assert payloads.parse(d.model_dump_json()) == d
