"""The method handlers, one module per concept; `dispatch` maps the method table to them.

Each handler is `async (components, exchange) -> result`: it is given the server's parts
(components.py), never the Server. The dispatcher has already checked
the params the table declares, the capability and the revision; a handler checks what only it
can know (an unknown tool, a URI nobody serves) and leaves every downgrade to `wire.render`.
"""

from __future__ import annotations

from collections.abc import Callable
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
    ctx = core.context(ex)
    return dict.fromkeys(names, ctx)


def visible(core: Components, ex: Exchange) -> Callable[[Any], bool] | None:
    """What a list keeps under `hide_unauthorized`: what the principal may call (None: all)."""
    principal = ex.principal
    if not core.settings.caching.hide_unauthorized or principal is None:
        return None
    return lambda item: scopes.allowed(item.scopes, principal)
