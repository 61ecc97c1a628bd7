"""The glue between Slack payloads and the dialogue: one method per kind of turn.

Listeners (``bot/slack/listeners/``) ack first, then call a method here. Each method:

1. builds the conversation key from the payload (or reads it from the clicked block's id),
2. asks the dialogue (which loads, dedupes, compare-and-sets and answers with plain data),
3. renders the reply with ``bot/slack/cards.py`` and updates the thread's question message in place,
4. records one metric and one log line for the turn.

Why these choices:

* **Key** ``{team}:{channel}:{root_ts}:{user}`` - the install team as namespace (channel ids are
  shared across Slack Connect orgs), the thread's root message, and the person who started the
  sizing. One thread may hold several people's sizings (everyone who clicks "Start a sizing" on
  the same message gets their own), each with its own question message; a typed reply in the
  thread is routed by its author, so other people talking in the thread are simply not answers.
* **Direct messages** are keyed ``{team}:{channel}:dm:{user}`` (:func:`make_dm_key`): people
  answer a DM at top level, not in a thread, so the DM itself is the sizing's place. Its
  question is a top-level message updated in place; a top-level message goes to the sizing in
  progress as a typed answer, or else starts a new one; "new"/"restart" starts afresh. A DM
  message, the App Home "New sizing", ``/gpu-sizing`` and a start button in the DM all land on
  this one key. Group DMs (mpim) work like channels: threads only.
* **Owner** is the Slack user id; ``Dialogue.handle(actor=...)`` refuses anyone else, and the
  click's version (in the action block's id) makes a stale or repeated click change nothing.
* **Internal vs external**: internal-only actions need the actor's own team (``user.team_id`` of
  a click, confirmed with ``users.info`` for slash commands whose payload semantics in shared
  channels are not documented) to be in ``INTERNAL_TEAM_IDS``; unknown actor -> refused.
  External people may run sizings, see the math, compare, and *request* a formal quote: the
  internal summary goes to ``QUOTE_CHANNEL_ID`` only (refused if that channel is itself shared),
  and the requester is told what happens next. Posting the "Start a sizing" message and the
  ``status`` command are internal-only.
* Slack errors after the ack are logged and counted, never raised into Bolt (which would only
  log them again); the person is told when something they asked for could not be done.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.ops import logs, metrics
from bot.ops.settings import Settings
from bot.slack import cards
from bot.slack.escape import escape, unescape
from dialogue import (
    Conflict,
    Conversation,
    Dialogue,
    Duplicate,
    NotOwner,
    Reply,
    StoreUnavailable,
)
from dialogue.commands import command

log = logging.getLogger(__name__)

Respond = Callable[..., Any]

HELP = (
    "*GPU sizing* asks a few questions (model, workload, load) and recommends one 8-GPU node, "
    "data-parallel replicas or a multi-node cluster, with the numbers behind it.\n"
    "• `/gpu-sizing` or `/gpu-sizing llama 3.1 70b inference 64 users 32k context` - start "
    "(what you type pre-fills answers)\n"
    "• mention me in a channel, or send me a direct message\n"
    "• answer by clicking or by replying in the sizing's thread; in a direct message, just "
    "type your answer (`new` starts a fresh sizing)\n"
    "• `/gpu-sizing post` - post a *Start a sizing* button in this channel (vendor team only)"
)
NOT_OWNER = "This sizing belongs to {owner}; only they can answer it. Start your own instead?"
STALE = (
    "That button belongs to an earlier question of this sizing, so it changed nothing. "
    "The message shows the current question."
)
CONFLICT = (
    "Another answer to this sizing arrived at the same moment and was applied first; yours "
    "changed nothing. The message shows the current question."
)
REFUSED = "That is only available to the vendor's team, so nothing was done."
FAILED_TURN = (
    "Something went wrong on my side with that, so nothing was changed. Try another answer "
    "or a button; if it keeps happening, click Start over."
)
OUT_OF_DATE = (
    "That card is out of date: this sizing changed since it was shown, so nothing was done. "
    "Use the sizing's current message."
)
# Slack errors that mean "the bot cannot post in this conversation" (not a passing outage)
NO_ACCESS_ERRORS = frozenset({
    "not_in_channel", "channel_not_found", "is_archived", "restricted_action",
    "restricted_action_read_only_channel", "restricted_action_thread_only_channel",
    "restricted_action_non_threadable_channel", "ekm_access_denied", "team_access_not_granted",
})
CANNOT_POST = ("I cannot post in this conversation. Invite me to the channel "
               "(`/invite @GPU Sizing`) or send me a direct message.")
SLACK_FAILED = ("Slack did not accept my message just now, so {what}. Nothing was lost; "
                "try again in a minute.")
FINISHED_STATES = frozenset({"done", "cancelled", "ended", "expired"})
DM_ROOT = "dm"  # the third part of a DM's key, where a channel's key has the thread root
# a top-level DM message that asks for a fresh sizing (besides the dialogue's restart words)
NEW_WORDS = frozenset({"new"})
# typed to a finished DM sizing at top level, these refer to it (they cannot open a sizing)
DONE_COMMANDS = frozenset({"change", "back"})
META_WAIT_S = 2.0
CLAIM_TTL_SECONDS = 24 * 3600
_MENTION = re.compile(r"<@[UW][A-Z0-9]+(?:\|[^>]*)?>")


def make_key(team: str | None, channel: str, root_ts: str, user: str) -> str:
    """The conversation key: install team, channel, thread root, the person who started it."""
    return f"{team or '-'}:{channel}:{root_ts}:{user}"


def make_dm_key(team: str | None, channel: str, user: str) -> str:
    """A direct message's key: one sizing per person and DM, whatever thread it is in."""
    return make_key(team, channel, DM_ROOT, user)


def is_dm_key(key: str) -> bool:
    parts = key.split(":")
    return len(parts) == 4 and parts[2] == DM_ROOT


def is_im(channel: str, name: str | None = None) -> bool:
    """A direct message with the bot, from a payload without ``channel_type`` (a slash
    command's ``channel_name`` or a click's ``channel.name`` is "directmessage"; DM channel
    ids start with D)."""
    return name == "directmessage" or channel.startswith("D")


def install_team(context: Any) -> str | None:
    """The namespace of conversation keys: the team of the installation that received it.

    For a single-workspace install this is the bot token's team (``auth.test``), the same for
    a slash command, a click and an event, whoever the actor is; a payload's own ``team_id``
    can be the actor's workspace in Slack Connect (notes §6), which would split one sizing's
    turns across two keys.
    """
    result = getattr(context, "authorize_result", None)
    team = getattr(result, "team_id", None) if result is not None else None
    return str(team or getattr(context, "team_id", None) or "") or None


@dataclass
class Turn:
    """What one turn did, for the metric and the log line written when it ends."""

    kind: str
    outcome: str = "ignored"
    conversation_id: str = ""
    step: str = ""
    extra: dict[str, object] = field(default_factory=dict)

    def from_reply(self, reply: Reply) -> None:
        self.outcome = reply.kind
        self.conversation_id = reply.conversation_id
        self.step = reply.state


class Turns:
    """Turn handling for one app: settings, the dialogue and the (retrying) Web API client."""

    def __init__(self, settings: Settings, dialogue: Dialogue, client: WebClient) -> None:
        self.settings = settings
        self.dialogue = dialogue
        self.client = client
        self.internal_teams = settings.internal_teams
        self._bot_user_id: str | None = None
        self._last = threading.local()  # the last Web API error of this listener thread

    # ----------------------------------------------------------------- infrastructure

    @contextmanager
    def turn(self, kind: str) -> Iterator[Turn]:
        """Time a turn; always record the metric and the log line, whatever happens inside."""
        t = Turn(kind)
        started = time.perf_counter()
        try:
            yield t
        except StoreUnavailable:
            t.outcome = "store_unavailable"
            metrics.redis_error()
            raise
        except Exception:
            t.outcome = "error"
            log.exception("turn failed", extra={"json_fields": {"kind": kind}})
            raise
        finally:
            seconds = time.perf_counter() - started
            metrics.observe_turn(kind, t.outcome, seconds)
            logs.log_turn(
                conversation_id=t.conversation_id, step=t.step or "-", outcome=t.outcome,
                duration_ms=seconds * 1000, kind=kind, **t.extra,
            )

    def api(self, method: str, **kwargs: Any) -> dict[str, Any] | None:
        """Call the Web API; on failure count it, log it and return None (never raise).

        The failure's Slack error code (or the exception's name) is kept for this thread in
        :meth:`last_error`, so a caller can tell "not in the channel" from "Slack is down".
        """
        self._last.error = None
        try:
            # the typed methods know each method's HTTP verb and encoding (GET params for
            # users.info, JSON for blocks), and warn when a message lacks fallback text
            call = getattr(self.client, method.replace(".", "_"))
            resp = call(**kwargs)
            return dict(resp.data) if isinstance(resp.data, dict) else {}
        except SlackApiError as exc:
            metrics.slack_api_error(method)
            error = str(exc.response.get("error", "") or "unknown")
            self._last.error = error
            log.warning("slack api error", extra={"json_fields": {
                "method": method, "error": error[:200]}})
        except Exception as exc:  # network errors after the retry handlers gave up
            metrics.slack_api_error(method)
            self._last.error = type(exc).__name__
            log.warning("slack api failure", extra={"json_fields": {
                "method": method, "error": type(exc).__name__}})
        return None

    def last_error(self) -> str | None:
        """The error of this thread's last failed :meth:`api` call (None after a success)."""
        return getattr(self._last, "error", None)

    def cannot_post_text(self, what: str) -> str:
        """What to tell a person when a post failed: access problem, or a passing failure."""
        if self.last_error() in NO_ACCESS_ERRORS:
            return CANNOT_POST
        return SLACK_FAILED.format(what=what)

    def tell(self, channel: str, user: str, text: str, thread_ts: str | None = None,
             respond: Respond | None = None) -> None:
        """Tell one person something privately: through ``respond`` (a slash command's
        response_url works where the bot cannot post) or else an ephemeral message."""
        if respond is not None:
            try:
                respond(text=text, response_type="ephemeral")
                return
            except Exception:
                log.warning("respond failed", extra={"json_fields": {"kind": "respond"}})
        if channel and user:
            self.note(channel, user, text, thread_ts)

    def bot_user_id(self) -> str | None:
        """Our own bot user id (auth.test, once), to ignore our messages and strip mentions."""
        if self._bot_user_id is None:
            data = self.api("auth.test")
            if data:
                self._bot_user_id = str(data.get("user_id") or "") or None
        return self._bot_user_id

    def ephemeral(
        self, channel: str, user: str, message: dict[str, Any], thread_ts: str | None = None
    ) -> None:
        args: dict[str, Any] = {"channel": channel, "user": user, **message}
        if thread_ts:
            args["thread_ts"] = thread_ts
        self.api("chat.postEphemeral", **args)

    def note(self, channel: str, user: str, text: str, thread_ts: str | None = None,
             start: tuple[str, str] | None = None) -> None:
        self.ephemeral(channel, user, cards.note_message(text, start=start), thread_ts)

    def store_down(self, channel: str, user: str, thread_ts: str | None = None,
                   respond: Respond | None = None, *, turn: Turn | None = None) -> None:
        """Tell the person the store is unreachable (the ack already went to Slack), and
        count it against the turn: one place for every Redis outage a face meets."""
        if turn is not None:
            metrics.redis_error()
            turn.outcome = "store_unavailable"
        self.tell(channel, user, cards.STORE_DOWN, thread_ts, respond)

    def render(self, reply: Reply, key: str, owner: str | None) -> dict[str, Any]:
        return cards.render(reply, key, compare_gpus(), owner, dm=is_dm_key(key))

    def is_internal(self, user: str, payload_team: str | None, *, confirm: bool) -> bool:
        """Is the actor on the vendor's side? Fail closed when they cannot be identified.

        ``payload_team`` is the actor's team as the payload states it (``user.team_id`` of a
        click). ``confirm`` asks ``users.info`` too: the user's own ``team_id`` (and
        enterprise) is authoritative where a payload's team may be the channel's host.
        """
        if not self.internal_teams or not payload_team or payload_team not in self.internal_teams:
            return False
        if not confirm:
            return True
        data = self.api("users.info", user=user)
        if not data or not isinstance(data.get("user"), dict):
            return False
        info = data["user"]
        teams = {info.get("team_id")}
        ent = info.get("enterprise_user")
        if isinstance(ent, dict):
            teams.add(ent.get("enterprise_id"))
        if info.get("is_stranger") or info.get("is_restricted"):
            return False
        return bool({t for t in teams if t} & self.internal_teams)

    def claim(self, once: str, where: _Where, t: Turn) -> bool:
        """True the first time ``once`` is claimed, on any worker (a double-click posts once).

        Uses the store's delivery-id check (SET NX with a TTL), the same one that drops
        redelivered events, so the claim is atomic across workers. False (and the person told)
        when already claimed or when the store is unreachable.
        """
        try:
            if not self.dialogue.store.claim(once, CLAIM_TTL_SECONDS):
                t.outcome = "duplicate"
                return False
        except StoreUnavailable:
            if where.channel:
                self.store_down(where.channel, where.user, None, turn=t)
            else:
                metrics.redis_error()
                t.outcome = "store_unavailable"
            return False
        return True

    def channel_is_shared(self, channel: str) -> bool | None:
        """conversations.info flags; None when it cannot be told (callers fail closed)."""
        data = self.api("conversations.info", channel=channel)
        if not data or not isinstance(data.get("channel"), dict):
            return None
        ch = data["channel"]
        return bool(ch.get("is_ext_shared") or ch.get("is_shared")
                    or ch.get("is_pending_ext_shared") or ch.get("is_org_shared"))

    # ----------------------------------------------------------------- starting

    def _start(
        self, t: Turn, *, team: str | None, channel: str, user: str, opening: str,
        root_ts: str | None, surface: str, delivery_id: str | None = None,
        actor_team: str | None = None, shared: bool = False, respond: Respond | None = None,
        dm: bool = False,
    ) -> None:
        """Start a sizing in a thread: root message (posted if none), question as a reply.

        ``dm``: in a direct message the sizing is the DM's (:func:`make_dm_key`), replacing
        the one there, and its question is a top-level message (``root_ts`` is ignored).
        """
        own_root = root_ts is None and not dm
        if dm:
            root_ts = None
        elif root_ts is None:
            posted = self.api(
                "chat.postMessage", channel=channel,
                text=f"{cards.user_mention(user)} started a GPU sizing: answer in the thread.",
            )
            if not posted or not posted.get("ts"):
                t.outcome = "error"
                self.tell(channel, user, self.cannot_post_text("no sizing was started"),
                          None, respond)
                return
            root_ts = str(posted["ts"])
            channel = str(posted.get("channel") or channel)
        key = make_dm_key(team, channel, user) if root_ts is None else \
            make_key(team, channel, root_ts, user)
        try:
            reply = self.dialogue.start(
                key, opening, owner=user, delivery_id=delivery_id,
                meta={"channel": channel, "root": root_ts or "", "surface": surface,
                      "actor_team": actor_team or "", "shared": "1" if shared else "0"},
            )
        except Duplicate:
            t.outcome = "duplicate"
            return
        except Conflict:
            # a double-click on "Start": the other click started the sizing and posts it
            t.outcome = "conflict"
            return
        except StoreUnavailable:
            if own_root and root_ts:  # the root we just posted would announce nothing
                self.api("chat.delete", channel=channel, ts=root_ts)
            self.store_down(channel, user, None if own_root else root_ts, respond, turn=t)
            return
        except Exception:
            if own_root and root_ts:
                self.api("chat.delete", channel=channel, ts=root_ts)
            self._failed(t, channel, user, None if own_root else root_ts, respond)
            return
        t.from_reply(reply)
        metrics.conversation_started()
        message = self.render(reply, key, user)
        posted = self.api("chat.postMessage", channel=channel, thread_ts=root_ts, **message)
        if not posted or not posted.get("ts"):
            # the sizing is stored but nobody can see its question: say so, and take back a
            # root we posted (it would announce a sizing with nothing in its thread)
            t.outcome = "error"
            what = "the sizing's question could not be shown"
            text = self.cannot_post_text(what)
            if own_root and root_ts:
                self.api("chat.delete", channel=channel, ts=root_ts)
            else:  # a mention, Start click or DM message shows it again (_unshown)
                try:
                    self.dialogue.update_meta(key, {"unshown": "1"})
                except StoreUnavailable:
                    metrics.redis_error()
            self.tell(channel, user, text, None if own_root else root_ts, respond)
            return
        try:
            self.dialogue.update_meta(key, {"ts": str(posted["ts"])})
        except StoreUnavailable:
            metrics.redis_error()
        self._after_reply(reply)

    def _after_reply(self, reply: Reply) -> None:
        if reply.kind == "result" and reply.recommendation is not None:
            metrics.recommendation(reply.recommendation.verdict)
            metrics.conversation_finished()

    def command(self, body: dict[str, Any], team: str | None, respond: Respond) -> None:
        """``/gpu-sizing [help|post|status|opening text]``."""
        with self.turn("command") as t:
            text = unescape(str(body.get("text") or "")).strip()
            user = str(body.get("user_id") or "")
            channel = str(body.get("channel_id") or "")
            word = text.split(maxsplit=1)[0].lower() if text else ""
            if word in ("help", "?"):
                self.tell(channel, user, HELP, None, respond)
                t.outcome = "ignored"
                return
            if word in ("post", "status"):
                actor_team = body.get("user_team") or body.get("team_id")
                if not self.is_internal(user, str(actor_team or ""), confirm=True):
                    t.outcome = "forbidden"
                    self.tell(channel, user, REFUSED, None, respond)
                    return
                if word == "post":
                    posted = self.api("chat.postMessage", channel=channel,
                                      **cards.start_message(user))
                    t.outcome = "question" if posted else "error"
                    if not posted:
                        self.tell(channel, user,
                                  self.cannot_post_text("the Start a sizing message was not "
                                                        "posted"), None, respond)
                else:
                    t.outcome = "ignored"
                    self.tell(channel, user, self.status_text(), None, respond)
                return
            self._start(t, team=team, channel=channel, user=user, opening=text, root_ts=None,
                        surface="command", actor_team=str(body.get("team_id") or ""),
                        respond=respond, dm=is_im(channel, body.get("channel_name")))

    def status_text(self) -> str:
        """Internal diagnostics for the vendor's team: mode, store, quote channel."""
        try:
            self.dialogue.recent("-", limit=1)
            store = "reachable"
        except StoreUnavailable:
            store = "UNREACHABLE"
        quote = cards.channel_mention(self.settings.quote_channel_id) \
            if self.settings.quote_channel_id else "not configured"
        return (f"Mode: {self.settings.mode} · store: {store} · quote requests go to {quote} · "
                f"internal teams: {len(self.internal_teams)}")

    # ----------------------------------------------------------------- answering

    def _answer(
        self, t: Turn, key: str, text: str, *, user: str, channel: str, root_ts: str | None,
        version: int | None = None, delivery_id: str | None = None,
        message_ts: str | None = None, typed: bool = False,
    ) -> None:
        """One answer (typed or clicked) to the conversation at ``key``; update its message."""
        try:
            reply = self.dialogue.handle(key, text, version=version, delivery_id=delivery_id,
                                         actor=user)
        except Duplicate:
            t.outcome = "duplicate"
            return
        except NotOwner as exc:
            t.outcome = "not_owner"
            if not typed:
                owner = cards.user_mention(exc.owner)
                start = (channel, root_ts) if root_ts else None
                self.note(channel, user, NOT_OWNER.format(owner=owner), root_ts, start)
            return
        except Conflict:
            t.outcome = "conflict"
            self.note(channel, user, CONFLICT, root_ts)
            return
        except StoreUnavailable:
            self.store_down(channel, user, root_ts, turn=t)
            return
        except Exception:  # a dialogue bug must not leave the person without an answer
            self._failed(t, channel, user, root_ts)
            return
        t.from_reply(reply)
        if _stale(reply, version):
            t.outcome = "conflict"
            t.extra["stale"] = True
            self.note(channel, user, STALE, root_ts)
            return
        self._show(key, reply, user, channel, message_ts)
        self._after_reply(reply)

    def _reshow(self, t: Turn, key: str, user: str, channel: str) -> None:
        """Post a sizing's current question again (its first post failed)."""
        try:
            reply = self.dialogue.current(key)
        except StoreUnavailable:
            self.store_down(channel, user, _root_of(key), turn=t)
            return
        if reply is not None:
            t.from_reply(reply)
            self._show(key, reply, user, channel, None, wait_for_post=False)

    def _meta(self, key: str) -> dict[str, str]:
        try:
            conv = self.dialogue.load(key)
        except StoreUnavailable:
            metrics.redis_error()
            return {}
        return dict(conv.meta) if conv is not None else {}

    def _show(self, key: str, reply: Reply, owner: str, channel: str,
              message_ts: str | None, *, wait_for_post: bool = True) -> None:
        """Update the question message in place (post a new one if it is unknown).

        The message's channel/ts live in the conversation's meta, so any worker can update it;
        a sizing restarted from an expired one has no meta yet and gets it here.
        """
        meta = self._meta(key)
        # "channel" is set by _start; a DM's sizing has no root to tell it by
        if wait_for_post and meta.get("channel") and not meta.get("ts") and not _unshown(meta):
            # the sizing was just started and its question is being posted by another thread
            # (a fast typist, a retried event): wait briefly for its ts rather than post twice
            deadline = time.monotonic() + META_WAIT_S
            while not meta.get("ts") and time.monotonic() < deadline:
                time.sleep(0.05)
                meta = self._meta(key)
        ts = meta.get("ts") or message_ts
        channel = meta.get("channel") or channel
        root = meta.get("root") or _root_of(key) or ""
        message = self.render(reply, key, owner)
        if ts and self.api("chat.update", channel=channel, ts=ts, **message) is not None:
            new_ts = None if meta.get("ts") else ts
        else:
            posted = self.api("chat.postMessage", channel=channel, thread_ts=root or None,
                              **message)
            new_ts = str(posted["ts"]) if posted and posted.get("ts") else None
            if new_ts is None:
                # the answer is saved, but the message on screen is the old one: say so
                self.tell(channel, owner, self.cannot_post_text(
                    "the sizing's message could not be updated (your answer was saved)"),
                    root or None)
        if new_ts and reply.conversation_id:
            try:
                self.dialogue.update_meta(key, {"ts": new_ts, "channel": channel, "root": root})
            except StoreUnavailable:
                metrics.redis_error()

    # ----------------------------------------------------------------- events

    def mention(self, body: dict[str, Any], team: str | None, actor_team: str | None) -> None:
        """``@GPU Sizing ...`` in a channel: answer in a known thread, or start a sizing."""
        event = body.get("event") or {}
        with self.turn("mention") as t:
            user = str(event.get("user") or "")
            channel = str(event.get("channel") or "")
            if not user or not channel or event.get("bot_id"):
                return
            text = unescape(_MENTION.sub(" ", str(event.get("text") or ""))).strip()
            thread_ts = event.get("thread_ts")
            event_id = str(body.get("event_id") or "") or None
            if thread_ts:
                key = make_key(team, channel, str(thread_ts), user)
                try:
                    conv = self.dialogue.load(key)
                except StoreUnavailable:
                    self.store_down(channel, user, str(thread_ts), turn=t)
                    return
                # a sizing in progress takes the mention as an answer; a finished one is
                # replaced by a new sizing (the person is asking again)
                if conv is not None and conv.state not in FINISHED_STATES:
                    if text:
                        self._answer(t, key, text, user=user, channel=channel,
                                     root_ts=str(thread_ts), delivery_id=event_id, typed=True)
                    elif _unshown(conv.meta):
                        self._reshow(t, key, user, channel)
                    return
            root = str(thread_ts or event.get("ts") or "")
            self._start(t, team=team, channel=channel, user=user, opening=text, root_ts=root,
                        surface="mention", delivery_id=event_id, actor_team=actor_team,
                        shared=bool(body.get("is_ext_shared_channel")))

    def message(self, body: dict[str, Any], team: str | None, actor_team: str | None) -> None:
        """A message event: in a DM, the person's sizing there; in a channel or group DM, a
        reply in a sizing's thread answers it.

        Ignored: our own and other bots' messages, edits/deletes and other subtypes, channel
        messages outside a thread, messages that mention us (the app_mention handles them),
        and thread replies by anyone who has no sizing in that thread.
        """
        event = body.get("event") or {}
        kind = "dm" if event.get("channel_type") == "im" else "message"
        # With channels:history every message in every channel the bot is in arrives here:
        # what can never be an answer is dropped before it counts as a turn (no metric, no
        # log line per line of channel chatter).
        if event.get("subtype") not in (None, "thread_broadcast", "file_share"):
            return
        user = str(event.get("user") or "")
        channel = str(event.get("channel") or "")
        if not user or not channel or event.get("bot_id") or event.get("bot_profile"):
            return
        if kind != "dm" and not event.get("thread_ts"):
            return
        me = self.bot_user_id()
        if me and user == me:
            return
        raw = str(event.get("text") or "")
        if kind != "dm" and me and f"<@{me}" in raw:
            return
        with self.turn(kind) as t:
            text = unescape(_MENTION.sub(" ", raw)).strip()
            thread_ts = str(event.get("thread_ts") or "") or None
            event_id = str(body.get("event_id") or "") or None
            if kind == "dm":
                self._dm(t, team=team, channel=channel, user=user, text=text,
                         thread_ts=thread_ts, event_id=event_id, actor_team=actor_team)
                return
            if not text or not thread_ts:
                return
            key = make_key(team, channel, thread_ts, user)
            try:
                conv = self.dialogue.load(key)
            except StoreUnavailable:
                self.store_down(channel, user, thread_ts, turn=t)
                return
            if conv is None:
                return
            self._answer(t, key, text, user=user, channel=channel, root_ts=thread_ts,
                         delivery_id=event_id, typed=True)

    def _dm(self, t: Turn, *, team: str | None, channel: str, user: str, text: str,
            thread_ts: str | None, event_id: str | None, actor_team: str | None) -> None:
        """A person's message in their DM with the bot (top level or in a thread).

        Top level: "help" explains; "new"/"restart" starts afresh; otherwise the DM's sizing in
        progress takes it as a typed answer, and with none in progress it opens a new sizing.
        In a thread: the sizing of that thread (one started in a DM thread before DMs had their
        own key), else the DM's sizing whatever its state (a reply under its card may change an
        answer), else nothing - as a thread reply in a channel.
        """
        if not text:
            return
        word = text.lower().strip(" ?!.")
        if not thread_ts and word in ("help", ""):
            t.outcome = "ignored"  # "help" in a DM explains; it is not a model name
            self.api("chat.postMessage", channel=channel, text=HELP)
            return
        cmd = command(text)
        fresh = word in NEW_WORDS or (cmd is not None and cmd.kind == "restart")
        if not thread_ts and fresh:
            self._start(t, team=team, channel=channel, user=user, opening="", root_ts=None,
                        surface="dm", delivery_id=event_id, actor_team=actor_team, dm=True)
            return
        key = make_dm_key(team, channel, user)
        try:
            if thread_ts:
                old = make_key(team, channel, thread_ts, user)
                if self.dialogue.load(old) is not None:
                    self._answer(t, old, text, user=user, channel=channel, root_ts=thread_ts,
                                 delivery_id=event_id, typed=True)
                    return
            conv = self.dialogue.load(key)
        except StoreUnavailable:
            self.store_down(channel, user, thread_ts, turn=t)
            return
        if conv is not None and (
            thread_ts or conv.state not in FINISHED_STATES
            or (conv.state == "done" and cmd is not None and cmd.kind in DONE_COMMANDS)
        ):
            self._answer(t, key, text, user=user, channel=channel, root_ts=None,
                         delivery_id=event_id, typed=True)
            return
        if thread_ts:
            return
        self._start(t, team=team, channel=channel, user=user, opening=text, root_ts=None,
                    surface="dm", delivery_id=event_id, actor_team=actor_team, dm=True)

    def home(self, body: dict[str, Any]) -> None:
        """App Home opened: publish "New sizing" and the person's recent sizings."""
        event = body.get("event") or {}
        if event.get("tab") not in (None, "home"):
            return
        with self.turn("home") as t:
            user = str(event.get("user") or "")
            if not user:
                return
            store_ok = True
            recent: list[dict[str, Any]] = []
            try:
                recent = self.dialogue.recent(user, limit=5)
            except StoreUnavailable:
                metrics.redis_error()
                store_ok = False
            t.outcome = "question" if store_ok else "store_unavailable"
            self.api("views.publish", user_id=user, view=cards.home_view(recent, store_ok))

    # ----------------------------------------------------------------- actions

    def click(self, body: dict[str, Any], action: dict[str, Any]) -> None:
        """An answer, nav or "change" click on a question or card: one dialogue turn."""
        with self.turn("action") as t:
            where = _where(body)
            parsed = cards.parse_block_id(action.get("block_id"))
            if parsed is None or not where.user or not where.channel:
                return
            key, version = parsed
            value = action.get("value")
            if value is None and isinstance(action.get("selected_option"), dict):
                value = action["selected_option"].get("value")
            if not value:
                return
            if self._not_key_owner(t, key, where):
                return
            delivery = f"act:{where.user}:{action.get('action_ts') or ''}" \
                if action.get("action_ts") else None
            self._answer(t, key, str(value), user=where.user, channel=where.channel,
                         root_ts=_root_of(key), version=version, delivery_id=delivery,
                         message_ts=None if where.ephemeral else where.message_ts)

    def compare(self, body: dict[str, Any], action: dict[str, Any]) -> None:
        """Compare with another GPU: re-run the same answers with that GPU, in place.

        The dialogue's own "change gpu" path is used (two turns: open the GPU question, answer
        it), so the conversation stays the single source of truth and "Change an answer" can
        switch back.
        """
        with self.turn("action") as t:
            where = _where(body)
            parsed = cards.parse_block_id(action.get("block_id"))
            option = action.get("selected_option") or {}
            gpu = option.get("value") if isinstance(option, dict) else None
            if parsed is None or not gpu or not where.user:
                return
            key, version = parsed
            if self._not_key_owner(t, key, where):
                return
            try:
                first = self.dialogue.handle(key, "change gpu", version=version, actor=where.user)
            except (Conflict, Duplicate, NotOwner, StoreUnavailable) as exc:
                self._refusal(t, exc, where, key)
                return
            except Exception:
                self._failed(t, where.channel, where.user, _root_of(key))
                return
            if _stale(first, version):
                t.outcome = "conflict"
                self.note(where.channel, where.user, STALE, _root_of(key))
                return
            self._answer(t, key, str(gpu), user=where.user, channel=where.channel,
                         root_ts=_root_of(key), version=first.version,
                         message_ts=where.message_ts)

    def _failed(self, t: Turn, channel: str, user: str, thread_ts: str | None,
                respond: Respond | None = None) -> None:
        """An unexpected error in the dialogue: log it, tell the person, keep serving."""
        t.outcome = "error"
        log.error("dialogue turn failed", exc_info=True,
                  extra={"json_fields": {"kind": t.kind, "conversation_id": t.conversation_id}})
        self.tell(channel, user, FAILED_TURN, thread_ts, respond)

    def _not_key_owner(self, t: Turn, key: str, where: _Where) -> bool:
        """A click on someone else's sizing is refused here, before the dialogue: the key
        names its owner, and an expired sizing has no stored owner left to check, so a
        stranger's "restart" would otherwise take over the owner's thread."""
        owner = _owner_of(key)
        if owner is None or owner == where.user:
            return False
        self._refusal(t, NotOwner(owner, where.user), where, key)
        return True

    def _refusal(self, t: Turn, exc: Exception, where: _Where, key: str) -> None:
        root = _root_of(key)
        if isinstance(exc, Duplicate):
            t.outcome = "duplicate"
        elif isinstance(exc, NotOwner):
            t.outcome = "not_owner"
            self.note(where.channel, where.user,
                      NOT_OWNER.format(owner=cards.user_mention(exc.owner)), root,
                      (where.channel, root) if root else None)
        elif isinstance(exc, Conflict):
            t.outcome = "conflict"
            self.note(where.channel, where.user, CONFLICT, root)
        elif isinstance(exc, StoreUnavailable):
            self.store_down(where.channel, where.user, root, turn=t)

    def _clicked_result(
        self, t: Turn, where: _Where, key: str, version: int, root: str | None, missing: str
    ) -> tuple[Conversation, Reply] | None:
        """The result a card button acts on, or None after telling the person why not.

        Only the result the clicked card shows counts: an older card (in a DM, often an
        earlier sizing's) is out of date, and a sizing without a result has nothing to act on.
        """
        try:
            conv = self.dialogue.load(key)
            reply = self.dialogue.current(key)
        except StoreUnavailable:
            self.store_down(where.channel, where.user, root, turn=t)
            return None
        if conv is not None and reply is not None and conv.version != version:
            t.outcome = "conflict"
            self.note(where.channel, where.user, OUT_OF_DATE, root)
            return None
        if conv is None or reply is None or reply.recommendation is None:
            t.outcome = "ended"
            self.note(where.channel, where.user, missing, root)
            return None
        t.from_reply(reply)
        return conv, reply

    def math(self, body: dict[str, Any], action: dict[str, Any]) -> None:
        """Show the math: in the thread for the owner (once per result), ephemeral for others."""
        with self.turn("action") as t:
            where = _where(body)
            parsed = cards.parse_block_id(action.get("block_id"))
            if parsed is None or not where.user:
                return
            key, version = parsed
            root = _root_of(key)
            found = self._clicked_result(
                t, where, key, version, root,
                "This sizing has no result any more, so there is no math to show.")
            if found is None:
                return
            conv, reply = found
            assert reply.recommendation is not None
            message = cards.math_message(reply.recommendation)
            if conv.owner != where.user:
                self.ephemeral(where.channel, where.user, message, root)
                return
            # once per result; a post Slack refused bumps the attempt, so a retry can post
            retry = f"math_retry:{conv.version}"
            attempt = conv.meta.get(retry, "0")
            if not self.claim(f"math:{key}:{conv.version}:{attempt}", where, t):
                if t.outcome == "duplicate":
                    self.note(where.channel, where.user,
                              "The math for this result is already in the thread." if root else
                              "The math for this result is already posted above.", root)
                return
            posted = self.api("chat.postMessage",
                              channel=conv.meta.get("channel") or where.channel,
                              thread_ts=root, **message)
            if posted is None:
                t.outcome = "error"
                try:
                    self.dialogue.update_meta(key, {retry: str(int(attempt) + 1)})
                except (StoreUnavailable, ValueError):
                    metrics.redis_error()
                self.note(where.channel, where.user,
                          self.cannot_post_text("the math was not posted"), root)

    def quote(self, body: dict[str, Any], action: dict[str, Any]) -> None:
        """Request a formal quote: internal summary to QUOTE_CHANNEL_ID only, audit record,
        and an ephemeral "what happens next" to the requester. Never posts in the channel."""
        with self.turn("action") as t:
            where = _where(body)
            parsed = cards.parse_block_id(action.get("block_id"))
            if parsed is None or not where.user:
                return
            key, version = parsed
            root = _root_of(key)
            internal = self.is_internal(where.user, where.actor_team, confirm=False)
            found = self._clicked_result(
                t, where, key, version, root,
                "Finish the sizing first: a quote needs its result.")
            if found is None:
                return
            conv, reply = found
            assert reply.recommendation is not None
            if conv.owner != where.user and not internal:
                t.outcome = "not_owner"
                self.note(where.channel, where.user,
                          NOT_OWNER.format(owner=cards.user_mention(conv.owner)), root,
                          (where.channel, root) if root else None)
                return
            target = self.settings.quote_channel_id
            shared = self.channel_is_shared(target) if target else None
            if not target or shared is not False:
                t.outcome = "forbidden"
                log.error("quote channel missing, shared or unreadable; request not forwarded")
                self.note(where.channel, where.user,
                          "Quote requests cannot be forwarded right now; nothing was posted. "
                          "Please ask your contact at the vendor.", root)
                return
            if not self.claim(f"quote:{key}:{conv.version}:{where.user}", where, t):
                if t.outcome == "duplicate":
                    self.note(where.channel, where.user,
                              "Your quote request for this result is already with our sales "
                              "team.", root)
                return
            try:
                record = self.dialogue.record_quote(key, where.user,
                                                    note="external" if not internal else "")
            except StoreUnavailable:
                self.store_down(where.channel, where.user, root, turn=t)
                return
            except Exception as exc:  # NotFinished or a race with a restart
                t.outcome = "error"
                log.warning("record_quote failed", extra={"json_fields": {
                    "error": type(exc).__name__}})
                self.note(where.channel, where.user,
                          "Finish the sizing first: a quote needs its result.", root)
                return
            summary = cards.quote_summary(
                record, requester=where.user, requester_team=where.actor_team,
                internal=internal, channel=conv.meta.get("channel") or where.channel,
                shared=conv.meta.get("shared") == "1" or where.shared, key=key,
                rec=reply.recommendation, answers=reply.answers,
            )
            posted = self.api("chat.postMessage", channel=target, **summary)
            if posted is None:
                t.outcome = "error"
                self.note(where.channel, where.user,
                          "Your request was recorded, but our sales channel could not be "
                          "reached; we will follow up from the record.", root)
                return
            if internal:
                text = (f"Quote request posted to {cards.channel_mention(target)} with all inputs "
                        "and numbers, and recorded in the audit trail.")
            else:
                text = ("Thanks! Our sales team has your sizing, with your answers and the numbers."
                        " A sales engineer will contact you here within one business day to "
                        "confirm the details and prepare a formal quote. Nothing else was posted "
                        "in this channel.")
            self.note(where.channel, where.user, text, root)

    def start_click(self, body: dict[str, Any], action: dict[str, Any],
                    team: str | None) -> None:
        """"Start a sizing" / "Start my own sizing": a sizing in the clicked message's thread."""
        with self.turn("action") as t:
            where = _where(body)
            if not where.user:
                return
            target = cards.parse_start_value(action.get("value"))
            channel: str = where.channel
            root: str | None = where.thread_ts or where.message_ts
            if target is not None:
                channel, root = target
            dm = is_im(channel, where.channel_name if channel == where.channel else None)
            if not channel or not (root or dm):
                return
            key = make_dm_key(team, channel, where.user) if dm else \
                make_key(team, channel, str(root), where.user)
            try:
                conv = self.dialogue.load(key)
            except StoreUnavailable:
                self.store_down(channel, where.user, root, turn=t)
                return
            if conv is not None and conv.state not in FINISHED_STATES and _unshown(conv.meta):
                self._reshow(t, key, where.user, channel)  # its question was never shown
                return
            if conv is not None and conv.state not in FINISHED_STATES:
                t.outcome = "ignored"
                self.note(channel, where.user,
                          "You already have a sizing going here: type your answer, or say "
                          "`new` to start a fresh one." if dm else
                          "You already have a sizing going in this thread: answer it there, or "
                          "click Start over on it.", None if dm else root)
                return
            # two quick clicks both saw the same (absent or finished) sizing: one starts. The
            # 10-second bucket keeps the claim from blocking a real new start later (claims
            # live a day; a sizing lost with a Redis restart would otherwise be unstartable)
            seen = conv.version if conv is not None else 0
            bucket = int(time.time() // 10)
            if not self.claim(f"start:{key}:{seen}:{bucket}", where, t):
                return
            self._start(t, team=team, channel=channel, user=where.user, opening="",
                        root_ts=root, surface="button", actor_team=where.actor_team,
                        shared=where.shared, dm=dm)

    def home_new(self, body: dict[str, Any], team: str | None) -> None:
        """"New sizing" on the App Home: the sizing opens in the person's DM with the bot."""
        with self.turn("home") as t:
            user = str((body.get("user") or {}).get("id") or "")
            if not user:
                return
            where = _where(body)  # a Home tab click has no channel: the view is the place
            if not self.claim(f"home:{user}:{int(time.time() // 10)}", where, t):
                if t.outcome == "store_unavailable":  # say it where they clicked
                    self.api("views.publish", user_id=user,
                             view=cards.home_view([], store_ok=False))
                return  # a double-click: the first one opens the sizing
            opened = self.api("conversations.open", users=user)
            channel = str(((opened or {}).get("channel") or {}).get("id") or "")
            if not channel:
                t.outcome = "error"
                self.api("views.publish", user_id=user, view=cards.home_view(
                    [], store_ok=True, problem=self.cannot_post_text("no sizing was started")))
                return
            # the DM's own key: the person's later top-level messages there answer it
            self._start(t, team=team, channel=channel, user=user, opening="", root_ts=None,
                        surface="home", actor_team=str((body.get("user") or {}).get("team_id")
                                                       or ""), dm=True)


@dataclass(frozen=True)
class _Where:
    """Where a click happened and who clicked, from a block_actions payload."""

    user: str
    actor_team: str | None
    channel: str
    channel_name: str | None
    message_ts: str | None
    thread_ts: str | None
    ephemeral: bool
    shared: bool


def _where(body: dict[str, Any]) -> _Where:
    user = body.get("user") or {}
    container = body.get("container") or {}
    message = body.get("message") or {}
    channel = (body.get("channel") or {}).get("id") or container.get("channel_id") or ""
    return _Where(
        user=str(user.get("id") or ""),
        # the clicker's own team; the payload's top-level team is the install's (notes §6)
        actor_team=str(user.get("team_id") or "") or None,
        channel=str(channel),
        channel_name=str((body.get("channel") or {}).get("name") or "") or None,
        message_ts=str(container.get("message_ts") or message.get("ts") or "") or None,
        thread_ts=str(container.get("thread_ts") or message.get("thread_ts") or "") or None,
        ephemeral=bool(container.get("is_ephemeral")),
        shared=bool(body.get("is_ext_shared_channel")),
    )


def _root_of(key: str) -> str | None:
    """The thread root of a channel sizing's key; None for a DM's (its question is top level)."""
    parts = key.split(":")
    return parts[2] if len(parts) == 4 and parts[2] and parts[2] != DM_ROOT else None


def _stale(reply: Reply, version: int | None) -> bool:
    """A click from an older message: the dialogue changed nothing and says why.

    A turn that changes the sizing never carries an error, and one that changes nothing keeps
    the stored version, so "an error, and a version other than the clicked one" is exactly a
    stale click, whatever the reply's kind (a cancelled sizing answers with ``ended``).
    """
    return (version is not None and reply.version != version
            and (reply.kind == "error" or reply.error is not None))


def _unshown(meta: dict[str, str]) -> bool:
    """The sizing's question was never shown: its first post failed (not "being posted")."""
    return bool(meta.get("unshown")) and not meta.get("ts")


def _owner_of(key: str) -> str | None:
    """The person who started the sizing at ``key`` (its last part, see :func:`make_key`)."""
    parts = key.split(":")
    return parts[3] if len(parts) == 4 and parts[3] else None


_GPUS: list[tuple[str, str]] | None = None


def compare_gpus() -> list[tuple[str, str]]:
    """(label, id) of the catalog's GPUs for the card's Compare menu, vendor-built first."""
    global _GPUS
    if _GPUS is None:
        try:
            from engine.catalog import catalog

            gpus = sorted(catalog().gpus.values(),
                          key=lambda g: (not g.vendor_builds, -g.memory_gb, g.name))
            _GPUS = [(f"{g.name} ({g.memory_gb:.0f} GB)", g.id) for g in gpus]
        except Exception:
            log.warning("GPU catalog unavailable for Compare", exc_info=True)
            return []
    return _GPUS


__all__ = ["HELP", "Turns", "compare_gpus", "escape", "is_dm_key", "make_dm_key", "make_key"]
