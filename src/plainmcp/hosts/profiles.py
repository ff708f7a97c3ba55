"""What each known MCP client does with a tool result, as data.

Like `wire/revisions.py` for revisions, this table is the only place that knows hosts apart: the
renderer reads it (hosts/adapt.py), `plainmcp check` reads it, and docs/hosts.md is generated from
it (hosts/page.py). A profile is chosen by the `clientInfo.name` the client
sends (at `initialize`, or in each 2026-07-28 request's `_meta`).

Every cell cites its source: an issue, the client's docs or code, or a test of this project that
drives the real host. A cell nobody verified is `UNKNOWN` and takes the generic behaviour.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Generic, Literal, NamedTuple, TypeVar

from plainmcp.model.truncate import Unit

T = TypeVar("T")

Reads = Literal["content", "structured", "both"]
"""For a result with both `content` and `structuredContent`: what reaches the model."""
ErrorBlocks = Literal["first", "all"]
"""For an isError result with several content blocks: which reach the model."""
Carried = Literal["shown", "text", "bare", "file", "dropped", "refused"]
"""What becomes of a block kind: handed on as is, turned into text, turned into its bare text
(an embedded resource without its URI), saved to a file the model is told about, dropped, or
refused (the client fails the whole call on it)."""
TextJoin = Literal["apart", "run together"]
"""The text blocks of one result: kept apart (a list, or a blank line between them), or run
together into one string with nothing, or only a newline, between them."""


class Cell(NamedTuple, Generic[T]):
    """One fact about a host and where it comes from. `value` None means unknown.

    Cells and profiles are NamedTuples, not dataclasses: the table is made at every start, and
    a NamedTuple class in a sixth of the time."""

    value: T | None
    source: str


UNKNOWN: Cell[Any] = Cell(None, "unknown")


class HostProfile(NamedTuple):
    key: str
    """Stable identifier (`plainmcp check --host`, docs anchors)."""
    title: str
    client_names: tuple[str, ...]
    """`clientInfo.name` values that select this profile (compared case-insensitively)."""
    reads: Cell[Reads]
    error_blocks: Cell[ErrorBlocks]
    images: Cell[Carried]
    audio: Cell[Carried]
    embedded: Cell[Carried]
    links: Cell[Carried]
    limit: Cell[int]
    """The size of one result (in `limit_unit`) over which the host stops handing the whole of
    it inline."""
    limit_raise: Cell[str]
    """How a user raises that limit."""
    max_result_size_meta: Cell[bool]
    """Honours a per-tool `_meta["anthropic/maxResultSizeChars"]` in tools/list."""
    reads_resources: Cell[bool]
    """The model can read a resource (follow a resource_link) through the host."""
    text_join: Cell[TextJoin] = UNKNOWN
    error_marked: Cell[bool] = UNKNOWN
    """The model is told an isError result is a failure (not given its blocks as a success's)."""
    limit_unit: Cell[Unit] = UNKNOWN
    """What `limit` counts."""
    json_text_parsed: Cell[bool] = UNKNOWN
    """Without structuredContent, the host parses a first text block that is JSON as the
    structured value, and fails the call when that is not an object."""
    verified: str = ""
    """The client versions (or source revision) the cells were read at."""
    client_prefixes: tuple[str, ...] = ()
    """Starts of `clientInfo.name` values that select this profile, for a client that adds
    to its name (Qwen Code: its own name, then the server's name in its config)."""


GENERIC = HostProfile(
    key="generic",
    title="Any other client",
    client_names=(),
    reads=Cell("both", "the spec: structuredContent plus its serialized text for compatibility"),
    error_blocks=Cell("all", "the spec: content is a list of blocks"),
    images=Cell("shown", "the spec"),
    audio=Cell("shown", "the spec"),
    embedded=Cell("shown", "the spec"),
    links=Cell("shown", "the spec"),
    limit=UNKNOWN,
    limit_raise=UNKNOWN,
    max_result_size_meta=Cell(False, "an Anthropic extension"),
    reads_resources=UNKNOWN,
    text_join=Cell("apart", "the spec: content is a list of blocks"),
    error_marked=Cell(True, "the spec: isError tells the client the call failed"),
    limit_unit=Cell("characters", "plainmcp's own PayloadLimits"),
    json_text_parsed=Cell(False, "the spec: a text block is text"),
)
"""What plainmcp assumes of a client it does not know: the spec's reading, and no size limit
beyond the server's own PayloadLimits."""


_README = "../shared/hosts/README.md (Claude Code 2.1.328, driven here)"
_CC_TEST = "tests/hosts/test_claude_code.py (2.1.328, driven here)"
_PA_TEST = "tests/hosts/test_pydantic_ai.py (2.68.0, driven here)"
_GM_TEST = "tests/hosts/test_gemini_cli.py (0.61.0, driven here)"
_CX_TEST = "tests/hosts/test_codex_cli.py (0.169.0, driven here)"
_CP_TEST = "tests/hosts/test_copilot_cli.py (1.0.102, driven here)"
_MX_TEST = "tests/hosts/test_matrix.py (driven here)"
_OC_TEST = "tests/hosts/test_chat_hosts.py"
_QW_BUNDLE = "@qwen-code/qwen-code@0.24.4, chunks/ (getTruncateToolOutputThreshold, GATE_HEADROOM)"
_CN_SRC = "@continuedev/cli@1.5.47, src/tools/index.tsx (convertMcpToolToContinueTool)"
_CC_BIN = "@anthropic-ai/claude-code@2.1.328, bin/claude.exe"
_CC_DOCS = "https://code.claude.com/docs/en/mcp"
_VSCODE = "src/vs/workbench/contrib/mcp/common/mcpServerRequestHandler.ts@microsoft/vscode"
_SDK = "src/mcp/client/session.py@modelcontextprotocol/python-sdk (DEFAULT_CLIENT_INFO)"
_AGENTS = "src/agents/mcp/util.py@openai/openai-agents-python (MCPUtil.invoke_mcp_tool)"
_PYDANTIC = "pydantic_ai_slim/pydantic_ai/mcp.py@pydantic/pydantic-ai (MCPServer.direct_call_tool)"
_LANGCHAIN = "langchain_mcp_adapters/tools.py@langchain-ai/langchain-mcp-adapters"
_FASTMCP = "fastmcp_slim/fastmcp/client/mixins/tools.py@PrefectHQ/fastmcp (v4.0.0b3)"

CLAUDE_CODE = HostProfile(
    key="claude-code",
    title="Claude Code",
    client_names=("claude-code",),
    reads=Cell("structured", f"{_CC_TEST}; anthropics/claude-code#54450, #55677, #79944"),
    error_blocks=Cell("all", f"{_CC_TEST}; older versions: the first only (#1804)"),
    images=Cell("shown", _CC_TEST),
    audio=Cell("file", _CC_TEST),
    embedded=Cell("text", _CC_TEST),
    links=Cell("text", f"{_CC_TEST}; dropped before, anthropics/claude-code#53453"),
    limit=Cell(50_000, f"{_CC_TEST}; anthropics/claude-code#42869; {_CC_DOCS}"),
    limit_raise=Cell(
        "MAX_MCP_OUTPUT_TOKENS (default 25,000 tokens); per tool, the server's"
        ' _meta["anthropic/maxResultSizeChars"] (up to 500,000)',
        f"anthropics/claude-code#42869; {_CC_DOCS}",
    ),
    max_result_size_meta=Cell(True, f"{_CC_TEST}; anthropics/claude-code#42869, #78478"),
    reads_resources=Cell(True, f"{_CC_TEST} (ReadMcpResourceTool when the server has resources)"),
    limit_unit=Cell("characters", f"{_CC_TEST}: 50,000 characters of 2- and 3-byte letters"),
    verified=f"2.1.328 (clientInfo name from {_CC_BIN})",
)

CLAUDE_DESKTOP = HostProfile(
    key="claude-desktop",
    title="Claude Desktop",
    client_names=("claude-ai",),
    reads=UNKNOWN,
    error_blocks=UNKNOWN,
    images=Cell("shown", "anthropics/claude-ai-mcp#643 (shown, one turn late), #969"),
    audio=UNKNOWN,
    embedded=UNKNOWN,
    links=UNKNOWN,
    limit=UNKNOWN,
    limit_raise=UNKNOWN,
    max_result_size_meta=Cell(False, "anthropics/claude-code#78478 (its code agent drops it)"),
    reads_resources=UNKNOWN,
    verified="clientInfo claude-ai 0.1.0 in 0x4m4/hexstrike-ai#11 (2025-08)",
)

CURSOR = HostProfile(
    key="cursor",
    title="Cursor",
    client_names=("cursor-vscode",),
    reads=UNKNOWN,
    error_blocks=UNKNOWN,
    images=UNKNOWN,
    audio=UNKNOWN,
    embedded=UNKNOWN,
    links=UNKNOWN,
    limit=UNKNOWN,
    limit_raise=UNKNOWN,
    max_result_size_meta=UNKNOWN,
    reads_resources=Cell(True, "https://cursor.com/docs/mcp (resources supported)"),
    verified="clientInfo cursor-vscode as public servers' client detection code matches it",
)

VSCODE = HostProfile(
    key="vscode",
    title="VS Code (GitHub Copilot agent mode)",
    client_names=("Visual Studio Code", "Visual Studio Code - Insiders"),
    reads=Cell("structured", "microsoft/vscode#290063"),
    error_blocks=UNKNOWN,
    images=UNKNOWN,
    audio=UNKNOWN,
    embedded=UNKNOWN,
    links=UNKNOWN,
    limit=UNKNOWN,
    limit_raise=UNKNOWN,
    max_result_size_meta=UNKNOWN,
    reads_resources=UNKNOWN,
    verified=f"clientInfo name is productService.nameLong ({_VSCODE})",
)

COPILOT_CLI = HostProfile(
    key="copilot-cli",
    title="GitHub Copilot CLI",
    client_names=("copilot-cli", "github-copilot-developer"),
    reads=Cell(
        "both",
        f"{_CP_TEST}: the text, a blank line, the value's JSON, with or without an output"
        " schema; older versions showed only the value (github/copilot-cli#3258)",
    ),
    error_blocks=Cell("all", f"{_CP_TEST}: every text block, after `MCP server 'NAME': `"),
    images=Cell("dropped", f"{_CP_TEST}: an empty string; github/copilot-cli#4536 (1.0.80)"),
    audio=Cell("dropped", f"{_CP_TEST}: an empty string"),
    embedded=Cell("bare", f"{_CP_TEST}: only the resource's text, the URI is lost"),
    links=Cell("dropped", f"{_CP_TEST}: an empty string"),
    limit=Cell(
        20_480,
        f"{_CP_TEST}: a longer output is saved to a file; the model gets its path and a"
        " 500-character preview, without the marker",
    ),
    limit_raise=UNKNOWN,
    max_result_size_meta=Cell(False, f"{_CP_TEST}: a tool asking for 500,000 is saved the same"),
    reads_resources=Cell(False, f"{_CP_TEST}: no resource tool is offered to the model"),
    text_join=Cell("run together", f"{_CP_TEST}: the texts of the blocks with nothing between"),
    error_marked=Cell(
        False,
        f"{_CP_TEST}: `MCP server 'NAME': ` before the blocks, as before a success's",
    ),
    limit_unit=Cell(
        "bytes", f"{_CP_TEST}: 10,240 é (20,480 bytes) arrive whole, 6,827 日 (20,481) are saved"
    ),
    verified=(
        "1.0.102 (clientInfo copilot-cli, revision 2026-07-28); earlier versions sent"
        " github-copilot-developer (github/copilot-cli#1268)"
    ),
)

GEMINI_CLI = HostProfile(
    key="gemini-cli",
    title="Gemini CLI",
    client_names=("gemini-cli-mcp-client",),
    reads=Cell("content", f"{_GM_TEST}: the text, with or without an output schema"),
    error_blocks=Cell("all", f"{_GM_TEST}: the blocks as JSON in the error"),
    images=Cell("shown", f"{_GM_TEST}: inline data beside a text line"),
    audio=Cell("dropped", f"{_GM_TEST}: stripped from the parts the model gets"),
    embedded=Cell("bare", f"{_GM_TEST}: only the resource's text, the URI is lost"),
    links=Cell("text", f"{_GM_TEST}: `Resource Link: TITLE at URI`"),
    limit=Cell(
        40_000,
        f"{_GM_TEST}: a one-block result with its 41-unit wrapper; past it the model gets the"
        " first 8,000 and last 32,000 and a file's path (results of several blocks are not cut)",
    ),
    limit_raise=UNKNOWN,
    max_result_size_meta=Cell(False, f"{_GM_TEST}: a tool asking for 500,000 is cut the same"),
    reads_resources=Cell(
        False,
        f"{_GM_TEST}: read_mcp_resource reads only resources the server lists"
        " (`Resource not found` for a result's links)",
    ),
    text_join=Cell("apart", f"{_GM_TEST}: one part per block"),
    error_marked=Cell(True, f"{_GM_TEST}: the call is reported as an error"),
    limit_unit=Cell("UTF-16 units", f"{_GM_TEST}: 39,959 é arrive whole, 19,980 emoji are cut"),
    json_text_parsed=Cell(
        True,
        f"{_GM_TEST}; fixStructuredContent in @google/gemini-cli 0.61.0 parses the first text"
        " block into structuredContent, which must be an object",
    ),
    verified="0.61.0 (clientInfo gemini-cli-mcp-client, revision 2025-06-18)",
)

CODEX_CLI = HostProfile(
    key="codex-cli",
    title="Codex CLI",
    client_names=("codex-mcp-client",),
    reads=Cell("structured", f"{_CX_TEST}: the value's JSON, with or without an output schema"),
    error_blocks=Cell("all", f"{_CX_TEST}: every block, not marked as an error"),
    images=Cell("shown", f"{_CX_TEST}: an input_image with a data URL"),
    audio=Cell("dropped", f"{_CX_TEST}: a line saying the model takes no audio"),
    embedded=Cell("text", f"{_CX_TEST}: the block as JSON text"),
    links=Cell("text", f"{_CX_TEST}: the block as JSON text"),
    limit=Cell(
        11_964,
        f"{_CX_TEST}: 12,000 for the whole result, each block counted in 4-byte steps and"
        " Codex's own line as 36; past it the overflowing block keeps its head and tail and"
        " later blocks are omitted, for a model outside Codex's catalog (a catalog model's"
        " truncation_policy sets its own)",
    ),
    limit_raise=Cell(
        "config.toml tool_output_token_limit (tokens)",
        f"{_CX_TEST}: 100,000 lets 150,000 characters through",
    ),
    max_result_size_meta=Cell(False, f"{_CX_TEST}: a tool asking for 500,000 is cut the same"),
    reads_resources=Cell(True, f"{_CX_TEST}: read_mcp_resource is offered"),
    text_join=Cell("apart", f"{_CX_TEST}: one input_text per block"),
    error_marked=Cell(False, f"{_CX_TEST}: the blocks, as for a success"),
    limit_unit=Cell("bytes", f"{_CX_TEST}: 5,982 é (11,964 bytes) arrive whole, 5,983 are cut"),
    verified="0.169.0 (clientInfo codex-mcp-client, revision 2025-06-18)",
)


def _opencode_like(key: str, title: str, name: str, version: str, more: str) -> HostProfile:
    """opencode and its fork Kilo Code's CLI: one MCP client, measured the same way."""
    mx = f"{_MX_TEST} ({key}-stdio, {version}, driven here)"
    sizes = f"{_OC_TEST} ({key}, {version}, driven here)"
    return HostProfile(
        key=key,
        title=title,
        client_names=(name,),
        reads=Cell("content", f"{mx}: the text only, with or without an output schema"),
        error_blocks=Cell("all", f"{mx}: every text block, a blank line between them"),
        images=Cell(
            "shown",
            f"{sizes}: in a user message after the result, for a model declared to take images"
            " (else a line saying it cannot read them)",
        ),
        audio=Cell("dropped", f"{mx}, before this row: plainmcp now adds a description"),
        embedded=Cell("bare", f"{mx}: only the resource's text, the URI is lost"),
        links=Cell("dropped", f"{mx}: nothing of the link reaches the model"),
        limit=Cell(
            51_200,
            f"{sizes}: 51,200 UTF-8 bytes (not characters) or 2,000 lines, whichever comes"
            " first; past it the model gets the head that fits, the number of bytes or lines"
            " left out and the path of a file with the whole result, none of its end (a part"
            " plainmcp sends stays under both: its lines are far fewer than 2,000)",
        ),
        limit_raise=UNKNOWN,
        max_result_size_meta=UNKNOWN,
        reads_resources=Cell(True, f"{sizes}: read_mcp_resource reads a listed resource"),
        text_join=Cell("apart", f"{sizes}: a blank line between the blocks"),
        error_marked=Cell(
            False, f"{mx}, before this row: the blocks, as for a success (now `Error: ` first)"
        ),
        limit_unit=Cell("bytes", f"{sizes}: 51,200 UTF-8 bytes"),
        verified=f"{version} (clientInfo {name} {version}, asking for revision 2025-11-25){more}",
    )


OPENCODE = _opencode_like("opencode", "opencode", "opencode", "1.18.33", "")

KILO_CLI = _opencode_like(
    "kilo-cli",
    "Kilo Code's CLI",
    "kilo",
    "7.7.7",
    "; a fork of opencode (7.8.1, the newest, has no linux-x64 build in the registry here); as"
    " a session grows it replaces old results in the model's context by `[Old tool result"
    " content cleared]`",
)

_QW_MX = f"{_MX_TEST} (qwen-code-stdio, 0.24.4, driven here)"
_QW_TEST = f"{_OC_TEST} (qwen-code, 0.24.4, driven here)"

QWEN_CODE = HostProfile(
    key="qwen-code",
    title="Qwen Code",
    client_names=(),
    reads=Cell(
        "both", f"{_QW_MX}: the value's JSON, a newline, the text; with or without an output schema"
    ),
    error_blocks=Cell(
        "all", f"{_QW_MX}: the result as JSON after `MCP tool 'NAME' reported tool error`"
    ),
    images=Cell(
        "shown",
        f"{_QW_TEST}: in a user message after the result, for a model it knows to take images"
        " (qwen3-vl-plus; for another only `[image: image/png]`)",
    ),
    audio=Cell("text", f"{_QW_MX}: a line with its MIME type"),
    embedded=Cell("bare", f"{_QW_MX}: only the resource's text, the URI is lost"),
    links=Cell("text", f"{_QW_MX}: `Resource Link: NAME at URI`"),
    limit=Cell(
        28_000,
        f"{_QW_TEST}: characters (28,000 three-byte letters arrive whole); past it the result"
        " is saved to a file and the model gets its path and the first 2,000 characters (cut at"
        " a line), none of its end",
    ),
    limit_raise=Cell(
        "settings.json tools.truncateToolOutputThreshold (characters; default 25,000, the limit"
        " is it plus 3,000; 0 or less: no limit)",
        _QW_BUNDLE,
    ),
    max_result_size_meta=UNKNOWN,
    reads_resources=Cell(True, f"{_QW_TEST}: read_mcp_resource reads a listed resource"),
    text_join=Cell(
        "run together",
        f"{_QW_TEST}: one text, a single newline between the blocks (a block's own last line"
        " and the next block's first cannot be told apart)",
    ),
    error_marked=Cell(True, f"{_QW_MX}: `MCP tool 'NAME' reported tool error` first"),
    limit_unit=Cell("characters", f"{_QW_TEST}: 28,000 three-byte letters arrive whole"),
    verified=(
        "0.24.4 (clientInfo `qwen-cli-mcp-client-` and the server's name in the user's config,"
        " e.g. qwen-cli-mcp-client-mx, version 0.0.1: selected by that start)"
    ),
    client_prefixes=("qwen-cli-mcp-client-",),
)

_CN_MX = f"{_MX_TEST} (continue-cli-stdio, 1.5.47, driven here)"
_CN_TEST = f"{_OC_TEST} (continue-cli, 1.5.47, driven here)"

CONTINUE_CLI = HostProfile(
    key="continue-cli",
    title="Continue's CLI",
    client_names=("continue-cli-client",),
    reads=Cell("content", f"{_CN_MX}; {_CN_SRC}: JSON.stringify(result.content), nothing else"),
    error_blocks=Cell("all", f"{_CN_MX}: every block, in the JSON of the content list"),
    images=Cell("text", f"{_CN_MX}: the block's JSON, its base64 data as text"),
    audio=Cell("text", f"{_CN_MX}: the block's JSON"),
    embedded=Cell("text", f"{_CN_MX}: the block's JSON, URI and text"),
    links=Cell("text", f"{_CN_MX}: the block's JSON"),
    limit=Cell(None, f"{_CN_TEST}: 150,000 characters arrive whole"),
    limit_raise=UNKNOWN,
    max_result_size_meta=UNKNOWN,
    reads_resources=Cell(False, f"{_CN_TEST}: no resource tool is offered to the model"),
    text_join=Cell("apart", f"{_CN_TEST}: one JSON object per block"),
    error_marked=Cell(
        False,
        f"{_CN_MX}, before this row: the blocks' JSON, as for a success (now `Error: ` first);"
        f" {_CN_SRC}",
    ),
    verified="1.5.47 (clientInfo continue-cli-client 1.0.0, asking for revision 2025-11-25)",
)

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
)

OPENAI_AGENTS = HostProfile(
    key="openai-agents",
    title="OpenAI Agents SDK",
    client_names=(),
    reads=Cell("content", f"{_AGENTS}; use_structured_content defaults to False"),
    error_blocks=Cell("all", _AGENTS),
    images=Cell("shown", _AGENTS),
    audio=Cell("text", f"{_AGENTS}: the block as JSON text"),
    embedded=Cell("text", f"{_AGENTS}: the block as JSON text"),
    links=Cell("text", f"{_AGENTS}: the block as JSON text"),
    limit=UNKNOWN,
    limit_raise=UNKNOWN,
    max_result_size_meta=UNKNOWN,
    reads_resources=Cell(False, f"{_AGENTS}: only tools become model tools"),
    error_marked=Cell(False, f"{_AGENTS}: an isError result is handed on as its text"),
    verified='src/agents/mcp/server.py opens ClientSession without client_info: sends "mcp"',
)

PYDANTIC_AI = HostProfile(
    key="pydantic-ai",
    title="pydantic-ai",
    client_names=(),
    reads=Cell("structured", f"{_PA_TEST}; {_PYDANTIC}"),
    error_blocks=Cell("all", f"{_PA_TEST}: a retry with the texts as a JSON list"),
    images=Cell("shown", _PA_TEST),
    audio=Cell("shown", _PA_TEST),
    embedded=Cell("bare", f"{_PA_TEST}: only the text, the URI is lost"),
    links=Cell("text", f"{_PA_TEST}: only the URI, the name is lost"),
    limit=Cell(None, f"{_PA_TEST}: 150,000 characters arrive whole"),
    limit_raise=UNKNOWN,
    max_result_size_meta=UNKNOWN,
    reads_resources=Cell(False, f"{_PA_TEST}: no resource tool is offered to the model"),
    error_marked=Cell(False, f"{_MX_TEST}: an isError result is handed on as a success's"),
    verified='2.68.0: it connects through FastMCP\'s client 4.2.3, which sends "fastmcp"',
)

LANGCHAIN = HostProfile(
    key="langchain-mcp-adapters",
    title="LangChain MCP adapters",
    client_names=(),
    reads=Cell("content", f"{_LANGCHAIN}: structuredContent goes to the artifact"),
    error_blocks=Cell("all", f"{_LANGCHAIN}: _summarize_tool_error joins every text block"),
    images=Cell("shown", _LANGCHAIN),
    audio=Cell("refused", f"{_LANGCHAIN}: NotImplementedError for AudioContent"),
    embedded=Cell("bare", f"{_MX_TEST}: a text block with the resource's text, not its URI"),
    links=Cell("text", f"{_LANGCHAIN}: a file block with the URI"),
    limit=UNKNOWN,
    limit_raise=UNKNOWN,
    max_result_size_meta=UNKNOWN,
    reads_resources=Cell(False, f"{_LANGCHAIN}: resources are loaded by the application"),
    verified='sessions open the SDK\'s ClientSession without client_info: sends "mcp"',
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
    reads_resources=Cell(False, f"{_PA_TEST}: no resource tool is offered to the model"),
    error_marked=Cell(False, "pydantic-ai sends it and hands an isError result on unflagged"),
    verified="the union of the rows that send it (FastMCP's Client 4.2.3, pydantic-ai 2.68.0)",
)


PROFILES: tuple[HostProfile, ...] = (
    CLAUDE_CODE,
    CLAUDE_DESKTOP,
    CURSOR,
    VSCODE,
    COPILOT_CLI,
    GEMINI_CLI,
    CODEX_CLI,
    OPENCODE,
    KILO_CLI,
    QWEN_CODE,
    CONTINUE_CLI,
    SDK_DEFAULT,
    FASTMCP_DEFAULT,
    PYTHON_SDK,
    OPENAI_AGENTS,
    PYDANTIC_AI,
    LANGCHAIN,
    FASTMCP_CLIENT,
    GENERIC,
)
"""Every profile; GENERIC last."""

_BY_NAME: dict[str, HostProfile] = {name.lower(): p for p in PROFILES for name in p.client_names}
_BY_PREFIX: tuple[tuple[str, HostProfile], ...] = tuple(
    (start.lower(), p) for p in PROFILES for start in p.client_prefixes
)
_SEEN: dict[object, HostProfile] = {}
"""`clientInfo.name` as sent -> profile, so a known client costs one dict lookup per request."""
_SEEN_MAX = 1024


def profile_for(client_info: Mapping[str, Any]) -> HostProfile:
    """The profile of the client that sent `client_info`; GENERIC for any other."""
    name = client_info.get("name")
    try:
        return _SEEN[name]
    except (KeyError, TypeError):
        pass
    profile = _by_name(name) if isinstance(name, str) else GENERIC
    if isinstance(name, str) and len(_SEEN) < _SEEN_MAX:
        # Names are the client's to choose: remember a bounded number.
        _SEEN[name] = profile
    return profile


def _by_name(name: str) -> HostProfile:
    lowered = name.lower()
    found = _BY_NAME.get(lowered)
    if found is not None:
        return found
    return next((p for start, p in _BY_PREFIX if lowered.startswith(start)), GENERIC)


def known(profile: HostProfile, cell: str) -> Any:
    """A cell's value, or GENERIC's where the profile's is unknown."""
    value = getattr(profile, cell).value
    return getattr(GENERIC, cell).value if value is None else value
