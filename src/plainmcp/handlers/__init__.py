"""The method handlers, one module per concept; `dispatch` maps the method table to them.

Each handler is `async (server, exchange) -> result dict`. The dispatcher has already checked
the params the table declares, the capability and the revision; a handler checks what only it
can know (an unknown tool, a URI nobody serves) and leaves every downgrade to `wire.render`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from plainmcp.context import context_params

if TYPE_CHECKING:
    from plainmcp.exchange import Exchange
    from plainmcp.server import Server


def inject(server: Server, ex: Exchange, fn: Callable[..., Any] | None) -> dict[str, Any]:
    """The Context for each Context parameter of `fn` (none when it takes none)."""
    names = context_params(fn) if fn is not None else ()
    if not names:
        return {}
    ctx = server.context(ex)
    return dict.fromkeys(names, ctx)
