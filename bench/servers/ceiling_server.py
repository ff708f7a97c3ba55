"""Benchmark fixture: the ceiling. A hand-written JSON-RPC loop, not a usable MCP server.

It answers initialize, server/discover, tools/list and tools/call for the same four tools with the
same result shapes as the libraries, but validates nothing, keeps no session and runs one request
at a time. What it reaches is the most this machine and this harness allow.

stdio: python ceiling_server.py            (asyncio pipes + orjson)
HTTP:  python ceiling_server.py --http PORT  (a bare ASGI callable on uvicorn, access log off)
"""

import asyncio
import base64
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import orjson
from fixtures import http_port, png, rows, watchdog

INFO = {"name": "bench-ceiling", "version": "1"}
HANDSHAKE = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
STATELESS = "2026-07-28"
CAPS = {"tools": {}}


def _object(**props: dict) -> dict:
    return {"type": "object", "properties": props, "required": list(props)}


TOOLS = [
    {"name": "add", "inputSchema": _object(a={"type": "integer"}, b={"type": "integer"})},
    {"name": "add_async", "inputSchema": _object(a={"type": "integer"}, b={"type": "integer"})},
    {"name": "echo_text", "inputSchema": _object(text={"type": "string"})},
    {"name": "big_image", "inputSchema": _object()},
    {"name": "many_rows", "inputSchema": _object(n={"type": "integer"})},
]


def call_tool(name: str, args: dict) -> dict:
    if name in ("add", "add_async"):
        value = args["a"] + args["b"]
        return {
            "content": [{"type": "text", "text": str(value)}],
            "structuredContent": {"result": value},
            "isError": False,
        }
    if name == "echo_text":
        return {"content": [{"type": "text", "text": args["text"]}], "isError": False}
    if name == "big_image":
        data = base64.b64encode(png()).decode()  # encoded per call, as the libraries do
        return {
            "content": [{"type": "image", "data": data, "mimeType": "image/png"}],
            "isError": False,
        }
    if name == "many_rows":
        value = rows(args["n"])
        return {
            "content": [{"type": "text", "text": orjson.dumps(value).decode()}],
            "structuredContent": {"result": value},
            "isError": False,
        }
    return {"content": [{"type": "text", "text": f"no tool {name}"}], "isError": True}


def answer(message: dict) -> bytes | None:
    """One request in, its encoded response out (None for a notification)."""
    if "id" not in message:
        return None
    method = message.get("method")
    params = message.get("params") or {}
    stateless = (params.get("_meta") or {}).get(
        "io.modelcontextprotocol/protocolVersion"
    ) == STATELESS
    if method == "tools/call":
        try:
            result = call_tool(params["name"], params.get("arguments") or {})
        except Exception as exc:  # nothing is validated: a bad argument is a tool error
            result = {"content": [{"type": "text", "text": repr(exc)}], "isError": True}
    elif method == "initialize":
        asked = params.get("protocolVersion")
        result = {
            "protocolVersion": asked if asked in HANDSHAKE else HANDSHAKE[-1],
            "capabilities": CAPS,
            "serverInfo": INFO,
        }
    elif method == "server/discover":
        result = {"supportedVersions": [STATELESS], "capabilities": CAPS}
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "ping":
        result = {}
    else:
        error = {"code": -32601, "message": f"Method not found: {method}"}
        return orjson.dumps({"jsonrpc": "2.0", "id": message["id"], "error": error})
    if stateless:
        result["resultType"] = "complete"
        result["_meta"] = {"io.modelcontextprotocol/serverInfo": INFO}
    return orjson.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result})


class StdinLines(asyncio.Protocol):
    """Newline-delimited JSON in, answers written to stdout as soon as a chunk is handled."""

    def __init__(self, out: asyncio.WriteTransport, done: asyncio.Future) -> None:
        self.out = out
        self.done = done
        self.rest = b""

    def data_received(self, data: bytes) -> None:
        lines = (self.rest + data).split(b"\n")
        self.rest = lines.pop()
        replies = [r for r in (answer(orjson.loads(line)) for line in lines if line.strip()) if r]
        if replies:
            replies.append(b"")
            self.out.write(b"\n".join(replies))

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.done.done():
            self.done.set_result(None)


async def serve_stdio() -> None:
    loop = asyncio.get_running_loop()
    out, _ = await loop.connect_write_pipe(asyncio.Protocol, sys.stdout.buffer)
    done = loop.create_future()
    await loop.connect_read_pipe(lambda: StdinLines(out, done), sys.stdin.buffer)
    await done
    out.close()


async def asgi(scope: dict, receive, send) -> None:  # type: ignore[no-untyped-def]
    if scope["type"] == "lifespan":
        while True:
            event = await receive()
            if event["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            else:
                await send({"type": "lifespan.shutdown.complete"})
                return
    body = b""
    more = True
    while more:
        event = await receive()
        body += event.get("body", b"")
        more = event.get("more_body", False)
    reply = answer(orjson.loads(body)) if scope["method"] == "POST" else None
    if reply is None:
        status = 202 if scope["method"] == "POST" else 405
        await send({"type": "http.response.start", "status": status, "headers": []})
        await send({"type": "http.response.body", "body": b""})
        return
    headers = [(b"content-type", b"application/json"), (b"mcp-session-id", b"ceiling")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": reply})


if __name__ == "__main__":
    watchdog()
    port = http_port(sys.argv)
    if port is None:
        asyncio.run(serve_stdio())
    else:
        import uvicorn

        uvicorn.run(asgi, host="127.0.0.1", port=port, log_level="warning", access_log=False)
