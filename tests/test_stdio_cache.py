"""The stdio defaults that let a ref outlive its process (stdio_cache.py): where the user cache
is on each platform, a folder per server name, the state secret made once and read lazily, what
the user gave left alone, and an unusable folder falling back to memory with one warning."""

from __future__ import annotations

import hashlib
import logging
import os
import stat
import threading
from pathlib import Path

import pytest

from plainmcp import MemoryStore, Server
from plainmcp.stdio_cache import CachedStore, cached_secret, use_user_cache
from plainmcp.user_cache import base_dir, namespace, server_dir
from plainmcp.wire.request_state import ENV_SECRET, StateSigner

SECRET = "s" * 32


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PLAINMCP_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv(ENV_SECRET, raising=False)
    return tmp_path / "cache"


# --- where --------------------------------------------------------------------------------------


def test_the_cache_folder_of_each_platform() -> None:
    home = "/home/ada"
    assert base_dir({}, "linux", home) == "/home/ada/.cache/plainmcp"
    assert base_dir({"XDG_CACHE_HOME": "/x"}, "linux", home) == "/x/plainmcp"
    assert base_dir({"XDG_CACHE_HOME": ""}, "linux", home) == "/home/ada/.cache/plainmcp"
    assert base_dir({}, "darwin", home) == "/home/ada/Library/Caches/plainmcp"
    assert base_dir({"LOCALAPPDATA": "/l"}, "win32", home) == "/l/plainmcp"
    assert base_dir({}, "win32", home) == "/home/ada/AppData/Local/plainmcp"
    assert base_dir({"PLAINMCP_CACHE_DIR": "/t", "XDG_CACHE_HOME": "/x"}, "linux", home) == "/t"
    assert server_dir("demo", {"PLAINMCP_CACHE_DIR": "/t"}) == "/t/stdio/demo"


def test_a_server_name_becomes_a_folder_name_of_its_own() -> None:
    assert namespace("my-server_2.1") == "my-server_2.1"
    digest = hashlib.sha256(b"my server").hexdigest()[:16]
    assert namespace("my server") == f"my_server-{digest}"
    names = ["my server", "my_server", "../../etc", "..", ".", "", "a/b", "a_b", "ü"]
    folders = [namespace(n) for n in names]
    assert len(set(folders)) == len(names)  # never two names in one folder
    for folder in folders:
        assert folder and "/" not in folder and not folder.startswith(".")
    assert namespace("..").startswith("server-")
    assert namespace("../../etc").startswith("etc-")
    assert namespace("x" * 100) == "x" * 64 + namespace("x" * 100)[64:]
    assert len(namespace("x" * 100)) == 64 + 17


# --- the state secret -----------------------------------------------------------------------------


def test_the_secret_is_made_once_owner_only_and_then_read(tmp_path: Path) -> None:
    folder = tmp_path / "srv"
    first = cached_secret(str(folder))
    assert len(first) == 43
    assert stat.S_IMODE((folder / "state-secret").stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert cached_secret(str(folder)) == first
    assert (folder / "state-secret").read_bytes() == first


def test_processes_starting_at_once_agree_on_one_secret(tmp_path: Path) -> None:
    found: list[bytes] = []
    start = threading.Barrier(8)

    def load() -> None:
        start.wait()
        found.append(cached_secret(str(tmp_path / "srv")))

    threads = [threading.Thread(target=load) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(found) == 8 and len(set(found)) == 1


def test_a_secret_too_short_names_its_file_and_the_fix(tmp_path: Path) -> None:
    (tmp_path / "state-secret").write_bytes(b"short\n")
    with pytest.raises(ValueError) as raised:
        cached_secret(str(tmp_path))
    assert str(raised.value) == (
        f"the state secret in {tmp_path}/state-secret is 5 bytes; at least 32 are required:"
        " delete the file for a new one to be made, or set PLAINMCP_STATE_SECRET"
    )


def test_a_deferred_signer_loads_its_secret_once_when_first_used() -> None:
    loads: list[int] = []

    def load() -> tuple[bytes, str]:
        loads.append(1)
        return SECRET.encode(), "the cache"

    signer = StateSigner()
    assert signer.ephemeral
    signer.defer(load, "the cache")
    assert not signer.ephemeral
    assert loads == []
    ref = signer.seal({"k": "key", "o": 0})
    assert loads == [1]
    assert ref == StateSigner(SECRET).seal({"k": "key", "o": 0})
    assert signer.unseal(ref) == {"k": "key", "o": 0}
    assert loads == [1]
    assert repr(signer) == "StateSigner(secret=<hidden, the cache>, ttl=600.0)"


# --- what the stdio transport does ----------------------------------------------------------------


@pytest.mark.anyio
async def test_a_server_left_to_the_defaults_keeps_both_in_its_folder(cache: Path) -> None:
    app = Server("demo")
    use_user_cache(app)
    assert isinstance(app.blob_store, CachedStore)
    assert not app.state_signer.ephemeral
    assert not cache.exists()  # nothing read or made before it is needed
    ref = app.state_signer.seal({"k": "x"})
    secret = (cache / "stdio" / "demo" / "state-secret").read_bytes()
    assert ref == StateSigner(secret).seal({"k": "x"})
    key = await app.blob_store.put(b"payload", "text/plain", ttl=60)
    assert (cache / "stdio" / "demo" / "blobs" / key).is_file()

    again = Server("demo")
    use_user_cache(again)
    assert again.state_signer.unseal(ref) == {"k": "x"}
    blob = await again.blob_store.get(key)
    assert blob is not None and blob.data == b"payload"

    use_user_cache(app)  # a second start changes nothing
    assert app.blob_store.files is not None  # type: ignore[attr-defined]


def test_what_the_user_gave_is_left_alone(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = MemoryStore()
    given = Server("demo", blob_store=store, state_secret=SECRET)
    use_user_cache(given)
    assert given.blob_store is store
    assert given.state_signer.ephemeral is False
    assert given.state_signer.seal({"k": "x"}) == StateSigner(SECRET).seal({"k": "x"})

    later = Server("demo")
    later.blob_store = store
    use_user_cache(later)
    assert later.blob_store is store

    off = Server("demo", stdio_cache=False)
    use_user_cache(off)
    assert isinstance(off.blob_store, MemoryStore)
    assert off.state_signer.ephemeral

    monkeypatch.setenv(ENV_SECRET, SECRET)
    from_env = Server("demo")
    use_user_cache(from_env)
    assert isinstance(from_env.blob_store, CachedStore)  # the store only: the secret is given
    assert from_env.state_signer.seal({"k": "x"}) == StateSigner(SECRET).seal({"k": "x"})
    assert not cache.exists()


@pytest.mark.anyio
async def test_an_unusable_folder_falls_back_to_memory_with_one_warning(
    cache: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cache.parent.mkdir(exist_ok=True)
    cache.write_text("a file, not a folder")
    app = Server("demo")
    use_user_cache(app)
    with caplog.at_level(logging.WARNING, logger="plainmcp"):
        ref = app.state_signer.seal({"k": "x"})
        key = await app.blob_store.put(b"payload", "text/plain", ttl=60)
        again = await app.blob_store.put(b"more", "text/plain", ttl=60)
    assert app.state_signer.unseal(ref) == {"k": "x"}
    assert app.state_signer.ephemeral
    kept = await app.blob_store.get(key)
    assert kept is not None and (kept.data, kept.mime_type) == (b"payload", "text/plain")
    assert (await app.blob_store.get(again)) is not None
    folder = f"{cache}/stdio/demo"
    assert [r.getMessage() for r in caplog.records] == [
        f"cannot keep the state secret in {folder} (Not a directory): signing read_more refs"
        " with a secret of this process alone, so they work only until it exits",
        f"cannot keep cut results in {folder}/blobs (Not a directory): keeping them in this"
        " process's memory, so a read_more ref works only until it exits; make the folder"
        " writable by this user alone, or point PLAINMCP_CACHE_DIR at one that is",
    ]


@pytest.mark.anyio
async def test_the_first_payload_stored_clears_what_other_servers_left_expired(
    cache: Path,
) -> None:
    left = cache / "stdio" / "gone" / "blobs"
    left.mkdir(parents=True)
    expired, live = "A" * 43, "B" * 43
    for name in (expired, live, "notes.txt"):
        (left / name).write_bytes(b"x")
        os.utime(left / name, (1000, 1000))
    os.utime(left / live, (2**33, 2**33))
    app = Server("demo")
    use_user_cache(app)
    await app.blob_store.put(b"payload", "text/plain", ttl=60)
    assert sorted(p.name for p in left.iterdir()) == [live, "notes.txt"]
    (left / expired).write_bytes(b"x")
    os.utime(left / expired, (1000, 1000))
    await app.blob_store.put(b"more", "text/plain", ttl=60)  # once a process
    assert (left / expired).exists()
