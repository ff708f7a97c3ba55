"""Where `plainmcp check` gets the official MCP JSON Schemas: plainmcp ships no copy of them.

In order: `--schemas DIR`, else `$PLAINMCP_MCP_SCHEMAS` (each a folder of `<revision>/schema.json`,
the layout of the specification repository's `schema/` folder), else the per-user cache, else a
download from the specification repository at the pinned commit (or from the mirror
`$PLAINMCP_MCP_SCHEMAS_URL` names). A download is kept only when its sha256 is the pinned one, so
what the cache holds is the official file. Whatever fails is a SchemasUnavailable whose message
names the fix; NotDownloaded when only the download failed (offline: check runs without them).

No package on PyPI ships the official files (mcp and mcp-types have the SDK's own pydantic types,
for two revisions), so there is nothing to depend on instead of the download.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx2

COMMIT = "b0f60ba5409db7a6582440a7b473cc0398890f15"
"""The commit of modelcontextprotocol/modelcontextprotocol the hashes below are of (2026-08-22)."""
SHA256 = {
    "2024-11-05": "61cea2392d4f284092d09bc84b9ac488c0d5618ac2b38a56942fc5b99fd960ce",
    "2025-03-26": "e720669548c8100a4282c49e580efd6ddf7f28899ea786fc8db251dbdb356131",
    "2025-06-18": "af845e7e5b9d27107d1690f0936022546177a1403e63ffb11470135b296a2e01",
    "2025-11-25": "268a5f82ba70fd7e4b6dc4aa1e64f116f74b4d0edcb69dc046829c79dd4e97e7",
    "2026-07-28": "ef70b61f99b6d2e5e3b46863822eab08dff6a45bedc7a08914e0e5b133f40203",
}
"""`schema/<revision>/schema.json` at COMMIT, byte for byte."""
BASE_URL = "https://raw.githubusercontent.com/modelcontextprotocol/modelcontextprotocol"
ENV = "PLAINMCP_MCP_SCHEMAS"
URL_ENV = "PLAINMCP_MCP_SCHEMAS_URL"
"""A mirror of BASE_URL (same paths under it): a proxy of the company's, or a test's server."""
SPEC_FOLDER = (
    "the schema/ folder of a checkout of github.com/modelcontextprotocol/modelcontextprotocol"
)
FIX = (
    f"give a folder of them with --schemas DIR or ${ENV} ({SPEC_FOLDER}), or run check once"
    " with network access (the download is cached)"
)
CONNECT_TIMEOUT = 10.0
"""Seconds to connect for a download: offline, check goes on without the schemas that soon."""


class SchemasUnavailable(Exception):
    """The schemas could not be read or downloaded: the message says why and what to do."""


class NotDownloaded(SchemasUnavailable):
    """No folder was given and the download failed (offline, say): check runs without them."""


def cache_dir(environ: Mapping[str, str], platform: str, home: Path) -> Path:
    """The per-user cache of the downloaded schemas of COMMIT, where each platform keeps caches."""
    if platform == "win32":
        base = Path(environ.get("LOCALAPPDATA") or home / "AppData" / "Local")
    elif platform == "darwin":
        base = home / "Library" / "Caches"
    else:
        base = Path(environ.get("XDG_CACHE_HOME") or home / ".cache")
    return base / "plainmcp" / "mcp-schemas" / COMMIT


def _parsed(data: bytes, where: str) -> dict[str, Any]:
    try:
        loaded = json.loads(data)
    except ValueError as exc:
        raise SchemasUnavailable(f"{where} is not JSON ({exc})") from None
    if not isinstance(loaded, dict):
        raise SchemasUnavailable(f"{where} is not a JSON Schema (not an object)")
    return loaded


def _from_folder(folder: Path, revision: str, origin: str) -> dict[str, Any]:
    path = folder / revision / "schema.json"
    where = f"{origin} {folder}: {path}"
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SchemasUnavailable(
            f"{where}: {exc.strerror or exc}; the folder must hold <revision>/schema.json for"
            f" each MCP revision ({SPEC_FOLDER})"
        ) from None
    return _parsed(data, where)


def _cached(path: Path, revision: str) -> bytes | None:
    """The cached file, if it is the pinned one (anything else is downloaded again)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return data if hashlib.sha256(data).hexdigest() == SHA256[revision] else None


def _write_atomically(path: Path, data: bytes) -> None:
    """Readers see the whole file or none; a cache that cannot be written is only skipped."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, part = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".part")
    except OSError:
        return
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(part, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(part)


def _download(http: httpx2.Client, base_url: str, revision: str) -> bytes:
    import httpx2

    url = f"{base_url}/{COMMIT}/schema/{revision}/schema.json"
    failed = f"the MCP schema of {revision} could not be downloaded from {url}"
    try:
        response = http.get(url)
    except httpx2.HTTPError as exc:
        raise NotDownloaded(f"{failed} ({type(exc).__name__}: {exc}); {FIX}") from None
    if response.status_code != 200:
        raise NotDownloaded(f"{failed} (HTTP {response.status_code}); {FIX}")
    data = response.content
    digest = hashlib.sha256(data).hexdigest()
    if digest != SHA256[revision]:
        raise NotDownloaded(
            f"the MCP schema of {revision} downloaded from {url} is not the official file"
            f" (sha256 {digest}, pinned {SHA256[revision]}); {FIX}"
        )
    return data


@contextlib.contextmanager
def _client(timeout: float) -> Iterator[httpx2.Client]:
    try:
        import httpx2
    except ImportError:
        raise NotDownloaded(
            "the MCP schemas are downloaded with httpx2, which is not installed: pip install"
            f" 'plainmcp[check]', or give a folder of them with --schemas DIR or ${ENV}"
            f" ({SPEC_FOLDER})"
        ) from None
    limits = httpx2.Timeout(timeout, connect=min(timeout, CONNECT_TIMEOUT))
    with httpx2.Client(timeout=limits) as http:
        yield http


def find_schemas(
    revisions: Iterable[str],
    folder: Path | None = None,
    *,
    environ: Mapping[str, str] = os.environ,
    base_url: str | None = None,
    platform: str = sys.platform,
    home: Path | None = None,
    timeout: float = 30.0,
) -> dict[str, dict[str, Any]]:
    """The official schema of each revision, by revision (SchemasUnavailable when it cannot;
    NotDownloaded when no folder was given and the download failed)."""
    wanted = list(revisions)
    origin = "--schemas"
    if folder is None and environ.get(ENV):
        folder, origin = Path(environ[ENV]), f"${ENV}"
    if folder is not None:
        return {revision: _from_folder(folder, revision, origin) for revision in wanted}
    cache = cache_dir(environ, platform, home or Path.home())
    found: dict[str, dict[str, Any]] = {}
    missing: list[str] = []
    for revision in wanted:
        data = _cached(cache / f"{revision}.json", revision)
        if data is None:
            missing.append(revision)
        else:
            found[revision] = _parsed(data, str(cache / f"{revision}.json"))
    if missing:
        with _client(timeout) as http:
            for revision in missing:
                data = _download(http, base_url or environ.get(URL_ENV) or BASE_URL, revision)
                _write_atomically(cache / f"{revision}.json", data)
                found[revision] = _parsed(data, f"the download of {revision}")
    return {revision: found[revision] for revision in wanted}
