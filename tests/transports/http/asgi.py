"""Drive an ASGI app in-process, the way an HTTP server would, and read its answers.

Every JSON-RPC message the app writes (JSON body or SSE event) is validated against the
official schema of the revision the test names, with the method of the request it answers.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio
import orjson

from tests.mcp_schemas import validate_server_message

LATEST = "2025-11-25"
STATELESS = "2026-07-28"
ACCEPT = "application/json, text/event-stream"


def meta(**extra: Any) -> dict[str, Any]:
    """The `_meta` of a 2026-07-28 request."""
    return {
        "io.modelcontextprotocol/protocolVersion": STATELESS,
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": extra.pop("capabilities", {}),
        **extra,
    }


def stateless_headers(method: str, name: str | None = None, **more: str) -> dict[str, str]:
    headers = {"mcp-protocol-version": STATELESS, "mcp-method": method}
    if name is not None:
        headers["mcp-name"] = name
    headers.update(more)
    return headers


@dataclass
class Call:
    """One HTTP exchange in progress."""

    status: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    chunks: list[bytes] = field(default_factory=list)
    done: bool = False
    revision: str = LATEST
    methods: dict[Any, str] = field(default_factory=dict)
    _started: anyio.Event = field(default_factory=anyio.Event)
    _gone: anyio.Event = field(default_factory=anyio.Event)
    _gone_read: anyio.Event = field(default_factory=anyio.Event)
    _more: anyio.Event = field(default_factory=anyio.Event)
    _read: int = 0

    @property
    def body(self) -> bytes:
        return b"".join(self.chunks)

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "")

    def json(self) -> Any:
        message = orjson.loads(self.body)
        self._validate(message)
        return message

    async def started(self, timeout: float = 5.0) -> None:
        """Wait until the status line and headers are written."""
        with anyio.fail_after(timeout):
            await self._started.wait()

    def disconnect(self) -> None:
        self._gone.set()

    async def disconnect_read(self, timeout: float = 5.0) -> None:
        """Wait until the app has read the disconnect (what it does about it, it does before
        its next await: this returns after that)."""
        with anyio.fail_after(timeout):
            await self._gone_read.wait()

    def _validate(self, message: Any) -> None:
        items = message if isinstance(message, list) else [message]
        for item in items:
            if isinstance(item, dict) and ("result" in item or "error" in item or "method" in item):
                method = self.methods.get(item.get("id")) if "result" in item else None
                validate_server_message(item, self.revision, method=method)

    def events(self) -> list[Any]:
        """The messages of a finished SSE body."""
        return [self._decode(e) for e in _split_events(self.body)]

    def _decode(self, event: bytes) -> Any:
        data = b"\n".join(
            line[5:].lstrip(b" ") for line in event.split(b"\n") if line.startswith(b"data:")
        )
        message = orjson.loads(data)
        self._validate(message)
        return message

    async def _next_block(self, wanted: Any, timeout: float) -> bytes:
        """The next SSE block (text up to a blank line) that `wanted` accepts, waiting for it."""
        with anyio.fail_after(timeout):
            while True:
                pending = self.body[self._read :]
                end = pending.find(b"\n\n")
                if end >= 0:
                    block = pending[:end]
                    self._read += end + 2
                    if wanted(block):
                        return block
                    continue
                if self.done:
                    raise EOFError("the stream ended")
                self._more = anyio.Event()
                await self._more.wait()

    async def next_event(self, timeout: float = 5.0) -> Any:
        """The next SSE message (comments and priming events skipped)."""
        return self._decode(await self._next_block(_carries_data, timeout))

    async def next_block(self, timeout: float = 5.0) -> dict[str, str]:
        """The next SSE block's fields (`id`, `retry`, `data`, ...), comments skipped."""
        block = await self._next_block(lambda b: not b.startswith(b":"), timeout)
        return fields(block)

    def blocks(self) -> list[dict[str, str]]:
        """The fields of every block of a finished SSE body (comments left out)."""
        return [fields(b) for b in self.body.split(b"\n\n") if b and not b.startswith(b":")]

    async def comment(self, timeout: float = 5.0) -> bytes:
        """The next comment line (keep-alive)."""
        return await self._next_block(lambda b: b.startswith(b":"), timeout)


def fields(block: bytes) -> dict[str, str]:
    """An SSE block as its fields (`data: ` lines joined)."""
    found: dict[str, str] = {}
    for line in block.decode().split("\n"):
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        found[name] = f"{found[name]}\n{value}" if name == "data" and name in found else value
    return found


def _carries_data(block: bytes) -> bool:
    """An event with a message (not a comment, a priming event or a retry hint)."""
    return any(line.startswith(b"data:") and line[5:].strip() for line in block.split(b"\n"))


def _split_events(body: bytes) -> list[bytes]:
    return [e for e in body.split(b"\n\n") if _carries_data(e)]


@contextlib.asynccontextmanager
async def open_call(
    app: Any,
    method: str = "POST",
    body: Any = None,
    *,
    headers: Mapping[str, str] | None = None,
    path: str = "/mcp",
    raw: bytes | None = None,
    revision: str = LATEST,
    host: str = "127.0.0.1:8000",
    client: tuple[str, int] | None = ("127.0.0.1", 50000),
) -> AsyncIterator[Call]:
    """Start one request; the block sees its response as it is written. `client`: the peer's
    address as the ASGI server reports it."""
    data = raw if raw is not None else (b"" if body is None else orjson.dumps(body))
    sent = {"content-type": "application/json", "accept": ACCEPT, "host": host}
    sent.update({k.lower(): v for k, v in (headers or {}).items()})
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [(k.encode(), v.encode()) for k, v in sent.items() if v is not None],
        "client": client,
        "server": ("127.0.0.1", 8000),
    }
    call = Call(revision=revision)
    for item in body if isinstance(body, list) else [body]:
        if isinstance(item, dict) and "id" in item and "method" in item:
            call.methods[item["id"]] = item["method"]
    delivered = False

    async def receive() -> dict[str, Any]:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": data, "more_body": False}
        await call._gone.wait()
        call._gone_read.set()
        return {"type": "http.disconnect"}

    async def send(message: Mapping[str, Any]) -> None:
        if message["type"] == "http.response.start":
            call.status = message["status"]
            call.headers = {k.decode(): v.decode() for k, v in message.get("headers", [])}
            call._started.set()
        elif message["type"] == "http.response.body":
            if call.done:
                raise AssertionError("body written after the response ended")
            call.chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                call.done = True
            call._more.set()

    async with anyio.create_task_group() as group:
        finished = anyio.Event()

        async def run() -> None:
            try:
                await app(scope, receive, send)
            finally:
                finished.set()
                call._started.set()
                call._more.set()

        group.start_soon(run)
        yield call
        with anyio.fail_after(10):
            await finished.wait()


async def request(app: Any, method: str = "POST", body: Any = None, **options: Any) -> Call:
    """One request, read to the end."""
    async with open_call(app, method, body, **options) as call:
        while not call.done:
            call._more = anyio.Event()
            with anyio.fail_after(10):
                await call._more.wait()
    return call
