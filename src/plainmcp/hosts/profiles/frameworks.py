"""The rows of agent frameworks that call MCP tools for their model: OpenAI's Agents SDK,
pydantic-ai, LangChain's MCP adapters."""

from __future__ import annotations

from plainmcp.hosts.profiles.cells import MATRIX_TEST, PYDANTIC_AI_TEST, UNKNOWN, Cell, HostProfile

_AGENTS = "src/agents/mcp/util.py@openai/openai-agents-python (MCPUtil.invoke_mcp_tool)"
_PYDANTIC = "pydantic_ai_slim/pydantic_ai/mcp.py@pydantic/pydantic-ai (MCPServer.direct_call_tool)"
_LANGCHAIN = "langchain_mcp_adapters/tools.py@langchain-ai/langchain-mcp-adapters"

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
    reads=Cell("structured", f"{PYDANTIC_AI_TEST}; {_PYDANTIC}"),
    error_blocks=Cell("all", f"{PYDANTIC_AI_TEST}: a retry with the texts as a JSON list"),
    images=Cell("shown", PYDANTIC_AI_TEST),
    audio=Cell("shown", PYDANTIC_AI_TEST),
    embedded=Cell("bare", f"{PYDANTIC_AI_TEST}: only the text, the URI is lost"),
    links=Cell("text", f"{PYDANTIC_AI_TEST}: only the URI, the name is lost"),
    limit=Cell(None, f"{PYDANTIC_AI_TEST}: 150,000 characters arrive whole"),
    limit_raise=UNKNOWN,
    max_result_size_meta=UNKNOWN,
    reads_resources=Cell(False, f"{PYDANTIC_AI_TEST}: no resource tool is offered to the model"),
    error_marked=Cell(False, f"{MATRIX_TEST}: an isError result is handed on as a success's"),
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
    embedded=Cell("bare", f"{MATRIX_TEST}: a text block with the resource's text, not its URI"),
    links=Cell("text", f"{_LANGCHAIN}: a file block with the URI"),
    limit=UNKNOWN,
    limit_raise=UNKNOWN,
    max_result_size_meta=UNKNOWN,
    reads_resources=Cell(False, f"{_LANGCHAIN}: resources are loaded by the application"),
    verified='sessions open the SDK\'s ClientSession without client_info: sends "mcp"',
)
