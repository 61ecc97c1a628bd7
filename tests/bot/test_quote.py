"""The quote hand-off end to end over signed HTTP (issue #11 item 1): the card's button opens
the form, a bad e-mail is answered in the form, a good submission gives one summary with its
brief (PDF + Markdown) in the quote channel, the audit record holds the contact, the
requester is told privately and gets their copy; a French sizing gives a French brief.

Everything is read the way a person (or Slack) would see it: the form the bot opened, the
acknowledgement Slack receives, the messages and files in each channel, the PDF's text.
"""

from __future__ import annotations

import json
from typing import Any

from bot.slack import blockkit
from bot.slack.cards import ids
from bot.slack.cards.quote_modal import (
    B_BUDGET,
    B_COMPANY,
    B_COPY,
    B_EMAIL,
    B_NAME,
    B_NOTES,
    B_TIMELINE,
)
from bot.slack.cards.words import Words
from dialogue import RedisStore
from engine.result import VERDICT_IDS
from engine.units import Lang
from engine.wording import msg
from tests.bot.harness import (
    INTERNAL_TEAM,
    QUOTES,
    REP,
    SALES,
    BotServer,
    assert_valid,
    click_to_card,
    plain,
    said,
    wait_shown,
)
from tests.bot.quoteflow import Values, open_form, pdf_text, submit
from tests.bot.threads import click_element, finished_card, mention, question_ts
from tests.fakeslack import FakeSlack

GOOD: Values = {B_NAME: "Rémi Lefèvre", B_EMAIL: "remi.lefevre@client.fr",
                B_COMPANY: "Acme <Labs> & Co", B_TIMELINE: "servers by June",
                B_BUDGET: "250k_1m", B_NOTES: "Two sites.\nExisting H100 cluster.", B_COPY: True}
DM_OF = {REP: "DREP0001"}  # the fake's conversations.open: D + the user id's tail


def card_figure(card: dict[str, Any], ident: str, lang: Lang) -> str:
    """The figure the card shows in its field ``ident`` (``slack.num.weights``), as a person
    reads it there: ``72.7 GB`` (``72,7 Go`` in French)."""
    head = Words(lang).md(msg(ident, gb=0.0, share=0.0, rate=0.0, gpus=1)).partition("\n")[0]
    for block in card["blocks"]:
        for field in block.get("fields") or []:
            label, _, value = field["text"].partition("\n")
            if label == head:
                return str(value.split(" (")[0])
    raise AssertionError(f"the card has no {ident} field")


def card_verdict(card: dict[str, Any], lang: Lang) -> str:
    header = card["blocks"][0]["text"]["text"]
    (name,) = {plain(i, lang, gpus=g) for i in VERDICT_IDS.values() for g in range(1, 17)
               if header.startswith(plain(i, lang, gpus=g))}  # the node's count in its name
    return name


def shared_in(fake: FakeSlack, channel: str) -> list[dict[str, Any]]:
    return fake.files.shared(channel)


def summaries(fake: FakeSlack) -> list[Any]:
    return [c for c in fake.calls("chat.postMessage") if c.params.get("channel") == QUOTES]


def latest_audit(bot: BotServer) -> dict[str, Any]:
    """The newest audit record, with its stream id (what the bot reports as the record id)."""
    store = RedisStore(str(bot.settings.redis_url))
    rows: Any = store.client.xrevrange(store.audit_key, count=1)
    ((rid, fields),) = rows
    return {**json.loads(fields[b"record"]), "id": rid.decode()}


def test_acceptance_form_errors_then_one_summary_with_its_brief(
    bot: BotServer, fake: FakeSlack
) -> None:
    fake.users[REP]["profile"] = {"real_name": "Rémi Lefèvre", "email": "remi@vendor.fr"}
    root, q_ts, card = finished_card(bot, fake)
    view = open_form(bot, card, user=REP, ts=q_ts, root=root, channel=SALES)
    # the form: valid for Slack, in English, pre-filled with what Slack knows of the person
    assert blockkit.modal_problems(view) == []
    assert view["title"]["text"] == plain("slack.modal.title")
    inputs = {b["block_id"]: b["element"] for b in view["blocks"] if b["type"] == "input"}
    assert inputs[B_NAME]["initial_value"] == "Rémi Lefèvre"
    assert inputs[B_EMAIL]["initial_value"] == "remi@vendor.fr"
    # a bad e-mail: the form stays open, says which field, and nothing happens
    status, ack = submit(bot, view, {**GOOD, B_EMAIL: "remi.lefevre.client.fr"}, user=REP)
    assert status == 200
    assert ack == {"response_action": "errors",
                   "errors": {B_EMAIL: plain("slack.modal.error.email_bad")}}
    fake.quiet(0.3)
    assert not summaries(fake) and not fake.calls("files.getUploadURLExternal")
    # corrected: the form closes; one summary, one pair of files in its thread
    status, ack = submit(bot, view, GOOD, user=REP)
    assert status == 200 and ack == {}
    (summary,) = fake.wait_for("chat.postMessage", 1,
                               where=lambda c: c.params.get("channel") == QUOTES)
    assert_valid(summary.params)
    fake.wait_for("files.completeUploadExternal", 2)  # the quote channel, then the copy
    fake.quiet(0.3)
    assert len(summaries(fake)) == 1
    assert len(fake.calls("files.getUploadURLExternal")) == 4
    assert [c.params["bytes"] > 0 for c in fake.calls("upload")] == [True] * 4
    files = shared_in(fake, QUOTES)
    assert sorted(f["filename"].rsplit(".", 1)[1] for f in files) == ["md", "pdf"]
    summary_ts = next(ts for ts, m in fake.messages[QUOTES].items() if m["blocks"])
    assert {f["thread_ts"] for f in files} == {summary_ts}
    blocks = json.dumps(summary.params["blocks"], ensure_ascii=False)
    assert "Acme &lt;Labs&gt; &amp; Co" in blocks and "remi.lefevre@client.fr" in blocks
    # the audit record holds the contact details
    record = latest_audit(bot)
    assert record["kind"] == "quote" and record["requester"] == REP
    note = json.loads(record["note"])
    assert note["requester"] == "internal"
    assert note["contact"]["email"] == "remi.lefevre@client.fr"
    assert note["contact"]["budget"] == "250k_1m" and note["contact"]["copy_requested"] is True
    # the requester's private confirmation, where they clicked
    (told,) = fake.wait_for("chat.postEphemeral", 1)
    assert told.params["channel"] == SALES and told.params["user"] == REP
    assert told.params["thread_ts"] == root
    assert told.params["text"] == said("slack.quoting.posted", audit=record["id"],
                                       copy=msg("slack.quoting.copy_sent"),
                                       mentions={"channel": f"<#{QUOTES}>"})
    # the brief holds the card's numbers, the verdict, the contact and the audit record
    pdf = next(f for f in files if f["filename"].endswith(".pdf"))
    text = pdf_text(fake.files.content(pdf["id"]))
    for ident in ("slack.num.weights", "slack.num.kv", "slack.num.tokens"):
        assert card_figure(card, ident, "en") in text, ident
    assert card_verdict(card, "en") in text
    assert "Rémi Lefèvre" in text and "Acme <Labs> & Co" in text and record["id"] in text
    assert plain("brief.section.math") in text and plain("brief.section.inputs") in text
    for on_card, in_brief in (("slack.card.caveats", "brief.section.caveats"),
                              ("slack.card.alternatives", "brief.section.alternatives")):
        shown = f"*{plain(on_card)}*" in json.dumps(card["blocks"])
        assert (plain(in_brief) in text) == shown, in_brief
    md = next(f for f in files if f["filename"].endswith(".md"))
    markdown = fake.files.content(md["id"]).decode("utf-8")
    assert card_figure(card, "slack.num.weights", "en") in markdown
    assert "Acme \\<Labs\\> & Co" in markdown  # typed markup stays text
    # the copy in the requester's DM is the customer-safe brief
    copies = shared_in(fake, DM_OF[REP])
    assert len(copies) == 2 and all(f["thread_ts"] is None for f in copies)
    copy = pdf_text(fake.files.content(next(f["id"] for f in copies
                                            if f["filename"].endswith(".pdf"))))
    assert card_figure(card, "slack.num.weights", "en") in copy and "Rémi Lefèvre" in copy
    for internal in (INTERNAL_TEAM, record["id"], record["key"], QUOTES,
                     plain("brief.section.internal")):
        assert internal not in copy


def test_a_french_sizing_gives_a_french_form_and_brief(bot: BotServer, fake: FakeSlack) -> None:
    root = mention(bot, fake, text="nous voulons llama 3.1 70b pour 64 utilisateurs, "
                                   "contexte 8k, sans objectif")
    q_ts = question_ts(fake, SALES, root)
    wait_shown(bot)
    card = click_to_card([bot], user=REP, user_team=INTERNAL_TEAM, channel=SALES, ts=q_ts,
                         root=root)
    view = open_form(bot, card, user=REP, ts=q_ts, root=root, channel=SALES)
    assert view["title"]["text"] == plain("slack.modal.title", "fr")
    assert blockkit.modal_problems(view) == []
    _, ack = submit(bot, view, {**GOOD, B_EMAIL: "pas une adresse", B_COPY: False},
                         user=REP)
    assert ack["errors"] == {B_EMAIL: plain("slack.modal.error.email_bad", "fr")}
    status, ack = submit(bot, view, {**GOOD, B_COPY: False}, user=REP)
    assert status == 200 and ack == {}
    fake.wait_for("files.completeUploadExternal", 1)
    (told,) = fake.wait_for("chat.postEphemeral", 1)
    record = latest_audit(bot)
    assert told.params["text"] == said("slack.quoting.posted", "fr", audit=record["id"],
                                       copy=msg("slack.quoting.copy_none"),
                                       mentions={"channel": f"<#{QUOTES}>"})
    files = shared_in(fake, QUOTES)
    pdf = next(f for f in files if f["filename"].endswith(".pdf"))
    assert pdf["title"] == plain("slack.quoting.file_title", "fr", format="PDF",
                                 title=msg("brief.title.quote", model="Llama 3.1 70B"))
    text = pdf_text(fake.files.content(pdf["id"]))
    for ident in ("slack.num.weights", "slack.num.kv", "slack.num.tokens"):
        figure = card_figure(card, ident, "fr")
        assert "\u202f" in figure and ("Go" in figure or "tok/s" in figure)
        assert figure in text, ident  # French grouping, decimal comma and units survive
    verdict = card_verdict(card, "fr")
    assert verdict in text and "nœud" in text  # œ drawn and extracted
    for heading in ("brief.section.figures", "brief.section.math", "brief.section.contact"):
        assert plain(heading, "fr") in text
    assert plain("brief.section.figures", "en") not in text
    summary = json.dumps(summaries(fake)[0].params["blocks"], ensure_ascii=False)
    assert plain("slack.quote.header", "fr") in summary
    fake.quiet(0.3)
    assert not shared_in(fake, DM_OF[REP])  # no copy was asked for


def test_the_export_brief_goes_to_the_reps_dm(bot: BotServer, fake: FakeSlack) -> None:
    root, q_ts, card = finished_card(bot, fake)
    for _ in range(2):  # a double click exports once
        click_element(bot, card, ids.A_EXPORT, user=REP, ts=q_ts, root=root, selected="export")
    fake.wait_for("files.completeUploadExternal", 1)
    notes = fake.wait_for("chat.postEphemeral", 2)
    assert sorted(n.params["text"] for n in notes) == sorted(
        [said("slack.export.sent"), said("slack.export.already")])
    fake.quiet(0.3)
    files = shared_in(fake, DM_OF[REP])
    assert sorted(f["filename"].rsplit(".", 1)[1] for f in files) == ["md", "pdf"]
    text = pdf_text(fake.files.content(next(f["id"] for f in files
                                            if f["filename"].endswith(".pdf"))))
    assert plain("brief.title.export", model="Llama 3.1 70B") in text
    assert card_figure(card, "slack.num.weights", "en") in text
    assert plain("brief.section.internal") in text and plain("brief.section.contact") not in text
    assert not summaries(fake)  # an export is not a quote request
