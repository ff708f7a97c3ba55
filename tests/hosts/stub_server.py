"""The scripted stand-in for a host's model API: an HTTP server on 127.0.0.1 that keeps every
request body and answers each with what its subclass's `answer` returns.

Each host harness (claude_code.py, codex_cli.py, gemini_cli.py) speaks its own API through one
subclass; this holds what they share: reading the JSON body, recording it, the reply, start and
stop.
"""

from __future__ import annotations

import abc
import http.server
import json
import threading
from collections.abc import Mapping
from typing import Any, Self


class StubServer(abc.ABC):
    """Use as `with Stub(...) as stub:`; `url` is where the host is pointed, `requests` every
    request as {"path", "body"}, in order."""

    url_path = ""
    """Appended to http://127.0.0.1:PORT for `url` (e.g. "/v1")."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.asked = threading.Event()
        """Set at the first request."""
        self._lock = threading.Lock()
        stub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                size = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(size) or b"{}")
                with stub._lock:
                    stub.requests.append({"path": self.path, "body": body})
                    turn = len(stub.requests)
                stub.asked.set()
                payload, kind = stub.answer(self.path, body, turn)
                self.send_response(200)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True

    @abc.abstractmethod
    def answer(self, path: str, body: Mapping[str, Any], turn: int) -> tuple[bytes, str]:
        """The reply to request number `turn` (from 1), in the host's API: bytes, content type."""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}{self.url_path}"

    def __enter__(self) -> Self:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
