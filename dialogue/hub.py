"""The Hugging Face Hub, behind an interface: a model's config.json by its Hub id, or why not.

Why an interface injected into the service (like the store): the turn is pure, and the Hub
is network I/O that can be offline, slow, gated or refused. :class:`Hub` is what the service
needs; :class:`HubClient` is the real one, with the endpoint and token from the settings
(``HF_ENDPOINT``, ``HF_TOKEN``, ``HF_OFFLINE``): one GET of the repository's config.json
through ``huggingface_hub``'s session, headers and error mapping (its errors tell a gated
repository from a missing one), and not ``hf_hub_download``, which retries for half a minute
with backoff and writes a cache: a person waiting in a chat gets one bounded try and the two
other ways instead. :class:`NoHub` is the one a face without network gets. Every failure is a
:class:`HubResult` with a catalog message that names the model and the two other ways to
describe it (its parameter counts, its config.json pasted); no exception, no traceback leaves
this module, and a log line says what happened in one line.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from engine.wording import Message, msg

log = logging.getLogger("dialogue.hub")
MAX_CONFIG_BYTES = 100_000  # a config.json is 1-6 KB; more is not a config


@dataclass(frozen=True)
class HubResult:
    """The config.json's text, or the failure to tell (exactly one of them is set)."""

    text: str | None = None
    failure: Message | None = None


class Hub(Protocol):
    def config(self, repo: str) -> HubResult: ...


class NoHub:
    """No Hub access (a face without network, the tests' default): the other two ways."""

    def config(self, repo: str) -> HubResult:
        return HubResult(failure=msg("dialogue.error.hub_offline", repo=repo))


class HubClient:
    """The Hub through ``huggingface_hub``: one file, one repository, one bounded try."""

    def __init__(self, *, endpoint: str | None = None, token: str | None = None,
                 offline: bool = False, timeout_s: float = 10.0) -> None:
        self.endpoint = (endpoint or "https://huggingface.co").rstrip("/")
        self.token = token or None
        self.offline = offline
        self.timeout_s = timeout_s

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> HubClient:
        """The console's Hub, from the same variables as the server's settings."""
        offline = environ.get("HF_OFFLINE", environ.get("HF_HUB_OFFLINE", "")).lower()
        return cls(endpoint=environ.get("HF_ENDPOINT") or None,
                   token=environ.get("HF_TOKEN") or None,
                   offline=offline in ("1", "true", "yes", "on"))

    def config(self, repo: str) -> HubResult:
        if self.offline:
            return HubResult(failure=msg("dialogue.error.hub_offline", repo=repo))
        try:
            data = self._get(repo)
        except Exception as exc:  # every failure becomes a message, never a traceback
            failure = _failure(exc, repo)
            log.warning("hub: %s for %s: %s", type(exc).__name__, repo, failure.id)
            return HubResult(failure=failure)
        if len(data) > MAX_CONFIG_BYTES:
            return HubResult(failure=msg("dialogue.error.hub_no_config", repo=repo))
        return HubResult(text=data.decode("utf-8", errors="replace"))

    def _get(self, repo: str) -> bytes:
        from huggingface_hub import get_session, hf_hub_url, hf_raise_for_status

        url = hf_hub_url(repo, "config.json", endpoint=self.endpoint)
        headers = {"User-Agent": "gpu-sizing-bot"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        with get_session().stream("GET", url, headers=headers, timeout=self.timeout_s,
                                  follow_redirects=True) as response:
            hf_raise_for_status(response)
            body = b""
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > MAX_CONFIG_BYTES:
                    break
        return body


def _failure(exc: Exception, repo: str) -> Message:
    """What to tell a person, by the kind of failure (huggingface_hub's error tree)."""
    from huggingface_hub import errors

    if isinstance(exc, errors.GatedRepoError):
        return msg("dialogue.error.hub_gated", repo=repo)
    if isinstance(exc, errors.RepositoryNotFoundError | errors.HFValidationError):
        return msg("dialogue.error.hub_missing", repo=repo)
    if isinstance(exc, errors.LocalEntryNotFoundError | errors.OfflineModeIsEnabled):
        return msg("dialogue.error.hub_unreachable", repo=repo)
    if isinstance(exc, errors.EntryNotFoundError | errors.RevisionNotFoundError):
        return msg("dialogue.error.hub_no_config", repo=repo)
    if isinstance(exc, errors.HfHubHTTPError):
        response = getattr(exc, "response", None)
        status = getattr(response, "status_code", None)
        if status in (401, 403):
            return msg("dialogue.error.hub_refused", repo=repo, status=int(status))
        return msg("dialogue.error.hub_unreachable", repo=repo)
    return msg("dialogue.error.hub_unreachable", repo=repo)
