"""What a server offers a client of each revision: its capabilities, its serverInfo, and the
feature names a 2026-07-28 request is served with.

Read from the server's components (components.py): its registries and settings. serverInfo and
the feature names are needed by every 2026-07-28 request, so they are built once and kept there
(`server_infos`, `feature_names`), and built again when what they come from changes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from plainmcp.wire import definitions

if TYPE_CHECKING:
    from plainmcp.components import Components
    from plainmcp.wire.revisions import Revision


def server_info(core: Components, rev: Revision) -> dict[str, Any]:
    """The server's identity for `rev`. Treat the dict as read-only."""
    me = core.settings.identity
    fields = (me.name, me.version, me.title, me.description, me.website_url)
    cached = core.server_infos.get(rev.version)
    if cached is not None and cached[0] == fields and cached[1] is me.icons:
        return cached[2]
    keys = ("name", "version", "title", "description", "websiteUrl")
    info = definitions.server_info(dict(zip(keys, fields, strict=True)), me.icons, rev)
    core.server_infos[rev.version] = (fields, me.icons, info)
    return info


def capabilities(core: Components, rev: Revision) -> dict[str, Any]:
    """What the server offers, as initialize announces it."""
    # Changes reach a handshake session directly, a 2026-07-28 client through
    # subscriptions/listen; either way they are announced.
    resources, prompts, templates = inputs(core)
    offered: dict[str, Any] = {"logging": {}, "tools": {"listChanged": True}}
    if resources:
        # Offloaded payloads are read back through resources/read.
        offered["resources"] = {"subscribe": True, "listChanged": True}
    if prompts:
        offered["prompts"] = {"listChanged": True}
    if rev.completions_capability and (prompts or templates):
        offered["completions"] = {}
    if core.extensions:  # the extension seam's hook (plainmcp.extensions)
        from plainmcp.extensions import announced

        entries = announced(core.extensions, rev)
        if entries:
            offered["extensions"] = entries
    return offered


def inputs(core: Components) -> tuple[bool, bool, bool]:
    """Everything besides the revision that decides `capabilities`: (resources, prompts,
    templates), read without creating a registry that was never used."""
    registered, prompts = core.made_resources, core.made_prompts  # read by every stateless call
    return (
        bool(registered is not None and len(registered))
        or core.settings.results.payload_limits.offload
        or core.tools_offload,
        bool(prompts is not None and len(prompts)),
        registered is not None and registered.has_templates,
    )


def features(core: Components, rev: Revision) -> frozenset[str]:
    """The names `capabilities(rev)` offers, for a stateless request (each needs them)."""
    key = (rev.version, *inputs(core))
    names = core.feature_names.get(key)
    if names is None:
        names = core.feature_names[key] = frozenset(capabilities(core, rev))
    return names
