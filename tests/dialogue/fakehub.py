"""A fake Hugging Face Hub on localhost: what ``huggingface_hub.hf_hub_download`` asks of the
real one for a ``config.json`` (HEAD then GET of ``/<org>/<name>/resolve/<rev>/config.json``,
with the commit and ETag headers the client requires), and the refusals the real Hub gives
(``X-Error-Code``: ``RepoNotFound``, ``GatedRepo``, ``EntryNotFound``; 401 without a token).

The tests point ``HubClient(endpoint=...)`` at it: the real network is never used.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Repo:
    files: dict[str, bytes] = field(default_factory=dict)
    gated: bool = False
    token: str | None = None  # a token the repo requires (private or gated with access)


@dataclass
class FakeHub:
    repos: dict[str, Repo] = field(default_factory=dict)
    requests: list[tuple[str, str, str | None]] = field(default_factory=list)
    down: bool = False  # answer 503 to everything
    url: str = ""


def _handler(hub: FakeHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # quiet
            return

        def _answer(self, head: bool) -> None:
            auth = self.headers.get("Authorization")
            hub.requests.append((self.command, self.path, auth))
            if hub.down:
                return self._fail(503, "")
            parts = self.path.split("?")[0].strip("/").split("/")
            if len(parts) < 5 or parts[2] != "resolve":
                return self._fail(404, "RepoNotFound")
            repo_id, name = "/".join(parts[:2]), "/".join(parts[4:])
            repo = hub.repos.get(repo_id)
            token = auth.removeprefix("Bearer ") if auth else None
            if repo is None or (repo.token is not None and not repo.gated
                                and token != repo.token):
                return self._fail(401, "RepoNotFound")
            if repo.gated and token != repo.token:
                return self._fail(403 if token else 401, "GatedRepo")
            body = repo.files.get(name)
            if body is None:
                return self._fail(404, "EntryNotFound")
            etag = hashlib.sha256(body).hexdigest()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("ETag", f'"{etag}"')
            self.send_header("X-Repo-Commit", "0" * 40)
            self.end_headers()
            if not head:
                self.wfile.write(body)
            return None

        def _fail(self, status: int, code: str) -> None:
            self.send_response(status)
            if code:
                self.send_header("X-Error-Code", code)
                self.send_header("X-Error-Message", code)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_HEAD(self) -> None:
            self._answer(head=True)

        def do_GET(self) -> None:
            self._answer(head=False)

    return Handler


@contextmanager
def running(hub: FakeHub) -> Iterator[FakeHub]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(hub))
    hub.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield hub
    finally:
        server.shutdown()
        server.server_close()
