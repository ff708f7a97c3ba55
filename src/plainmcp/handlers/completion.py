"""completion/complete: a prompt argument or a resource-template variable, one way."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from plainmcp import scopes
from plainmcp.handlers import needed
from plainmcp.wire import render
from plainmcp.wire.jsonrpc import INVALID_PARAMS, RpcError

if TYPE_CHECKING:
    from plainmcp.components import Components
    from plainmcp.exchange import Exchange


async def complete(core: Components, ex: Exchange) -> dict[str, Any]:
    from plainmcp import completion  # loaded by the first completion request

    asked = completion.read_request(ex.params)
    scopes.require(*needed(core, ex.request.method, ex.params), ex.principal)
    if asked.ref_type == "ref/prompt":
        completer = core.prompts.completer(asked.ref, asked.argument)
        label = f"completion of prompt '{asked.ref}' argument '{asked.argument}'"
    else:
        template = next((t for t in core.resources.templates if t.uri_template == asked.ref), None)
        if template is None:
            raise RpcError(INVALID_PARAMS, f"Unknown resource template: {asked.ref}")
        if asked.argument not in template.variables:
            raise RpcError(
                INVALID_PARAMS,
                f"Resource template '{asked.ref}' has no variable '{asked.argument}'",
            )
        explicit = core.completers.get((template, asked.argument))
        completer = completion.completer_for(template.fn, asked.argument, explicit)
        label = f"completion of '{asked.ref}' variable '{asked.argument}'"
    found = await completion.complete(
        completer, asked.value, asked.context, label=label, around=core.around
    )
    return render.completion_result(found, ex.revision)
