"""What a server offers a client of each revision: its capabilities, its serverInfo, and the
features a request is served with.

The one place that decides what a handshake session, a sessionless request and a 2026-07-28
stateless request are offered (`Offers.features`), so stdio and the three HTTP modes cannot
disagree. A component: handed the server's identity, a callable saying what is registered
and the extensions (their entries under `capabilities.extensions`), it holds its own caches
(serverInfo and the feature names are needed by every 2026-07-28 request) and reads nothing
else of the Server.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from plainmcp.wire import definitions

if TYPE_CHECKING:
    from plainmcp.extensions import Extension
    from plainmcp.wire.revisions import Revision


class Identity(Protocol):
    """Who the server says it is (the Server's public settings). Read on each use: they may be
    assigned after the server is made, and the cached serverInfo follows them."""

    @property
    def name(self) -> str: ...
    @property
    def version(self) -> str: ...
    @property
    def title(self) -> str | None: ...
    @property
    def description(self) -> str | None: ...
    @property
    def website_url(self) -> str | None: ...
    @property
    def icons(self) -> Sequence[Any] | None: ...


Registered = tuple[bool, bool, bool]
"""Everything besides the revision that decides the capabilities: (resources, prompts,
templates). Resources are served when some are registered or payloads are offloaded (they
are read back through resources/read). A plain tuple: it is read for every 2026-07-28 request."""


_IDENTITY_KEYS = ("name", "version", "title", "description", "websiteUrl")


class Offers:
    """The offers of one server (`server.offers`)."""

    __slots__ = ("_extensions", "_features", "_identity", "_infos", "_registered")

    def __init__(
        self,
        identity: Callable[[], Identity],
        registered: Callable[[], Registered],
        extensions: Sequence[Extension] = (),
    ) -> None:
        self._identity = identity
        self._registered = registered
        self._extensions = tuple(extensions)
        self._features: dict[tuple[str, Registered], frozenset[str]] = {}
        self._infos: dict[str, tuple[tuple[Any, ...], Any, dict[str, Any]]] = {}

    def extend(self, extension: Extension) -> None:
        """Offer one more extension from now on (the built-in tasks, on the first task tool)."""
        self._extensions = (*self._extensions, extension)
        self._features.clear()

    def server_info(self, rev: Revision) -> dict[str, Any]:
        """The server's identity for `rev`. Treat the dict as read-only."""
        me = self._identity()
        fields = (me.name, me.version, me.title, me.description, me.website_url)
        cached = self._infos.get(rev.version)
        if cached is not None and cached[0] == fields and cached[1] is me.icons:
            return cached[2]
        named = dict(zip(_IDENTITY_KEYS, fields, strict=True))
        info = definitions.server_info(named, me.icons, rev)
        self._infos[rev.version] = (fields, me.icons, info)
        return info

    def capabilities(self, rev: Revision) -> dict[str, Any]:
        """What the server offers, as initialize (and server/discover) announces it."""
        return _capabilities(rev, self._registered(), self._extensions)

    def features(self, rev: Revision) -> frozenset[str]:
        """The capability names a request at `rev` may use: what a session opened at `rev` is
        offered, and a sessionless or a stateless request at `rev` alike. The announced
        capabilities, and completions wherever they are served without being announced
        (2024-11-05 has completion/complete but no capability for it)."""
        registered = self._registered()
        key = (rev.version, registered)
        names = self._features.get(key)
        if names is None:
            names = frozenset(_capabilities(rev, registered, self._extensions))
            _, prompts, templates = registered
            if not rev.completions_capability and (prompts or templates):
                names |= {"completions"}
            self._features[key] = names
        return names


def _capabilities(
    rev: Revision, registered: Registered, extensions: tuple[Extension, ...]
) -> dict[str, Any]:
    # Changes reach a handshake session directly, a 2026-07-28 client through
    # subscriptions/listen; either way they are announced.
    resources, prompts, templates = registered
    offered: dict[str, Any] = {"logging": {}, "tools": {"listChanged": True}}
    if resources:
        offered["resources"] = {"subscribe": True, "listChanged": True}
    if prompts:
        offered["prompts"] = {"listChanged": True}
    if rev.completions_capability and (prompts or templates):
        offered["completions"] = {}
    if extensions:  # the extension seam's entries (plainmcp.extensions)
        from plainmcp.extensions import announced, core_announced

        offered.update(core_announced(extensions, rev))
        entries = announced(extensions, rev)
        if entries:
            offered["extensions"] = entries
    return offered
