"""FileStore: put/get, TTL with an injected clock, the byte bound (oldest first), owner-only
modes, two stores and two processes on one folder, files that are not its own left alone."""

from __future__ import annotations

import math
import os
import re
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import anyio
import pytest

from plainmcp import FileStore
from plainmcp.file_store import UnusableFolder
from plainmcp.store import BlobStore, StoredBlob, StoreFull

pytestmark = pytest.mark.anyio

HEADER = len(b"plainmcp-blob/1 1000.0 text/plain\n")
"""The bytes a payload of type text/plain stored at clock 1000 with a TTL of 0 takes beyond its
own (the expiry is written as the clock gives it: "1060.0" is as long as "1000.0")."""


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def stored(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if not p.name.startswith("."))


async def test_put_then_get(tmp_path: Path) -> None:
    clock = Clock()
    store = FileStore(tmp_path / "blobs", clock=clock)
    key = await store.put(b"hello", "text/plain; charset=utf-8", ttl=60)
    assert await store.get(key) == StoredBlob(b"hello", "text/plain; charset=utf-8", 1060.0)
    assert await store.get("nope") is None
    assert isinstance(store, BlobStore)
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", key)  # as MemoryStore's: refs are no longer
    assert (tmp_path / "blobs" / key).stat().st_mtime == 1060.0  # sweeps need no read
    assert stored(tmp_path / "blobs") == [key]


async def test_nothing_is_made_until_the_store_is_used(tmp_path: Path) -> None:
    folder = tmp_path / "a" / "b"
    store = FileStore(folder)
    assert not tmp_path.joinpath("a").exists()
    assert await store.get("x" * 43) is None
    assert folder.is_dir()


async def test_entries_expire(tmp_path: Path) -> None:
    clock = Clock()
    store = FileStore(tmp_path, clock=clock)
    key = await store.put(b"x" * 10, "application/octet-stream", ttl=60)
    clock.now += 59.9
    assert await store.get(key) is not None
    clock.now += 0.1
    assert await store.get(key) is None
    assert stored(tmp_path) == []  # the expired file is removed when it is read


async def test_expired_entries_are_dropped_on_put_and_at_open(tmp_path: Path) -> None:
    clock = Clock()
    store = FileStore(tmp_path, clock=clock)
    await store.put(b"a" * 100, "text/plain", ttl=10)
    await store.put(b"b" * 100, "text/plain", ttl=20)
    clock.now += 11
    c = await store.put(b"c", "text/plain", ttl=10)
    assert len(stored(tmp_path)) == 2

    clock.now += 10  # b and c have expired: a store opening the folder drops them
    fresh = FileStore(tmp_path, clock=clock)
    assert await fresh.get(c) is None
    assert stored(tmp_path) == []


async def test_oldest_entries_are_removed_to_stay_within_the_bound(tmp_path: Path) -> None:
    clock = Clock()
    store = FileStore(tmp_path, max_bytes=3 * (100 + HEADER) - 1, clock=clock)
    keys = []
    for letter in b"abc":
        keys.append(await store.put(bytes([letter]) * 100, "text/plain", ttl=10))
        clock.now += 1
    assert await store.get(keys[0]) is None
    assert (await store.get(keys[1])) == StoredBlob(b"b" * 100, "text/plain", 1011.0)
    assert (await store.get(keys[2])) is not None
    assert sum(p.stat().st_size for p in tmp_path.iterdir()) == 2 * (100 + HEADER)


async def test_a_ttl_past_what_a_file_time_can_hold_is_kept_that_long(tmp_path: Path) -> None:
    store = FileStore(tmp_path)
    for ttl in (1e20, math.inf):
        key = await store.put(b"x", "text/plain", ttl=ttl)
        assert (tmp_path / key).stat().st_mtime == 2**33 - 1
        blob = await store.get(key)
        assert blob is not None and blob.data == b"x"


async def test_a_payload_larger_than_the_store_is_refused(tmp_path: Path) -> None:
    store = FileStore(tmp_path, max_bytes=10)
    with pytest.raises(StoreFull):
        await store.put(b"x" * 11, "text/plain", ttl=60)
    with pytest.raises(ValueError, match="ttl must be positive"):
        await store.put(b"x", "text/plain", ttl=0)
    with pytest.raises(ValueError, match="line break"):
        await store.put(b"x", "text/plain\nX: y", ttl=60)
    with pytest.raises(ValueError, match="max_bytes"):
        FileStore(tmp_path, max_bytes=0)
    assert stored(tmp_path) == []


async def test_the_folder_and_files_are_the_users_alone(tmp_path: Path) -> None:
    old = os.umask(0)  # the modes are the store's own, whatever the umask lets through
    try:
        store = FileStore(tmp_path / "made" / "blobs")
        key = await store.put(b"secret", "text/plain", ttl=60)
    finally:
        os.umask(old)
    assert mode(tmp_path / "made") == mode(tmp_path / "made" / "blobs") == 0o700
    assert mode(tmp_path / "made" / "blobs" / key) == 0o600
    assert mode(tmp_path / "made" / "blobs" / ".lock") == 0o600

    tmp_path.joinpath("open").mkdir(mode=0o755)
    os.chmod(tmp_path / "open", 0o755)
    await FileStore(tmp_path / "open").put(b"x", "text/plain", ttl=60)
    assert mode(tmp_path / "open") == 0o700  # a folder others could read is closed first


async def test_a_folder_that_is_a_symlink_is_refused(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with pytest.raises(UnusableFolder, match="not a folder"):
        await FileStore(tmp_path / "link").put(b"x", "text/plain", ttl=60)
    assert list((tmp_path / "real").iterdir()) == []


async def test_files_not_its_own_are_never_served_nor_removed(tmp_path: Path) -> None:
    clock = Clock()
    store = FileStore(tmp_path, max_bytes=200, clock=clock)
    key = await store.put(b"mine", "text/plain", ttl=60)
    name = "A" * 43
    (tmp_path / "README").write_bytes(b"x" * 500)  # foreign: not counted in the bound either
    (tmp_path / (name)).write_bytes(b"garbage, no header")
    (tmp_path / ("B" * 43)).write_bytes(b"plainmcp-blob/1 nan text/plain\nx")
    (tmp_path / ("C" * 43)).write_bytes(b"plainmcp-blob/1 2000.0 text/plain")  # cut short
    (tmp_path / ("D" * 43)).symlink_to(tmp_path / key)
    for each in ("README", name, "B" * 43, "C" * 43, "D" * 43):
        assert await store.get(each) is None
    for each in ("../README", "", "x/../" + key, key + "\n"):
        assert await store.get(each) is None
    assert await store.get(key) == StoredBlob(b"mine", "text/plain", 1060.0)
    other = await store.put(b"x" * 50, "text/plain", ttl=60)
    assert "README" in os.listdir(tmp_path)
    assert await store.get(other) is not None


async def test_a_crashed_writers_temporary_file_is_removed_at_open(tmp_path: Path) -> None:
    stale, fresh = tmp_path / ".tmp-1-stale", tmp_path / ".tmp-2-fresh"
    stale.write_bytes(b"half")
    fresh.write_bytes(b"being written")
    os.utime(stale, (1, 1))
    await FileStore(tmp_path).put(b"x", "text/plain", ttl=60)
    assert not stale.exists()
    assert fresh.exists()


async def test_two_stores_on_one_folder_share_it(tmp_path: Path) -> None:
    clock = Clock()
    one = FileStore(tmp_path, max_bytes=10 * (10 + HEADER), clock=clock)
    two = FileStore(tmp_path, max_bytes=10 * (10 + HEADER), clock=clock)
    key = await one.put(b"from one", "text/plain", ttl=60)
    assert await two.get(key) == StoredBlob(b"from one", "text/plain", 1060.0)
    keys: list[str] = []

    async def fill(store: FileStore, letter: bytes) -> None:
        for _ in range(20):
            keys.append(await store.put(letter * 10, "text/plain", ttl=60))

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(fill, one, b"1")
        tasks.start_soon(fill, two, b"2")
    assert sum(p.stat().st_size for p in tmp_path.iterdir()) <= 10 * (10 + HEADER)
    assert len(stored(tmp_path)) == 10
    assert set(stored(tmp_path)) <= {key, *keys}


def test_two_processes_writing_at_once_stay_within_the_bound(tmp_path: Path) -> None:
    bound = 40 * (1000 + len(b"plainmcp-blob/1 1234567890.123456 text/plain\n"))
    script = textwrap.dedent(
        f"""
        import anyio, sys
        from plainmcp.file_store import FileStore
        store = FileStore(sys.argv[1], max_bytes={bound})
        async def main():
            for _ in range(150):
                print(await store.put(sys.argv[2].encode() * 1000, "text/plain", ttl=60))
        anyio.run(main)
        """
    )
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(tmp_path), letter], stdout=subprocess.PIPE
        )
        for letter in "ab"
    ]
    outputs = [w.communicate(timeout=60)[0].decode().split() for w in writers]
    assert [w.returncode for w in writers] == [0, 0]
    assert [len(o) for o in outputs] == [150, 150]
    left = stored(tmp_path)
    assert set(left) <= set(outputs[0]) | set(outputs[1])
    assert sum((tmp_path / name).stat().st_size for name in left) <= bound
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".tmp-")] == []
    for name in left:  # every file left is a whole payload
        body = (tmp_path / name).read_bytes().partition(b"\n")[2]
        assert body in (b"a" * 1000, b"b" * 1000)
