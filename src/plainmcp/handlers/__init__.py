"""The method handlers, one module per concept; `dispatch` maps the method table to them.

Each handler is `async (server, exchange) -> result dict`. The dispatcher has already checked
the params the table declares, the capability and the revision; a handler checks what only it
can know (an unknown tool, a URI nobody serves) and leaves every downgrade to `wire.render`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from plainmcp import scopes

if TYPE_CHECKING:
    from plainmcp.exchange import Exchange
    from plainmcp.invoke import FunctionSpec
    from plainmcp.server import Server


def inject(server: Server, ex: Exchange, spec: FunctionSpec | None) -> dict[str, Any]:
    """The Context for each Context parameter of `spec` (read once, at registration)."""
    names = spec.context_params if spec is not None else ()
    if not names:
        return {}
    ctx = server.context(ex)
    return dict.fromkeys(names, ctx)


def visible(server: Server, ex: Exchange) -> Callable[[Any], bool] | None:
    """What a list keeps under `hide_unauthorized`: what the principal may call (None: all)."""
    principal = ex.principal
    if not server.hide_unauthorized or principal is None:
        return None
    return lambda item: scopes.allowed(item.scopes, principal)
