"""Messages in words, in one language, made safe for the place they are put in a Slack message.

Why here and not in the catalog: only the Slack face knows that mrkdwn gives ``< > &`` control
meaning. Every sentence is a :class:`engine.wording.Message` rendered with the faces' layered
catalog (``bot/wording.py``); its parameters may hold what a person typed (the dialogue quotes
answers). So:

* :meth:`Words.md` cleans every string parameter (controls removed, ``bot/slack/escape.py``),
  renders, and escapes the whole sentence: a typed ``<!channel>`` shows as text and pings
  nobody. Mentions the bot means to make (:meth:`Words.user` of a payload's user id,
  :meth:`Words.channel` of a configured channel) are passed separately and put in *after*
  escaping, through placeholders no person can type (Unicode noncharacters, removed from
  every parameter).
* :meth:`Words.plain` is for ``plain_text`` objects (buttons, options, headers), which Slack
  does not parse: controls removed, nothing escaped.
"""

from __future__ import annotations

import re

from bot.slack.escape import escape, strip_controls
from bot.wording import catalog
from engine.wording import Lang, Message, Param, msg

_OPEN, _CLOSE = "\ufdd0", "\ufdd1"  # noncharacters: never in text people exchange
_USER_ID = re.compile(r"[UW][A-Z0-9]{2,30}")
_CHANNEL_ID = re.compile(r"[CGD][A-Z0-9]{2,30}")


def _clean(value: Param) -> Param:
    """``value`` with controls and placeholder characters removed from every string in it."""
    if isinstance(value, str):
        return strip_controls(value).replace(_OPEN, "").replace(_CLOSE, "")
    if isinstance(value, Message):
        return Message(id=value.id, params={k: _clean(v) for k, v in value.params.items()})
    if isinstance(value, list):
        if all(isinstance(v, Message) for v in value):
            return [m for m in (_clean(v) for v in value) if isinstance(m, Message)]
        return [s for s in (_clean(v) for v in value) if isinstance(s, str)]
    return value


def user_mention(user_id: str | None) -> str | None:
    """``<@U…>`` for a well-formed id from a payload (never from typed text), else None."""
    return f"<@{user_id}>" if user_id and _USER_ID.fullmatch(user_id) else None


def channel_mention(channel_id: str | None) -> str | None:
    return f"<#{channel_id}>" if channel_id and _CHANNEL_ID.fullmatch(channel_id) else None


class Words:
    """The catalog's messages in ``lang``, as mrkdwn or as plain text."""

    def __init__(self, lang: Lang = "en") -> None:
        self.lang: Lang = lang

    def plain(self, message: Message | str) -> str:
        """For ``plain_text`` objects: words without controls."""
        return strip_controls(catalog().render(message, self.lang))

    def md(self, message: Message | str, **mentions: str) -> str:
        """For ``mrkdwn`` and the fallback ``text``: escaped, with the bot's own mentions.

        ``mentions`` fill the message's parameters of those names with markup the bot made
        (:meth:`user`, :meth:`channel`), inserted after the sentence is escaped.
        """
        if isinstance(message, str):
            message = msg("text", text=message)
        cleaned = _clean(message)
        assert isinstance(cleaned, Message)
        params: dict[str, Param] = dict(cleaned.params)
        marks: dict[str, str] = {}
        for n, (name, markup) in enumerate(mentions.items()):
            mark = f"{_OPEN}{n}{_CLOSE}"
            marks[mark] = markup
            params[name] = mark
        out = escape(catalog().render(Message(id=cleaned.id, params=params), self.lang))
        for mark, markup in marks.items():
            out = out.replace(mark, markup)
        return out

    def user(self, user_id: str | None) -> str:
        """``<@U…>`` for a well-formed id from a payload, else "someone" (escaped words)."""
        return user_mention(user_id) or escape(self.plain(msg("slack.someone")))

    def channel(self, channel_id: str | None) -> str:
        return channel_mention(channel_id) or escape(self.plain(msg("slack.a_channel")))
