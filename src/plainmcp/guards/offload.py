"""What the guards store and how their markers say where it went: the store, the links to it,
and the continuation call (read_more) named while the rest is stored."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from plainmcp.model.blocks import ResourceLink
from plainmcp.model.options import PayloadLimits
from plainmcp.model.truncate import Counting
from plainmcp.store import BlobStore, blob_key, blob_uri

if TYPE_CHECKING:
    from plainmcp.guards.follow import Follow

log = logging.getLogger("plainmcp")

ASK_LESS = "The rest was not sent; ask for less, e.g. a narrower query or the next page"


class Offload:
    """One guarded result's limits, counting and store: the state the guards' steps share."""

    def __init__(
        self, limits: PayloadLimits, store: BlobStore, follow: Follow | None, counting: Counting
    ) -> None:
        self.limits = limits
        self.unit = counting.unit
        self.shared = counting.shared
        self.store = store
        self.follow = follow if limits.offload else None
        self.kept_for = duration(limits.ttl)

    def call(self, uri: str | None, at: int = 0, path: str | None = None) -> str | None:
        """The sentence naming the continuation call for what is stored at `uri` from `at`."""
        if uri is None or self.follow is None:
            return None
        key = blob_key(uri)
        return None if key is None else self.follow.sentence(self.follow.ref(key, at, path))

    def next_call(self, uri: str, at: int, path: str) -> dict[str, Any] | None:
        key = blob_key(uri)
        if key is None or self.follow is None:
            return None
        return self.follow.next_call(self.follow.ref(key, at, path))

    async def offload(self, data: bytes, mime_type: str) -> str | None:
        """Store `data`; its URI, or None when offloading is off or the store fails."""
        if not self.limits.offload:
            return None
        try:
            key = await self.store.put(data, mime_type, self.limits.ttl)
        except Exception:
            # The result must still go out; without a link the marker asks for less instead.
            log.warning(
                "could not store an offloaded payload of %d bytes", len(data), exc_info=True
            )
            return None
        return blob_uri(key)

    def json_link(self, uri: str, raw: bytes) -> ResourceLink:
        return ResourceLink(
            uri=uri,
            name="result.json",
            mime_type="application/json",
            size=len(raw),
            description=(
                f"The full structured result ({len(raw.decode()):,} characters of JSON);"
                f" stored for {self.kept_for}."
            ),
        )

    def read_it(self, uri: str | None) -> str:
        """How to read a linked payload: resources/read, and the continuation where a tool
        result can carry it (text, or a binary within the per-block limit)."""
        call = self.call(uri)
        return f"read it with resources/read, or {call}" if call else "read it with resources/read."


def duration(seconds: float) -> str:
    if seconds >= 120 and seconds % 60 == 0:
        return f"{int(seconds // 60)} minutes"
    return f"{seconds:g} seconds"
