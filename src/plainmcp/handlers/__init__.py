"""The method handlers, one module per concept; `dispatch` maps the method table to them.

Each handler is `async (components, exchange) -> result`: it is given the server's parts
(components.py), never the Server. The dispatcher has already checked
the params the table declares, the capability and the revision; a handler checks what only it
can know (an unknown tool, a URI nobody serves) and leaves every downgrade to `wire.render`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from plainmcp import scopes

if TYPE_CHECKING:
    from plainmcp.components import Components
    from plainmcp.exchange import Exchange
    from plainmcp.invoke import FunctionSpec


def inject(core: Components, ex: Exchange, spec: FunctionSpec | None) -> dict[str, Any]:
    """The Context for each Context parameter of `spec` (read once, at registration)."""
    names = spec.context_params if spec is not None else ()
    if not names:
        return {}
    ctx = core.context(ex, spec)
    return dict.fromkeys(names, ctx)


def visible(core: Components, ex: Exchange) -> Callable[[Any], bool] | None:
    """What a list keeps under `hide_unauthorized`: what the principal may call (None: all)."""
    principal = ex.principal
    if not core.settings.caching.hide_unauthorized or principal is None:
        return None
    return lambda item: scopes.allowed(item.scopes, principal)


def needed(core: Components, method: str, params: Mapping[str, Any]) -> tuple[str, frozenset[str]]:
    """What a request calls ("tool 'admin'") and the scopes that requires (empty: none, or not
    a call of a registered function). Subscribing to a resource, and completing an argument
    of a prompt or a resource template, need the scopes of reading or getting it."""
    if method == "tools/call":
        name = params.get("name")
        tool = core.tools.get(name) if isinstance(name, str) else None
        if tool is not None:
            return f"tool {name!r}", tool.scopes
    elif method == "prompts/get":
        name = params.get("name")
        if isinstance(name, str) and name in core.prompts:
            return f"prompt {name!r}", core.prompts[name].scopes
    elif method in ("resources/read", "resources/subscribe"):
        uri = params.get("uri")
        found = core.resources.match(uri) if isinstance(uri, str) else None
        if found is not None:
            return f"resource {uri!r}", found[0].scopes
    elif method == "completion/complete":
        # Completing an argument reveals what the item serves: it needs what a call needs.
        ref = params.get("ref")
        if isinstance(ref, Mapping):
            if ref.get("type") == "ref/prompt":
                return needed(core, "prompts/get", {"name": ref.get("name")})
            if ref.get("type") == "ref/resource":
                uri = ref.get("uri")
                for template in core.resources.templates:
                    if template.uri_template == uri:
                        return f"resource template {uri!r}", template.scopes
    return "", scopes.NONE
