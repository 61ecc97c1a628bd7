"""The one place where text that came from a person is made safe to read and to show in Slack.

Why one module: a person's text crosses the bot twice. Inbound, Slack sends it entity-encoded
(``&amp; &lt; &gt;``) and it may carry invisible controls; :func:`typed` turns it back into the
plain text the dialogue parses, with controls gone. Outbound, anything that may echo it (the
dialogue's messages quote answers, names the engine could not resolve) is escaped before it
reaches a ``mrkdwn`` text or a message's top-level ``text``:

* Slack's mrkdwn gives ``<`` and ``>`` control meaning (``<!channel>``, ``<@U…>``, disguised
  links ``<https://evil|safe>``); escaping ``& < >`` (``&`` first) turns each of those into
  visible, inert text. Slack decodes exactly these three entities (docs/slack.md §4).
* Control characters are removed: C0/C1 controls (but newline and tab) and the Unicode bidi
  controls (U+202A-U+202E, U+2066-U+2069, U+200E/U+200F, U+061C), so nobody can reverse the
  bot's own words with a right-to-left override (U+202E) or hide text.
* Bare URLs and ``#channel`` names are not auto-linked: every mrkdwn object the cards build is
  ``verbatim`` (``bot/slack/cards/parts.py``), so only links the bot writes are links.

Clipping helpers live here too, because a clip must never cut an entity (``&am…``) in half.
"""

from __future__ import annotations

import re

#: C0 (but \\t and \\n), DEL, C1, the bidi embeddings/overrides/isolates and marks, and the
#: line/paragraph separators (Slack shows them as breaks the bot did not write).
_CONTROLS = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)
_ENTITY_TAIL = re.compile(r"&[a-z]{0,3}$")


def strip_controls(text: str) -> str:
    """``text`` without control characters (see the module docstring for which)."""
    return _CONTROLS.sub("", text)


def escape(text: str) -> str:
    """Make ``text`` inert in mrkdwn: controls removed, ``& < >`` escaped (``&`` first)."""
    return (
        strip_controls(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    )


def unescape(text: str) -> str:
    """Slack's ``&amp; &lt; &gt;`` back to what was typed (``&amp;`` last, or it double-decodes)."""
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def typed(text: str) -> str:
    """What a person typed, as the dialogue should read it: decoded, controls removed, trimmed."""
    return strip_controls(unescape(text)).strip()


def clip(text: str, limit: int, ellipsis: str = "…") -> str:
    """Cut plain text to ``limit`` characters so a long answer never breaks a Block Kit limit."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - len(ellipsis))] + ellipsis


def clip_md(text: str, limit: int, ellipsis: str = "…") -> str:
    """Clip already-escaped mrkdwn without leaving half an entity (``&am``) at the end."""
    if len(text) <= limit:
        return text
    cut = text[: max(0, limit - len(ellipsis))]
    return _ENTITY_TAIL.sub("", cut) + ellipsis
