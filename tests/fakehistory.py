"""``conversations.history`` and ``conversations.replies`` of the fake Slack, as Slack answers them.

Why: the bot finds what it already posted by the id each message carries in its metadata
(``bot/slack/written.py``), so the fake must list a channel's (or a thread's) messages the way
Slack does: newest first for a channel, oldest first for a thread (its parent included),
``oldest``, ``latest``, ``inclusive`` and ``limit`` honoured, ``metadata`` only with
``include_all_metadata``, and shared files as messages with ``files`` (one message per share,
with its ts).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.fakeslack import FakeSlack


def listing(fake: FakeSlack, p: dict[str, Any], thread: str | None) -> dict[str, Any]:
    """conversations.history (``thread`` None) or .replies of the thread ``thread``."""
    channel = str(p.get("channel", ""))
    with fake._lock:
        here = dict(fake.messages.get(channel, {}))
    if channel not in fake.messages and channel not in fake.channels \
            and not channel.startswith("D"):
        return {"ok": False, "error": "channel_not_found"}
    shared: dict[str, dict[str, Any]] = {}
    for f in fake.files.shared(channel):
        if not f.get("ts"):
            continue
        entry = shared.setdefault(str(f["ts"]), {
            "ts": f["ts"], "thread_ts": f.get("thread_ts"), "files": [],
            "user": fake.bot_user_id, "bot_id": fake.bot_id, "text": ""})
        entry["files"].append({"id": f["id"], "name": f["filename"], "title": f.get("title")})
    found = list(here.values()) + list(shared.values())
    if thread is None:
        found = [m for m in found if m.get("thread_ts") in (None, m.get("ts"))]
    else:
        found = [m for m in found if m.get("ts") == thread or m.get("thread_ts") == thread]
    oldest = float(p.get("oldest") or 0)
    latest = float(p.get("latest") or "inf")
    inclusive = str(p.get("inclusive", "")).lower() in ("1", "true")
    found = [m for m in found if m.get("ts") == thread or (
        (float(m["ts"]) >= oldest if inclusive else float(m["ts"]) > oldest)
        and (float(m["ts"]) <= latest if inclusive else float(m["ts"]) < latest))]
    found.sort(key=lambda m: float(m["ts"]), reverse=thread is None)
    keep_meta = str(p.get("include_all_metadata", "")).lower() in ("1", "true")
    limit = int(p.get("limit") or 100)
    out = []
    for m in found[:limit]:
        m = {k: v for k, v in m.items() if k != "metadata" or keep_meta}
        out.append(m)
    return {"ok": True, "messages": out, "has_more": len(found) > limit,
            "response_metadata": {"next_cursor": ""}}
