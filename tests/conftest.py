"""Shared test fixtures: the anyio backend, and an in-memory MCP session that validates every
message the server writes against the official schema of the negotiated revision.

Usage::

    async with Session(app) as s:
        await s.initialize("2025-06-18")
        reply = await s.request("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})
        assert reply["result"]["content"] == [...]

Every line the server writes is parsed and validated as it is written (results against the
result definition of the method they answer); a failure is raised by the next `Session` wait and
again when the session closes, so a test using `Session` cannot forget validation.

Before `initialize` has been answered the server does not know the client's revision; messages
are then validated against `revision_hint` (the revision this test client speaks; by default the
latest handshake revision), afterwards against the negotiated one.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import itertools
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from typing import Any

import anyio
import anyio.abc
import anyio.lowlevel
import orjson
import pytest

from plainmcp import Server
from tests.mcp_schemas import REVISIONS, schemas_dir, validate_server_message, wire_loads

# `plainmcp check` (in process, as a command, in the doc snippets) reads the schemas from the
# shared folder, never from the user's cache or the network (tests/cli/test_schemas.py tests those).
os.environ["PLAINMCP_MCP_SCHEMAS"] = str(schemas_dir())

# Stdio servers keep cut results and their state secret in the user's cache (stdio_cache.py):
# every server the tests start, in this process or as a child, keeps them in this run's own
# folder instead, never in the real ~/.cache (clients that pass a bare environment to their
# servers are given it too: tests/interop/conftest.py).
TEST_CACHE = tempfile.mkdtemp(prefix="plainmcp-test-cache-")
os.environ["PLAINMCP_CACHE_DIR"] = TEST_CACHE
atexit.register(shutil.rmtree, TEST_CACHE, True)
with contextlib.suppress(ImportError):  # the official SDK's stdio client: a bare environment
    import mcp.client.stdio as _sdk_stdio

    if "PLAINMCP_CACHE_DIR" not in _sdk_stdio.DEFAULT_INHERITED_ENV_VARS:
        _sdk_stdio.DEFAULT_INHERITED_ENV_VARS = (
            *_sdk_stdio.DEFAULT_INHERITED_ENV_VARS,
            "PLAINMCP_CACHE_DIR",
        )

STATELESS_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
HANDSHAKE_REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
DEFAULT_TIMEOUT = 5.0


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _every_connection_is_validated(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Any in-process connection (Session, Client.memory, testing helpers) has every message it
    writes validated against the negotiated revision's official schema; the test fails if not."""
    failures: list[str] = []
    original = Server.connect

    def connect(self: Server, send: Any, **transport: Any) -> Any:
        methods: dict[Any, str] = {}
        per_request: dict[Any, str] = {}  # stateless requests carry their own revision
        revision: list[str | None] = [None]

        async def checked(data: bytes) -> None:
            try:
                message = wire_loads(data)
                revision[0] = negotiated(message, methods) or revision[0]
                own = per_request.get(message.get("id")) if isinstance(message, dict) else None
                # Notifications carry no id: a connection that only spoke statelessly is judged
                # by the revision its requests named.
                stateless = next(reversed(per_request.values()), None)
                validate(message, own or revision[0] or stateless or "2025-11-25", methods)
            except (AssertionError, orjson.JSONDecodeError, ValueError) as exc:
                failures.append(f"{exc}\n  raw: {data[:600]!r}")
            await send(data)

        conn = original(self, send=checked, **transport)
        receive = conn.receive

        async def remembering(data: bytes) -> None:
            with contextlib.suppress(orjson.JSONDecodeError, TypeError, AttributeError):
                message = orjson.loads(data)
                for item in message if isinstance(message, list) else [message]:
                    if isinstance(item, dict) and "method" in item and "id" in item:
                        methods[item["id"]] = item["method"]
                        meta = (item.get("params") or {}).get("_meta") or {}
                        version = meta.get(STATELESS_VERSION_KEY)
                        if isinstance(version, str) and version in REVISIONS:
                            per_request[item["id"]] = version
            await receive(data)

        conn.receive = remembering  # type: ignore[method-assign]
        return conn

    monkeypatch.setattr(Server, "connect", connect)
    yield
    if failures:
        pytest.fail("the server wrote invalid messages:\n" + "\n".join(failures))


def negotiated(message: Any, methods: dict[Any, str]) -> str | None:
    """The revision an initialize result settles on, or None for any other message."""
    if (
        isinstance(message, dict)
        and methods.get(message.get("id")) == "initialize"
        and isinstance(message.get("result"), dict)
    ):
        version = message["result"].get("protocolVersion")
        return version if isinstance(version, str) else None
    return None


def validate(message: Any, revision: str, methods: dict[Any, str]) -> None:
    """Validate one decoded server message (or batch); `methods` maps request id -> method."""
    if isinstance(message, list):
        validate_server_message(message, revision)
        for element in message:
            validate(element, revision, methods)
        return
    method = None
    if isinstance(message, dict) and "result" in message:
        method = methods.get(message.get("id"))
    validate_server_message(message, revision, method=method)


class Session:
    """One in-memory client connection to `server` (see the module docstring)."""

    def __init__(self, server: Server, *, revision_hint: str = "2025-11-25") -> None:
        self.server = server
        self.revision_hint = revision_hint
        self.revision: str | None = None
        """The negotiated revision, once initialize has been answered."""
        self.messages: list[Any] = []
        """Every message the server wrote, decoded, in order."""
        self.failures: list[str] = []
        self._methods: dict[Any, str] = {}
        self._ids = itertools.count(1)
        self._arrived = anyio.Event()
        self._tasks: anyio.abc.TaskGroup | None = None
        self._sent_at = 0
        self._request_sent_at: dict[tuple[type, Any], int] = {}

    # --- lifecycle -----------------------------------------------------------------------

    async def __aenter__(self) -> Session:
        self._tasks = anyio.create_task_group()
        await self._tasks.__aenter__()
        self.conn = self.server.connect(self._written)
        self.conn.bind(self._tasks)
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        assert self._tasks is not None
        self.conn.close()
        self._tasks.cancel_scope.cancel()
        await self._tasks.__aexit__(*exc_info)
        if exc_info[0] is None:
            self.check()

    def check(self) -> None:
        """Raise if any message written so far failed validation."""
        if self.failures:
            raise AssertionError("the server wrote invalid messages:\n" + "\n".join(self.failures))

    # --- the server's side ---------------------------------------------------------------

    async def _written(self, data: bytes) -> None:
        try:
            assert isinstance(data, bytes), f"transports get bytes, not {type(data).__name__}"
            assert b"\n" not in data, "a message must be one line"
            message = wire_loads(data)
            self.revision = negotiated(message, self._methods) or self.revision
            validate(message, self.revision or self.revision_hint, self._methods)
        except (AssertionError, orjson.JSONDecodeError, ValueError) as exc:
            self.failures.append(f"{exc}\n  raw: {data[:600]!r}")
            message = {"__invalid__": data.decode(errors="replace")}
        self.messages.append(message)
        self._arrived.set()
        self._arrived = anyio.Event()

    # --- the client's side ---------------------------------------------------------------

    def next_id(self) -> int:
        return next(self._ids)

    def _remember(self, message: Any) -> None:
        if isinstance(message, list):
            for element in message:
                self._remember(element)
        elif isinstance(message, dict) and "method" in message and "id" in message:
            with contextlib.suppress(TypeError):  # an unhashable (invalid) id
                self._methods[message["id"]] = message["method"]
                # responses to this id are looked for from here on (ids may be reused)
                self._request_sent_at[(type(message["id"]), message["id"])] = len(self.messages)

    async def send(self, message: Any) -> None:
        """Send one JSON value (a message, a batch or anything else) as one line."""
        self._remember(message)
        self._sent_at = len(self.messages)
        try:
            data = orjson.dumps(message, option=orjson.OPT_PASSTHROUGH_DATACLASS)
        except TypeError:  # integers beyond 64 bits: the stdlib writes them exactly
            data = json.dumps(message).encode()
        await self.conn.receive(data)

    async def send_raw(self, data: bytes) -> None:
        self._sent_at = len(self.messages)
        await self.conn.receive(data)

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        await self.send(message)

    async def start(
        self, method: str, params: dict[str, Any] | None = None, *, id: Any = None
    ) -> Any:
        """Send a request without waiting; returns its id."""
        request_id = self.next_id() if id is None else id
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        await self.send(message)
        return request_id

    async def request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        id: Any = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> dict[str, Any]:
        """Send a request and return the whole response message (with result or error)."""
        request_id = await self.start(method, params, id=id)
        return await self.response(request_id, timeout=timeout)

    async def result(
        self, method: str, params: dict[str, Any] | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """Send a request and return its result; fails the test on an error response."""
        reply = await self.request(method, params, **kwargs)
        assert "result" in reply, f"{method} failed: {reply}"
        result: dict[str, Any] = reply["result"]
        return result

    async def call(
        self, name: str, arguments: dict[str, Any] | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """tools/call; returns the CallToolResult."""
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        return await self.result("tools/call", params, **kwargs)

    async def initialize(
        self,
        version: str = "2025-11-25",
        *,
        capabilities: dict[str, Any] | None = None,
        client_info: dict[str, Any] | None = None,
        initialized: bool = True,
    ) -> dict[str, Any]:
        """The handshake; returns the InitializeResult."""
        self.revision_hint = version if version in HANDSHAKE_REVISIONS else self.revision_hint
        result = await self.result(
            "initialize",
            {
                "protocolVersion": version,
                "capabilities": capabilities or {},
                "clientInfo": client_info or {"name": "plainmcp-tests", "version": "0"},
            },
        )
        if initialized:
            await self.notify("notifications/initialized")
        return result

    # --- waiting -------------------------------------------------------------------------

    async def wait_for(
        self,
        predicate: Callable[[Any], bool],
        *,
        timeout: float = DEFAULT_TIMEOUT,
        since: int = 0,
    ) -> Any:
        """The first message (already written or still to come) that satisfies `predicate`."""
        seen = since
        with anyio.fail_after(timeout):
            while True:
                self.check()
                for message in self.messages[seen:]:
                    if predicate(message):
                        return message
                seen = len(self.messages)
                await self._arrived.wait()

    async def response(self, request_id: Any, *, timeout: float = DEFAULT_TIMEOUT) -> Any:
        def answers(message: Any) -> bool:
            return (
                isinstance(message, dict)
                and "method" not in message
                and _same_id(message.get("id"), request_id)
            )

        since = self._request_sent_at.get((type(request_id), request_id), 0)
        return await self.wait_for(answers, timeout=timeout, since=since)

    async def next_message(self, *, timeout: float = DEFAULT_TIMEOUT) -> Any:
        """The first message written since the last `send`/`send_raw`/`notify`/`start`."""
        start = self._sent_at
        with anyio.fail_after(timeout):
            while len(self.messages) <= start:
                self.check()
                await self._arrived.wait()
        self.check()
        return self.messages[start]

    async def settle(self, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Wait until the connection runs no request and writes no reply: checked at every turn
        of the event loop (nothing is timed; `timeout` only bounds a test that would hang)."""
        with anyio.fail_after(timeout):
            while self.conn.busy:
                await anyio.lowlevel.checkpoint()
        self.check()

    async def drain(self) -> None:
        """Wait until the callbacks already queued on the event loop have run, and the first
        step of every task they started (asyncio runs both in order): what a hand-off from
        another thread would write has been written."""
        drained = anyio.Event()

        async def mark() -> None:
            drained.set()

        assert self._tasks is not None, "inside `async with Session(...)` only"
        asyncio.get_running_loop().call_soon(self._tasks.start_soon, mark)
        with anyio.fail_after(DEFAULT_TIMEOUT):
            await drained.wait()
        self.check()

    def upto(self, message: Any) -> list[Any]:
        """The messages written up to and including `message` (one of `self.messages`)."""
        for index, written in enumerate(self.messages):
            if written is message:
                return self.messages[: index + 1]
        raise AssertionError(f"not a message written in this session: {message!r}")

    def replies_to(self, request_id: Any, messages: list[Any] | None = None) -> list[Any]:
        """The responses (results or errors) to `request_id` among `messages` (default: all)."""
        among = self.messages if messages is None else messages
        return [
            m
            for m in among
            if isinstance(m, dict) and "method" not in m and _same_id(m.get("id"), request_id)
        ]

    async def quiet(self, duration: float = 0.2) -> list[Any]:
        """Let the server run for `duration`; return what it wrote meanwhile."""
        start = len(self.messages)
        await anyio.sleep(duration)
        self.check()
        return self.messages[start:]

    def notifications(self, method: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if isinstance(m, dict) and m.get("method") == method]


def _same_id(a: Any, b: Any) -> bool:
    return type(a) is type(b) and bool(a == b)
