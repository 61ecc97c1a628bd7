"""What Slack delivered, as typed plain data built once per request: the :data:`Delivery`.

Why: a listener's only job is to turn Bolt's request into a ``Delivery`` and hand it to
:func:`bot.slack.pipeline.Pipeline.dispatch`; every flow works on these fields and never
reads a payload again. A delivery is JSON-serialisable (``delivery.model_dump_json()`` /
:func:`parse`): the durable turn queue sits between the listener and the dispatch
(``bot/slack/listeners/deliver.py``) without the flows knowing. It carries no Bolt object (a
slash command's ``respond`` becomes its ``response_url``).

Fields come from Bolt's ``context`` (``user_id``, ``channel_id``, ``thread_ts``,
``actor_team_id``, ``bot_user_id``, ``team_id``, ``authorize_result``) with two exceptions,
each for a documented reason:

* the **install team** (the keys' namespace) is the installation's team (``authorize_result``,
  i.e. ``auth.test``), not a payload's ``team_id``, which in Slack Connect can be the actor's
  workspace and would split one sizing's turns across two keys (docs/slack.md §6);
* a **click's (or a form's) actor team** is the clicker's own ``user.team_id``: for
  interactivity Bolt's ``actor_team_id`` falls back to ``team.id``, the workspace of the
  installation, which would make an external customer look internal (docs/slack.md §6).

Every delivery has an **id** stable across Slack's retries, the durable queue's dedupe key
(``bot/slack/listeners/deliver.py``): an event's ``event_id``, a slash command's ``trigger_id``
(unique per invocation, so a replayed signed command is the same delivery), a click's user and
``action_ts``, a form's view id and submitter (a view is one person's: someone else replaying
it cannot use up theirs); a payload without its natural id (malformed, or from an older
Slack) gets a digest of its whole body, which a retry repeats byte for byte.

A message that shares files (subtype ``file_share``, or any message with ``files``) keeps what
Slack says of each file (:class:`SharedFile`: id, name, type, size, private URLs), never the
file's content: a queue entry stays small, and the turn downloads the file when it applies it
(``bot/slack/flows/files.py``).

What can never be an answer (other bots, our own messages, edits and deletes, channel chatter
outside a thread, a reply that mentions us, which ``app_mention`` handles) is dropped here,
before it counts as a turn: with ``channels:history`` every message of every channel the bot
is in arrives.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from slack_bolt import BoltContext

from bot.brief.content import Contact
from bot.slack.escape import typed

_MENTION = re.compile(r"<@[UW][A-Z0-9]+(?:\|[^>]*)?>")
# message subtypes that are a person's new message (as Bolt's app.message, docs/slack.md §7)
_NEW_MESSAGE_SUBTYPES = (None, "thread_broadcast", "file_share")

ActionKind = Literal["answer", "change", "compare", "math", "quote", "export", "start",
                     "home_new", "charts"]
#: Modal forms the bot opens (their callback ids are in ``bot/slack/cards/ids.py``).
ViewKind = Literal["quote"]
ChannelType = Literal["im", "mpim", "channel", "group"]


class _Delivery(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str | None = Field(
        default=None, description="the delivery's own id (event_id, trigger, action_ts): dedupe")
    team: str | None = Field(default=None, description="the installation's team (keys' namespace)")
    user: str = Field(description="who acted")
    actor_team: str | None = Field(default=None, description="the actor's own team, as stated")


class SharedFile(BaseModel):
    """A file shared with a message, as Slack describes it (``files[]`` of the event, or
    ``files.info``): enough to choose and download it, never its content."""

    model_config = ConfigDict(frozen=True)

    id: str
    name: str = ""
    mimetype: str = ""
    filetype: str = Field(default="", description="Slack's type: json, text, png, ...")
    mode: str = Field(default="", description="hosted, snippet, ... or file_access")
    size: int | None = Field(default=None, description="bytes, as Slack states it")
    url_private: str | None = None
    url_private_download: str | None = None
    file_access: str = Field(
        default="", description="check_file_info: the event says no more (Slack Connect), "
        "files.info does")

    @property
    def described(self) -> bool:
        """The event described the file (else only ``files.info`` can)."""
        return self.file_access != "check_file_info" and bool(
            self.url_private_download or self.url_private)


MAX_FILES = 10  # Slack shares at most 10 files in one message


class CommandDelivery(_Delivery):
    """``/gpu-sizing [help|post|status|what you know]``."""

    kind: Literal["command"] = "command"
    channel: str
    im: bool = Field(description="typed in the person's DM with the bot")
    text: str = Field(description="what followed the command, decoded, controls removed")
    response_url: str | None = None


class MentionDelivery(_Delivery):
    """``@GPU Sizing …`` in a channel or group DM."""

    kind: Literal["mention"] = "mention"
    channel: str
    ts: str
    thread_ts: str | None = None
    text: str = Field(description="the text without mentions, decoded, controls removed")
    shared: bool = False
    files: tuple[SharedFile, ...] = Field(default=(), description="shared with the mention")


class MessageDelivery(_Delivery):
    """A person's message: in their DM with the bot, or a reply in a thread elsewhere."""

    kind: Literal["message"] = "message"
    channel: str
    channel_type: ChannelType
    ts: str
    thread_ts: str | None = None
    text: str
    shared: bool = False
    files: tuple[SharedFile, ...] = Field(default=(), description="shared with the message")

    @property
    def im(self) -> bool:
        return self.channel_type == "im"


class ActionDelivery(_Delivery):
    """A click on one of the bot's messages (or on its App Home)."""

    kind: Literal["action"] = "action"
    action: ActionKind
    channel: str | None = Field(default=None, description="None on the App Home tab")
    im: bool = False
    message_ts: str | None = None
    thread_ts: str | None = None
    ephemeral: bool = False
    shared: bool = False
    block_id: str | None = None
    value: str | None = Field(default=None, description="a button's value or the picked option")
    trigger_id: str | None = Field(
        default=None, description="opens a modal (views.open) within 3 s of the click")


class ViewSubmissionDelivery(_Delivery):
    """A modal form submitted, already read and checked by its listener (the listener answers
    bad input with ``response_action: errors`` before any delivery exists)."""

    kind: Literal["view_submission"] = "view_submission"
    view: ViewKind
    view_id: str = Field(description="the modal's id: one submission per view is applied")
    metadata: str = Field(description="the modal's private_metadata, verified by the flow")
    contact: Contact


class HomeDelivery(_Delivery):
    """The App Home tab opened."""

    kind: Literal["home_opened"] = "home_opened"


Delivery = Annotated[
    CommandDelivery | MentionDelivery | MessageDelivery | ActionDelivery | HomeDelivery
    | ViewSubmissionDelivery,
    Field(discriminator="kind"),
]
_ADAPTER: TypeAdapter[Delivery] = TypeAdapter(Delivery)


def parse(data: str | bytes) -> Delivery:
    """A delivery from its JSON (``model_dump_json``): what a queue consumer calls."""
    return _ADAPTER.validate_json(data)


# -- from Bolt's request -------------------------------------------------------------------


def install_team(context: BoltContext) -> str | None:
    """The installation's team (see the module docstring), else the context's."""
    result = context.authorize_result
    team = result.team_id if result is not None else None
    return team or context.team_id or None


def _str(value: Any) -> str | None:
    return str(value) if isinstance(value, str | int) and str(value) else None


def shared_file(raw: Any) -> SharedFile | None:
    """A Slack file object (an event's ``files[]``, ``files.info``'s ``file``) as plain data;
    None without an id. Strings are clipped: a queue entry stays small."""
    if not isinstance(raw, dict) or not _str(raw.get("id")):
        return None

    def clip(name: str, n: int = 255) -> str:
        value = raw.get(name)
        return str(value)[:n] if isinstance(value, str) else ""

    size = raw.get("size")
    return SharedFile(
        id=clip("id", 64), name=clip("name") or clip("title"), mimetype=clip("mimetype", 100),
        filetype=clip("filetype", 40), mode=clip("mode", 40),
        size=size if isinstance(size, int) and not isinstance(size, bool) else None,
        url_private=clip("url_private", 2000) or None,
        url_private_download=clip("url_private_download", 2000) or None,
        file_access=clip("file_access", 40))


def _id(natural: str | None, kind: str, body: dict[str, Any]) -> str:
    """``natural`` (prefixed), else a digest of the whole body (see the module docstring)."""
    if natural:
        return natural
    raw = json.dumps(body, sort_keys=True, separators=(",", ":"), default=str)
    return f"{kind}:h:{hashlib.sha256(raw.encode('utf-8')).hexdigest()[:32]}"


def is_dm(channel: str | None, name: Any = None) -> bool:
    """A direct message with the bot, from a payload without ``channel_type``: a slash
    command's ``channel_name`` / a click's ``channel.name`` is "directmessage"; DM ids start D."""
    return name == "directmessage" or bool(channel and channel.startswith("D"))


def command(body: dict[str, Any], context: BoltContext) -> CommandDelivery | None:
    user, channel = context.user_id, context.channel_id
    if not user or not channel:
        return None
    return CommandDelivery(
        id=_id(f"cmd:{body['trigger_id']}" if _str(body.get("trigger_id")) else None, "cmd",
               body),
        team=install_team(context), user=user, actor_team=context.actor_team_id,
        channel=channel, im=is_dm(channel, body.get("channel_name")),
        text=typed(str(body.get("text") or "")), response_url=context.response_url,
    )


def mention(body: dict[str, Any], context: BoltContext) -> MentionDelivery | None:
    event = body.get("event") or {}
    user, channel, ts = context.user_id, context.channel_id, _str(event.get("ts"))
    if not user or not channel or not ts or event.get("bot_id"):
        return None
    return MentionDelivery(
        id=_id(_str(body.get("event_id")), "event", body), team=install_team(context), user=user,
        actor_team=context.actor_team_id, channel=channel, ts=ts, thread_ts=context.thread_ts,
        text=typed(_MENTION.sub(" ", str(event.get("text") or ""))),
        shared=body.get("is_ext_shared_channel") is True,
        files=tuple(f for f in map(shared_file, _files(event)) if f is not None),
    )


def message(body: dict[str, Any], context: BoltContext) -> MessageDelivery | None:
    """A message event that may be an answer, or None for what never is (module docstring)."""
    event = body.get("event") or {}
    if event.get("subtype") not in _NEW_MESSAGE_SUBTYPES:
        return None
    user, channel, ts = context.user_id, context.channel_id, _str(event.get("ts"))
    if not user or not channel or not ts or event.get("bot_id") or event.get("bot_profile"):
        return None
    kind = event.get("channel_type")
    channel_type: ChannelType = kind if kind in ("im", "mpim", "group") else "channel"
    if channel_type != "im" and not context.thread_ts:
        return None  # top-level chatter in a channel or group DM
    me = context.bot_user_id
    if me and user == me:
        return None
    raw = str(event.get("text") or "")
    if channel_type != "im" and me and f"<@{me}" in raw:
        return None  # app_mention answers it
    return MessageDelivery(
        id=_id(_str(body.get("event_id")), "event", body), team=install_team(context), user=user,
        actor_team=context.actor_team_id, channel=channel, channel_type=channel_type, ts=ts,
        thread_ts=context.thread_ts, text=typed(_MENTION.sub(" ", raw)),
        shared=body.get("is_ext_shared_channel") is True,
        files=tuple(f for f in map(shared_file, _files(event)) if f is not None),
    )


def _files(event: dict[str, Any]) -> list[Any]:
    files = event.get("files")
    return files[:MAX_FILES] if isinstance(files, list) else []


def action(body: dict[str, Any], context: BoltContext, kind: ActionKind) -> ActionDelivery | None:
    """A click; ``kind`` is what the listener matched (the action id says which button)."""
    actions = body.get("actions") or []
    clicked = actions[0] if actions and isinstance(actions[0], dict) else {}
    user = context.user_id
    if not user:
        return None
    container = body.get("container") or {}
    channel = context.channel_id or _str(container.get("channel_id"))
    value = clicked.get("value")
    option = clicked.get("selected_option")
    if value is None and isinstance(option, dict):
        value = option.get("value")
    action_ts = _str(clicked.get("action_ts"))
    return ActionDelivery(
        id=_id(f"act:{user}:{action_ts}" if action_ts else None, "act", body),
        team=install_team(context), user=user,
        actor_team=_str((body.get("user") or {}).get("team_id")),
        action=kind, channel=channel,
        im=is_dm(channel, (body.get("channel") or {}).get("name")),
        message_ts=_str(container.get("message_ts")) or _str((body.get("message") or {}).get("ts")),
        thread_ts=context.thread_ts or _str(container.get("thread_ts")),
        ephemeral=container.get("is_ephemeral") is True,
        shared=body.get("is_ext_shared_channel") is True,
        block_id=_str(clicked.get("block_id")), value=_str(value),
        trigger_id=_str(body.get("trigger_id")),
    )


def home_opened(body: dict[str, Any], context: BoltContext) -> HomeDelivery | None:
    event = body.get("event") or {}
    if event.get("tab") not in (None, "home") or not context.user_id:
        return None
    return HomeDelivery(id=_id(_str(body.get("event_id")), "event", body),
                        team=install_team(context),
                        user=context.user_id, actor_team=context.actor_team_id)


def view_submission(body: dict[str, Any], context: BoltContext, view: ViewKind,
                    contact: Contact) -> ViewSubmissionDelivery | None:
    """A submitted form; ``contact`` is what its listener read and validated."""
    modal = body.get("view") or {}
    view_id = _str(modal.get("id"))
    user = context.user_id or _str((body.get("user") or {}).get("id"))
    if not view_id or not user:
        return None
    return ViewSubmissionDelivery(
        id=f"view:{view_id}:{user}", team=install_team(context), user=user,
        actor_team=_str((body.get("user") or {}).get("team_id")), view=view, view_id=view_id,
        metadata=str(modal.get("private_metadata") or ""), contact=contact,
    )
