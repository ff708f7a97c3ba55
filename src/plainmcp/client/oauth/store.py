"""Where a login's credentials are kept between runs, keyed by the server's URL: a Protocol
any store implements (load, save, delete), a memory store for programs and a file store for
the CLI (owner-only: a 0600 file in a 0700 folder, written atomically)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from typing import Any, Protocol

from plainmcp.user_cache import base_dir


class TokenStore(Protocol):
    """Credentials by key (the server's URL): JSON-able dicts, opaque to the store."""

    async def load(self, key: str) -> dict[str, Any] | None: ...

    async def save(self, key: str, value: dict[str, Any]) -> None: ...

    async def delete(self, key: str) -> None: ...


class MemoryTokenStore:
    """For a program's lifetime; the default."""

    def __init__(self) -> None:
        self._values: dict[str, str] = {}

    async def load(self, key: str) -> dict[str, Any] | None:
        text = self._values.get(key)
        return None if text is None else dict(json.loads(text))

    async def save(self, key: str, value: dict[str, Any]) -> None:
        self._values[key] = json.dumps(value)  # a copy: later changes to `value` stay out

    async def delete(self, key: str) -> None:
        self._values.pop(key, None)


def default_folder() -> str:
    """`<plainmcp's user cache folder>/oauth` (user_cache.base_dir: $PLAINMCP_CACHE_DIR too)."""
    return os.path.join(base_dir(), "oauth")


class FileTokenStore:
    """One JSON file per key, named by the key's SHA-256, readable by its owner only."""

    def __init__(self, folder: str | None = None) -> None:
        self.folder = folder or default_folder()

    def path(self, key: str) -> str:
        return os.path.join(self.folder, hashlib.sha256(key.encode()).hexdigest() + ".json")

    async def load(self, key: str) -> dict[str, Any] | None:
        try:
            with open(self.path(key), encoding="utf-8") as file:
                value = json.load(file)
        except (FileNotFoundError, json.JSONDecodeError):
            return None
        if not isinstance(value, dict) or value.get("key") != key:
            return None
        stored = value.get("value")
        return stored if isinstance(stored, dict) else None

    async def save(self, key: str, value: dict[str, Any]) -> None:
        os.makedirs(self.folder, mode=0o700, exist_ok=True)
        os.chmod(self.folder, 0o700)
        handle, temporary = tempfile.mkstemp(dir=self.folder, prefix=".", suffix=".tmp")
        try:
            os.chmod(temporary, 0o600)  # mkstemp makes it 0600 already; said for the reader
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                json.dump({"key": key, "value": value}, file)
            os.replace(temporary, self.path(key))
        except BaseException:
            os.unlink(temporary)
            raise

    async def delete(self, key: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path(key))
