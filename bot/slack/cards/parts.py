"""The Block Kit pieces every card is made of, built with slack_sdk's models.

Why the models (``slack_sdk.models.blocks``): their ``to_dict()`` checks each block's and
element's limits as the card is built, so a card Slack would refuse fails here, in a test,
not at post time in front of a customer. The limits slack_sdk does not check are kept by
construction: every text is clipped to its limit and never empty, a field to 2,000
characters, an option's value to 75 (stricter than slack_sdk's 150, docs/slack.md §3), and
the whole message to :func:`bot.slack.blockkit.fit`'s size rule.

Every ``mrkdwn`` object is ``verbatim``: Slack then auto-links no bare URL or ``#name`` in
it, so the only links and mentions in the bot's messages are the ones it wrote (the words
themselves are escaped by ``bot/slack/cards/words.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ContextBlock,
    DividerBlock,
    HeaderBlock,
    MarkdownTextObject,
    Option,
    OverflowMenuElement,
    PlainTextObject,
    SectionBlock,
    StaticSelectElement,
)

from bot.slack import blockkit
from bot.slack.escape import clip, clip_md

Payload = dict[str, Any]
Style = Literal["primary", "danger"] | None

MAX_SECTION_TEXT = SectionBlock.text_max_length  # 3000
MAX_FIELDS = SectionBlock.fields_max_length  # 10
MAX_FIELD_TEXT = 2000  # @slack/types SectionBlock; slack_sdk does not check it
MAX_TEXT = 3000  # any text object (docs/slack.md §3)
MAX_HEADER_TEXT = HeaderBlock.text_max_length  # 150
MAX_ACTIONS = ActionsBlock.elements_max_length  # 25
MAX_BUTTON_TEXT = ButtonElement.text_max_length  # 75
MAX_BUTTON_VALUE = ButtonElement.value_max_length  # 2000
MAX_OPTIONS = StaticSelectElement.options_max_length  # 100
MAX_OPTION_TEXT = Option.label_max_length  # 75
MAX_OPTION_VALUE = 75
MAX_ID = Block.block_id_max_length  # 255
MAX_FALLBACK = 3000  # the top-level text: a summary, not the card


def _md(text: str, limit: int) -> MarkdownTextObject:
    return MarkdownTextObject(text=clip_md(text if text.strip() else "-", limit), verbatim=True)


def _plain(text: str, limit: int) -> PlainTextObject:
    return PlainTextObject(text=clip(text.strip() or "-", limit), emoji=True)


def section(md: str) -> Payload:
    """A section of (already escaped) mrkdwn."""
    return SectionBlock(text=_md(md, MAX_SECTION_TEXT)).to_dict()


def fields(items: Sequence[str]) -> list[Payload]:
    """Sections of two-column fields (mrkdwn), ten per section."""
    return [SectionBlock(fields=[_md(f, MAX_FIELD_TEXT) for f in items[i : i + MAX_FIELDS]])
            .to_dict() for i in range(0, len(items), MAX_FIELDS)]


def context(md: str) -> Payload:
    return ContextBlock(elements=[_md(md, MAX_TEXT)]).to_dict()


def header(plain: str) -> Payload:
    return HeaderBlock(text=_plain(plain, MAX_HEADER_TEXT)).to_dict()


def divider() -> Payload:
    return DividerBlock().to_dict()


def button(text: str, action_id: str, value: str = "", style: Style = None) -> ButtonElement:
    return ButtonElement(text=_plain(text, MAX_BUTTON_TEXT), action_id=action_id[:MAX_ID],
                         value=value[:MAX_BUTTON_VALUE] or None, style=style)


def select(placeholder: str, action_id: str,
           options: Iterable[tuple[str, str]]) -> StaticSelectElement | None:
    """A menu of (label, value); values longer than Slack allows are left out. None if empty."""
    opts = [Option(text=_plain(label, MAX_OPTION_TEXT), value=value)
            for label, value in options if value and len(value) <= MAX_OPTION_VALUE]
    if not opts:
        return None
    return StaticSelectElement(placeholder=_plain(placeholder, MAX_OPTION_TEXT),
                               action_id=action_id[:MAX_ID], options=opts[:MAX_OPTIONS])


def overflow(action_id: str, options: Iterable[tuple[str, str]]) -> OverflowMenuElement | None:
    """A "⋯" menu of (label, value), for what most people never need. None if empty."""
    opts = [Option(text=_plain(label, MAX_OPTION_TEXT), value=value)
            for label, value in options if value and len(value) <= MAX_OPTION_VALUE]
    if not opts:
        return None
    return OverflowMenuElement(action_id=action_id[:MAX_ID], options=opts[:5])


def actions(elements: Sequence[ButtonElement | StaticSelectElement | OverflowMenuElement | None],
            block_id: str | None = None) -> Payload:
    """An actions block (at most 25 elements; Nones are dropped)."""
    kept = [e for e in elements if e is not None][:MAX_ACTIONS]
    return ActionsBlock(elements=kept, block_id=block_id).to_dict()


def message(fallback_md: str, blocks: list[Payload], *,
            max_blocks: int = blockkit.MAX_BLOCKS_MESSAGE) -> Payload:
    """A chat message: its blocks within the whole-message rule, and the fallback text."""
    return {"text": clip_md(fallback_md, MAX_FALLBACK), "blocks": blockkit.fit(blocks, max_blocks)}
