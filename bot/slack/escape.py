"""The one place where text that came from a person is made safe to show in Slack.

Slack's mrkdwn gives ``<`` and ``>`` control meaning (``<!channel>``, ``<@U…>``, disguised
links), so anything a person typed, including what the dialogue echoes back of it, is escaped
before it reaches a ``mrkdwn`` text or a message's top-level ``text``. Slack decodes exactly
three entities, ``&`` first (notes §4, https://api.slack.com/reference/surfaces/formatting#escaping).
Inbound text arrives already entity-encoded, so :func:`unescape` turns it back into data before
the dialogue parses it.
"""

from __future__ import annotations


def escape(text: str) -> str:
    """Escape ``& < >`` for mrkdwn and top-level ``text`` (``&`` first, or it double-escapes)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def unescape(text: str) -> str:
    """Slack sends ``&amp; &lt; &gt;`` in message text; the dialogue wants what was typed."""
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def clip(text: str, limit: int, ellipsis: str = "…") -> str:
    """Cut ``text`` to ``limit`` characters so a long answer can never break a Block Kit limit."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - len(ellipsis))] + ellipsis


def clip_md(text: str, limit: int, ellipsis: str = "…") -> str:
    """Clip already-escaped mrkdwn without leaving half an entity (``&am``) at the end."""
    if len(text) <= limit:
        return text
    cut = text[: max(0, limit - len(ellipsis))]
    amp = cut.rfind("&", max(0, len(cut) - 5))
    if amp != -1 and ";" not in cut[amp:]:
        cut = cut[:amp]
    return cut + ellipsis


def clip_escaped(text: str, limit: int) -> str:
    """Escape then clip without cutting an entity in half (``&am…`` would render as garbage)."""
    out = escape(text)
    if len(out) <= limit:
        return out
    cut = out[: max(0, limit - 1)]
    amp = cut.rfind("&")
    if amp != -1 and ";" not in cut[amp:]:
        cut = cut[:amp]
    return cut + "…"
