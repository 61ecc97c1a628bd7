"""The quote request form submitted: checked at once, recorded, answered in the same response.

Why the check runs before the ack, unlike every other listener's work: only the
acknowledgement of a ``view_submission`` can keep the modal open and say which field is
wrong (``response_action: errors``, keyed by block id); once acknowledged the form is gone,
and with it what the person typed. The check is pure (no store, no Web API:
``bot/slack/cards/quote_modal.py``), so it costs microseconds of the 3 seconds. A good
submission becomes a ``ViewSubmissionDelivery`` recorded in the durable turn queue
(``bot/slack/listeners/deliver.py``), then closes the form (a plain ack); all that needs Redis
or Slack runs later, in ``bot/slack/flows/quote.py``, which verifies the form's metadata
against the stored conversation. When the queue cannot take it, the form stays open with what
was typed and a note on its first field: press Send again (the same form is the same
delivery, so a submission that did land is not applied twice).
"""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, BoltContext

from bot.slack import payloads
from bot.slack.cards import quote_modal
from bot.slack.cards.words import Words
from bot.slack.listeners.deliver import record
from engine.wording import msg


def on_quote_submit(ack: Ack, body: dict[str, Any], context: BoltContext) -> None:
    raw = body.get("view")
    view: dict[str, Any] = raw if isinstance(raw, dict) else {}
    meta = quote_modal.parse_metadata(view.get("private_metadata"))
    w = Words(meta.lang if meta is not None else "en")
    if meta is None:  # not a form this bot opened: say so on its first field
        ack(response_action="errors",
            errors={quote_modal.B_NAME: w.plain(msg("slack.modal.error.broken"))})
        return
    contact, errors = quote_modal.read_submission(view)
    if contact is None:
        ack(response_action="errors", errors={b: w.plain(m) for b, m in errors.items()})
        return
    got = record(context, payloads.view_submission(body, context, "quote", contact))
    if got is not None and got.outcome == "failed":
        ack(response_action="errors",
            errors={quote_modal.B_NAME: w.plain(msg("slack.modal.error.not_taken"))})
        return
    ack()
