"""Slack's request signature, checked on the raw bytes before anything parses them.

Why here, before Bolt: a body parsed before its signature is checked lets unauthenticated
garbage reach the parsers (and come back as 500s with tracebacks). The check itself is
slack_sdk's :class:`~slack_sdk.signature.SignatureVerifier` (``v0=HMAC-SHA256(secret, "v0:" ts
":" body)`` in ``X-Slack-Signature``, Slack's 5-minute replay window, a constant-time
compare); :class:`Signatures` wraps it to say *why* a request is refused, a closed set of words
the front counts in ``gpubot_requests_refused_total{reason}`` and logs (``bot/ops/asgi.py``),
and to refuse what the SDK would trip on instead of judging (a timestamp that is not ASCII
digits, such as ``"²"``; a signature that is not ASCII; a body that is not UTF-8 is left to
:func:`sound`). Only a
signed body is then checked for being what Slack sends (:func:`sound`), and only then handed
to Bolt.
"""

from __future__ import annotations

import json
from typing import Literal
from urllib.parse import parse_qs

from slack_sdk.signature import Clock, SignatureVerifier

__all__ = ["SIGNATURE_MAX_AGE_S", "Refusal", "Signatures", "sound"]

SIGNATURE_MAX_AGE_S = 300  # Slack's own replay window (the SDK's too)

Refusal = Literal["unsigned", "bad_signature", "stale_timestamp"]


class _At(Clock):
    """The SDK's clock, stopped at the time the caller gives (one per check: thread-safe)."""

    def __init__(self, at: float) -> None:
        self.at = at

    def now(self) -> float:
        return self.at


class Signatures:
    """Slack's signatures under the app's signing secret (empty: nothing is signed by it)."""

    def __init__(self, secret: str) -> None:
        self._secret = secret

    def refusal(self, timestamp: str | None, signature: str | None, body: bytes,
                now: float) -> Refusal | None:
        """None if Slack signed ``body`` at ``timestamp``, seen at ``now``; else why not."""
        if not timestamp or not signature:
            return "unsigned"
        if not (timestamp.isascii() and timestamp.isdigit()) or len(timestamp) > 12:
            return "bad_signature"
        if abs(now - int(timestamp)) > SIGNATURE_MAX_AGE_S:
            return "stale_timestamp"
        if not self._secret.strip() or not signature.isascii():
            return "bad_signature"
        try:
            body.decode("utf-8")
        except UnicodeDecodeError:
            # never what Slack sends, and the SDK cannot read it: :func:`sound` refuses it as
            # malformed, signed or not, before anything parses it
            return None
        verifier = SignatureVerifier(self._secret, _At(now))
        return None if verifier.is_valid(body, timestamp, signature) else "bad_signature"


def sound(content_type: str, body: bytes) -> str | None:
    """The signed body as text if it is what Slack sends (UTF-8; a JSON object, or a form whose
    ``payload`` is a JSON object); None if not."""
    try:
        text = body.decode("utf-8")
        if "application/json" in content_type:
            return text if isinstance(json.loads(text), dict) else None
        form = parse_qs(text, keep_blank_values=True)
        if "payload" in form and not isinstance(json.loads(form["payload"][0]), dict):
            return None
        return text
    except ValueError:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        return None
