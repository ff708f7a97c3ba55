"""The conformance suite's core (non-auth, non-extension) client scenarios, each as a host runs
them: connect at the suite's revision, list the tools, call them with arguments filled from
their schemas, and answer an elicitation with the defaults its schema gives.
examples/conformance_client.py dispatches the names in SCENARIOS.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from plainmcp.client import Client, Elicitation

Scenario = Callable[[str, dict[str, Any]], Awaitable[None]]
SAMPLES: dict[str, Any] = {
    "string": "hello",
    "integer": 1,
    "number": 1,
    "boolean": True,
    "array": [],
    "object": {},
}
"""A value of each JSON type, for an argument whose schema gives no default."""


def protocol() -> str:
    """The revision the suite runs the scenario at (it always sets the variable)."""
    return os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION", "auto")


def defaults(schema: Mapping[str, Any] | None) -> dict[str, Any]:
    """The form a user accepts without typing: each property's default, where it has one."""
    properties = (schema or {}).get("properties") or {}
    return {name: prop["default"] for name, prop in properties.items() if "default" in prop}


def arguments(schema: Mapping[str, Any] | None) -> dict[str, Any]:
    """Arguments for a tool: every required property, its default or a sample of its type."""
    schema = schema or {}
    properties: Mapping[str, Any] = schema.get("properties") or {}
    out = defaults(schema)
    for name in schema.get("required") or []:
        if name in out:
            continue
        prop = properties.get(name) or {}
        if "enum" in prop:
            out[name] = prop["enum"][0]
        else:
            kind = prop.get("type", "string")
            out[name] = SAMPLES.get(kind if isinstance(kind, str) else kind[0], "hello")
    return out


def accept_defaults(request: Elicitation) -> dict[str, Any]:
    return defaults(request.requested_schema)


async def connect_only(url: str, context: dict[str, Any]) -> None:
    async with Client.http(url, protocol=protocol()) as client:
        print(f"connected at {client.protocol_version}")


async def call_every_tool(url: str, context: dict[str, Any]) -> None:
    """List the tools and call each, as a host does when the model asks for them."""
    async with Client.http(url, protocol=protocol(), elicit=accept_defaults) as client:
        for tool in await client.list_tools():
            result = await client.call_tool(tool.name, arguments(tool.input_schema))
            print(f"called {tool.name}: error={result.is_error}")


async def call_with_unicode_headers(url: str, context: dict[str, Any]) -> None:
    """As call_every_tool, with a non-ASCII value for each string mirrored into a header: the
    suite checks the client base64-encodes what a header cannot carry as is."""
    async with Client.http(url, protocol=protocol()) as client:
        for tool in await client.list_tools():
            args = arguments(tool.input_schema)
            for name, prop in (tool.input_schema.get("properties") or {}).items():
                if "x-mcp-header" in prop and prop.get("type") == "string":
                    args[name] = "Zürich café"
            result = await client.call_tool(tool.name, args)
            print(f"called {tool.name}: error={result.is_error}")


async def list_tools_only(url: str, context: dict[str, Any]) -> None:
    """A host lists the tools to show the model; nothing is called until the model asks."""
    async with Client.http(url, protocol=protocol()) as client:
        for tool in await client.list_tools():
            print(f"listed {tool.name}")


async def echo_schema(url: str, context: dict[str, Any]) -> None:
    """The echo tool takes back the schema the host kept for the other tool, verbatim."""
    async with Client.http(url, protocol=protocol()) as client:
        tools = await client.list_tools()
        kept = {tool.name: tool.input_schema for tool in tools}
        for tool in tools:
            if tool.name != "json_schema_2020_12_tool":
                schema = kept["json_schema_2020_12_tool"]
                await client.call_tool(tool.name, {"schema": schema})
                print(f"echoed the schema through {tool.name}")


async def call_and_resume(url: str, context: dict[str, Any]) -> None:
    """As call_every_tool without the GET stream for the server's own messages, so the only GET
    is the one resuming the call's stream, which the suite times."""
    async with Client.http(url, protocol=protocol(), listen=False) as client:
        for tool in await client.list_tools():
            result = await client.call_tool(tool.name, arguments(tool.input_schema))
            print(f"called {tool.name}: {result.text}")


async def use_every_feature(url: str, context: dict[str, Any]) -> None:
    """Every tool called, every resource read, every prompt got: a host at work."""
    async with Client.http(url, protocol=protocol()) as client:
        for tool in await client.list_tools():
            result = await client.call_tool(tool.name, arguments(tool.input_schema))
            print(f"called {tool.name}: error={result.is_error}")
        for resource in await client.list_resources():
            await client.read_resource(resource.uri)
            print(f"read {resource.uri}")
        for prompt in await client.list_prompts():
            await client.get_prompt(prompt.name, {})
            print(f"got {prompt.name}")


async def declare_every_capability(url: str, context: dict[str, Any]) -> None:
    """A client with roots, sampling and elicitation, so each is declared in every request."""

    async def sample(request: Any) -> str:
        return "sampled"

    async with Client.http(
        url, protocol=protocol(), elicit=accept_defaults, sample=sample, roots=[]
    ) as client:
        for tool in await client.list_tools():
            result = await client.call_tool(tool.name, arguments(tool.input_schema))
            print(f"called {tool.name}: error={result.is_error}")


SCENARIOS: dict[str, Scenario] = {
    "initialize": connect_only,
    "tools_call": call_every_tool,
    "elicitation-sep1034-client-defaults": call_every_tool,
    "sep-2322-client-request-state": call_every_tool,
    "http-custom-headers": call_with_unicode_headers,
    "http-invalid-tool-headers": call_every_tool,
    "json-schema-ref-no-deref": list_tools_only,
    "json-schema-2020-12-preservation": echo_schema,
    "sse-retry": call_and_resume,
    "request-metadata": declare_every_capability,
    "http-standard-headers": use_every_feature,
}
