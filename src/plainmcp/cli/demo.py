"""`plainmcp demo`: start the packaged demo server (plainmcp/demo.py) or FILE, and call each of
its tools with sample arguments."""

from __future__ import annotations

import argparse
import json
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from plainmcp.cli.connect import Target, connect_and_run
from plainmcp.cli.output import Files, render_result, summary_line
from plainmcp.cli.target import check_file

if TYPE_CHECKING:
    from plainmcp.client import Client, ToolInfo


# Sample arguments for the demo server's tools; anything else gets `sample_arguments`.
DEMO_ARGUMENTS: dict[str, dict[str, Any]] = {
    "add": {"a": 2, "b": 3},
    "divide": {"a": 1, "b": 0},
    "chart": {"region": "north"},
    "fetch": {"url": "not-a-url"},  # a readable isError, without touching the network
    "greet": {"name": "world"},
    "report_link": {"year": 2025},
    "stats": {"numbers": [1, 2, 3, 4]},
}

_TYPE_SAMPLES: dict[str, Any] = {
    "string": "example",
    "integer": 1,
    "number": 1.5,
    "boolean": True,
    "array": [],
    "object": {},
    "null": None,
}


def sample_value(schema: Mapping[str, Any]) -> Any:
    """A value that fits `schema`: its example, default, first choice, or one by type."""
    if isinstance(schema.get("examples"), list) and schema["examples"]:
        return schema["examples"][0]
    for key in ("default", "const"):
        if key in schema:
            return schema[key]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind in ("integer", "number") and "minimum" in schema:
        return schema["minimum"]
    if kind == "array" and isinstance(schema.get("items"), dict):
        return [sample_value(schema["items"])] * int(schema.get("minItems", 0) or 0)
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return sample_value(schema[key][0])
    return _TYPE_SAMPLES.get(str(kind), "example")


def sample_arguments(tool: ToolInfo) -> dict[str, Any]:
    """The demo's arguments for a tool: from DEMO_ARGUMENTS, else its required parameters."""
    if tool.name in DEMO_ARGUMENTS:
        return dict(DEMO_ARGUMENTS[tool.name])
    properties = tool.input_schema.get("properties") or {}
    required = tool.input_schema.get("required") or []
    return {k: sample_value(properties.get(k) or {}) for k in required}


def _command_line(file: str, tool: str, arguments: Mapping[str, Any]) -> str:
    words = ["plainmcp", "call", file, tool]
    for key, value in arguments.items():
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        if isinstance(value, str):
            try:
                json.loads(value)
            except ValueError:
                text = value
        words.append(f"{key}={text}")
    return " ".join(shlex.quote(w) for w in words)


def find_demo(file: str | None) -> Path:
    """FILE, else the demo that ships in the package (plainmcp/demo.py)."""
    if file is not None:
        return check_file(file)
    return Path(__file__).resolve().parents[1] / "demo.py"


def cmd_demo(args: argparse.Namespace) -> int:
    import anyio

    path = find_demo(args.file)
    try:
        shown = str(path.relative_to(Path.cwd()))
    except ValueError:
        shown = str(path)
    files = Files(args.out)
    failures: list[str] = []

    async def body(client: Client) -> int:
        from plainmcp.client import McpError

        info = client.server_info
        print(f"Started {shown} over stdio and completed the initialize handshake.")
        print(f"Server: {info.name} {info.version}, protocol revision {client.protocol_version}")
        if client.instructions:
            print(f"Instructions: {client.instructions}")
        tools = await client.list_tools()
        print(f"\n{len(tools)} tools:")
        for tool in tools:
            summary = summary_line(tool.description)
            print(f"  {tool.name}: {summary}" if summary else f"  {tool.name}")
        for tool in tools:
            arguments = sample_arguments(tool)
            print(f"\n$ {_command_line(shown, tool.name, arguments)}")
            try:
                with anyio.fail_after(args.timeout):
                    result = await client.call_tool(tool.name, arguments)
            except McpError as exc:
                print(f"protocol error {exc.code}: {exc.message}")
                failures.append(tool.name)
                continue
            except TimeoutError:
                print(f"no answer within {args.timeout:g} s")
                failures.append(tool.name)
                continue
            text = render_result(result, files, tool.name)
            print(f"error: {text}" if result.is_error else text)
        print()
        if files.folder is not None:
            print(f"Binary content was written to {files.folder}")
        if failures:
            print(f"Failed: {', '.join(failures)}")
            return 1
        print(f"Done: {len(tools)} tools called.")
        return 0

    return connect_and_run(Target("demo", str(path), args.protocol), body)
