"""Where plainmcp keeps what must outlive one process of a stdio server: the user's cache folder.

A host starts a stdio server per session, and some (LangChain's default `get_tools()`) one per
call, so a `read_more` ref given out by one process is followed in the next. Each server's
payloads and state secret are kept in a folder of its own, named after the server, under the
platform's per-user cache folder, or under `PLAINMCP_CACHE_DIR` when that is set (tests, a
sandbox, a host whose HOME is read-only). Strings, not pathlib: this is on the start-up path.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping

__all__ = ["ENV_CACHE_DIR", "base_dir", "namespace", "server_dir"]

ENV_CACHE_DIR = "PLAINMCP_CACHE_DIR"
"""A folder used instead of `<user cache>/plainmcp` (with a `stdio/<server>/` folder per server)."""

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def base_dir(
    environ: Mapping[str, str] | None = None,
    platform: str | None = None,
    home: str | None = None,
) -> str:
    """plainmcp's folder in the user's cache: `$PLAINMCP_CACHE_DIR`, else `$XDG_CACHE_HOME/plainmcp`
    (`~/.cache/plainmcp`), `~/Library/Caches/plainmcp` on macOS, `%LOCALAPPDATA%\\plainmcp` on
    Windows."""
    environ = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    given = environ.get(ENV_CACHE_DIR)
    if given:
        return given
    home = os.path.expanduser("~") if home is None else home
    if platform == "win32":
        base = environ.get("LOCALAPPDATA") or os.path.join(home, "AppData", "Local")
    elif platform == "darwin":
        base = os.path.join(home, "Library", "Caches")
    else:
        base = environ.get("XDG_CACHE_HOME") or os.path.join(home, ".cache")
    return os.path.join(base, "plainmcp")


def namespace(name: str) -> str:
    """A folder name for the server called `name`: the name itself when it is plain (letters,
    digits, `.`, `_`, `-`), else its plain part and a digest of the whole name, so that two names
    never share a folder and none can climb out of it."""
    safe = _UNSAFE.sub("_", name).strip("._")[:64]
    if safe and safe == name:
        return safe
    import hashlib  # only for names that are not plain

    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{safe or 'server'}-{digest}"


def server_dir(name: str, environ: Mapping[str, str] | None = None) -> str:
    """The folder of the server called `name`: `<base_dir>/stdio/<namespace>`."""
    return os.path.join(base_dir(environ), "stdio", namespace(name))
