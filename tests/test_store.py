"""MemoryStore: put/get, TTL with a fake clock, the byte bound, unguessable keys; blob URIs."""

from __future__ import annotations

import re

import pytest

from plainmcp.store import (
    BlobStore,
    MemoryStore,
    StoredBlob,
    StoreFull,
    blob_key,
    blob_uri,
    read_blob,
)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.anyio
async def test_put_then_get() -> None:
    clock = Clock()
    store = MemoryStore(clock=clock)
    key = await store.put(b"hello", "text/plain", ttl=60)
    assert await store.get(key) == StoredBlob(b"hello", "text/plain", 1060.0)
    assert await store.get("nope") is None
    assert isinstance(store, BlobStore)


@pytest.mark.anyio
async def test_entries_expire() -> None:
    clock = Clock()
    store = MemoryStore(clock=clock)
    key = await store.put(b"x" * 10, "application/octet-stream", ttl=60)
    clock.now += 59.9
    assert await store.get(key) is not None
    clock.now += 0.1
    assert await store.get(key) is None
    assert len(store) == 0
    assert store.total_bytes == 0


@pytest.mark.anyio
async def test_expired_entries_are_dropped_on_put() -> None:
    clock = Clock()
    store = MemoryStore(clock=clock)
    await store.put(b"a" * 100, "text/plain", ttl=10)
    await store.put(b"b" * 100, "text/plain", ttl=10)
    clock.now += 11
    await store.put(b"c", "text/plain", ttl=10)
    assert len(store) == 1
    assert store.total_bytes == 1


@pytest.mark.anyio
async def test_oldest_entries_are_evicted_to_stay_within_the_bound() -> None:
    store = MemoryStore(max_bytes=250, clock=Clock())
    first = await store.put(b"1" * 100, "text/plain", ttl=60)
    second = await store.put(b"2" * 100, "text/plain", ttl=60)
    third = await store.put(b"3" * 100, "text/plain", ttl=60)
    assert await store.get(first) is None
    assert await store.get(second) is not None
    assert await store.get(third) is not None
    assert store.total_bytes == 200


@pytest.mark.anyio
async def test_a_payload_larger_than_the_store_is_refused() -> None:
    store = MemoryStore(max_bytes=10)
    kept = await store.put(b"12345", "text/plain", ttl=60)
    with pytest.raises(StoreFull) as refused:
        await store.put(b"x" * 11, "text/plain", ttl=60)
    assert str(refused.value) == "a payload of 11 bytes is over the store's ceiling of 10 bytes"
    assert await store.get(kept) is not None


@pytest.mark.anyio
async def test_keys_are_unguessable_and_uri_safe() -> None:
    store = MemoryStore()
    keys = {await store.put(b"same", "text/plain", ttl=60) for _ in range(200)}
    assert len(keys) == 200
    for key in keys:
        assert re.fullmatch(r"[A-Za-z0-9_-]{43}", key)  # 32 random bytes


@pytest.mark.anyio
async def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="max_bytes"):
        MemoryStore(max_bytes=0)
    with pytest.raises(ValueError, match="ttl must be positive"):
        await MemoryStore().put(b"x", "text/plain", ttl=0)


@pytest.mark.anyio
async def test_blob_uris() -> None:
    store = MemoryStore()
    key = await store.put(b"abc", "text/plain", ttl=60)
    assert blob_uri(key) == f"plainmcp://blob/{key}"
    assert blob_key(blob_uri(key)) == key
    assert await read_blob(blob_uri(key), store) == (b"abc", "text/plain")
    for other in (
        "file:///etc/passwd",
        "plainmcp://blob/",
        "plainmcp://blob/a/b",
        "plainmcp://x/k",
    ):
        assert blob_key(other) is None
        assert await read_blob(other, store) is None
    assert await read_blob(blob_uri("unknown"), store) is None
