"""What a failed Slack Web API call means, as exceptions a flow catches by kind.

Why a tree (the httpx manner): a call returns Slack's data or raises, and what a failure means
decides what happens next, so each meaning is a class a caller can catch on its own, and the
module documents them all in one place::

    SlackError                 any failed call: ``method``, ``error`` (Slack's code, or the
    │                          exception's name: never a token, a body or a URL)
    ├── SlackRefused           Slack answered ``ok: false`` for good (``not_in_channel``,
    │                          ``message_not_found``...): nothing was done; ``no_access`` says
    │                          the bot may not post there (the person can invite it)
    └── SlackPassing           a passing failure, and the turn is put off and retried
        │                      (a :class:`~bot.ops.consumer.Later`: the queue keeps the entry)
        │                      -- a 429 beyond slack_sdk's retries, ``ratelimited``,
        │                      ``service_unavailable``: Slack did *not* process it
        └── SlackUnknown       the outcome is unknown (a reset or a timeout after sending, a
                               5xx, ``internal_error``, an answer too late): Slack may have done
                               it, so a write is looked for before it is made again
                               (``bot/slack/written.py``)

slack_sdk's own retry handlers (``bot/slack/app.py``) already retried 429s for every method and
connection errors and 5xx for idempotent ones before any of these is raised.
"""

from __future__ import annotations

import http.client

from slack_sdk.errors import SlackApiError

from bot.ops.consumer import Later

__all__ = [
    "NO_ACCESS_ERRORS",
    "PASSING_ERRORS",
    "UNKNOWN_ERRORS",
    "SlackError",
    "SlackPassing",
    "SlackRefused",
    "SlackUnknown",
    "error_of",
]

#: Slack errors that mean "the bot cannot post in this conversation" (not a passing outage).
NO_ACCESS_ERRORS = frozenset({
    "not_in_channel", "channel_not_found", "is_archived", "restricted_action",
    "restricted_action_read_only_channel", "restricted_action_thread_only_channel",
    "restricted_action_non_threadable_channel", "ekm_access_denied", "team_access_not_granted",
})
#: ``ok: false`` answers after which Slack may or may not have done the work
#: (https://docs.slack.dev/reference/methods/chat.postMessage, "Errors").
UNKNOWN_ERRORS = frozenset({"internal_error", "fatal_error", "request_timeout"})
PASSING_ERRORS = UNKNOWN_ERRORS | {"ratelimited", "service_unavailable"}


class SlackError(Exception):
    """A Slack Web API call failed: ``method`` (``chat.postMessage``) and ``error`` (Slack's
    code, or the exception's name)."""

    def __init__(self, method: str, error: str) -> None:
        super().__init__(f"{method}: {error}")
        self.method = method
        self.error = error


class SlackRefused(SlackError):
    """Slack refused for good: nothing was done, and asking again would not change that."""

    @property
    def no_access(self) -> bool:
        """The bot is not allowed there (invite it), rather than any other refusal."""
        return self.error in NO_ACCESS_ERRORS


class SlackPassing(SlackError, Later):
    """Slack failed for a passing reason and did not do it: retry the turn later."""


class SlackUnknown(SlackPassing):
    """Slack failed for a passing reason and may have done it anyway: look before redoing."""


def error_of(method: str, exc: Exception) -> SlackError:
    """What an exception from a slack_sdk call of ``method`` means (see the module docstring)."""
    if isinstance(exc, SlackApiError):
        status = int(getattr(exc.response, "status_code", 200) or 200)
        error = str(exc.response.get("error", "") or "unknown")
        if status == 429 or error == "ratelimited":
            return SlackPassing(method, "ratelimited")
        if status >= 500:
            return SlackUnknown(method, f"http_{status}")
        if error in UNKNOWN_ERRORS:
            return SlackUnknown(method, error)
        if error in PASSING_ERRORS:
            return SlackPassing(method, error)
        return SlackRefused(method, error)
    if isinstance(exc, OSError | http.client.HTTPException):  # resets, timeouts, URLError
        return SlackUnknown(method, type(exc).__name__)
    return SlackRefused(method, type(exc).__name__)
