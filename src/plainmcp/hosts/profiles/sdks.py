"""The rows of SDK clients: the Python SDK's ClientSession and FastMCP's Client, and the rows of
the default names they send (which the frameworks built on them send too)."""

from __future__ import annotations

from plainmcp.hosts.profiles.cells import PYDANTIC_AI_TEST, UNKNOWN, Cell, Declared, HostProfile

_SDK = "src/mcp/client/session.py@modelcontextprotocol/python-sdk (DEFAULT_CLIENT_INFO)"
_FASTMCP = "fastmcp_slim/fastmcp/client/mixins/tools.py@PrefectHQ/fastmcp (v4.0.0b3)"
_SDK_TASKS = "tests/interop/test_tasks_sdk.py (mcp 2.3.0, driven here)"

PYTHON_SDK = HostProfile(
    key="python-sdk",
    title="The official Python SDK's ClientSession",
    client_names=(),
    reads=Cell("both", f"{_SDK}: call_tool returns the whole CallToolResult"),
    error_blocks=Cell("all", _SDK),
    images=Cell("shown", _SDK),
    audio=Cell("shown", _SDK),
    embedded=Cell("shown", _SDK),
    links=Cell("shown", _SDK),
    limit=Cell(None, "no limit in the SDK"),
    limit_raise=UNKNOWN,
    max_result_size_meta=Cell(False, _SDK),
    reads_resources=Cell(True, f"{_SDK} (read_resource, for the application)"),
    verified='mcp 2.3.0; sends clientInfo "mcp" unless given one (see the "mcp" row)',
    # Observed 2026-12-02 with mcp 2.3.0 over HTTP (the server's client log); pinned by
    # tests/interop/test_tasks_sdk.py. Nothing unless asked: sampling, elicitation and roots
    # follow the callbacks given (mcp/client/session.py ClientSession._build_capabilities), and
    # extensions the Client(extensions=[...]) given; `tasks` is never declared.
    declared=Cell(
        Declared.of("2026-07-28", True, {}),
        f"{_SDK_TASKS}: Client(url), mode 'auto', without callbacks or extensions",
    ),
    declared_legacy=Cell(
        Declared.of("2025-11-25", False, {}),
        f"{_SDK_TASKS}: Client(url, mode='legacy'), the handshake 'auto' falls back to",
    ),
)

FASTMCP_CLIENT = HostProfile(
    key="fastmcp-client",
    title="FastMCP's Client",
    client_names=(),
    reads=Cell("structured", f"{_FASTMCP}: call_tool returns .data from structuredContent"),
    error_blocks=Cell("first", f"{_FASTMCP}: ToolError(content[0].text)"),
    images=Cell("shown", _FASTMCP),
    audio=Cell("shown", _FASTMCP),
    embedded=Cell("shown", _FASTMCP),
    links=Cell("shown", _FASTMCP),
    limit=UNKNOWN,
    limit_raise=UNKNOWN,
    max_result_size_meta=UNKNOWN,
    reads_resources=UNKNOWN,
    verified='4.2.3: sends "fastmcp" (client_info defaults to its own name)',
)

SDK_DEFAULT = HostProfile(
    key="mcp",
    title='Any client sending the Python SDK\'s default name "mcp"',
    client_names=("mcp",),
    reads=Cell("content", "openai-agents and LangChain send it and show the content only"),
    error_blocks=Cell("all", "every framework that sends it (rows below)"),
    images=Cell("shown", "every framework that sends it (rows below)"),
    audio=Cell(
        "refused",
        "LangChain sends it and fails the whole call on an audio block: described instead",
    ),
    embedded=Cell("bare", "LangChain sends it and shows only the resource's text"),
    links=UNKNOWN,
    limit=Cell(None, "none of the frameworks that send it has a limit"),
    limit_raise=UNKNOWN,
    max_result_size_meta=UNKNOWN,
    reads_resources=Cell(False, "neither openai-agents nor LangChain offers resources"),
    error_marked=Cell(False, "openai-agents sends it and hands an isError result on unflagged"),
    verified="the union of the rows that send it (the SDK's own ClientSession, openai-agents,"
    " LangChain): what loses least across them",
)
"""Several frameworks send the SDK's default name; the server cannot tell them apart, so this
row takes, of their cells, the adaptation that loses least across all of them."""

FASTMCP_DEFAULT = HostProfile(
    key="fastmcp",
    title='Any client sending FastMCP\'s default name "fastmcp"',
    client_names=("fastmcp",),
    reads=Cell(
        "structured", "FastMCP's client and pydantic-ai (through it) read structuredContent"
    ),
    error_blocks=Cell("first", "FastMCP's client raises with the first block only"),
    images=Cell("shown", "every framework that sends it (rows below)"),
    audio=Cell("shown", "every framework that sends it (rows below)"),
    embedded=Cell("bare", "pydantic-ai sends it and shows only the resource's text"),
    links=Cell("text", "pydantic-ai sends it and shows the URI"),
    limit=Cell(None, "none of the frameworks that send it has a limit"),
    limit_raise=UNKNOWN,
    max_result_size_meta=UNKNOWN,
    reads_resources=Cell(False, f"{PYDANTIC_AI_TEST}: no resource tool is offered to the model"),
    error_marked=Cell(False, "pydantic-ai sends it and hands an isError result on unflagged"),
    verified="the union of the rows that send it (FastMCP's Client 4.2.3, pydantic-ai 2.68.0)",
)
