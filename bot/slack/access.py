"""Who may do what: the vendor's own team, people from other organisations, shared channels.

The policy (docs/slack.md §6 and §9), in one place so no flow decides it on its own:

* **Anyone** in a conversation with the bot may start a sizing, answer *their own* sizing,
  compare GPUs, see the math and *request* a formal quote of it.
* **Only the owner** (the person who started it, named by its key) answers or changes a
  sizing; anyone else who clicks is told whose it is (:meth:`Access.may_answer`).
* **Internal-only** (posting the "Start a sizing" message, the ``status`` command, quoting
  someone else's sizing) needs the actor's *own* team in ``INTERNAL_TEAM_IDS``. A click's
  payload names the clicker's team (``user.team_id``); for a slash command, whose payload
  semantics in shared channels Slack does not document, ``users.info`` confirms it (the
  user's own team and enterprise; strangers and guests are refused). An actor who cannot be
  identified is refused: the policy fails closed.
* **Internal details** (the quote summary) go only to a channel that ``conversations.info``
  says is not shared; when that cannot be told, nothing is posted.
"""

from __future__ import annotations

from bot.slack.api import SlackApi
from bot.slack.errors import SlackRefused


class Access:
    """The access policy over the vendor's team ids and the Web API (for confirmations)."""

    def __init__(self, internal_teams: frozenset[str], api: SlackApi) -> None:
        self.internal_teams = internal_teams
        self.api = api

    def is_internal(self, user: str, actor_team: str | None, *, confirm: bool) -> bool:
        """Is the actor on the vendor's side? ``confirm`` asks ``users.info`` too."""
        if not user or not actor_team or actor_team not in self.internal_teams:
            return False
        if not confirm:
            return True
        try:
            info = self.api.user_info(user)
        except SlackRefused:
            return False
        if not info or info.get("is_stranger") or info.get("is_restricted"):
            return False
        teams = {info.get("team_id")}
        enterprise = info.get("enterprise_user")
        if isinstance(enterprise, dict):
            teams.add(enterprise.get("enterprise_id"))
        return bool({t for t in teams if isinstance(t, str)} & self.internal_teams)

    @staticmethod
    def may_answer(owner: str | None, actor: str) -> bool:
        """Only the person who started a sizing answers it (an unknown owner: nobody else)."""
        return owner is None or owner == actor

    def may_quote(self, owner: str | None, actor: str, *, internal: bool) -> bool:
        """The owner requests a quote of their sizing; the vendor's team may for anyone's."""
        return internal or self.may_answer(owner, actor)

    def is_private_channel(self, channel: str | None) -> bool:
        """True only when Slack confirms ``channel`` is shared with no other organisation."""
        if not channel:
            return False
        try:
            info = self.api.channel_info(channel)
        except SlackRefused:
            return False
        if not info:
            return False
        return not any(info.get(flag) for flag in (
            "is_ext_shared", "is_shared", "is_pending_ext_shared", "is_org_shared"))
