"""Helpers for the quote tests: open the quote form from a card, fill it in and submit it as
Slack sends a ``view_submission``, read the brief files the bot shared, extract a PDF's text.

The submission is built from the view the bot actually opened (``fake.files.views``): each
input block's element type decides the shape of its state value, as Slack's client does
(https://docs.slack.dev/reference/interaction-payloads/view-interactions-payload), so a block
the form does not have cannot be filled in.
"""

from __future__ import annotations

import io
import json
import re
import time
from typing import Any

from pypdf import PdfReader

from bot.slack.cards import ids
from tests.bot.harness import INTERNAL_TEAM, BotServer
from tests.bot.threads import click_element
from tests.slackreq import _ids

Values = dict[str, str | bool | None]


def open_form(bot: BotServer, card: dict[str, Any], *, user: str, ts: str, root: str | None,
              team: str | None = INTERNAL_TEAM, channel: str) -> dict[str, Any]:
    """Click the card's "Request a formal quote"; the modal the bot opened."""
    fake = bot.fake
    before = len([c for c in fake.calls("views.open") if c.ok])
    click_element(bot, card, ids.A_QUOTE, user=user, ts=ts, root=root or "", team=team,
                  channel=channel)
    fake.wait_for("views.open", before + 1)
    return dict(list(fake.files.views.values())[-1])


def _state(view: dict[str, Any], values: Values) -> dict[str, Any]:
    state: dict[str, Any] = {}
    for block in view["blocks"]:
        if block.get("type") != "input":
            continue
        el, bid = block["element"], block["block_id"]
        given = values.get(bid)
        if el["type"] in ("plain_text_input", "email_text_input"):
            initial = el.get("initial_value")
            value: dict[str, Any] = {"type": el["type"],
                                     "value": given if bid in values else initial}
        elif el["type"] == "static_select":
            picked = given if bid in values else (el.get("initial_option") or {}).get("value")
            option = next((o for o in el["options"] if o["value"] == picked), None)
            if picked is not None and option is None:  # a forged value
                option = {"text": {"type": "plain_text", "text": str(picked)}, "value": picked}
            value = {"type": "static_select", "selected_option": option}
        elif el["type"] == "checkboxes":
            on = bool(given) if bid in values else bool(el.get("initial_options"))
            value = {"type": "checkboxes", "selected_options": el["options"] if on else []}
        else:
            raise AssertionError(f"unknown input {el['type']}")
        state[bid] = {el["action_id"]: value}
    return state


def submission(view: dict[str, Any], values: Values, *, user: str, team: str | None,
               metadata: str | None = None) -> dict[str, Any]:
    """A ``view_submission`` payload of ``view`` with ``values`` typed over its initial ones."""
    user_obj: dict[str, Any] = {"id": user, "username": user.lower(), "name": user.lower()}
    if team is not None:
        user_obj["team_id"] = team
    return {
        "type": "view_submission", "team": {"id": INTERNAL_TEAM, "domain": "vendor"},
        "user": user_obj, "api_app_id": "AAPP0001", "token": "deprecated-verification-token",
        "trigger_id": f"trig.{next(_ids)}", "is_enterprise_install": False, "enterprise": None,
        "response_urls": [],
        "view": {
            "id": view["id"], "team_id": INTERNAL_TEAM, "type": "modal",
            "blocks": view["blocks"], "title": view["title"], "submit": view.get("submit"),
            "close": view.get("close"), "callback_id": view["callback_id"],
            "private_metadata": view["private_metadata"] if metadata is None else metadata,
            "state": {"values": _state(view, values)}, "hash": f"{time.time():.0f}.abc",
            "external_id": "", "app_id": "AAPP0001", "bot_id": "BBOT0001",
            "app_installed_team_id": INTERNAL_TEAM, "root_view_id": view["id"],
            "previous_view_id": None, "clear_on_close": False, "notify_on_close": False,
        },
    }


def submit(bot: BotServer, view: dict[str, Any], values: Values, *, user: str,
           team: str | None = INTERNAL_TEAM, metadata: str | None = None,
           retry: int | None = None) -> tuple[int, dict[str, Any]]:
    """Submit the form; (HTTP status, the acknowledgement's JSON body or {})."""
    payload = submission(view, values, user=user, team=team, metadata=metadata)
    kw: dict[str, Any] = {"retry": retry} if retry is not None else {}
    status, body = bot.client.post_action(payload, **kw)
    return status, (json.loads(body) if body.strip() else {})


def pdf_text(data: bytes) -> str:
    """The text of every page, whitespace runs (but narrow no-break spaces) folded to one
    space: what a person searching the PDF finds."""
    reader = PdfReader(io.BytesIO(data))
    words = "\n".join(page.extract_text() for page in reader.pages)
    return re.sub(r"[ \t\n\u00a0]+", " ", words)


def card_value(card: dict[str, Any], label: str) -> str:
    """The figure a card's field shows under ``label`` (``*Weights*\\n141 GB (66% of …)`` ->
    ``141 GB``): the number a person reads on the card."""
    for block in card["blocks"]:
        for f in block.get("fields") or []:
            head, _, value = f["text"].partition("\n")
            if head == f"*{label}*":
                return str(value.split(" (")[0])
    raise AssertionError(f"no field {label} on the card")
