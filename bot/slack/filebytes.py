"""The bytes behind a shared file's private URL: bounded in size and in time, and the bot token
sent to Slack only.

Why a module of its own: :meth:`bot.slack.api.SlackApi.download` is the one door the flows use
(it counts, times, logs and turns failures into what the flow does next); this is its transport,
kept apart so that ``api.py`` stays readable. Nothing else calls it.

Why so careful: a file's ``url_private`` opens with the bot token, and that token opens every
channel and file the bot can see. The URL arrives in an event, so:

* the token goes only to ``https://files.slack.com`` or to the very origin (scheme, host, port)
  of the configured Web API (``SLACK_API_URL``: the fake Slack in tests); any other URL is
  refused before a connection is made (:func:`allowed`);
* redirects are never followed: Slack answers a request it refuses (a missing ``files:read``,
  a token that cannot see the file) with a redirect to its sign-in page, and a redirect could
  carry the token elsewhere;
* at most ``limit`` bytes are read (a ``Content-Length`` over it is refused before the body is
  read) within :data:`TIMEOUT_S` in all.
"""

from __future__ import annotations

import ssl
import time
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

SLACK_FILES_HOST = "files.slack.com"
TIMEOUT_S = 10.0  # the whole download; a config.json is a few KB
_CHUNK = 16 * 1024
_PORTS = {"http": 80, "https": 443}


class TooLarge(Exception):
    """The file is over the limit (said by its length, or found while reading)."""


class Refused(Exception):
    """Slack answered with an HTTP error (or a redirect, never followed): ``status``."""

    def __init__(self, status: int) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status


def _origin(url: str) -> tuple[str, str, int] | None:
    try:
        parts = urlsplit(url)
        port = parts.port or _PORTS.get(parts.scheme, 0)
    except ValueError:  # a port that is not a number
        return None
    if parts.scheme not in _PORTS or not parts.hostname or parts.username or parts.password:
        return None
    return parts.scheme, parts.hostname.lower(), port


def allowed(url: str, api_url: str) -> bool:
    """Whether the bot token may be sent to ``url`` (see the module docstring)."""
    origin = _origin(url)
    return origin is not None and origin in {("https", SLACK_FILES_HOST, 443), _origin(api_url)}


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect is an answer (an HTTPError with its 3xx status), never followed."""

    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any,
                         newurl: str) -> None:
        return None


def get(url: str, token: str, *, limit: int, context: ssl.SSLContext | None = None,
        proxy: str | None = None, timeout: float = TIMEOUT_S) -> bytes:
    """The body at ``url``, read with ``Authorization: Bearer <token>``. Raises
    :class:`TooLarge`, :class:`Refused` (an HTTP status, 3xx included), and what the network
    raises (``OSError``, ``TimeoutError``, ``http.client.HTTPException``). The caller checks
    :func:`allowed` first."""
    handlers: list[urllib.request.BaseHandler] = [_NoRedirect()]
    if proxy:
        handlers.append(urllib.request.ProxyHandler({"http": proxy, "https": proxy}))
    if context is not None:
        handlers.append(urllib.request.HTTPSHandler(context=context))
    opener = urllib.request.build_opener(*handlers)
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    deadline = time.monotonic() + timeout
    try:
        with opener.open(request, timeout=timeout) as resp:
            length = str(resp.headers.get("Content-Length") or "")
            if length.isdecimal() and int(length) > limit:
                raise TooLarge
            body = bytearray()
            while len(body) <= limit:
                if time.monotonic() > deadline:
                    raise TimeoutError("download took too long")
                chunk = resp.read(min(_CHUNK, limit + 1 - len(body)))
                if not chunk:
                    break
                body += chunk
    except urllib.error.HTTPError as err:
        err.close()
        raise Refused(err.code) from None
    if len(body) > limit:
        raise TooLarge
    return bytes(body)
