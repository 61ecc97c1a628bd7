"""The ids the bot puts in its messages and reads back from clicks.

Action ids name the button (the listeners match them, ``bot/slack/listeners/actions``).
An actions block's id carries the conversation key and version (``gs1|<version>|<n>|<key>``):
a click says which sizing and which turn it answers, so a stale or repeated click is
recognised and changes nothing; a fresh block id per version is also what Slack asks for on
updated messages (docs/slack.md §3, chat.update). A start button's value says where the new
sizing's thread is. Both come back from a client that could forge them, so they are parsed
strictly (only ASCII digits for a version, only well-formed Slack ids) and never raise.
"""

from __future__ import annotations

import json
import re

from bot.slack.cards.parts import MAX_ID
from bot.slack.keys import ConversationKey

BLOCK_ID_PREFIX = "gs1"
A_ANSWER = "gs_answer"  # gs_answer_<n>: a choice button; gs_answer_select_<n>: the choice menu
A_NAV = "gs_nav"  # gs_nav_<kind>: back / help / change_<slot> / restart / cancel
A_RESTART = f"{A_NAV}_restart"
A_CHANGE = "gs_change"  # the card's menu of answers to change
A_COMPARE = "gs_compare"  # the card's menu of other GPUs
A_MATH = "gs_math"
A_QUOTE = "gs_quote"
A_EXPORT = "gs_export"  # the card's overflow menu: export the brief (vendor team only)
V_QUOTE = "gs_quote_form"  # the quote request modal's callback id (its submission)
A_START = "gs_start"  # start a new sizing (start message, "start my own", ended)
A_HOME_NEW = "gs_home_new"

_VERSION = re.compile(r"[0-9]{1,9}")
_CHANNEL = re.compile(r"[CDG][A-Z0-9]{1,30}")
_TS = re.compile(r"[0-9]{1,12}\.[0-9]{1,8}")


def block_id(version: int, key: ConversationKey, n: int = 0) -> str:
    """Which conversation and turn an actions block belongs to (``n`` keeps ids unique)."""
    return f"{BLOCK_ID_PREFIX}|{version}|{n}|{key.format()}"[:MAX_ID]


def parse_block_id(value: str | None) -> tuple[ConversationKey, int] | None:
    """(key, version) from :func:`block_id`, or None for anything else."""
    parts = (value or "").split("|", 3)
    if len(parts) != 4 or parts[0] != BLOCK_ID_PREFIX or not _VERSION.fullmatch(parts[1]):
        return None
    key = ConversationKey.parse(parts[3])
    return None if key is None else (key, int(parts[1]))


def start_value(channel: str | None = None, root: str | None = None) -> str:
    """A start button's value: where the new sizing's thread is (empty: the clicked message)."""
    if channel and root:
        return json.dumps({"c": channel, "t": root}, separators=(",", ":"))
    return ""


def parse_start_value(value: str | None) -> tuple[str, str] | None:
    try:
        data = json.loads(value or "")
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    channel, root = data.get("c"), data.get("t")
    if isinstance(channel, str) and isinstance(root, str) and _CHANNEL.fullmatch(channel) \
            and _TS.fullmatch(root):
        return channel, root
    return None
