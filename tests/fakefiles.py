"""Modals and file uploads for the fake Slack (``tests/fakeslack.py``), served as Slack serves them.

Why a room of its own: the fake's core answers messages, users and channels; the quote flow
also opens modals and uploads files with slack_sdk's ``files_upload_v2``, whose three steps
each need state a test reads back. :class:`FakeFiles` is attached to every ``FakeSlack``
(``fake.files``) and answers through the fake's ``routes`` (so rate limits, failures and
delays set on the fake apply as to any method):

* ``views.open`` keeps each opened view (``fake.files.views[view_id]``) so a test can submit
  it; a call without a ``trigger_id`` fails like Slack's (``invalid_trigger_id``);
* ``files.getUploadURLExternal`` hands out an upload URL on the fake's own server;
* the bytes POSTed to that URL (no token: the URL is the credential) are recorded under the
  method name ``upload``; :meth:`FakeFiles.fail_uploads` makes the next POSTs fail (HTTP 500);
* ``files.completeUploadExternal`` shares the files whose bytes arrived with the declared
  length (else ``file_upload_incomplete``) in ``channel_id``, in the thread of ``thread_ts``,
  with ``initial_comment``: :meth:`FakeFiles.shared` and :meth:`FakeFiles.content`.
"""

from __future__ import annotations

import itertools
import json
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.fakeslack import FakeSlack


class FakeFiles:
    """The views and files endpoints of one ``FakeSlack``."""

    def __init__(self, fake: FakeSlack) -> None:
        self.fake = fake
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self.views: dict[str, dict[str, Any]] = {}
        self.uploads: dict[str, dict[str, Any]] = {}  # file id -> filename, length, body, ...
        self._failing = 0
        fake.routes["views.open"] = self._views_open
        fake.routes["files.getUploadURLExternal"] = self._upload_url
        fake.routes["files.completeUploadExternal"] = self._complete

    def fail_uploads(self, times: int = 1) -> None:
        """Answer the next ``times`` upload POSTs with HTTP 500 (a failed step 2)."""
        with self._lock:
            self._failing = times

    # -- what a test reads ----------------------------------------------------------------

    def shared(self, channel: str | None = None) -> list[dict[str, Any]]:
        """Shared files (in ``channel``), in order: id, filename, title, channel, thread_ts,
        initial_comment, body (bytes)."""
        with self._lock:
            return [dict(f) for f in self.uploads.values() if "channel" in f
                    and (channel is None or f["channel"] == channel)]

    def content(self, file_id: str) -> bytes:
        with self._lock:
            body = self.uploads[file_id].get("body")
        assert isinstance(body, bytes), f"no bytes were uploaded for {file_id}"
        return body

    # -- serving --------------------------------------------------------------------------

    def _refused(self, token: str) -> dict[str, Any] | None:
        return None if token == self.fake.bot_token else {"ok": False, "error": "invalid_auth"}

    def _views_open(self, token: str, p: dict[str, Any]) -> dict[str, Any]:
        if (refused := self._refused(token)) is not None:
            return refused
        if not p.get("trigger_id"):
            return {"ok": False, "error": "invalid_trigger_id"}
        raw = p.get("view")
        view = json.loads(raw) if isinstance(raw, str) else dict(raw or {})
        view = {**view, "id": f"V{next(self._ids):010d}"}
        with self._lock:
            self.views[view["id"]] = view
        return {"ok": True, "view": view}

    def _upload_url(self, token: str, p: dict[str, Any]) -> dict[str, Any]:
        if (refused := self._refused(token)) is not None:
            return refused
        filename, length = str(p.get("filename") or ""), str(p.get("length") or "")
        if not filename or not length.isdigit():
            return {"ok": False, "error": "invalid_arguments"}
        file_id = f"F{next(self._ids):010d}"
        with self._lock:
            self.uploads[file_id] = {"id": file_id, "filename": filename, "length": int(length)}
        return {"ok": True, "file_id": file_id,
                "upload_url": f"http://127.0.0.1:{self.fake.port}/upload/{file_id}"}

    def receive(self, file_id: str, raw: bytes) -> int:
        """The upload POST's bytes (``FakeSlack`` routes ``/upload/<id>`` here): its status."""
        with self._lock:
            pending = self.uploads.get(file_id)
            if self._failing > 0:
                self._failing -= 1
                return 500
            if pending is None:
                return 404
            pending["body"] = raw
        return 200

    def _complete(self, token: str, p: dict[str, Any]) -> dict[str, Any]:
        if (refused := self._refused(token)) is not None:
            return refused
        try:
            listed = json.loads(str(p.get("files") or "[]"))
        except ValueError:
            return {"ok": False, "error": "invalid_arguments"}
        files = [f for f in listed if isinstance(f, dict)] if isinstance(listed, list) else []
        channel = p.get("channel_id")
        with self._lock:
            found = [self.uploads.get(str(f.get("id"))) for f in files]
            if not files or any(u is None or len(u.get("body") or b"") != u["length"]
                                for u in found):
                return {"ok": False, "error": "file_upload_incomplete"}
            out = []
            for f, u in zip(files, found, strict=True):
                assert u is not None
                u["title"] = f.get("title") or u["filename"]
                if channel:
                    u.update(channel=str(channel), thread_ts=p.get("thread_ts"),
                             initial_comment=p.get("initial_comment"))
                out.append({"id": u["id"], "name": u["filename"], "title": u["title"]})
        return {"ok": True, "files": out}
