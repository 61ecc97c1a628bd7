"""Files people share, for the fake Slack (``tests/fakeslack.py``): served at private URLs with
the bot token, described as Slack's events and ``files.info`` describe them.

Why a room of its own: the fake's core answers the Web API; a shared file is bytes at a URL
that only the bot token opens, plus the file object an event carries. :class:`FakeDownloads`
is attached to every ``FakeSlack`` (``fake.downloads``):

* :meth:`FakeDownloads.share` keeps a file's bytes and returns the file object of a
  ``file_share`` event (``id``, ``name``, ``title``, ``mimetype``, ``filetype``,
  ``pretty_type``, ``size``, ``mode`` ``hosted`` or ``snippet``, ``url_private``,
  ``url_private_download`` on the fake's own server, ``/files-pri/<team>-<id>/...`` as
  Slack's are; a snippet also has its ``preview``, ``lines`` and ``edit_link``);
  :meth:`FakeDownloads.connect_stub` is the same file as a Slack Connect event gives it (its id
  and ``file_access: check_file_info`` only);
* a GET of a private URL is recorded as a call of method ``files.download`` (its path and
  headers) and answered with the bytes only with ``Authorization: Bearer <bot token>``: no
  header gets 401, another token 403, an unknown file 404, and a file set with
  :meth:`FakeDownloads.refuse` that status; the fake's faults set for ``files.download``
  (``http_error``, ``rate_limit``) apply first;
* ``files.info`` (with the bot token) answers the file object of a shared file.
"""

from __future__ import annotations

import itertools
import threading
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.fakeslack import FakeSlack

PREFIX = "/files-pri/"
PRETTY = {"json": "JSON", "text": "Plain Text", "javascript": "JavaScript/JSON",
          "png": "PNG", "pdf": "PDF", "binary": "Binary"}


class FakeDownloads:
    """The shared files of one ``FakeSlack``."""

    def __init__(self, fake: FakeSlack) -> None:
        self.fake = fake
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self.files: dict[str, dict[str, Any]] = {}  # file id -> file object
        self._bytes: dict[str, tuple[bytes, str]] = {}  # private path -> content, mimetype
        self._refused: dict[str, int] = {}  # file id -> HTTP status
        fake.routes["files.info"] = self._info

    def share(self, content: bytes, *, name: str = "config.json", filetype: str = "json",
              mimetype: str = "application/json", mode: str = "hosted",
              user: str = "UREP0001", size: int | None = None) -> dict[str, Any]:
        """Keep ``content`` as a shared file; its file object (``size``: what Slack states)."""
        file_id = f"F{next(self._ids):010d}"
        base = f"http://127.0.0.1:{self.fake.port}{PREFIX}{self.fake.team_id}-{file_id}"
        obj: dict[str, Any] = {
            "id": file_id, "created": 1800000000, "timestamp": 1800000000, "name": name,
            "title": name, "mimetype": mimetype, "filetype": filetype,
            "pretty_type": PRETTY.get(filetype, filetype.upper()), "user": user,
            "user_team": self.fake.team_id, "editable": mode == "snippet",
            "size": len(content) if size is None else size, "mode": mode,
            "is_external": False, "external_type": "", "is_public": False,
            "public_url_shared": False, "display_as_bot": False, "username": "",
            "url_private": f"{base}/{name}", "url_private_download": f"{base}/download/{name}",
            "permalink": f"https://vendor.slack.com/files/{user}/{file_id}/{name}",
            "permalink_public": f"https://slack-files.com/{self.fake.team_id}-{file_id}-0a1b2c",
            "has_rich_preview": False, "file_access": "visible",
        }
        if mode == "snippet":
            lines = content.decode("utf-8", "replace").splitlines()
            obj.update(edit_link=f"https://vendor.slack.com/files/{user}/{file_id}/{name}/edit",
                       preview="\n".join(lines[:5]), preview_highlight="",
                       lines=len(lines), lines_more=max(0, len(lines) - 5),
                       preview_is_truncated=len(lines) > 5)
        with self._lock:
            self.files[file_id] = obj
            for url in (obj["url_private"], obj["url_private_download"]):
                self._bytes[url.split(str(self.fake.port), 1)[1]] = (content, mimetype)
        return dict(obj)

    @staticmethod
    def connect_stub(obj: dict[str, Any]) -> dict[str, Any]:
        """``obj`` as a Slack Connect event carries it: only ``files.info`` says more."""
        return {"id": obj["id"], "mode": "file_access", "file_access": "check_file_info",
                "created": 0, "timestamp": 0, "user": ""}

    def refuse(self, file_id: str, status: int = 403) -> None:
        """Answer every download of ``file_id`` with ``status`` (a file deleted: 404)."""
        with self._lock:
            self._refused[file_id] = status

    def downloads(self) -> list[Any]:
        """The GETs of private URLs received (``Call`` objects), answered or not."""
        return self.fake.calls("files.download")

    # -- serving --------------------------------------------------------------------------

    def _info(self, token: str, p: dict[str, Any]) -> dict[str, Any]:
        if token != self.fake.bot_token:
            return {"ok": False, "error": "invalid_auth"}
        with self._lock:
            obj = self.files.get(str(p.get("file", "")))
        return {"ok": True, "file": dict(obj)} if obj else {"ok": False,
                                                           "error": "file_not_found"}

    def serve(self, req: BaseHTTPRequestHandler, path: str) -> None:
        """Answer a GET of a private URL (``FakeSlack`` routes ``/files-pri/`` here)."""
        from tests.fakeslack import Call

        headers = {k.lower(): v for k, v in req.headers.items()}
        call = Call("files.download", {"path": path}, headers)
        fault = self.fake.before("files.download")
        extra: dict[str, str] = {}
        body, ctype = b"error", "text/plain"
        with self._lock:
            content, mimetype = self._bytes.get(path) or (None, "")
            file_id = path.removeprefix(PREFIX).split("/", 1)[0].rsplit("-", 1)[-1]
            refused = self._refused.get(file_id)
        auth = headers.get("authorization", "")
        if fault.status == 429:
            call.status, extra = 429, {"Retry-After": str(fault.retry_after)}
        elif fault.status >= 500:
            call.status = fault.status
        elif not auth:
            call.status = 401
        elif auth != f"Bearer {self.fake.bot_token}":
            call.status = 403
        elif content is None:
            call.status = 404
        elif refused is not None:
            call.status = refused
        else:
            body, ctype = content, mimetype
        call.ok = call.status == 200
        self.fake._record(call)
        self.fake._send_raw(req, call.status, body, ctype, extra)
