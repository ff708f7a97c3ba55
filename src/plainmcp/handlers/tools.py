"""tools/list and tools/call: the tool list per revision (cached), and a call through its
concurrency bound and the payload guards to its CallResult (what middleware sees), rendered
for the revision and the host by `render_call`, the method's rendering step."""

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
from plainmcp.wire.methods import TOOLS_LIST, Method
from plainmcp.wire.revisions import Revision

if TYPE_CHECKING:
    from plainmcp.components import Components
    from plainmcp.exchange import Exchange
    from plainmcp.model.results import CallResult
    from plainmcp.tools import Tool


def tool_list(
    core: Components, rev: Revision, profile: HostProfile = GENERIC
) -> list[dict[str, Any]]:
    """Every tool rendered for `rev` (and for `profile`'s host, where it differs); built once
    per revision and profile until the tools (or the limits their descriptions mention) change."""
    builtin = core.continuation
    results = core.settings.results
    limits = results.payload_limits
    describe = builtin is not None and results.describe_parts
    key = (rev.version, describe, limits.structured, "")
    rendered = core.tool_pages.get(key)
    if rendered is None:
        rendered = [
            definitions.tool(
                t,
                rev,
                results.options,
                continuation.describe(t.limits or limits, builtin.name)
                if builtin is not None and describe and may_be_cut(t)
                else None,
            )
            for t in core.tools.by_key.values()
        ]
        if builtin is not None:
            rendered.append(definitions.tool(builtin, rev, results.options))
        core.tool_pages[key] = rendered
    if profile is GENERIC:
        return rendered
    host_key = (rev.version, describe, limits.structured, profile.key)
    for_host = core.tool_pages.get(host_key)
    if for_host is None:
        sizes = [adapt.advertised_limit(profile, t.limits or limits) for t in core.listed_tools()]
        one_part = adapt.shows_one_part(profile)
        for_host = (
            rendered
            if all(n is None for n in sizes) and not one_part
            else adapt.tool_definitions(rendered, sizes, "_meta" in rev.tool_fields, one_part)
        )
        core.tool_pages[host_key] = for_host
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


async def list_tools(core: Components, ex: Exchange) -> dict[str, Any]:
    cursor = ex.params.get("cursor")
    rendered = tool_list(core, ex.revision, profile_for(ex.client_info))
    if core.settings.caching.hide_unauthorized and ex.principal is not None:
        rendered = [
            r
            for t, r in zip(core.listed_tools(), rendered, strict=True)
            if scopes.allowed(t.scopes, ex.principal)
        ]
    tools, next_cursor = page(rendered, cursor, core.settings.limits.page_size)
    return definitions.listing(TOOLS_LIST, list(tools), next_cursor)


async def call(core: Components, ex: Exchange) -> CallResult:
    name = ex.request.params["name"]  # not `ex.params`: a property, and hot
    tool = core.tools.by_key.get(name)
    if tool is None:
        tool = find(core, name)
    return await run(core, ex, tool)


def render_call(
    core: Components, ex: Exchange, method: Method, outcome: CallResult
) -> dict[str, Any]:
    """tools/call's rendering step (`Method.render` "call"): the CallResult for the request's
    revision, with the named tool's output schema and text mode, adapted to the host (GENERIC:
    one dict lookup more), then finished as every result is (dispatch.finish), written out
    here: hot."""
    name = ex.request.params["name"]
    tool = core.tools.by_key.get(name)
    if tool is None:
        tool = core.find_tool(name)
    schema = tool.output_schema if tool is not None else None
    mode = tool.text_fallback if tool is not None else None
    rev = ex.revision
    out = render.call_result(outcome, rev, core.settings.results.options, schema, mode)
    profile = ex.host
    if profile is None:
        profile = profile_for(ex.client_info)
    if profile is not GENERIC:
        out = adapt.call_result(out, outcome, profile, rev.structured)
    if rev.result_type:
        info = core.offers.server_info(rev)
        return render.finish_result(out, method, rev, info, core.settings.caching.cache)
    return out


def find(core: Components, name: str) -> Tool:
    """The tool `name` (the continuation included); -32602 naming it when there is none
    (`call` inlines the common case: hot)."""
    tool = core.find_tool(name)
    if tool is None:
        raise RpcError(INVALID_PARAMS, f"Unknown tool: {name}")
    return tool


async def run(
    core: Components, ex: Exchange, tool: Tool, profile: HostProfile | None = None
) -> CallResult:
    """The call's result before rendering (what middleware sees): the tool's scopes, then
    the concurrency bound and the payload guards (the tool's own limits, else the server's).
    The scope check is here, not in `call`, so
    that a call reaching the tool through middleware is checked too."""
    if tool.scopes:
        scopes.require(f"tool {tool.name!r}", tool.scopes, ex.principal)
    arguments = ex.request.params.get("arguments")
    if arguments is None:
        arguments = {}
    context = core.context(ex, tool.spec) if tool.spec.context_params else None
    settings = core.settings
    results = settings.results
    once = functools.partial(
        call_tool,
        tool,
        arguments,
        results.options,
        mask_errors=results.mask_errors,
        context=context,
        timeout=settings.limits.tool_timeout,
        around=core.around,
    )
    if settings.limits.max_concurrent_tools is None:
        outcome = await once()
    else:
        async with _slots(core):
            outcome = await once()
    limits = tool.limits or results.payload_limits
    if profile is None:
        profile = ex.host = profile_for(ex.client_info)
    counting = PLAIN
    if profile is not GENERIC:
        # Within what the host takes too, counted as it counts (hosts/budget.py).
        limits, counting = budget.limits_for(limits, profile), budget.counting(profile)
    if not fits(outcome, limits, counting):
        from plainmcp.blob_owner import owned  # the slow path: not at start-up

        # What is stored is the caller's, behind the tool's scopes (blob_owner.py).
        store = owned(core.blob_store, core.state_signer, ex.principal, tool.scopes)
        outcome = await guard(
            outcome, limits, store, output=tool.output, follow=core.follow, counting=counting
        )
    return outcome


def _slots(core: Components) -> anyio.CapacityLimiter:
    """The server's bound on tool calls at once, made on first use (inside the event loop)."""
    bound = core.settings.limits.max_concurrent_tools
    assert bound is not None
    if core.tool_slots is None:
        core.tool_slots = anyio.CapacityLimiter(bound)
    return core.tool_slots
