"""The rows of coding agents in a terminal: GitHub Copilot CLI, Gemini CLI, Codex CLI, opencode
and its fork Kilo Code's CLI, Qwen Code, Continue's CLI."""

from __future__ import annotations

from plainmcp.hosts.profiles.cells import MATRIX_TEST, UNKNOWN, Cell, Declared, HostProfile

_CP_TEST = "tests/hosts/test_copilot_cli.py (1.0.102, driven here)"
_GM_TEST = "tests/hosts/test_gemini_cli.py (0.61.0, driven here)"
_CX_TEST = "tests/hosts/test_codex_cli.py (0.169.0, driven here)"
_OC_TEST = "tests/hosts/test_chat_hosts.py"
_QW_BUNDLE = "@qwen-code/qwen-code@0.24.4, chunks/ (getTruncateToolOutputThreshold, GATE_HEADROOM)"
_CN_SRC = "@continuedev/cli@1.5.47, src/tools/index.tsx (convertMcpToolToContinueTool)"
_DECLARED = "tests/hosts/test_declared.py"
_ELICITATION: dict[str, object] = {"form": {}, "url": {}}

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
    # Observed 2026-12-02 with 1.0.102 (`copilot -p`), through tests/interop/relay.py.
    declared=Cell(
        Declared.of("2026-07-28", True, {"sampling": {}, "elicitation": _ELICITATION}),
        f"{_DECLARED} (1.0.102, driven here): the same in every request's _meta; its bundle"
        " names neither tasks/* nor an extension, so its terminal UI cannot ask for tasks",
    ),
    declared_legacy=Cell(
        Declared.of("2025-11-25", False, {"sampling": {}, "elicitation": _ELICITATION}),
        f"{_DECLARED} (1.0.102, driven here): server/discover answered -32601, then this",
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
    # Observed 2026-12-02 with 0.61.0 (`gemini -p`), through tests/interop/relay.py.
    declared=Cell(
        Declared.of("2025-06-18", False, {"roots": {"listChanged": True}}),
        f"{_DECLARED} (0.61.0, driven here): initialize, no server/discover; 2025-06-18 has no"
        " tasks, so a task tool runs as any other",
    ),
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
    # Observed 2026-12-02 with 0.169.0 (`codex exec`), through tests/interop/relay.py.
    declared=Cell(
        Declared.of(
            "2025-06-18",
            False,
            {"experimental": {"codex/auth-change": {}}, "elicitation": _ELICITATION},
        ),
        f"{_DECLARED} (0.169.0, driven here): initialize, no server/discover; 2025-06-18 has no"
        " tasks, so a task tool runs as any other",
    ),
    declared_http=Cell(
        Declared.of("2025-06-18", False, {"elicitation": _ELICITATION}),
        f"{_DECLARED} (0.169.0, driven here): without the experimental codex/auth-change it"
        " declares to a stdio server",
    ),
)


def _opencode_like(key: str, title: str, name: str, version: str, more: str) -> HostProfile:
    """opencode and its fork Kilo Code's CLI: one MCP client, measured the same way."""
    mx = f"{MATRIX_TEST} ({key}-stdio, {version}, driven here)"
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

_QW_MX = f"{MATRIX_TEST} (qwen-code-stdio, 0.24.4, driven here)"
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

_CN_MX = f"{MATRIX_TEST} (continue-cli-stdio, 1.5.47, driven here)"
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
