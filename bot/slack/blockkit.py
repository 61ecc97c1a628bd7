"""Block Kit: the whole-message size rule, and the check every message the bot sends passes.

Why so little here: the cards are built with slack_sdk's Block Kit models
(``slack_sdk.models.blocks``, ``bot/slack/cards/parts.py``), whose validators enforce each
block's and element's own limits when ``to_dict()`` runs. What slack_sdk does not check is
the message as a whole (docs/slack.md §3):

* at most 50 blocks in a message (100 in a Home tab, which slack_sdk's ``View`` checks);
* an undocumented ceiling on the text of all blocks together: Slack answers
  ``msg_blocks_too_long`` at about 13,200 characters (bolt-js#2509); the bot stays under
  12,000, shortening the longest texts first so the verdict and the buttons always survive;
* block ids unique in a message, action ids unique in a message (the bot's listeners match
  action ids; Slack rejects duplicates within a block);
* a plain fallback ``text`` (mobile notifications and screen readers read only that).

:func:`message_problems`, :func:`view_problems` (the Home tab) and :func:`modal_problems`
re-read a finished payload through the models (a limit they know, or a field they would not
send, is a problem) and apply the rule.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from slack_sdk.errors import SlackObjectFormationError
from slack_sdk.models.blocks import Block
from slack_sdk.models.views import View

from bot.slack.escape import clip, clip_md

MAX_BLOCKS_MESSAGE = 50
MAX_BLOCKS_VIEW = View.blocks_max_length  # 100
MAX_BLOCKS_CHARS = 12_000
MAX_MESSAGE_TEXT = 40_000  # Slack truncates a longer top-level text
MIN_CLIPPED = 80  # a text is never shortened below this to make room

Payload = dict[str, Any]


def _texts(blocks: list[Payload]) -> Iterator[Payload]:
    """The text objects that count towards the payload's text size."""
    for block in blocks:
        if block.get("type") in ("section", "header") and isinstance(block.get("text"), dict):
            yield block["text"]
        yield from block.get("fields") or []
        if block.get("type") == "context":
            yield from (e for e in block.get("elements") or [] if "text" in e)


def text_size(blocks: list[Payload]) -> int:
    return sum(len(str(t.get("text", ""))) for t in _texts(blocks))


def fit(blocks: list[Payload], max_blocks: int = MAX_BLOCKS_MESSAGE,
        budget: int = MAX_BLOCKS_CHARS) -> list[Payload]:
    """``blocks`` within the block count and the text budget (the last actions row is kept)."""
    if len(blocks) > max_blocks:
        actions = [b for b in blocks if b.get("type") == "actions"][-1:]
        rest = [b for b in blocks if all(b is not a for a in actions)]
        blocks = rest[: max_blocks - len(actions)] + actions
    texts = list(_texts(blocks))
    total = sum(len(str(t.get("text", ""))) for t in texts)
    while total > budget:
        longest = max(texts, key=lambda t: len(str(t.get("text", ""))))
        size = len(longest["text"])
        new = max(MIN_CLIPPED, size - (total - budget))
        if new >= size:
            break
        cut = clip if longest.get("type") == "plain_text" else clip_md
        longest["text"] = cut(longest["text"], new)
        total -= size - len(longest["text"])
    return blocks


def _block_problems(blocks: Any, max_blocks: int) -> list[str]:
    if not isinstance(blocks, list) or not blocks:
        return ["blocks: missing or empty"]
    errors: list[str] = []
    if len(blocks) > max_blocks:
        errors.append(f"blocks: {len(blocks)} > {max_blocks}")
    block_ids: set[str] = set()
    action_ids: set[str] = set()
    for i, raw in enumerate(blocks):
        where = f"blocks[{i}]"
        model = Block.parse(raw) if isinstance(raw, dict) else None
        if model is None:
            errors.append(f"{where}: not a block slack_sdk knows")
            continue
        try:
            again = model.to_dict()
        except SlackObjectFormationError as exc:
            errors.append(f"{where}: {exc}")
            continue
        if again != raw:
            errors.append(f"{where}: not what slack_sdk would send (empty text or a stray field)")
        block_id = raw.get("block_id")
        if block_id is not None and block_id in block_ids:
            errors.append(f"{where}.block_id: '{block_id}' is not unique")
        block_ids.add(str(block_id))
        for element in raw.get("elements") or []:
            action_id = element.get("action_id")
            if action_id is not None and action_id in action_ids:
                errors.append(f"{where}: action_id '{action_id}' is not unique in the message")
            if action_id is not None:
                action_ids.add(action_id)
    size = text_size(blocks)
    if size > MAX_BLOCKS_CHARS:
        errors.append(f"blocks: {size} characters of text > {MAX_BLOCKS_CHARS}")
    return errors


def message_problems(message: Payload) -> list[str]:
    """What Slack would refuse in a chat.postMessage / chat.update / chat.postEphemeral."""
    errors = _block_problems(message.get("blocks"), MAX_BLOCKS_MESSAGE)
    text = message.get("text")
    if not isinstance(text, str) or not text.strip():
        errors.append("text: the plain fallback text is missing")
    elif len(text) > MAX_MESSAGE_TEXT:
        errors.append(f"text: {len(text)} > {MAX_MESSAGE_TEXT}")
    return errors


def modal_problems(view: Payload) -> list[str]:
    """What Slack would refuse in a views.open / views.update of a modal (a form's input
    blocks need a submit button; title, submit and close at most 24 characters)."""
    errors = _block_problems(view.get("blocks"), MAX_BLOCKS_VIEW)
    if view.get("type") != "modal":
        errors.append("view.type: must be 'modal'")
    if any(b.get("type") == "input" for b in view.get("blocks") or []) and not view.get("submit"):
        errors.append("view.submit: a modal with input blocks needs one")
    try:
        again = View(**view).to_dict()
    except (SlackObjectFormationError, TypeError) as exc:
        errors.append(f"view: {exc}")
    else:
        if again != view:
            errors.append("view: not what slack_sdk would send (a stray or empty field)")
    return errors


def view_problems(view: Payload) -> list[str]:
    """What Slack would refuse in a views.publish of the Home tab."""
    errors = _block_problems(view.get("blocks"), MAX_BLOCKS_VIEW)
    if view.get("type") != "home":
        errors.append("view.type: must be 'home'")
    try:
        View(type="home", blocks=view.get("blocks") or []).to_dict()
    except SlackObjectFormationError as exc:
        errors.append(f"view: {exc}")
    return errors
