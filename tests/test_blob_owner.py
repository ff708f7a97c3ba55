"""blob_owner.py: a stored payload reads back only for the principal that stored it, while it
holds the scopes it was stored with; the header never holds the subject in the clear."""

from __future__ import annotations

import pytest

from plainmcp.blob_owner import ANONYMOUS, HEADER, OwnedBlobs, owned, owner_tag
from plainmcp.model.identity import identity
from plainmcp.store import MemoryStore
from plainmcp.transports.http import Principal
from plainmcp.wire.request_state import StateSigner

pytestmark = pytest.mark.anyio

SIGNER = StateSigner(b"k" * 32)
ALICE = Principal("alice", frozenset({"mcp", "reports"}))


async def test_the_owner_reads_back_exactly_what_it_stored() -> None:
    store = MemoryStore()
    key = await owned(store, SIGNER, ALICE, ["reports"]).put(b"figures", "text/plain", 60)
    blob, found = await owned(store, SIGNER, ALICE).lookup(key)
    assert found == "found"
    assert blob is not None and (blob.data, blob.mime_type) == (b"figures", "text/plain")


async def test_the_stored_bytes_carry_a_mac_of_the_owner_and_the_scopes() -> None:
    store = MemoryStore()
    key = await owned(store, SIGNER, ALICE, ["reports", "mcp"]).put(b"x", "text/plain", 60)
    raw = await store.get(key)
    assert raw is not None
    tag = SIGNER.fingerprint("blob-owner", "sub:alice")
    assert raw.data == HEADER + tag.encode() + b" mcp reports\nx"
    assert b"alice" not in raw.data
    assert len(tag) == 22


@pytest.mark.parametrize(
    "reader",
    [
        Principal("bob", frozenset({"mcp", "reports"})),  # another user, with the scope
        Principal("alice", frozenset({"mcp"})),  # the owner without the scope
        Principal("alice", frozenset({"mcp", "reports"}), client=True),  # a client named alice
        None,  # nobody authenticated
    ],
)
async def test_anyone_else_is_refused(reader: Principal | None) -> None:
    store = MemoryStore()
    key = await owned(store, SIGNER, ALICE, ["reports"]).put(b"x", "text/plain", 60)
    assert await owned(store, SIGNER, reader).lookup(key) == (None, "refused")
    assert await owned(store, SIGNER, reader).get(key) is None


async def test_a_key_nobody_stored_is_missing_not_refused() -> None:
    assert await owned(MemoryStore(), SIGNER, ALICE).lookup("nope") == (None, "missing")


async def test_a_payload_stored_without_an_owner_is_refused() -> None:
    store = MemoryStore()
    key = await store.put(b"plain bytes", "text/plain", 60)
    assert await owned(store, SIGNER, None).lookup(key) == (None, "refused")


async def test_where_nobody_is_authenticated_scopes_are_not_enforced() -> None:
    # stdio: the user who started the process; a scoped tool's result is theirs.
    store = MemoryStore()
    key = await owned(store, SIGNER, None, ["reports"]).put(b"x", "text/plain", 60)
    blob, found = await owned(store, SIGNER, None).lookup(key)
    assert (found, blob and blob.data) == ("found", b"x")
    assert owner_tag(SIGNER, None) == ANONYMOUS


async def test_another_secret_is_another_owner() -> None:
    store = MemoryStore()
    key = await owned(store, SIGNER, ALICE).put(b"x", "text/plain", 60)
    other = StateSigner(b"j" * 32)
    assert await owned(store, other, ALICE).lookup(key) == (None, "refused")


def test_a_view_is_a_blob_store() -> None:
    from plainmcp.store import BlobStore

    assert isinstance(OwnedBlobs(MemoryStore(), ANONYMOUS), BlobStore)


def test_identity_keeps_a_client_apart_from_a_user_of_the_same_name() -> None:
    assert identity(Principal("alice")) == "sub:alice"
    assert identity(Principal("alice", client=True)) == "client_id:alice"
    assert identity(None) is None
