"""prompts/list and prompts/get."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from plainmcp import scopes
from plainmcp.handlers import inject, visible
from plainmcp.wire import definitions, render
from plainmcp.wire.methods import PROMPTS_LIST

if TYPE_CHECKING:
    from plainmcp.components import Components
    from plainmcp.exchange import Exchange


async def list_prompts(core: Components, ex: Exchange) -> dict[str, Any]:
    items, next_cursor = core.prompts.page(
        ex.params.get("cursor"), core.settings.limits.page_size, visible(core, ex)
    )
    rendered = [definitions.prompt(p, ex.revision) for p in items]
    return definitions.listing(PROMPTS_LIST, rendered, next_cursor)


async def get(core: Components, ex: Exchange) -> dict[str, Any]:
    name: str = ex.params["name"]
    known = name in core.prompts
    prompt = core.prompts[name] if known else None
    if prompt is not None and prompt.scopes:
        scopes.require(f"prompt {name!r}", prompt.scopes, ex.principal)
    spec = prompt.spec if prompt is not None else None
    got = await core.prompts.get(
        name,
        ex.params.get("arguments"),
        inject=inject(core, ex, spec),
        mask_errors=core.settings.results.mask_errors,
        around=core.around,
    )
    return render.get_prompt_result(got, ex.revision, core.options)
