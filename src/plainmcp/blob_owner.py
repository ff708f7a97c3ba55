"""Who may read an offloaded payload: the principal whose call stored it, while it holds the
scopes of the tool that produced it.

A stored payload is reachable two ways, a continuation ref (`read_more`) and a
`plainmcp://blob/<key>` link read with `resources/read`, and both are text a client can pass on.
So the stored bytes carry their owner: one header line with a MAC of the principal's identity
(under the state secret, so the store holds no subject in the clear) and the tool's scopes. Every
read goes through `OwnedBlobs`, which answers a reader who is not the owner, or who lacks one of
the scopes, exactly as it answers an unknown key. The store itself stays a plain key-value
store: any `BlobStore` works, in memory or on Redis.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal

from plainmcp.model.identity import identity
from plainmcp.store import BlobStore, StoredBlob

if TYPE_CHECKING:
    from plainmcp.wire.request_state import StateSigner

__all__ = ["ANONYMOUS", "OwnedBlobs", "owned"]

HEADER = b"plainmcp-owner/1 "
"""The first bytes of every payload stored through OwnedBlobs (then owner, scopes, newline)."""

ANONYMOUS = "-"
"""The owner of a payload stored where nobody was authenticated (stdio, HTTP without auth)."""

_PURPOSE = "blob-owner"

Found = Literal["found", "missing", "refused"]


def owner_tag(signer: StateSigner, principal: Any) -> str:
    """The owner written into a payload's header: a MAC of the principal's identity."""
    who = identity(principal)
    return ANONYMOUS if who is None else signer.fingerprint(_PURPOSE, who)


class OwnedBlobs:
    """A BlobStore as one principal sees it: what it stores is stamped with it and `scopes`;
    it reads only what it stored, and only while it holds those scopes.

    `held`: the principal's scopes, None where nobody was authenticated (scopes are then not
    enforced, as for calls: plainmcp.scopes).
    """

    __slots__ = ("_held", "_owner", "_scopes", "store")

    def __init__(
        self,
        store: BlobStore,
        owner: str,
        scopes: Iterable[str] = (),
        held: frozenset[str] | None = None,
    ) -> None:
        self.store = store
        self._owner = owner.encode("ascii")
        self._scopes = " ".join(sorted(set(scopes))).encode("ascii")
        self._held = held

    async def put(self, data: bytes, mime_type: str, ttl: float) -> str:
        header = HEADER + self._owner + b" " + self._scopes + b"\n"
        return await self.store.put(header + bytes(data), mime_type, ttl)

    async def get(self, key: str) -> StoredBlob | None:
        blob, _ = await self.lookup(key)
        return blob

    async def lookup(self, key: str) -> tuple[StoredBlob | None, Found]:
        """The payload and whether it was found, is missing (unknown or expired) or is refused
        to this reader (another owner, a scope it lacks, or not stored through an owner)."""
        stored = await self.store.get(key)
        if stored is None:
            return None, "missing"
        data = stored.data
        if not data.startswith(HEADER):
            return None, "refused"
        end = data.find(b"\n", len(HEADER))
        if end < 0:
            return None, "refused"
        owner, _, scopes = data[len(HEADER) : end].partition(b" ")
        import hmac  # constant time; imported with the first read of a stored payload

        if not hmac.compare_digest(owner, self._owner):
            return None, "refused"
        held = self._held
        if held is not None and any(s not in held for s in scopes.decode("ascii").split()):
            return None, "refused"
        return StoredBlob(data[end + 1 :], stored.mime_type, stored.expires_at), "found"


def owned(
    store: BlobStore, signer: StateSigner, principal: Any, scopes: Iterable[str] = ()
) -> OwnedBlobs:
    """The store as `principal` sees it, writing with the scopes of the tool it calls."""
    held: frozenset[str] | None = None
    if principal is not None:
        held = frozenset(getattr(principal, "scopes", ()))
    return OwnedBlobs(store, owner_tag(signer, principal), scopes, held)
