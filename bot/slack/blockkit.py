"""Block Kit limits, and a validator that every message the bot can produce is tested against.

Why a home-made validator: Slack rejects an over-long block with ``invalid_blocks`` at post time,
in front of a customer. The numbers below are from ``/work/shared/notes/slack.md`` §3 (Block Kit
limits), which cites docs.slack.dev, @slack/types and slack_sdk's model validators. Where the
sources disagree we take the stricter figure (option ``value``: 75, not slack_sdk's 150).
``bot/slack/cards.py`` clips to these numbers; the tests call :func:`validate_message` and
:func:`validate_view` on every card, question, error and home view.
"""

from __future__ import annotations

from typing import Any

# notes §3: "up to 50 blocks in each message, and 100 blocks in modals or Home tabs"
MAX_BLOCKS_MESSAGE = 50
MAX_BLOCKS_VIEW = 100
# notes §3: section text 1-3000; text objects 1-3000
MAX_SECTION_TEXT = 3000
MAX_TEXT_OBJECT = 3000
# notes §3: section fields <=10 items, each <=2000
MAX_FIELDS = 10
MAX_FIELD_TEXT = 2000
# notes §3: header plain_text <=150
MAX_HEADER_TEXT = 150
# notes §3: context <=10 elements
MAX_CONTEXT_ELEMENTS = 10
# notes §3: actions <=25 elements
MAX_ACTIONS_ELEMENTS = 25
# notes §3: button text <=75, value <=2000, url <=3000
MAX_BUTTON_TEXT = 75
MAX_BUTTON_VALUE = 2000
# notes §3: block_id, action_id, callback_id <=255
MAX_ID = 255
# notes §3: static_select options <=100; option text/description <=75; option value 75 (stricter)
MAX_SELECT_OPTIONS = 100
MAX_OPTION_TEXT = 75
MAX_OPTION_VALUE = 75
# notes §3: placeholder is a plain_text (we keep it short, like option text)
MAX_PLACEHOLDER = 150
# notes §3: confirm dialog title 100, text 300, confirm/deny 30
MAX_CONFIRM_TITLE = 100
MAX_CONFIRM_TEXT = 300
MAX_CONFIRM_BUTTON = 30
# notes §3: top-level text truncated above 40,000; undocumented whole-payload ceiling observed
# at ~13,200 characters of block text (bolt-js#2509) - we stay under 12,000 to be safe.
MAX_MESSAGE_TEXT = 40000
MAX_BLOCKS_CHARS = 12000

BUTTON_STYLES = frozenset({"primary", "danger"})


def _text_obj(
    obj: Any, where: str, limit: int, errors: list[str], plain_only: bool = False
) -> None:
    if not isinstance(obj, dict) or obj.get("type") not in ("plain_text", "mrkdwn"):
        errors.append(f"{where}: not a text object")
        return
    if plain_only and obj["type"] != "plain_text":
        errors.append(f"{where}: must be plain_text")
    text = obj.get("text")
    if not isinstance(text, str) or not text:
        errors.append(f"{where}: empty text")
        return
    if len(text) > limit:
        errors.append(f"{where}: text {len(text)} > {limit}")


def _option(opt: Any, where: str, errors: list[str]) -> None:
    if not isinstance(opt, dict):
        errors.append(f"{where}: not an option")
        return
    _text_obj(opt.get("text"), f"{where}.text", MAX_OPTION_TEXT, errors, plain_only=True)
    value = opt.get("value")
    if not isinstance(value, str) or not value or len(value) > MAX_OPTION_VALUE:
        errors.append(f"{where}.value: missing or longer than {MAX_OPTION_VALUE}")


def _element(el: Any, where: str, errors: list[str], action_ids: set[str]) -> None:
    if not isinstance(el, dict):
        errors.append(f"{where}: not an element")
        return
    kind = el.get("type")
    action_id = el.get("action_id")
    if kind in ("button", "static_select", "overflow"):
        if not isinstance(action_id, str) or not action_id or len(action_id) > MAX_ID:
            errors.append(f"{where}.action_id: missing or longer than {MAX_ID}")
        elif action_id in action_ids:
            errors.append(f"{where}.action_id: '{action_id}' is not unique in the message")
        else:
            action_ids.add(action_id)
    if kind == "button":
        _text_obj(el.get("text"), f"{where}.text", MAX_BUTTON_TEXT, errors, plain_only=True)
        value = el.get("value")
        if value is not None and (not isinstance(value, str) or len(value) > MAX_BUTTON_VALUE):
            errors.append(f"{where}.value: longer than {MAX_BUTTON_VALUE}")
        if "style" in el and el["style"] not in BUTTON_STYLES:
            errors.append(f"{where}.style: {el['style']!r}")
        if "confirm" in el:
            c = el["confirm"]
            _text_obj(c.get("title"), f"{where}.confirm.title", MAX_CONFIRM_TITLE, errors, True)
            _text_obj(c.get("text"), f"{where}.confirm.text", MAX_CONFIRM_TEXT, errors)
            _text_obj(c.get("confirm"), f"{where}.confirm.confirm", MAX_CONFIRM_BUTTON, errors,
                      True)
            _text_obj(c.get("deny"), f"{where}.confirm.deny", MAX_CONFIRM_BUTTON, errors, True)
    elif kind in ("static_select", "overflow"):
        options = el.get("options")
        limit = MAX_SELECT_OPTIONS if kind == "static_select" else 5
        if not isinstance(options, list) or not options:
            errors.append(f"{where}.options: empty")
        else:
            if len(options) > limit:
                errors.append(f"{where}.options: {len(options)} > {limit}")
            for i, opt in enumerate(options):
                _option(opt, f"{where}.options[{i}]", errors)
        if kind == "static_select":
            _text_obj(el.get("placeholder"), f"{where}.placeholder", MAX_PLACEHOLDER, errors, True)
    elif kind in ("plain_text", "mrkdwn"):
        _text_obj(el, where, MAX_TEXT_OBJECT, errors)
    else:
        errors.append(f"{where}: element type {kind!r} not used by this bot")


def validate_blocks(blocks: Any, max_blocks: int) -> list[str]:
    """Every limit a list of blocks must respect; returns the problems (empty when valid)."""
    errors: list[str] = []
    if not isinstance(blocks, list):
        return ["blocks: not a list"]
    if not blocks:
        errors.append("blocks: empty")
    if len(blocks) > max_blocks:
        errors.append(f"blocks: {len(blocks)} > {max_blocks}")
    block_ids: set[str] = set()
    action_ids: set[str] = set()
    chars = 0
    for i, block in enumerate(blocks):
        where = f"blocks[{i}]"
        if not isinstance(block, dict):
            errors.append(f"{where}: not a block")
            continue
        block_id = block.get("block_id")
        if block_id is not None:
            if not isinstance(block_id, str) or len(block_id) > MAX_ID:
                errors.append(f"{where}.block_id: longer than {MAX_ID}")
            elif block_id in block_ids:
                errors.append(f"{where}.block_id: '{block_id}' is not unique")
            block_ids.add(str(block_id))
        kind = block.get("type")
        if kind == "header":
            _text_obj(block.get("text"), f"{where}.text", MAX_HEADER_TEXT, errors, plain_only=True)
            chars += len(str(block.get("text", {}).get("text", "")))
        elif kind == "section":
            if "text" not in block and "fields" not in block:
                errors.append(f"{where}: section without text or fields")
            if "text" in block:
                _text_obj(block["text"], f"{where}.text", MAX_SECTION_TEXT, errors)
                chars += len(str(block["text"].get("text", "")))
            if "fields" in block:
                fields = block["fields"]
                if not isinstance(fields, list) or len(fields) > MAX_FIELDS:
                    errors.append(f"{where}.fields: more than {MAX_FIELDS}")
                else:
                    for j, field in enumerate(fields):
                        _text_obj(field, f"{where}.fields[{j}]", MAX_FIELD_TEXT, errors)
                        chars += len(str(field.get("text", "")))
            if "accessory" in block:
                _element(block["accessory"], f"{where}.accessory", errors, action_ids)
        elif kind == "context":
            elements = block.get("elements")
            if not isinstance(elements, list) or not elements:
                errors.append(f"{where}.elements: empty")
            elif len(elements) > MAX_CONTEXT_ELEMENTS:
                errors.append(f"{where}.elements: {len(elements)} > {MAX_CONTEXT_ELEMENTS}")
            else:
                for j, el in enumerate(elements):
                    _text_obj(el, f"{where}.elements[{j}]", MAX_TEXT_OBJECT, errors)
                    chars += len(str(el.get("text", "")))
        elif kind == "actions":
            elements = block.get("elements")
            if not isinstance(elements, list) or not elements:
                errors.append(f"{where}.elements: empty")
            elif len(elements) > MAX_ACTIONS_ELEMENTS:
                errors.append(f"{where}.elements: {len(elements)} > {MAX_ACTIONS_ELEMENTS}")
            else:
                for j, el in enumerate(elements):
                    _element(el, f"{where}.elements[{j}]", errors, action_ids)
        elif kind == "divider":
            pass
        else:
            errors.append(f"{where}: block type {kind!r} not used by this bot")
    if chars > MAX_BLOCKS_CHARS:
        errors.append(f"blocks: {chars} characters of text > {MAX_BLOCKS_CHARS}")
    return errors


def validate_message(message: dict[str, Any]) -> list[str]:
    """A chat.postMessage / chat.update / chat.postEphemeral payload: blocks plus fallback text."""
    errors = validate_blocks(message.get("blocks"), MAX_BLOCKS_MESSAGE)
    text = message.get("text")
    if not isinstance(text, str) or not text.strip():
        errors.append("text: the plain fallback text is missing")
    elif len(text) > MAX_MESSAGE_TEXT:
        errors.append(f"text: {len(text)} > {MAX_MESSAGE_TEXT}")
    return errors


def validate_view(view: dict[str, Any]) -> list[str]:
    """A Home tab view for views.publish."""
    errors = validate_blocks(view.get("blocks"), MAX_BLOCKS_VIEW)
    if view.get("type") != "home":
        errors.append("view.type: must be 'home'")
    return errors
