"""Structured logs: one JSON object per line on stderr, with secrets scrubbed on the way out.

Why:

* Log collectors (Docker, Kubernetes, Loki, CloudWatch...) read stderr line by line; one JSON
  object per line is parsed without per-deployment regexes.
* A token in a log is a leaked token. Redaction happens in a handler *filter* (so it applies to
  every record that reaches our handler, whichever library logged it, including slack_sdk's
  debug dumps) and once more on the final line (exception tracebacks are formatted after
  filters run). Patterns cover Slack tokens (``xox?-``, ``xapp-``, ``xoxe.`` refresh tokens);
  the signing secret has no recognisable shape, so its literal value (and the tokens') is read
  from the environment at setup and registered with :func:`add_secret`.
* Customers in shared channels type free text; that text stays out of info-level logs.
  Bolt's own log of a request that failed its signature check quotes the raw body; the filter
  replaces that body with its length.
  :func:`log_turn` only lets through values that look like identifiers; free text is reduced
  to its length, and keys that are known to carry typed text are reduced even when short.
  The full values go to a separate DEBUG line, which production does not enable.
* A turn line can be traced to its workspace and channel without naming them: the team and
  channel ids are replaced by a **keyed hash** (:func:`hash_id`: HMAC-SHA256, 16 hex digits),
  the same id giving the same hash on every worker and pod of a deployment, so an operator can
  follow one channel's turns, and nobody holding only the logs can tell which channel it is or
  test a guess (the key is a secret). The key is ``LOG_HASH_KEY`` when set, else derived from
  the signing secret (then the bot token): rotating that secret changes the hashes; set
  ``LOG_HASH_KEY`` to keep them across a rotation. To find a known channel's hash, run
  ``python -m bot audit hash C0123ABCD`` where the bot runs (``bot/audit.py``).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import hmac
import json
import logging
import os
import re
import sys
import threading
from typing import Any

__all__ = [
    "JsonFormatter",
    "RedactingFilter",
    "add_secret",
    "hash_id",
    "json_handler",
    "log_turn",
    "redact",
    "set_hash_key",
    "setup_logging",
]

TURN_LOGGER = "bot.turn"

_TOKEN_RE = re.compile(
    # bot/user/app/refresh tokens: xoxb-, xoxp-, xoxa-, xoxr-, xoxe.xoxp-...
    r"(?:xoxe\.)?xox[a-z]-[A-Za-z0-9-]+"
    # app-level tokens (Socket Mode)
    r"|xapp-[A-Za-z0-9-]+"
    # signing_secret=..., "signing_secret": "..."
    r"|(?i:signing[_-]?secret)[\"']?\s*[:=]\s*[\"']?[^\s\"',}]+"
    # a slash command's or a click's response_url (anyone holding it may post): its path
    r"|/(?:commands|actions)/[A-Za-z0-9]+/[0-9]+/[A-Za-z0-9_-]+"
)
_SECRET_ENV = ("SLACK_SIGNING_SECRET", "SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_CLIENT_SECRET",
               "LOG_HASH_KEY")
# Where the id-hashing key comes from, in order (the module docstring says why).
_HASH_KEY_ENV = ("LOG_HASH_KEY", "SLACK_SIGNING_SECRET", "SLACK_BOT_TOKEN", "SLACK_APP_TOKEN")
_HASH_CONTEXT = b"gpu-sizing-bot log ids v1"
_HASH_DIGITS = 16
_REDACTED = "[REDACTED]"
_secrets: set[str] = set()
_secrets_lock = threading.Lock()
# Until setup_logging() reads the environment: a random key (hashes stable in this process only).
_hash_key = hmac.new(os.urandom(32), _HASH_CONTEXT, hashlib.sha256).digest()

# A value at info level must look like an identifier (ids, step names, verdicts, numbers-as-text).
_SAFE_VALUE_RE = re.compile(r"^[A-Za-z0-9_.:/@+#-]{0,80}$")
# Keys that carry what a person typed; never shown at info level whatever they look like.
_TEXT_KEYS = frozenset(
    {"text", "answer", "typed", "message", "input", "raw", "body", "payload", "value", "query"}
)


# Bolt logs the whole raw body of a request whose signature fails, at INFO. With a wrong or
# rotated signing secret that is every customer's request, typed text included: keep the size.
_BOLT_BODY_RE = re.compile(r"^(Invalid request signature detected .*?, body: )(.*)\)$", re.S)


def _scrub_bodies(message: str) -> str:
    m = _BOLT_BODY_RE.match(message)
    if m:
        return f"{m.group(1)}<{len(m.group(2))} chars>)"
    return message


def add_secret(value: str | None) -> None:
    """Register a literal secret (e.g. the signing secret) to be redacted from every log line."""
    if value and len(value) >= 6:
        with _secrets_lock:
            _secrets.add(value)


def set_hash_key(secret: str) -> None:
    """Derive the id-hashing key from ``secret`` (a dedicated sub-key: the secret itself never
    signs anything here, and the hashes say nothing about it)."""
    global _hash_key
    if secret:
        _hash_key = hmac.new(secret.encode(), _HASH_CONTEXT, hashlib.sha256).digest()


def hash_id(value: object) -> str | None:
    """The keyed hash of a Slack id (team, channel) for logs; None for no id."""
    if value is None or value == "":
        return None
    digest = hmac.new(_hash_key, str(value).encode(), hashlib.sha256).hexdigest()
    return digest[:_HASH_DIGITS]


def redact(text: str) -> str:
    """Replace anything that looks like a Slack token or a registered secret."""
    for secret in tuple(_secrets):
        if secret in text:
            text = text.replace(secret, _REDACTED)
    return _TOKEN_RE.sub(_REDACTED, text)


class RedactingFilter(logging.Filter):
    """Scrub the rendered message of every record before any formatter sees it."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a bad %-format must not lose the record
            message = str(record.msg)
        record.msg = redact(_scrub_bodies(message))
        record.args = None
        fields = getattr(record, "json_fields", None)
        if isinstance(fields, dict):
            record.json_fields = {
                k: redact(v) if isinstance(v, str) else v for k, v in fields.items()
            }
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ts, level, logger, pid, msg, structured fields, exc."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": _dt.datetime.fromtimestamp(record.created, tz=_dt.UTC).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname,
            "logger": record.name,
            "pid": record.process,
            "msg": record.getMessage(),
        }
        fields = getattr(record, "json_fields", None)
        if isinstance(fields, dict):
            for key, value in fields.items():
                entry.setdefault(key, value)
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["exc"] = record.exc_text
        return redact(json.dumps(entry, default=str, ensure_ascii=False))


_HANDLER_MARK = "_bot_json_handler"


def json_handler(stream: Any = None) -> logging.Handler:
    """A stderr handler with the JSON formatter and the redacting filter (used by serve.py too)."""
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(RedactingFilter())
    setattr(handler, _HANDLER_MARK, True)
    return handler


def setup_logging(level: str = "INFO") -> None:
    """Send every logger's records as redacted JSON lines to stderr. Safe to call twice."""
    for name in _SECRET_ENV:
        add_secret(os.environ.get(name))
    key = next((os.environ[n] for n in _HASH_KEY_ENV if os.environ.get(n)), "")
    set_hash_key(key)
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, _HANDLER_MARK, False)]:
        root.removeHandler(old)
    root.addHandler(json_handler())
    root.setLevel(_level(level))
    # slack_sdk logs full request/response bodies at DEBUG; keep them out unless asked for.
    # transitions logs every callback of every turn at INFO: noise, not operations.
    if root.level > logging.DEBUG:
        logging.getLogger("slack_sdk").setLevel(logging.INFO)
        logging.getLogger("slack_bolt").setLevel(logging.INFO)
        logging.getLogger("transitions").setLevel(logging.WARNING)
    logging.captureWarnings(True)


def _level(level: str) -> int:
    value = logging.getLevelName(str(level).upper())
    return value if isinstance(value, int) else logging.INFO


def _info_safe(key: str, value: object) -> object:
    if value is None or isinstance(value, bool | int | float):
        return value
    text = str(value)
    if key.lower() in _TEXT_KEYS or not _SAFE_VALUE_RE.match(text):
        return f"<{len(text)} chars>"
    return text


def log_turn(
    *,
    conversation_id: str,
    step: str,
    outcome: str,
    duration_ms: float,
    kind: str,
    team: object = None,
    channel: object = None,
    **extra: object,
) -> None:
    """Log one turn as one JSON line at INFO; typed text only ever on a DEBUG line.

    ``team`` and ``channel`` are the raw Slack ids: only their keyed hashes are written
    (``team_hash``, ``channel_hash``), on either line."""
    logger = logging.getLogger(TURN_LOGGER)
    fields: dict[str, object] = {
        "event": "turn",
        "conversation_id": str(conversation_id),
        "step": str(step),
        "outcome": str(outcome),
        "kind": str(kind),
        "duration_ms": round(float(duration_ms), 2),
        "team_hash": hash_id(team),
        "channel_hash": hash_id(channel),
    }
    for key, value in extra.items():
        if key not in fields:
            fields[key] = _info_safe(key, value)
    logger.info("turn", extra={"json_fields": fields})
    if logger.isEnabledFor(logging.DEBUG):
        raw = {k: v for k, v in extra.items() if fields.get(k) != v}
        if raw:
            logger.debug(
                "turn detail",
                extra={"json_fields": {"event": "turn_detail",
                                       "conversation_id": str(conversation_id), **raw}},
            )
