"""The closed set of values of every metric label, and the histograms' buckets.

Why a module of its own: a label value that comes from outside (a header, a new kind a face
starts using, a Redis command nobody expected) must never grow the number of series (each
series costs Prometheus memory for as long as it is kept). Every label therefore has its set
here, anything else is counted as :data:`OTHER`, and ``bot/ops/metrics.py`` creates every
series of every set at start (value 0), so a ``rate()`` over a label that has not seen an
event yet is 0, not an empty result (on which an alert never fires). A face that adds a kind
or an outcome adds it here.
"""

from __future__ import annotations

OTHER = "other"

# Kinds of turn and outcomes are the Slack face's (bot/slack/pipeline.py, bot/slack/flows/).
KINDS = frozenset({"command", "action", "message", "mention", "event", "home", "view",
                   "shortcut", "dm"})
OUTCOMES = frozenset({"ok", "question", "result", "ended", "error", "conflict", "duplicate",
                      "forbidden", "ignored", "not_owner", "store_unavailable", "queued",
                      "refused", "stale", "file_unread"})
# The engine's verdicts (engine/result.py).
VERDICTS = frozenset({"single_node", "single_node_int4", "replicas", "multi_node", "frontier"})
# The Web API calls the bot makes (bot/slack/api.py; files_upload_v2 is slack_sdk's upload of
# the quote brief, three HTTP calls timed as one) and the slash command's response_url.
METHODS = frozenset({"auth.test", "chat.postMessage", "chat.update", "chat.delete",
                     "chat.postEphemeral", "chat.getPermalink", "conversations.info",
                     "conversations.open", "conversations.history", "conversations.replies",
                     "users.info", "team.info", "views.publish", "views.open", "views.update",
                     "files_upload_v2", "files.info", "files.download", "response_url"})
# Slack's documented X-Slack-Retry-Reason values plus our own rate-limit retry.
RETRY_REASONS = frozenset({"http_timeout", "too_many_redirects", "connection_failed",
                           "ssl_error", "http_error", "unknown_error", "ratelimited"})
# Why the front refused a request before Bolt saw it (bot/ops/asgi.py, bot/ops/uvworker.py).
REFUSALS = frozenset({"unsigned", "bad_signature", "stale_timestamp", "malformed",
                      "too_large", "body_timeout", "header_timeout", "method"})
PERSISTENCE_MODES = ("aof", "rdb", "none", "unknown")  # dialogue/store/health.py
# The Redis commands the store, the queue and the health probe send (lower case, a
# subcommand joined with "_"), and the scripts by name (bot/ops/redistiming.py names them).
REDIS_COMMANDS = frozenset({
    "hgetall", "hget", "hdel", "hset", "get", "set", "del", "exists", "expire", "scan",
    "xadd", "xrange", "xrevrange", "xdel", "xtrim", "xlen", "xreadgroup", "xautoclaim", "xack",
    "xgroup_create", "xinfo_groups", "xpending", "lrange", "llen", "lrem", "ping", "config_get",
    "wait", "info", "cluster_slots", "cluster_shards", "script_load", "sentinel",
    "script:cas", "script:set_meta", "script:submit", "script:ack", "script:audit_append",
    "script:audit_trim", "script:recent_put", "script:other",
})

# Seconds. Slack gives 3 s to acknowledge; the buckets around 1-3 s show how close we get.
TURN_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0)
# A Redis round trip is well under a millisecond on a LAN; connect.py gives up after ~1.5 s.
# A blocking queue read (xreadgroup) waits up to its BLOCK of 1 s when there is nothing to do.
REDIS_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
# Slack answers in 50-500 ms; slack_sdk's retries (429 Retry-After, resets) make it seconds.
SLACK_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 30.0)


def closed(value: object, allowed: frozenset[str]) -> str:
    """``value`` if it is one of ``allowed``, else ``other``: a label never grows the series."""
    text = str(value) if value else ""
    return text if text in allowed else OTHER


def every(allowed: frozenset[str]) -> list[str]:
    """Every value a label may take (its set and ``other``), in a stable order."""
    return sorted(allowed | {OTHER})
