"""Where a sizing lives, as a value: the conversation key, parsed and formatted only here.

The key is ``{install team}:{channel}:{thread root ts}:{user}`` in channels and group DMs, and
``{install team}:{channel}:dm:{user}`` in a direct message. Why these parts:

* the **install team** namespaces the rest: channel ids are shared across the organisations of
  a Slack Connect channel, and the installation that receives a payload is the same for a
  slash command, a click and an event, whoever the actor is (docs/slack.md §6);
* the **thread root**: a channel sizing lives in one thread; several people may each have a
  sizing in the same thread (everyone who clicks "Start a sizing" on one message), so
* the **user** who started it is part of the key: a typed reply in the thread is routed by
  its author, and other people talking there are simply not answers;
* a **DM** has one sizing per person, whatever thread a message is in: people answer a DM at
  top level, so the DM itself is the sizing's place.

Keys come back from Slack inside block ids (``bot/slack/cards/ids.py``), which a client can
forge: :meth:`ConversationKey.parse` accepts only well-formed Slack ids and timestamps.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict

DM_ROOT = "dm"  # the third part of a DM's key, where a channel's key has the thread root
NO_TEAM = "-"

_TEAM = re.compile(r"[TE][A-Z0-9]{1,30}")
_CHANNEL = re.compile(r"[CDG][A-Z0-9]{1,30}")
_USER = re.compile(r"[UW][A-Z0-9]{1,30}")
_TS = re.compile(r"[0-9]{1,12}\.[0-9]{1,8}")


class ConversationKey(BaseModel):
    """One sizing's place: the install team, the channel, the thread root (None in a DM), and
    the person who started it (its owner)."""

    model_config = ConfigDict(frozen=True)

    team: str | None
    channel: str
    root: str | None
    user: str

    @classmethod
    def thread(cls, team: str | None, channel: str, root: str, user: str) -> ConversationKey:
        """A sizing in the thread of ``root`` in a channel or group DM."""
        return cls(team=team, channel=channel, root=root, user=user)

    @classmethod
    def dm(cls, team: str | None, channel: str, user: str) -> ConversationKey:
        """The sizing of ``user`` in their direct message ``channel`` with the bot."""
        return cls(team=team, channel=channel, root=None, user=user)

    @property
    def is_dm(self) -> bool:
        return self.root is None

    @property
    def owner(self) -> str:
        """The person who started the sizing (the key names them)."""
        return self.user

    def format(self) -> str:
        """The stored form (the store's key, the block ids' suffix, the audit record)."""
        return f"{self.team or NO_TEAM}:{self.channel}:{self.root or DM_ROOT}:{self.user}"

    def __str__(self) -> str:
        return self.format()

    @classmethod
    def parse(cls, text: str | None) -> ConversationKey | None:
        """The key written by :meth:`format`, or None for anything else (never raises)."""
        if not text:
            return None
        parts = text.split(":")
        if len(parts) != 4:
            return None
        team, channel, root, user = parts
        if team != NO_TEAM and not _TEAM.fullmatch(team):
            return None
        if not _CHANNEL.fullmatch(channel) or not _USER.fullmatch(user):
            return None
        if root != DM_ROOT and not _TS.fullmatch(root):
            return None
        return cls(team=None if team == NO_TEAM else team, channel=channel,
                   root=None if root == DM_ROOT else root, user=user)
