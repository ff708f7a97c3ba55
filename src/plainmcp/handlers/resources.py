"""resources/list, resources/templates/list and resources/read (offloaded payloads included)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from plainmcp import scopes
from plainmcp.blob_owner import owned
from plainmcp.handlers import inject, visible
from plainmcp.model import mime
from plainmcp.resource_contents import Contents
from plainmcp.resources import ResourceNotFound
from plainmcp.store import BlobEvicted, blob_key, read_blob
from plainmcp.wire import definitions, render
from plainmcp.wire.jsonrpc import INTERNAL_ERROR, RpcError
from plainmcp.wire.methods import RESOURCES_LIST, TEMPLATES_LIST

if TYPE_CHECKING:
    from plainmcp.components import Components
    from plainmcp.exchange import Exchange


async def list_resources(core: Components, ex: Exchange) -> dict[str, Any]:
    items, next_cursor = core.resources.page(
        ex.params.get("cursor"), core.settings.limits.page_size, visible(core, ex)
    )
    rendered = [definitions.resource(r, ex.revision) for r in items]
    return definitions.listing(RESOURCES_LIST, rendered, next_cursor)


async def list_templates(core: Components, ex: Exchange) -> dict[str, Any]:
    cursor = ex.params.get("cursor")
    items, next_cursor = core.resources.template_page(
        cursor, core.settings.limits.page_size, visible(core, ex)
    )
    rendered = [definitions.resource_template(t, ex.revision) for t in items]
    return definitions.listing(TEMPLATES_LIST, rendered, next_cursor)


async def read(core: Components, ex: Exchange) -> dict[str, Any]:
    uri: str = ex.params["uri"]
    if blob_key(uri) is not None:
        # Only the principal that stored it, holding the scopes of the tool that made it.
        store = owned(core.blob_store, core.state_signer, ex.principal)
        try:
            found = await read_blob(uri, store)
        except BlobEvicted as exc:
            raise RpcError(INTERNAL_ERROR, f"Internal error: {uri}: {exc}") from None
        if found is None:
            raise render.resource_not_found(uri, ex.revision)
        data, mime_type = found
        item = (
            Contents(uri, text=data.decode("utf-8"), mime_type=mime_type)
            if mime.is_text(mime_type)
            else Contents(uri, blob=data, mime_type=mime_type)
        )
        return render.read_result([item], ex.revision)
    served = core.resources.match(uri)
    if served is not None and served[0].scopes:
        scopes.require(f"resource {uri!r}", served[0].scopes, ex.principal)
    injected = inject(core, ex, served[0].spec if served is not None else None)
    try:
        items = await core.resources.read(
            uri, inject=injected, options=core.options, around=core.around
        )
    except ResourceNotFound as exc:
        raise render.resource_not_found(exc.uri, ex.revision) from None
    return render.read_result(items, ex.revision)
