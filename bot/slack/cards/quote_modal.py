"""The "Request a formal quote" form: the modal, its private metadata, and reading a submission.

Why one module: what the form asks, the limits it states to Slack (``max_length``) and the
checks a submission passes are one contract; keeping them together means a field cannot be
asked without being checked. The form asks contact name, e-mail, company, timeline, budget
band (a menu), notes and "send me a copy"; it is pre-filled with what is known (the person's
Slack name and e-mail, or what they typed in their last form) and shows nothing but the
requester's own sizing and data.

A submission comes back from a client: every value is re-checked here (controls removed,
lengths, the e-mail's shape, the budget among the menu's values), however Slack's client
validated it. :func:`read_submission` returns the contact or, per block id, what is wrong:
the listener answers those with ``response_action: errors``, so the form stays open with
everything typed and says which field to fix
(https://docs.slack.dev/surfaces/modals#displaying_errors). ``private_metadata`` carries the
conversation key, the version the form was opened for, and the language; the flow verifies
key and version against the stored conversation (:func:`parse_metadata` only reads them
strictly), the language only picks the words of the error messages.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from slack_sdk.models.blocks import (
    CheckboxesElement,
    EmailInputElement,
    InputBlock,
    Option,
    PlainTextInputElement,
    PlainTextObject,
    StaticSelectElement,
)
from slack_sdk.models.views import View

from bot.brief.content import (
    BUDGET_BANDS,
    MAX_COMPANY,
    MAX_EMAIL,
    MAX_NAME,
    MAX_NOTES,
    MAX_TIMELINE,
    BudgetBand,
    Contact,
    budget_words,
)
from bot.slack.cards import ids, parts
from bot.slack.cards.words import Words
from bot.slack.escape import clip, strip_controls
from bot.slack.keys import ConversationKey
from engine.result import Recommendation, verdict_name
from engine.units import LANGS, Lang
from engine.wording import Message, msg

Payload = parts.Payload
VALUE = "v"  # every input's action id (one input per block)
B_NAME, B_EMAIL, B_COMPANY = "q_name", "q_email", "q_company"
B_TIMELINE, B_BUDGET, B_NOTES, B_COPY = "q_timeline", "q_budget", "q_notes", "q_copy"
COPY = "copy"
_EMAIL = re.compile(
    r"[^\s@<>()\[\],;:\"]{1,64}@(?:[^\W_](?:[\w-]{0,61}[^\W_])?\.)+[^\W\d_]{2,63}")
_VERSION = re.compile(r"[0-9]{1,9}")


@dataclass(frozen=True)
class Metadata:
    """What the form carries back: the sizing and version it was opened for, its language."""

    key: ConversationKey
    version: int
    lang: Lang


@dataclass(frozen=True)
class Prefill:
    """What the form starts with (every field optional)."""

    name: str = ""
    email: str = ""
    company: str = ""
    timeline: str = ""
    budget: BudgetBand | None = None
    notes: str = ""
    copy_requested: bool = False

    @classmethod
    def of(cls, contact: Contact) -> Prefill:
        return cls(name=contact.name, email=contact.email, company=contact.company,
                   timeline=contact.timeline, budget=contact.budget, notes=contact.notes,
                   copy_requested=contact.copy_requested)


def _signed(key: str, version: object, lang: object) -> str:
    return f"quote|{key}|{version}|{lang}"


def encode_metadata(key: ConversationKey, version: int, lang: Lang) -> str:
    """The form's private metadata: the sizing, its version and the language, signed by the
    server (``bot/slack/cards/ids.py``): a forged form names nothing the server did not."""
    return json.dumps({"k": key.format(), "v": version, "l": lang,
                       "s": ids.sign(_signed(key.format(), version, lang))},
                      separators=(",", ":"))


def parse_metadata(raw: str | None) -> Metadata | None:
    """The metadata written by :func:`encode_metadata`, or None for anything else (unsigned,
    forged, malformed)."""
    try:
        data = json.loads(raw or "")
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    key = ConversationKey.parse(data.get("k") if isinstance(data.get("k"), str) else None)
    version, lang = data.get("v"), data.get("l")
    if key is None or not isinstance(version, int) or isinstance(version, bool) \
            or not _VERSION.fullmatch(str(version)) or lang not in LANGS:
        return None
    if not ids.verify(_signed(key.format(), version, lang), data.get("s")):
        return None
    return Metadata(key=key, version=version, lang="fr" if lang == "fr" else "en")


def _plain(text: str, limit: int) -> PlainTextObject:
    return PlainTextObject(text=clip(text.strip() or "-", limit), emoji=True)


def _input(w: Words, block_id: str, label: str, element: Any, *, optional: bool,
           hint: str | None = None) -> InputBlock:
    return InputBlock(block_id=block_id, label=_plain(w.plain(msg(label)), 2000),
                      element=element, optional=optional,
                      hint=_plain(w.plain(msg(hint)), 2000) if hint else None)


def _text_input(w: Words, value: str, limit: int, *, placeholder: str | None = None,
                multiline: bool = False) -> PlainTextInputElement:
    return PlainTextInputElement(
        action_id=VALUE, initial_value=clip(value, limit) or None, max_length=limit,
        multiline=multiline or None,
        placeholder=_plain(w.plain(msg(placeholder)), 150) if placeholder else None)


def quote_view(rec: Recommendation, key: ConversationKey, version: int, w: Words,
               prefill: Prefill) -> Payload:
    """The modal asking for the contact details, in ``w``'s language."""
    bands = [Option(text=_plain(w.plain(budget_words(b)), parts.MAX_OPTION_TEXT), value=b)
             for b in BUDGET_BANDS]
    chosen = next((o for o in bands if o.value == prefill.budget), None)
    copy = Option(text=_plain(w.plain(msg("slack.modal.copy_option")), parts.MAX_OPTION_TEXT),
                  value=COPY)
    blocks: list[Payload] = [
        parts.section(w.md(msg("slack.modal.intro", model=rec.model.name,
                               verdict=verdict_name(rec.verdict, rec.gpus_per_node)))),
        _input(w, B_NAME, "slack.modal.name", _text_input(w, prefill.name, MAX_NAME),
               optional=False).to_dict(),
        _input(w, B_EMAIL, "slack.modal.email",
               EmailInputElement(action_id=VALUE, initial_value=prefill.email or None),
               optional=False, hint="slack.modal.email_hint").to_dict(),
        _input(w, B_COMPANY, "slack.modal.company", _text_input(w, prefill.company, MAX_COMPANY),
               optional=True).to_dict(),
        _input(w, B_TIMELINE, "slack.modal.timeline",
               _text_input(w, prefill.timeline, MAX_TIMELINE,
                           placeholder="slack.modal.timeline_placeholder"),
               optional=True).to_dict(),
        _input(w, B_BUDGET, "slack.modal.budget",
               StaticSelectElement(action_id=VALUE, options=bands, initial_option=chosen,
                                   placeholder=_plain(w.plain(msg("slack.modal.budget_pick")),
                                                      parts.MAX_OPTION_TEXT)),
               optional=True).to_dict(),
        _input(w, B_NOTES, "slack.modal.notes",
               _text_input(w, prefill.notes, MAX_NOTES, multiline=True,
                           placeholder="slack.modal.notes_placeholder"),
               optional=True).to_dict(),
        _input(w, B_COPY, "slack.modal.copy",
               CheckboxesElement(action_id=VALUE, options=[copy],
                                 initial_options=[copy] if prefill.copy_requested else None),
               optional=True).to_dict(),
        parts.context(w.md(msg("slack.modal.privacy"))),
    ]
    return View(
        type="modal", callback_id=ids.V_QUOTE, blocks=blocks,
        title=_plain(w.plain(msg("slack.modal.title")), View.title_max_length),
        submit=_plain(w.plain(msg("slack.modal.submit")), View.submit_max_length),
        close=_plain(w.plain(msg("slack.modal.close")), View.close_max_length),
        private_metadata=encode_metadata(key, version, w.lang),
    ).to_dict()


# -- reading a submission -------------------------------------------------------------------


def _state(view: dict[str, Any], block: str) -> dict[str, Any]:
    values = ((view.get("state") or {}).get("values") or {}).get(block) or {}
    found = values.get(VALUE) if isinstance(values, dict) else None
    return found if isinstance(found, dict) else {}


def _typed(view: dict[str, Any], block: str, *, lines: bool = False) -> str:
    raw = _state(view, block).get("value")
    words = strip_controls(raw if isinstance(raw, str) else "")
    if lines:
        return "\n".join(line.rstrip() for line in words.strip().splitlines())
    return " ".join(words.split())


def _too_long(errors: dict[str, Message], block: str, value: str, limit: int) -> None:
    if len(value) > limit:
        errors[block] = msg("slack.modal.error.too_long", n=limit)


def read_submission(view: dict[str, Any]) -> tuple[Contact | None, dict[str, Message]]:
    """The contact typed in the form, or (None, what is wrong per block id)."""
    errors: dict[str, Message] = {}
    name, email = _typed(view, B_NAME), _typed(view, B_EMAIL)
    company, timeline = _typed(view, B_COMPANY), _typed(view, B_TIMELINE)
    notes = _typed(view, B_NOTES, lines=True)
    if not name:
        errors[B_NAME] = msg("slack.modal.error.name_missing")
    _too_long(errors, B_NAME, name, MAX_NAME)
    if not email:
        errors[B_EMAIL] = msg("slack.modal.error.email_missing")
    elif len(email) > MAX_EMAIL or not _EMAIL.fullmatch(email):
        errors[B_EMAIL] = msg("slack.modal.error.email_bad")
    _too_long(errors, B_COMPANY, company, MAX_COMPANY)
    _too_long(errors, B_TIMELINE, timeline, MAX_TIMELINE)
    _too_long(errors, B_NOTES, notes, MAX_NOTES)
    option = _state(view, B_BUDGET).get("selected_option")
    picked = option.get("value") if isinstance(option, dict) else None
    budget = next((b for b in BUDGET_BANDS if b == picked), None)
    if picked is not None and budget is None:
        errors[B_BUDGET] = msg("slack.modal.error.budget")
    chosen = _state(view, B_COPY).get("selected_options")
    copy = isinstance(chosen, list) and any(
        isinstance(o, dict) and o.get("value") == COPY for o in chosen)
    if errors:
        return None, errors
    return Contact(name=name, email=email, company=company, timeline=timeline, budget=budget,
                   notes=notes, copy_requested=copy), {}
