"""Real MCP clients against the example servers served over Streamable HTTP.

`plainmcp run FILE --http` serves each example in a subprocess (one per example for this
module, tests/http_server.py); the clients talk to http://127.0.0.1:PORT/mcp:

- the official Python SDK client (PyPI `mcp`), in mode="legacy" (the initialize handshake, an
  Mcp-Session-Id session) and mode="2026-07-28" (stateless, every request with its own `_meta`):
  every demo tool must give exactly the result of the table in conftest.py, as in the stdio tests
  test_python_sdk.py and test_demo_sdk_2026.py;
- the same client against the conformance fixtures (examples/everything_server.py), with every
  HTTP exchange recorded: log and progress notifications of a call arrive on that call's own SSE
  response stream; sampling and elicitation are server requests on that stream, answered by a
  POST of the client's response (legacy), or input-required results that the client answers by
  calling again with inputResponses and the echoed requestState (2026-07-28);
- the TypeScript SDK v2 client (@modelcontextprotocol/client, ts_client.mjs under node 22), in
  both eras, calling every demo tool in one node process per era.

The Inspector CLI over HTTP is in test_http_inspector.py.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, cast

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import (
    CallToolResult,
    ElicitResult,
    ProgressNotification,
    RequestParamsMeta,
)

from tests.http_server import HttpServer, http_server
from tests.interop.conftest import (
    ADD_INPUT_SCHEMA,
    CALLS,
    DEMO,
    EXACT_CLIENT,
    OUTPUT_SCHEMAS,
    READ_ONLY,
    TOOL_NAMES,
    Call,
    Site,
    check_png,
    check_wav,
    fetch_calls,
)
from tests.interop.test_demo_sdk_2026 import NATURAL_SCHEMAS, SERVER_META, natural
from tests.interop.test_everything_sdk import (
    EVERYTHING,
    LOGS,
    SAMPLED_TEXT,
    USER,
    eventually,
)
from tests.interop.test_everything_sdk_2026 import ENUMS_SCHEMA, USER_INFO_SCHEMA, Peer
from tests.interop.tools import ensure_ts_client, run_ts_client

pytestmark = [
    pytest.mark.anyio,
    # logging/setLevel is a handshake-era method the SDK flags as deprecated.
    pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning"),
]

LEGACY = "legacy"
MODERN = "2026-07-28"
MODES = [LEGACY, MODERN]
HANDSHAKE_VERSION = "2025-11-25"
"""What mode="legacy" (and the TypeScript client's legacy era) negotiates."""
DEMO_INFO = {"name": "plainmcp-demo", "version": "0.1.0"}
EVERYTHING_META = {
    "io.modelcontextprotocol/serverInfo": {"name": "plainmcp-everything", "version": "0.1.0"}
}


@pytest.fixture(scope="module")
def demo_http() -> Iterator[HttpServer]:
    with http_server(DEMO) as server:
        yield server


@pytest.fixture(scope="module")
def everything_http() -> Iterator[HttpServer]:
    with http_server(EVERYTHING) as server:
        yield server


def wire(model: Any) -> dict[str, Any]:
    """Only the fields the server sent: the SDK fills in defaults (resultType before 2026,
    ttlMs, …) that exclude_unset leaves out."""
    dumped: dict[str, Any] = model.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return dumped


def expected_call(call: Call, mode: str) -> Call:
    """The table's call as the server answers it in `mode` (2026-07-28: resultType, the server's
    `_meta`, a wrapped structured value as itself)."""
    return call if mode == LEGACY else natural(call)


# =============================================================================================
# The Python SDK client against the demo: every tool, both eras
# =============================================================================================


@pytest.fixture(scope="module", params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    value: str = request.param
    return value


@pytest.fixture(scope="module")
async def demo_client(demo_http: HttpServer, mode: str) -> AsyncIterator[Client]:
    """Connected the way a user connects: the URL string."""
    async with Client(
        demo_http.url, mode=mode, read_timeout_seconds=30, client_info=EXACT_CLIENT
    ) as connected:
        yield connected


async def test_sdk_demo_connects(demo_client: Client, mode: str) -> None:
    if mode == LEGACY:
        assert demo_client.protocol_version == HANDSHAKE_VERSION
        assert demo_client.server_info is not None
        assert wire(demo_client.server_info) == DEMO_INFO
        assert demo_client.instructions is not None
        assert demo_client.instructions.startswith("Demo tools:")
        assert demo_client.server_capabilities.tools is not None
    else:
        assert demo_client.protocol_version == MODERN
        discovered = await demo_client.session.send_discover(MODERN)
        assert discovered["supportedVersions"] == [
            MODERN,
            "2025-11-25",
            "2025-06-18",
            "2025-03-26",
            "2024-11-05",
        ]
        assert discovered["_meta"] == SERVER_META
        assert discovered["resultType"] == "complete"


async def test_sdk_demo_list_tools(demo_client: Client, mode: str) -> None:
    listed = await demo_client.list_tools()
    dumped = wire(listed)
    assert [tool["name"] for tool in dumped.pop("tools")] == TOOL_NAMES
    if mode == LEGACY:
        assert dumped == {}
    else:
        assert dumped == {
            "_meta": SERVER_META,
            "ttlMs": 60000,
            "cacheScope": "public",
            "resultType": "complete",
        }
    schemas = OUTPUT_SCHEMAS if mode == LEGACY else NATURAL_SCHEMAS
    tools = {tool.name: tool for tool in listed.tools}
    assert tools["add"].description == "Add two integers."
    assert tools["add"].input_schema == ADD_INPUT_SCHEMA
    for name, tool in tools.items():
        assert tool.description, name
        assert tool.output_schema == schemas.get(name), name
        hints = tool.annotations.model_dump(by_alias=True, exclude_none=True)  # type: ignore[union-attr]
        expected = {"readOnlyHint": True, "openWorldHint": True} if name == "fetch" else READ_ONLY
        assert hints == expected, name


@pytest.mark.parametrize("call", CALLS, ids=[call.id for call in CALLS])
async def test_sdk_demo_call(demo_client: Client, mode: str, call: Call) -> None:
    result = await demo_client.call_tool(call.tool, call.arguments)
    assert isinstance(result, CallToolResult)
    expected_call(call, mode).check(wire(result))


async def test_sdk_demo_fetch(demo_client: Client, mode: str, site: Site) -> None:
    for call in fetch_calls(site):
        result = await demo_client.call_tool(call.tool, call.arguments)
        expected_call(call, mode).check(wire(result))


async def test_sdk_demo_media_decode(demo_client: Client) -> None:
    """The bytes survive the HTTP transport: a real bar chart, a real WAV."""
    chart = await demo_client.call_tool("chart", {"region": "south"})
    width, height, rows = check_png(chart.content[1].data)  # type: ignore[union-attr]
    assert (width, height) == (136, 106)
    blue = b"\x26\x8b\xd2"
    heights = [sum(row[x * 3 : x * 3 + 3] == blue for row in rows) for x in (20, 52, 84, 116)]
    assert heights == [70, 40, 60, 90]
    tone = await demo_client.call_tool("tone", {"frequency": 440, "duration_ms": 500})
    assert check_wav(tone.content[0].data) == (1, 2, 8000, 4000)  # type: ignore[union-attr]


async def test_sdk_demo_unknown_tool(demo_client: Client) -> None:
    with pytest.raises(MCPError) as raised:
        await demo_client.call_tool("no_such_tool", {})
    assert (raised.value.error.code, raised.value.error.message) == (
        -32602,
        "Unknown tool: no_such_tool",
    )


# =============================================================================================
# The Python SDK client against the conformance fixtures, every HTTP exchange recorded
# =============================================================================================


@dataclass
class Exchange:
    """One HTTP request of the client and the server's answer (the body as far as read)."""

    method: str
    headers: dict[str, str]
    body: Any
    status: int = 0
    response_headers: dict[str, str] = field(default_factory=dict)
    response_body: bytearray = field(default_factory=bytearray)

    @property
    def content_type(self) -> str:
        return self.response_headers.get("content-type", "").split(";")[0].strip()

    def messages(self) -> list[Any]:
        """The JSON-RPC messages of the answer: one JSON body, or each SSE event's data."""
        text = self.response_body.decode()
        if self.content_type == "application/json":
            return [json.loads(text)]
        assert self.content_type == "text/event-stream", self.content_type
        found = []
        for event in text.replace("\r\n", "\n").split("\n\n"):
            data = [line[5:].removeprefix(" ") for line in event.split("\n") if line[:5] == "data:"]
            if "".join(data):  # a priming event has an empty data field
                found.append(json.loads("\n".join(data)))
        return found


class _Tee(httpx2.AsyncByteStream):
    def __init__(self, inner: httpx2.AsyncByteStream, sink: bytearray) -> None:
        self._inner, self._sink = inner, sink

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            self._sink.extend(chunk)
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class Recorder(httpx2.AsyncBaseTransport):
    """An httpx2 transport that records every exchange, reading bodies as the SDK reads them."""

    def __init__(self) -> None:
        self._inner = httpx2.AsyncHTTPTransport()
        self.exchanges: list[Exchange] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        content = request.content
        exchange = Exchange(
            request.method, dict(request.headers), json.loads(content) if content else None
        )
        self.exchanges.append(exchange)
        response = await self._inner.handle_async_request(request)
        exchange.status, exchange.response_headers = response.status_code, dict(response.headers)
        stream = cast(httpx2.AsyncByteStream, response.stream)
        return httpx2.Response(
            response.status_code,
            headers=response.headers,
            stream=_Tee(stream, exchange.response_body),
            extensions=response.extensions,
            request=request,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()

    def posts(self, since: int, method: str = "tools/call") -> list[Exchange]:
        """The POSTs of `method` requests made since exchange number `since`."""
        return [
            e
            for e in self.exchanges[since:]
            if e.method == "POST" and isinstance(e.body, dict) and e.body.get("method") == method
        ]

    def answers(self, since: int) -> list[Exchange]:
        """The POSTs carrying the client's JSON-RPC responses to server requests."""
        return [
            e
            for e in self.exchanges[since:]
            if e.method == "POST" and isinstance(e.body, dict) and "method" not in e.body
        ]


@dataclass
class Traced:
    client: Client
    peer: Peer
    recorder: Recorder
    url: str


@contextlib.asynccontextmanager
async def _traced(url: str, mode: str) -> AsyncIterator[Traced]:
    peer, recorder = Peer(), Recorder()
    peer.reset()
    async with (
        httpx2.AsyncClient(transport=recorder, timeout=httpx2.Timeout(30, read=300)) as http,
        Client(
            streamable_http_client(url, http_client=http),
            mode=mode,
            read_timeout_seconds=30,
            sampling_callback=peer.on_sampling,
            elicitation_callback=peer.on_elicitation,
            logging_callback=peer.on_log,
            message_handler=peer.on_message,
            # 2026-07-28: log messages are opt-in per request (no effect on a legacy session).
            log_level="debug",
            client_info=EXACT_CLIENT,
        ) as client,
    ):
        yield Traced(client, peer, recorder, url)


@pytest.fixture(scope="module")
async def legacy_session(everything_http: HttpServer) -> AsyncIterator[Traced]:
    async with _traced(everything_http.url, LEGACY) as traced:
        await traced.client.set_logging_level("debug")
        yield traced


@pytest.fixture(scope="module")
async def modern_session(everything_http: HttpServer) -> AsyncIterator[Traced]:
    async with _traced(everything_http.url, MODERN) as traced:
        yield traced


@pytest.fixture
def legacy(legacy_session: Traced) -> Traced:
    legacy_session.peer.reset()
    return legacy_session


@pytest.fixture
def modern(modern_session: Traced) -> Traced:
    modern_session.peer.reset()
    return modern_session


def legacy_text(text: str, *, is_error: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": is_error}


def modern_text(text: str, *, is_error: bool = False) -> dict[str, Any]:
    return {
        "_meta": EVERYTHING_META,
        **legacy_text(text, is_error=is_error),
        "resultType": "complete",
    }


def sse(exchange: Exchange) -> list[Any]:
    """The messages of a POST answered with an SSE stream."""
    assert (exchange.status, exchange.content_type) == (200, "text/event-stream")
    return exchange.messages()


def response(exchange: Exchange, result: Any) -> dict[str, Any]:
    """The JSON-RPC response to the request of `exchange`."""
    return {"jsonrpc": "2.0", "id": exchange.body["id"], "result": wire(result)}


def notification(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params}


LOG_MESSAGES = [notification("notifications/message", log) for log in LOGS]


def progress_messages(token: str | int) -> list[dict[str, Any]]:
    return [
        notification(
            "notifications/progress", {"progressToken": token, "progress": p, "total": 100}
        )
        for p in (0, 50, 100)
    ]


SAMPLING_PARAMS = {
    "messages": [{"role": "user", "content": {"type": "text", "text": "Test prompt for sampling"}}],
    "maxTokens": 100,
}
SAMPLING_ANSWER = {
    "role": "assistant",
    "content": {"type": "text", "text": SAMPLED_TEXT},
    "model": "test-model",
    "stopReason": "endTurn",
}
ACCEPTED = (
    'User response: action=accept, content={"username":"testuser","email":"test@example.com"}'
)
DEFAULTS_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "User name", "default": "John Doe"},
        "age": {"type": "integer", "description": "User age", "default": 30},
        "score": {"type": "number", "description": "User score", "default": 95.5},
        "status": {
            "type": "string",
            "description": "User status",
            "enum": ["active", "inactive", "pending"],
            "default": "active",
        },
        "verified": {"type": "boolean", "description": "Verification status", "default": True},
    },
}
# (tool, arguments, the callback's answer, what the server asked, the tool's text)
ELICITATIONS = [
    (
        "test_elicitation",
        {"message": "Please provide your information"},
        ElicitResult(action="accept", content=dict(USER)),
        {"message": "Please provide your information", "requestedSchema": USER_INFO_SCHEMA},
        ACCEPTED,
    ),
    (
        "test_elicitation",
        {"message": "Who are you?"},
        ElicitResult(action="decline"),
        {"message": "Who are you?", "requestedSchema": USER_INFO_SCHEMA},
        "User response: action=decline, content={}",
    ),
    (
        "test_elicitation",
        {"message": "Who are you?"},
        ElicitResult(action="cancel"),
        {"message": "Who are you?", "requestedSchema": USER_INFO_SCHEMA},
        "User response: action=cancel, content={}",
    ),
    (
        "test_elicitation_sep1034_defaults",
        {},
        ElicitResult(action="accept", content={"name": "Ada", "age": 36}),
        {
            "message": "Please review and update the form fields with defaults",
            "requestedSchema": DEFAULTS_SCHEMA,
        },
        'Elicitation completed: action=accept, content={"name":"Ada","age":36}',
    ),
    (
        "test_elicitation_sep1330_enums",
        {},
        ElicitResult(
            action="accept",
            content={"untitledSingle": "option2", "titledMulti": ["value1", "value3"]},
        ),
        {"message": "Please select options from the enum fields", "requestedSchema": ENUMS_SCHEMA},
        'Elicitation completed: action=accept, content={"untitledSingle":"option2",'
        '"titledMulti":["value1","value3"]}',
    ),
]
ELICITATION_IDS = ["accept", "decline", "cancel", "sep1034-defaults", "sep1330-enums"]


# --- legacy (2025-11-25): one session; everything of a call on the call's SSE stream ----------


async def test_legacy_session(legacy: Traced) -> None:
    """initialize issues an Mcp-Session-Id (visible ASCII); every later request carries it."""
    assert legacy.client.protocol_version == HANDSHAKE_VERSION
    recorded = legacy.recorder.exchanges
    [initialize] = legacy.recorder.posts(0, "initialize")
    assert recorded[0] is initialize
    assert (initialize.status, initialize.content_type) == (200, "application/json")
    session = initialize.response_headers["mcp-session-id"]
    assert session and all("\x21" <= c <= "\x7e" for c in session)
    for exchange in recorded[1:]:
        assert exchange.headers["mcp-session-id"] == session, exchange.body
        assert exchange.headers["mcp-protocol-version"] == HANDSHAKE_VERSION, exchange.body


async def test_legacy_logs_on_the_call_stream(legacy: Traced) -> None:
    since = len(legacy.recorder.exchanges)
    result = await legacy.client.call_tool("test_tool_with_logging", {})
    assert wire(result) == legacy_text("Tool with logging executed successfully")
    await eventually(lambda: len(legacy.peer.logs) >= 3, "three log messages")
    assert legacy.peer.logs == LOGS
    [post] = legacy.recorder.posts(since)
    assert sse(post) == [*LOG_MESSAGES, response(post, result)]


async def test_legacy_progress_callback_on_the_call_stream(legacy: Traced) -> None:
    """The SDK's progress_callback: its token (the request id) comes back on the stream."""
    since = len(legacy.recorder.exchanges)
    result = await legacy.client.call_tool(
        "test_tool_with_progress", {}, progress_callback=legacy.peer.on_progress
    )
    await eventually(lambda: len(legacy.peer.progress) >= 3, "three progress notifications")
    assert legacy.peer.progress == [(0.0, 100.0, None), (50.0, 100.0, None), (100.0, 100.0, None)]
    [post] = legacy.recorder.posts(since)
    token = post.body["params"]["_meta"]["progressToken"]
    assert wire(result) == legacy_text(str(token))
    assert sse(post) == [*progress_messages(token), response(post, result)]


async def test_legacy_progress_token_on_the_call_stream(legacy: Traced) -> None:
    since = len(legacy.recorder.exchanges)
    meta = cast(RequestParamsMeta, {"progressToken": "progress-test-1"})
    result = await legacy.client.call_tool("test_tool_with_progress", {}, meta=meta)
    assert wire(result) == legacy_text("progress-test-1")
    await eventually(
        lambda: sum(isinstance(n, ProgressNotification) for n in legacy.peer.notifications) >= 3,
        "progress notifications",
    )
    received = [n for n in legacy.peer.notifications if isinstance(n, ProgressNotification)]
    expected = progress_messages("progress-test-1")
    assert [wire(n.params) for n in received] == [m["params"] for m in expected]
    [post] = legacy.recorder.posts(since)
    assert sse(post) == [*expected, response(post, result)]


async def test_legacy_sampling_on_the_call_stream(legacy: Traced) -> None:
    """sampling/createMessage goes out on the call's stream; the client POSTs its answer."""
    since = len(legacy.recorder.exchanges)
    result = await legacy.client.call_tool("test_sampling", {"prompt": "Test prompt for sampling"})
    assert wire(result) == legacy_text(f"LLM response: {SAMPLED_TEXT}")
    assert legacy.peer.sampling == [SAMPLING_PARAMS]
    [post] = legacy.recorder.posts(since)
    asked, done = sse(post)
    assert asked == {
        "jsonrpc": "2.0",
        "id": asked["id"],
        "method": "sampling/createMessage",
        "params": SAMPLING_PARAMS,
    }
    assert done == response(post, result)
    [answer] = legacy.recorder.answers(since)
    assert answer.body == {"jsonrpc": "2.0", "id": asked["id"], "result": SAMPLING_ANSWER}
    await eventually(lambda: answer.status != 0, "the answer's HTTP status")
    assert answer.status == 202


@pytest.mark.parametrize(
    ("tool", "arguments", "answer", "asked", "text"), ELICITATIONS, ids=ELICITATION_IDS
)
async def test_legacy_elicitation_on_the_call_stream(
    legacy: Traced,
    tool: str,
    arguments: dict[str, Any],
    answer: ElicitResult,
    asked: dict[str, Any],
    text: str,
) -> None:
    legacy.peer.elicit_answer = answer
    since = len(legacy.recorder.exchanges)
    result = await legacy.client.call_tool(tool, arguments)
    assert wire(result) == legacy_text(text)
    assert legacy.peer.elicitations == [asked]
    [post] = legacy.recorder.posts(since)
    request, done = sse(post)
    assert request == {
        "jsonrpc": "2.0",
        "id": request["id"],
        "method": "elicitation/create",
        "params": asked,
    }
    assert done == response(post, result)
    [posted] = legacy.recorder.answers(since)
    assert posted.body == {"jsonrpc": "2.0", "id": request["id"], "result": wire(answer)}
    await eventually(lambda: posted.status != 0, "the answer's HTTP status")
    assert posted.status == 202


# --- 2026-07-28: stateless; questions are input-required results, answered by calling again ---


async def test_modern_is_stateless(modern: Traced) -> None:
    """No initialize and no session: every request is a POST that carries its own `_meta` and
    the MCP-Protocol-Version, Mcp-Method (and Mcp-Name) headers."""
    await modern.client.call_tool("test_simple_text")
    assert modern.client.protocol_version == MODERN
    recorded = modern.recorder.exchanges
    assert recorded
    for exchange in recorded:
        assert exchange.method == "POST"
        assert "mcp-session-id" not in exchange.headers
        assert "mcp-session-id" not in exchange.response_headers
        assert exchange.headers["mcp-protocol-version"] == MODERN
        body = exchange.body
        assert exchange.headers["mcp-method"] == body["method"]
        meta = body["params"]["_meta"]
        assert meta["io.modelcontextprotocol/protocolVersion"] == MODERN
        assert meta["io.modelcontextprotocol/clientCapabilities"]["sampling"] == {}
        if body["method"] == "tools/call":
            assert exchange.headers["mcp-name"] == body["params"]["name"]
    assert not modern.recorder.posts(0, "initialize")


async def test_modern_logs_on_the_call_stream(modern: Traced) -> None:
    since = len(modern.recorder.exchanges)
    result = await modern.client.call_tool("test_tool_with_logging", {})
    assert wire(result) == modern_text("Tool with logging executed successfully")
    await eventually(lambda: len(modern.peer.logs) >= 3, "three log messages")
    assert modern.peer.logs == LOGS
    [post] = modern.recorder.posts(since)
    assert post.body["params"]["_meta"]["io.modelcontextprotocol/logLevel"] == "debug"
    assert sse(post) == [*LOG_MESSAGES, response(post, result)]


async def test_modern_progress_on_the_call_stream(modern: Traced) -> None:
    since = len(modern.recorder.exchanges)
    meta = cast(RequestParamsMeta, {"progressToken": "progress-test-1"})
    named = await modern.client.call_tool("test_tool_with_progress", {}, meta=meta)
    assert wire(named) == modern_text("progress-test-1")
    result = await modern.client.call_tool(
        "test_tool_with_progress", {}, progress_callback=modern.peer.on_progress
    )
    await eventually(lambda: len(modern.peer.progress) >= 3, "three progress notifications")
    assert modern.peer.progress == [(0.0, 100.0, None), (50.0, 100.0, None), (100.0, 100.0, None)]
    first, second = modern.recorder.posts(since)
    assert sse(first) == [*progress_messages("progress-test-1"), response(first, named)]
    token = second.body["params"]["_meta"]["progressToken"]
    assert wire(result) == modern_text(str(token))
    assert sse(second) == [*progress_messages(token), response(second, result)]


def _input_required_round(
    traced: Traced, since: int, key: str, method: str, params: dict[str, Any], answer: Any
) -> Exchange:
    """Checks the two POSTs of one round; returns the second (the completed call)."""
    first, second = traced.recorder.posts(since)
    [asked] = first.messages()
    state = asked["result"].get("requestState")
    assert isinstance(state, str) and state
    assert first.content_type == "application/json"
    assert asked == {
        "jsonrpc": "2.0",
        "id": first.body["id"],
        "result": {
            "resultType": "input_required",
            "inputRequests": {key: {"method": method, "params": params}},
            "requestState": state,
            "_meta": EVERYTHING_META,
        },
    }
    # The retry: a new request id, the same call, the answers and the state echoed verbatim.
    assert second.body["id"] != first.body["id"]
    retry = dict(second.body["params"])
    assert retry.pop("inputResponses") == {key: answer}
    assert retry.pop("requestState") == state
    assert retry == first.body["params"]
    # No server-to-client JSON-RPC request and no POSTed answer anywhere: it all rode on results.
    assert traced.recorder.answers(since) == []
    return second


async def test_modern_sampling_round_trip(modern: Traced) -> None:
    since = len(modern.recorder.exchanges)
    result = await modern.client.call_tool("test_sampling", {"prompt": "Test prompt for sampling"})
    assert wire(result) == modern_text(f"LLM response: {SAMPLED_TEXT}")
    assert modern.peer.sampling == [SAMPLING_PARAMS]
    done = _input_required_round(
        modern, since, "sampling-1", "sampling/createMessage", SAMPLING_PARAMS, SAMPLING_ANSWER
    )
    assert done.messages() == [response(done, result)]


@pytest.mark.parametrize(
    ("tool", "arguments", "answer", "asked", "text"), ELICITATIONS, ids=ELICITATION_IDS
)
async def test_modern_elicitation_round_trip(
    modern: Traced,
    tool: str,
    arguments: dict[str, Any],
    answer: ElicitResult,
    asked: dict[str, Any],
    text: str,
) -> None:
    modern.peer.elicit_answer = answer
    since = len(modern.recorder.exchanges)
    result = await modern.client.call_tool(tool, arguments)
    assert wire(result) == modern_text(text)
    assert modern.peer.elicitations == [asked]
    done = _input_required_round(
        modern, since, "elicitation-1", "elicitation/create", asked, wire(answer)
    )
    assert done.messages() == [response(done, result)]


# =============================================================================================
# The TypeScript SDK v2 client (node 22): every demo tool, both eras, one process per era
# =============================================================================================


def _run_ts_client(url: str, mode: str, calls: list[Call]) -> dict[str, Any]:
    job = {
        "url": url,
        "mode": mode,
        "calls": [{"id": c.id, "tool": c.tool, "arguments": c.arguments} for c in calls],
    }
    run: dict[str, Any] = {"calls": {}}
    for record in run_ts_client(job):
        if record["kind"] == "call":
            run["calls"][record["id"]] = record
        else:
            run[record["kind"]] = record
    return run


@pytest.fixture(scope="module")
def ts_runs(demo_http: HttpServer, site: Site) -> dict[str, dict[str, Any]]:
    """mode -> the TS client's output: both eras run at once, each calling every tool."""
    ensure_ts_client()
    calls = CALLS + fetch_calls(site)
    with ThreadPoolExecutor(max_workers=len(MODES)) as pool:
        futures = {m: pool.submit(_run_ts_client, demo_http.url, m, calls) for m in MODES}
        return {m: future.result() for m, future in futures.items()}


@pytest.mark.parametrize("era", MODES)
def test_ts_client_connects(ts_runs: dict[str, dict[str, Any]], era: str) -> None:
    connected = ts_runs[era]["connected"]
    if era == LEGACY:
        assert connected == {
            "kind": "connected",
            "protocolVersion": HANDSHAKE_VERSION,
            "era": "legacy",
            "serverVersion": DEMO_INFO,
        }
    else:
        # serverVersion comes from the server/discover result the pinned client asks for.
        assert connected == {
            "kind": "connected",
            "protocolVersion": MODERN,
            "era": "modern",
            "serverVersion": DEMO_INFO,
        }


@pytest.mark.parametrize("era", MODES)
def test_ts_client_list_tools(ts_runs: dict[str, dict[str, Any]], era: str) -> None:
    listed = ts_runs[era]["tools"]
    [sent] = listed["wire"]
    sent = dict(sent)
    tools = sent.pop("tools")
    assert [tool["name"] for tool in tools] == TOOL_NAMES
    if era == LEGACY:
        assert sent == {}
    else:
        assert sent == {
            "_meta": SERVER_META,
            "ttlMs": 60000,
            "cacheScope": "public",
            "resultType": "complete",
        }
    assert [tool["name"] for tool in listed["result"]["tools"]] == TOOL_NAMES
    schemas = OUTPUT_SCHEMAS if era == LEGACY else NATURAL_SCHEMAS
    by_name = {tool["name"]: tool for tool in tools}
    assert by_name["add"]["description"] == "Add two integers."
    assert by_name["add"]["inputSchema"] == ADD_INPUT_SCHEMA
    for name, tool in by_name.items():
        assert tool.get("outputSchema") == schemas.get(name), name
        hints = {"readOnlyHint": True, "openWorldHint": True} if name == "fetch" else READ_ONLY
        assert tool["annotations"] == hints, name


def _check_ts_call(run: dict[str, Any], call: Call, era: str) -> None:
    record = run["calls"][call.id]
    assert "error" not in record, record.get("error")
    [sent] = record["wire"]
    expected_call(call, era).check(sent)
    # What callTool hands the caller: the wire result (the SDK keeps resultType to itself).
    assert record["result"] == {k: v for k, v in sent.items() if k != "resultType"}, call.id


@pytest.mark.parametrize("era", MODES)
@pytest.mark.parametrize("call", CALLS, ids=[call.id for call in CALLS])
def test_ts_client_call(ts_runs: dict[str, dict[str, Any]], era: str, call: Call) -> None:
    _check_ts_call(ts_runs[era], call, era)


@pytest.mark.parametrize("era", MODES)
def test_ts_client_fetch(ts_runs: dict[str, dict[str, Any]], era: str, site: Site) -> None:
    for call in fetch_calls(site):
        _check_ts_call(ts_runs[era], call, era)
