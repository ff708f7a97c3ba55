"""tools/list and tools/call: the tool list per revision (cached), and a call through its
concurrency bound and the payload guards to the rendered result."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import anyio

from plainmcp import continuation, scopes
from plainmcp.guards import fits, guard
from plainmcp.hosts import adapt, budget
from plainmcp.hosts.profiles import GENERIC, HostProfile, profile_for
from plainmcp.model.truncate import PLAIN
from plainmcp.tools import call_tool
from plainmcp.wire import definitions, render
from plainmcp.wire.cursor import page
from plainmcp.wire.jsonrpc import INVALID_PARAMS, RpcError
from plainmcp.wire.methods import TOOLS_LIST
from plainmcp.wire.revisions import Revision

if TYPE_CHECKING:
    from plainmcp.exchange import Exchange
    from plainmcp.model.results import CallResult
    from plainmcp.server import Server
    from plainmcp.tools import Tool


def listed(server: Server) -> list[Tool]:
    """The tools `tools/list` shows: the registered ones, then the continuation if offered."""
    tools = list(server._tools.values())
    builtin = server.continuation
    if builtin is not None:
        tools.append(builtin)
    return tools


def tool_list(
    server: Server, rev: Revision, profile: HostProfile = GENERIC
) -> list[dict[str, Any]]:
    """Every tool rendered for `rev` (and for `profile`'s host, where it differs); built once
    per revision and profile until the tools (or the limits their descriptions mention) change."""
    builtin = server.continuation
    limits = server.payload_limits
    describe = builtin is not None and server.describe_parts
    key = (rev.version, describe, limits.structured, "")
    rendered = server._tool_pages.get(key)
    if rendered is None:
        rendered = [
            definitions.tool(
                t,
                rev,
                server.options,
                continuation.describe(t.limits or limits, builtin.name)
                if builtin is not None and describe and may_be_cut(t)
                else None,
            )
            for t in server._tools.values()
        ]
        if builtin is not None:
            rendered.append(definitions.tool(builtin, rev, server.options))
        server._tool_pages[key] = rendered
    if profile is GENERIC:
        return rendered
    host_key = (rev.version, describe, limits.structured, profile.key)
    for_host = server._tool_pages.get(host_key)
    if for_host is None:
        sizes = [
            adapt.advertised_limit(profile, t.limits or server.payload_limits)
            for t in listed(server)
        ]
        one_part = adapt.shows_one_part(profile)
        for_host = (
            rendered
            if all(n is None for n in sizes) and not one_part
            else adapt.tool_definitions(rendered, sizes, "_meta" in rev.tool_fields, one_part)
        )
        server._tool_pages[host_key] = for_host
    return for_host


def may_be_cut(tool: Tool) -> bool:
    """A result of `tool` may arrive in parts: it pages (returns an iterator), or its output
    schema is a list or an object with a list property, which the guards cut at elements."""
    if tool.paged:
        return True
    schema = tool.output_schema
    if schema is None:
        return False
    if schema.get("type") == "array":
        return True
    properties = schema.get("properties")
    return isinstance(properties, dict) and any(
        isinstance(p, dict) and p.get("type") == "array" for p in properties.values()
    )


async def list_tools(server: Server, ex: Exchange) -> dict[str, Any]:
    cursor = ex.params.get("cursor")
    rendered = tool_list(server, ex.revision, profile_for(ex.client_info))
    if server.hide_unauthorized and ex.principal is not None:
        rendered = [
            r
            for t, r in zip(listed(server), rendered, strict=True)
            if scopes.allowed(t.scopes, ex.principal)
        ]
    tools, next_cursor = page(rendered, cursor, server.page_size)
    return definitions.listing(TOOLS_LIST, list(tools), next_cursor)


async def call(server: Server, ex: Exchange) -> dict[str, Any]:
    name = ex.params["name"]
    tool = server._tools.get(name)
    if tool is None:
        tool = find(server, name)
    profile = profile_for(ex.client_info)
    outcome = await run(server, ex, tool, profile)
    return rendered(server, ex, outcome, tool, profile)


def rendered(
    server: Server,
    ex: Exchange,
    outcome: CallResult,
    tool: Tool | None,
    profile: HostProfile | None = None,
) -> dict[str, Any]:
    """The CallToolResult for the request's revision and host (GENERIC: one dict lookup more)."""
    schema = tool.output_schema if tool is not None else None
    mode = tool.text_fallback if tool is not None else None
    out = render.call_result(outcome, ex.revision, server.options, schema, mode)
    if profile is None:
        profile = profile_for(ex.client_info)
    if profile is GENERIC:
        return out
    return adapt.call_result(out, outcome, profile, ex.revision.structured)


def find(server: Server, name: str) -> Tool:
    """The tool `name` (the continuation included); -32602 naming it when there is none
    (`call` inlines the common case: hot)."""
    tool = server._tools.get(name)
    if tool is None:
        builtin = server.continuation
        if builtin is not None and builtin.name == name:
            return builtin
        raise RpcError(INVALID_PARAMS, f"Unknown tool: {name}")
    return tool


async def run(
    server: Server, ex: Exchange, tool: Tool, profile: HostProfile | None = None
) -> CallResult:
    """The call's result before rendering (what middleware sees): the tool's scopes, then
    the concurrency bound and the payload guards (the tool's own limits, else the server's).
    The scope check is here, not in `call`, so
    that a call reaching the tool through middleware is checked too."""
    if tool.scopes:
        scopes.require(f"tool {tool.name!r}", tool.scopes, ex.principal)
    arguments = ex.params.get("arguments")
    if arguments is None:
        arguments = {}
    context = server.context(ex) if tool.spec.context_params else None
    once = functools.partial(
        call_tool,
        tool,
        arguments,
        server.options,
        mask_errors=server.mask_errors,
        context=context,
        timeout=server.tool_timeout,
    )
    if server.max_concurrent_tools is None:
        outcome = await once()
    else:
        async with _slots(server):
            outcome = await once()
    limits = tool.limits or server.payload_limits
    if profile is None:
        profile = profile_for(ex.client_info)
    counting = PLAIN
    if profile is not GENERIC:
        # Within what the host takes too, counted as it counts (hosts/budget.py).
        limits, counting = budget.limits_for(limits, profile), budget.counting(profile)
    if not fits(outcome, limits, counting):
        from plainmcp.blob_owner import owned  # the slow path: not at start-up

        # What is stored is the caller's, behind the tool's scopes (blob_owner.py).
        store = owned(server.blob_store, server.state_signer, ex.principal, tool.scopes)
        outcome = await guard(
            outcome, limits, store, output=tool.output, follow=server.follow, counting=counting
        )
    return outcome


def _slots(server: Server) -> anyio.CapacityLimiter:
    """The server's bound on tool calls at once, made on first use (inside the event loop)."""
    assert server.max_concurrent_tools is not None
    if server._tool_slots is None:
        server._tool_slots = anyio.CapacityLimiter(server.max_concurrent_tools)
    return server._tool_slots
