"""The ids the bot puts in its messages and reads back from clicks, signed by the server.

Action ids name the button (the listeners match them, ``bot/slack/listeners/actions``).
An actions block's id carries the conversation key and version
(``gs2|<version>|<n>|<key>|<signature>``): a click says which sizing and which turn it answers,
so a stale or repeated click is recognised; a fresh block id per version is also what Slack
asks for on updated messages (docs/slack.md §3, chat.update). A start button's value says
where the new sizing's thread is, and a quote form's private metadata which sizing it quotes
(``bot/slack/cards/quote_modal.py``).

Why signed: all of these come back from a client that could forge them
(another workspace's channel, someone else's key, a version that was never shown). So every
value the server puts in a message carries an HMAC-SHA256 of its content under a server
secret (:func:`use_secret`, set once by ``bot/slack/app.py`` from ``CLIENT_DATA_SECRET`` or
derived from the signing secret), truncated to 128 bits, checked with ``hmac.compare_digest``
before anything is parsed further. Unsigned, forged or malformed values read as None and change
nothing; parsing is strict (only ASCII digits for a version, only well-formed Slack ids) and
never raises.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import secrets

from bot.slack.cards.parts import MAX_ID
from bot.slack.keys import ConversationKey

BLOCK_ID_PREFIX = "gs2"
A_ANSWER = "gs_answer"  # gs_answer_<n>: a choice button; gs_answer_select_<n>: the choice menu
A_NAV = "gs_nav"  # gs_nav_<kind>: back / help / change_<slot> / restart / cancel
A_RESTART = f"{A_NAV}_restart"
A_CHANGE = "gs_change"  # the card's menu of answers to change
A_COMPARE = "gs_compare"  # the card's menu of other GPUs
A_MATH = "gs_math"
A_QUOTE = "gs_quote"
A_CHARTS = "gs_charts"  # "Show the charts": the PNGs in the thread, once per version
A_EXPORT = "gs_export"  # the card's overflow menu: export the brief (vendor team only)
V_QUOTE = "gs_quote_form"  # the quote request modal's callback id (its submission)
A_START = "gs_start"  # start a new sizing (start message, "start my own", ended)
A_HOME_NEW = "gs_home_new"

_VERSION = re.compile(r"[0-9]{1,9}")
_N = re.compile(r"[0-9]{1,3}")
_CHANNEL = re.compile(r"[CDG][A-Z0-9]{1,30}")
_TS = re.compile(r"[0-9]{1,12}\.[0-9]{1,8}")
_SIG = re.compile(r"[A-Za-z0-9_-]{22}")
_CONTEXT = b"gpu-sizing/client-data/v1"

# A process that was never given a secret (a test building cards alone, the console) signs with
# a random one: its values verify only in that process, which is all it can promise.
_key: bytes = secrets.token_bytes(32)


def derive_key(secret: str) -> bytes:
    """The signing key from a server secret (``CLIENT_DATA_SECRET``, else the signing secret):
    its own HMAC-derived key, so a value in a message never signs with Slack's secret itself."""
    return hmac.new(secret.encode("utf-8"), _CONTEXT, hashlib.sha256).digest()


def use_secret(secret: str) -> None:
    """Sign and verify with ``secret`` from now on (every worker of a deployment: the same)."""
    global _key
    _key = derive_key(secret)


def sign(content: str) -> str:
    """The signature of ``content``: 128 bits of HMAC-SHA256, base64url (22 characters)."""
    mac = hmac.new(_key, content.encode("utf-8"), hashlib.sha256).digest()[:16]
    return base64.urlsafe_b64encode(mac).decode("ascii").rstrip("=")


def verify(content: str, signature: object) -> bool:
    """``signature`` is :func:`sign` of ``content`` (constant-time comparison)."""
    return (isinstance(signature, str) and _SIG.fullmatch(signature) is not None
            and hmac.compare_digest(sign(content), signature))


def block_id(version: int, key: ConversationKey, n: int = 0) -> str:
    """Which conversation and turn an actions block belongs to (``n`` keeps ids unique)."""
    body = f"{version}|{n}|{key.format()}"
    out = f"{BLOCK_ID_PREFIX}|{body}|{sign(body)}"
    assert len(out) <= MAX_ID, "a conversation key is bounded well below Slack's 255"
    return out


def parse_block_id(value: str | None) -> tuple[ConversationKey, int] | None:
    """(key, version) from :func:`block_id`, or None for anything unsigned, forged or else."""
    if not value or len(value) > MAX_ID:
        return None
    prefix, _, rest = value.partition("|")
    body, _, signature = rest.rpartition("|")
    if prefix != BLOCK_ID_PREFIX or not verify(body, signature):
        return None
    parts = body.split("|", 2)
    if len(parts) != 3 or not _VERSION.fullmatch(parts[0]) or not _N.fullmatch(parts[1]):
        return None
    key = ConversationKey.parse(parts[2])
    return None if key is None else (key, int(parts[0]))


def start_value(channel: str | None = None, root: str | None = None) -> str:
    """A start button's value: where the new sizing's thread is (empty: the clicked message)."""
    if channel and root:
        return json.dumps({"c": channel, "t": root, "s": sign(f"start|{channel}|{root}")},
                          separators=(",", ":"))
    return ""


def parse_start_value(value: str | None) -> tuple[str, str] | None:
    """(channel, thread root) from :func:`start_value`, or None (unsigned, forged, malformed)."""
    try:
        data = json.loads(value or "")
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    channel, root = data.get("c"), data.get("t")
    if isinstance(channel, str) and isinstance(root, str) and _CHANNEL.fullmatch(channel) \
            and _TS.fullmatch(root) and verify(f"start|{channel}|{root}", data.get("s")):
        return channel, root
    return None
