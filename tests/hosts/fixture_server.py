"""Servers the real hosts and frameworks are pointed at (`plainmcp run FILE:OBJECT`).

`demo` is plainmcp's demo; `app` holds one tool per host behaviour the tests pin (text beside a
structured value, a two-block error, results of a chosen size); `cont` keeps plainmcp's default
payload limits, so its long text and its 10,000 structured rows are cut and continued by the
built-in read_more; `jobs` holds tools declared to run as tasks (test_declared.py). Each writes
one JSON line per request to the file named by `PLAINMCP_HOSTS_CLIENT_LOG` (the method, the
clientInfo the client sent, the revision, and the capabilities it declared with it, when it
declared any), so a test reads from the server side who the host says it is.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from typing import Any

from plainmcp import Context, PayloadLimits, Server, ToolResult
from plainmcp.demo import app as demo
from plainmcp.middleware import Middleware, NextRequest, RequestInfo

LOG_ENV = "PLAINMCP_HOSTS_CLIENT_LOG"
CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities"


class ClientLog(Middleware):
    """Appends who sent each request; the file is opened per line, so a killed server loses
    nothing already written."""

    async def on_request(self, request: RequestInfo, call_next: NextRequest) -> Any:
        line = {
            "method": request.method,
            "clientInfo": dict(request.client_info),
            "revision": request.revision,
        }
        capabilities = (
            request.params.get("capabilities")
            if request.method == "initialize"
            else (request.params.get("_meta") or {}).get(CAPABILITIES_META)
        )
        if capabilities is not None:
            line["capabilities"] = capabilities
        with open(os.environ[LOG_ENV], "a", encoding="utf-8") as log:
            log.write(json.dumps(line) + "\n")
        return await call_next(request)


# Only in a server process asked to log: the tests import this file too, and plainmcp.demo's
# app is shared with every other test in theirs.
LOGGING = bool(os.environ.get(LOG_ENV))
if LOGGING:
    demo.add_middleware(ClientLog())

# No guard of ours in the way: the size tests see what the host itself does with a big result.
app = Server(
    "plainmcp-hosts-fixture",
    version="0.1.0",
    payload_limits=PayloadLimits(text_block=None, text_result=None, structured=None, offload=False),
)
if LOGGING:
    app.add_middleware(ClientLog())

BOTH_TEXT = "TEXT-SAYS-SEVEN files were found"


@app.tool
def both() -> ToolResult:
    """A text block that says more than the structured value beside it."""
    return ToolResult(BOTH_TEXT, structured={"count": 2})


@app.tool(
    output_schema={
        "type": "object",
        "properties": {"count": {"type": "integer"}},
        "required": ["count"],
    }
)
def both_typed() -> ToolResult:
    """The same, from a tool with an output schema: structuredContent must stay."""
    return ToolResult(BOTH_TEXT, structured={"count": 2})


@app.tool
def two_errors() -> ToolResult:
    """An isError result of two text blocks."""
    return ToolResult(["first problem", "second problem"], is_error=True)


@app.tool
def two_texts() -> ToolResult:
    """A success of two text blocks."""
    return ToolResult(["first block", "second block"])


def sized_text(chars: int) -> str:
    """`chars` characters of 10-character lines, each naming its own offset: wherever a host
    cuts, the text says where."""
    lines = (f"{offset:09d}\n" for offset in range(0, chars + 10, 10))
    return "".join(lines)[:chars]


@app.tool
def sized(chars: int) -> str:
    """A text of exactly `chars` characters."""
    return sized_text(chars)


RAISED_LIMIT = 500_000


@app.tool
def repeated(texts: list[str], times: list[int]) -> ToolResult:
    """One text block per `texts[i]`, repeated `times[i]` times: a host's limit measured in
    bytes, characters or UTF-16 units, per block or per result, with letters of each width."""
    return ToolResult([text * n for text, n in zip(texts, times, strict=True)])


@app.tool
def numbers() -> str:
    """A text that is JSON, but not an object."""
    return "[1, 2, 3]"


@app.tool(meta={"anthropic/maxResultSizeChars": RAISED_LIMIT})
def sized_meta(chars: int) -> str:
    """Like sized, but its definition asks Claude Code for a larger result limit."""
    return sized_text(chars)


# --- the continuation: plainmcp's own guards and read_more -------------------------------------

# Default PayloadLimits: the guards cut what is too large and read_more serves the rest.
cont = Server("plainmcp-hosts-continuation", version="0.1.0")
if LOGGING:
    cont.add_middleware(ClientLog())


def long_text() -> str:
    """150,000 characters: numbered lines in paragraphs of ten, each line ending in a space (a
    rebuild that lost whitespace at a cut would show)."""
    lines = (f"Line {n:06d}: the quick brown fox jumps over the lazy dog. \n" for n in range(3000))
    return "".join(line + ("\n" if n % 10 == 9 else "") for n, line in enumerate(lines))[:150_000]


@dataclass
class Row:
    id: int
    name: str
    score: float


def rows() -> list[Row]:
    return [Row(i, f"row {i}", i / 7) for i in range(10_000)]


LONG = long_text()
ROWS = [asdict(row) for row in rows()]


@cont.tool(name="log")
def log_tool() -> str:
    """The whole log."""
    return LONG


@cont.tool
def table() -> list[Row]:
    """Every row of the table."""
    return rows()


@app.resource("fixture://notes", mime_type="text/plain")
def notes() -> str:
    """A resource, so the server offers resources."""
    return "notes of the fixture"


@app.resource("fixture://items/{name}", mime_type="text/plain")
def item(name: str) -> str:
    """A resource only a template names: readable, but in no resources/list."""
    return f"item {name}"


# --- tools that may or must run as tasks --------------------------------------------------------

jobs = Server("plainmcp-hosts-jobs", version="0.1.0")
if LOGGING:
    jobs.add_middleware(ClientLog())

REPORT_AS_TASK = "Report ready (run as a task)"
REPORT_IN_CALL = "Report ready (answered in the call)"
BUILD_DONE = "Build done"


@jobs.tool(task="optional")
async def report(ctx: Context) -> str:
    """Write the report: becomes a task at once for a client that can take one."""
    return REPORT_AS_TASK if await ctx.become_task() else REPORT_IN_CALL


@jobs.tool(task="required")
async def build(ctx: Context) -> str:
    """Run the build: only as a task."""
    return BUILD_DONE


@jobs.tool
def capabilities(ctx: Context) -> dict[str, Any]:
    """The capabilities the client declared (at initialize, or in this request's _meta)."""
    return dict(ctx.client_capabilities)
