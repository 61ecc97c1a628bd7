"""What the bot already wrote in Slack: each message carries its own id, and can be found again.

Why: a ``chat.postMessage`` whose outcome is unknown (the connection reset
after Slack did the work, a timeout, a 5xx, an answer that came too late) must not be blindly
retried: that is how a quote summary, a math post or a root message appeared twice. So every
message the bot posts carries its own id in Slack's **message metadata**
(``{"event_type": "gpu_sizing_message", "event_payload": {"id": <id>}}``,
https://docs.slack.dev/messaging/message-metadata), and before posting again the bot looks for
it: ``conversations.replies`` in the thread (or ``conversations.history`` of the channel) with
``include_all_metadata=true``, bounded by time (``oldest``: the delivery's own time, less a
margin) and by pages. Files have no metadata: a brief is found again by its file names in the
same thread or channel.

The ids (:func:`message_id`) name what a message *is*, so every attempt of a turn, on any
worker, names it the same way: ``root:<delivery>``, ``start:<delivery>``, ``help:<delivery>``,
``sizing:<conversation>:<generation>`` (the question/card message; a new generation only when
the old message cannot be updated), ``math:<conversation>:<version>``,
``quote:<conversation>:<version>:<user>`` and ``quote-note:…`` (``docs/slack.md`` §9).

A ``chat.update`` whose answer was lost is checked the same way: the sizing's message carries
the version it shows (``"v"`` in its metadata payload), read back with :func:`read_message`.

Lookups are rare on purpose (conversations.history is heavily rate limited for apps outside
the Marketplace: docs/slack.md §5): only after an unknown outcome, or when a turn is a replay.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

EVENT_TYPE = "gpu_sizing_message"
LOOKBACK_MARGIN_S = 120.0  # Slack's clock vs ours, and a delivery recorded before its retry
MAX_PAGES = 5
PAGE = 200

Call = Callable[..., dict[str, Any] | None]


def message_id(kind: str, *parts: object) -> str:
    """The id a message of ``kind`` for ``parts`` carries (see the module docstring)."""
    return ":".join([kind, *(str(p) for p in parts)])


def metadata(mid: str, **extra: str) -> dict[str, Any]:
    """The metadata of a message whose id is ``mid`` (``extra``: facts a retry needs back)."""
    return {"event_type": EVENT_TYPE, "event_payload": {"id": mid, **extra}}


def payload_of(message: dict[str, Any] | None) -> dict[str, Any] | None:
    """The metadata payload of a message of ours (None for anyone else's)."""
    meta = (message or {}).get("metadata")
    if not isinstance(meta, dict) or meta.get("event_type") != EVENT_TYPE:
        return None
    payload = meta.get("event_payload")
    return dict(payload) if isinstance(payload, dict) else None


def id_of(message: dict[str, Any]) -> str | None:
    """The id a message of ours carries (None for anyone else's)."""
    ident = (payload_of(message) or {}).get("id")
    return ident if isinstance(ident, str) else None


def _pages(call: Call, channel: str, thread_ts: str | None,
           oldest: float) -> Iterable[dict[str, Any]] | None:
    """The messages of the thread (or channel) since ``oldest``; None when they cannot be
    read (the caller raised for a passing failure already, through ``call``)."""
    cursor: str | None = None
    out: list[dict[str, Any]] = []
    for _ in range(MAX_PAGES):
        args: dict[str, Any] = {"channel": channel, "oldest": f"{max(0.0, oldest):.6f}",
                                "include_all_metadata": True, "limit": PAGE}
        if cursor:
            args["cursor"] = cursor
        if thread_ts:
            data = call("conversations.replies", ts=thread_ts, **args)
        else:
            data = call("conversations.history", **args)
        if data is None:
            return out or None
        found = data.get("messages")
        out += [m for m in found if isinstance(m, dict)] if isinstance(found, list) else []
        meta = data.get("response_metadata")
        cursor = meta.get("next_cursor") if isinstance(meta, dict) else None
        if not cursor or not data.get("has_more", True):
            break
    return out


def find_message(call: Call, channel: str, thread_ts: str | None, mid: str,
                 since: float) -> dict[str, Any] | None:
    """The message carrying ``mid`` posted in the thread (channel) since ``since``, or None."""
    for message in _pages(call, channel, thread_ts, since - LOOKBACK_MARGIN_S) or ():
        if id_of(message) == mid:
            return message
    return None


def find_files(call: Call, channel: str, thread_ts: str | None, names: set[str],
               since: float) -> list[str] | None:
    """The ids of files named ``names`` shared in the thread (channel) since ``since`` as one
    message (a brief's PDF and Markdown), or None when no such message is there."""
    for message in _pages(call, channel, thread_ts, since - LOOKBACK_MARGIN_S) or ():
        files = message.get("files")
        if not isinstance(files, list):
            continue
        shared = {str(f.get("name")): str(f.get("id")) for f in files if isinstance(f, dict)}
        if names and names <= set(shared):
            return [shared[n] for n in sorted(names)]
    return None


def read_message(call: Call, channel: str, thread_ts: str | None,
                 ts: str) -> dict[str, Any] | None:
    """The message ``ts`` as Slack has it now (with its metadata), or None: to tell whether an
    update whose answer was lost landed."""
    args: dict[str, Any] = {"channel": channel, "oldest": ts, "latest": ts, "inclusive": True,
                            "include_all_metadata": True, "limit": 1}
    if thread_ts and thread_ts != ts:
        data = call("conversations.replies", ts=thread_ts, **{**args, "limit": PAGE})
    else:
        data = call("conversations.history", **args)
    found = (data or {}).get("messages")
    for message in found if isinstance(found, list) else []:
        if isinstance(message, dict) and message.get("ts") == ts:
            return message
    return None
