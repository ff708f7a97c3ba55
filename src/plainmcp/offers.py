"""What a server offers a client of each revision: its capabilities, its serverInfo, and the
feature names a 2026-07-28 request is served with.

Read from the Server's registries and settings. serverInfo and the feature names are needed by
every 2026-07-28 request, so they are built once and kept on the Server (`_server_infos`,
`_feature_names`), and built again when what they come from changes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from plainmcp.wire import definitions

if TYPE_CHECKING:
    from plainmcp.server import Server
    from plainmcp.wire.revisions import Revision


def server_info(server: Server, rev: Revision) -> dict[str, Any]:
    """The server's identity for `rev`. Treat the dict as read-only."""
    fields = (server.name, server.version, server.title, server.description, server.website_url)
    cached = server._server_infos.get(rev.version)
    if cached is not None and cached[0] == fields and cached[1] is server.icons:
        return cached[2]
    keys = ("name", "version", "title", "description", "websiteUrl")
    info = definitions.server_info(dict(zip(keys, fields, strict=True)), server.icons, rev)
    server._server_infos[rev.version] = (fields, server.icons, info)
    return info


def capabilities(server: Server, rev: Revision) -> dict[str, Any]:
    """What the server offers, as initialize announces it."""
    # Changes reach a handshake session directly, a 2026-07-28 client through
    # subscriptions/listen; either way they are announced.
    resources, prompts, templates = inputs(server)
    offered: dict[str, Any] = {"logging": {}, "tools": {"listChanged": True}}
    if resources:
        # Offloaded payloads are read back through resources/read.
        offered["resources"] = {"subscribe": True, "listChanged": True}
    if prompts:
        offered["prompts"] = {"listChanged": True}
    if rev.completions_capability and (prompts or templates):
        offered["completions"] = {}
    return offered


def inputs(server: Server) -> tuple[bool, bool, bool]:
    """Everything besides the revision that decides `capabilities`: (resources, prompts,
    templates), read without creating a registry that was never used."""
    registered, prompts = server._resources, server._prompts
    return (
        bool(registered is not None and len(registered))
        or server.payload_limits.offload
        or server._tools_offload,
        bool(prompts is not None and len(prompts)),
        registered is not None and registered.has_templates,
    )


def features(server: Server, rev: Revision) -> frozenset[str]:
    """The names `capabilities(rev)` offers, for a stateless request (each needs them)."""
    key = (rev.version, *inputs(server))
    names = server._feature_names.get(key)
    if names is None:
        names = server._feature_names[key] = frozenset(capabilities(server, rev))
    return names
