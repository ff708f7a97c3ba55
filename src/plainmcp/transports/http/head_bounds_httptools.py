"""uvicorn's httptools protocol with the bounds on the request head (head_bounds.py): httptools
is optional (`plainmcp[http]` brings it), so its class is imported only where it is installed."""

from __future__ import annotations

from typing import Any

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from plainmcp.transports.http.head_bounds import HeadBound


class HeadRefused(Exception):
    """Raised inside the parser to stop it; uvicorn then answers through send_400_response."""


class BoundedHttpTools(HeadBound, HttpToolsProtocol):
    """httptools' speed, with the head bounded (431, then the connection closes)."""

    def __init__(self, config: uvicorn.Config, *args: Any, **kwargs: Any) -> None:
        super().__init__(config, *args, **kwargs)
        self.bind(config)

    def on_headers_complete(self) -> None:
        self._head = -1  # head_ended, inlined: a call less per request
        if len(self.headers) > self.max_headers:
            self._refusal = f"more than {self.max_headers} header fields"
            raise HeadRefused(self._refusal)
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._head = 0  # even when uvicorn ignores the end (a response sent before the body)
        super().on_message_complete()

    def send_400_response(self, msg: str) -> None:
        if self._refusal is None:
            super().send_400_response(msg)
        else:
            self.refuse(self._refusal)
