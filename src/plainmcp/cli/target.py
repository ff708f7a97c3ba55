"""Finding what to serve: FILE[:OBJECT] imported as `python FILE` would, and the Server or
HttpApp in it."""

from __future__ import annotations

import importlib.util
import os
import sys
import traceback
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from plainmcp.cli.usage import UsageError

if TYPE_CHECKING:
    from plainmcp.server import Server
    from plainmcp.transports.http.app import HttpApp

NAMES = ("app", "server", "mcp")


def split_target(target: str) -> tuple[str, str | None]:
    """`file.py:obj` to ("file.py", "obj"); a bare path (even `C:\\x.py`) to (path, None)."""
    path, sep, obj = target.rpartition(":")
    if sep and obj.isidentifier() and len(path) > 1:
        return path, obj
    return target, None


def check_file(file: str) -> Path:
    path = Path(file)
    if not path.is_file():
        what = "is a directory, not a Python file" if path.is_dir() else "does not exist"
        raise UsageError(f"{file} {what}")
    return path.resolve()


def _import_file(file: str) -> dict[str, Any]:
    """Run FILE as a module (its folder on sys.path, as `python FILE` would) and return its
    namespace."""
    path = check_file(file)
    module_name = path.stem if path.stem.isidentifier() else "__plainmcp_app__"
    if module_name in sys.modules:
        module_name = "__plainmcp_app__"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise UsageError(f"cannot import {file} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    sys.path.insert(0, str(path.parent))
    sys.argv = [str(path)]
    spec.loader.exec_module(module)
    return vars(module)


_PLAINMCP = os.path.realpath(Path(__file__).parents[1]) + os.sep


def _importing_frame(filename: str) -> bool:
    """A frame of what imported the user's file: plainmcp's own, or importlib's."""
    if filename.startswith("<frozen importlib"):
        return True
    return os.path.realpath(filename).startswith(_PLAINMCP)


def import_failure(exc: BaseException) -> str:
    """The traceback of the user's file failing to import as `python FILE` shows it: from the
    first frame of the user's code, without the frames of plainmcp and importlib that ran the
    import (none at all for a SyntaxError, which Python then shows without a header)."""
    shown = traceback.TracebackException.from_exception(exc)
    frames = list(shown.stack)
    first = 0
    while first < len(frames) and _importing_frame(frames[first].filename):
        first += 1
    shown.stack = traceback.StackSummary.from_list(frames[first:])
    return "".join(shown.format())


def _http_app_type() -> type[HttpApp] | None:
    """HttpApp when the HTTP transport is loaded, else None: a module that made an HttpApp has
    loaded it, and a stdio server should not pay for importing it just to look."""
    module = sys.modules.get("plainmcp.transports.http.app")
    found: type[HttpApp] | None = getattr(module, "HttpApp", None)
    return found


def _instances(found: Mapping[str, Any], kind: type[Any]) -> list[tuple[str, Any]]:
    """The module's objects of `kind`, once each (the first name bound to each)."""
    seen: dict[int, tuple[str, Any]] = {}
    for key, value in found.items():
        if isinstance(value, kind):
            seen.setdefault(id(value), (key, value))
    return list(seen.values())


def load_target(target: str, *, http: bool = False) -> tuple[str, Server | HttpApp]:
    """Import FILE and find what to serve, with the name it has there (`plainmcp run --help`).

    OBJECT may be a Server or an HttpApp (`app.http_app(auth=...)`). Without OBJECT, `--http`
    takes the file's only HttpApp, so that its auth and allowed hosts are not left behind;
    otherwise the only Server, else `app`, `server` or `mcp`.
    """
    from plainmcp.server import Server

    file, name = split_target(target)
    found = _import_file(file)
    app_type = _http_app_type()
    kinds: tuple[type[Any], ...] = (Server,) if app_type is None else (Server, app_type)
    if name is not None:
        if name not in found:
            raise UsageError(f"{file} has no object named {name!r}")
        obj = found[name]
        if not isinstance(obj, kinds):
            raise UsageError(
                f"{file}:{name} is a {type(obj).__name__}, not a plainmcp.Server or HttpApp"
            )
        return name, obj
    if http and app_type is not None:
        apps = _instances(found, app_type)
        if len(apps) == 1:
            return apps[0]
        if apps:
            names = ", ".join(sorted(k for k, _ in apps))
            raise UsageError(
                f"{file} defines several HttpApps ({names}); pick one with {file}:NAME"
            )
    servers = _instances(found, Server)
    if len(servers) == 1:
        return servers[0]
    for candidate in NAMES:
        if isinstance(found.get(candidate), Server):
            return candidate, found[candidate]
    if not servers:
        raise UsageError(f"{file} defines no plainmcp.Server (e.g. app = Server('name'))")
    names = ", ".join(sorted(k for k, _ in servers))
    raise UsageError(f"{file} defines several servers ({names}); pick one with {file}:NAME")


def load_server(target: str) -> Server:
    """The Server that FILE[:OBJECT] names: an HttpApp stands for its server (stdio has no
    Host checks or bearer tokens: whoever starts the process is the client)."""
    from plainmcp.server import Server

    _, obj = load_target(target)
    server = obj if isinstance(obj, Server) else obj.server
    if not isinstance(server, Server):  # an HttpApp made around something else
        raise UsageError(f"{target} names no plainmcp.Server")
    return server
