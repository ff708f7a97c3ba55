"""`plainmcp install HOST FILE[:OBJECT]|URL` and `plainmcp uninstall HOST NAME`: a server added
to (or taken out of) a host's own config, in its own format and place.

The entry runs the server through `plainmcp run` with absolute paths (the interpreter of this
venv, or `uv run --with ...`), so it works from whatever folder the host starts it in. The file
is read and checked first and replaced whole (a temporary file renamed over it), so a malformed
file is never written over and a crash leaves the old file. Claude Code's user and local scopes
live in ~/.claude.json, which Claude Code rewrites while it runs: there `claude mcp add-json` (its
documented way) does the writing when `claude` is on PATH, and the file is edited only without it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from urllib.parse import urlsplit

from plainmcp.cli import config_edit
from plainmcp.cli.config_lock import locked
from plainmcp.cli.host_configs import (
    HOST_NAMES,
    HOSTS,
    OS,
    Host,
    Launch,
    Remote,
    entry,
    host_named,
    is_url,
    resolve,
    server_name,
)
from plainmcp.cli.remote_name import remote_name
from plainmcp.cli.target import check_file, split_target
from plainmcp.cli.usage import UsageError


def add_arguments(p: argparse.ArgumentParser, command: str) -> None:
    """The options of install or uninstall, on the parser the CLI made for the command."""
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.add_argument("host", metavar="HOST", choices=HOST_NAMES, help=", ".join(HOST_NAMES))
    scopes = sorted({scope for host in HOSTS.values() for scope in host.scopes})
    if command == "uninstall":
        p.add_argument("name", metavar="NAME", help="the server's name in the host's config")
    else:
        p.add_argument(
            "target",
            metavar="FILE[:OBJECT]|URL",
            help="a server file (as for plainmcp run), or the http(s) URL of a remote server",
        )
        p.add_argument(
            "--name",
            help="the name in the host's config (default: the Server's name; the file's stem"
            " with --python, --uv or --with, whose packages this interpreter may lack)",
        )
        p.add_argument(
            "--env",
            metavar="KEY=VALUE",
            action="append",
            default=[],
            help="an environment variable for the server; repeatable",
        )
        p.add_argument("--env-file", metavar="FILE", help="KEY=VALUE lines (a .env file)")
        p.add_argument(
            "--python",
            metavar="PATH",
            help="the interpreter to run the server with (default: this one)",
        )
        p.add_argument(
            "--uv", action="store_true", help="run the server with `uv run --with plainmcp`"
        )
        p.add_argument(
            "--with",
            dest="with_",
            metavar="PACKAGE",
            action="append",
            default=[],
            help="a package the server needs (implies --uv); repeatable",
        )
        p.add_argument(
            "--header",
            metavar="'NAME: VALUE'",
            action="append",
            default=[],
            help="an HTTP header for a remote server; repeatable",
        )
        p.add_argument("--force", action="store_true", help="replace an entry of the same name")
    p.add_argument(
        "--scope", choices=scopes, help="the host's scope (default: its first; see docs/cli.md)"
    )
    p.add_argument("--config", metavar="PATH", help="write this file instead of the host's own")
    p.set_defaults(func=cmd_uninstall if command == "uninstall" else cmd_install)


# --- the server's entry ------------------------------------------------------------------------


def parse_env_file(text: str, source: str) -> dict[str, str]:
    """KEY=VALUE lines as a .env file has them: # comments, `export `, quoted values."""
    env: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        line = line.removeprefix("export ").lstrip()
        key, sep, value = line.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key.isidentifier():
            raise UsageError(f"{source}:{number}: not a KEY=VALUE line: {raw!r}")
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        env[key] = value
    return env


def _env(args: argparse.Namespace) -> dict[str, str]:
    env: dict[str, str] = {}
    if args.env_file:
        path = Path(args.env_file)
        if not path.is_file():
            raise UsageError(f"--env-file {args.env_file} does not exist")
        env.update(parse_env_file(path.read_text(encoding="utf-8"), args.env_file))
    for pair in args.env:
        key, sep, value = pair.partition("=")
        if not sep or not key.isidentifier():
            raise UsageError(f"--env takes KEY=VALUE, not {pair!r}")
        env[key] = value
    return env


def _headers(pairs: Sequence[str]) -> dict[str, str]:
    headers: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition(":")
        if not sep or not key.strip():
            raise UsageError(f"--header takes 'NAME: VALUE', not {pair!r}")
        headers[key.strip()] = value.strip()
    return headers


def plainmcp_requirement() -> str:
    """What `uv run --with` installs plainmcp from: the folder this one was installed from
    (PEP 610's direct_url.json), else this version from PyPI."""
    from importlib import metadata

    from plainmcp.version import __version__

    with contextlib.suppress(metadata.PackageNotFoundError, ValueError, TypeError):
        direct = json.loads(metadata.distribution("plainmcp").read_text("direct_url.json") or "")
        url = str(direct["url"])
        if url.startswith("file://"):
            from urllib.request import url2pathname

            return url2pathname(urlsplit(url).path)
    return f"plainmcp=={__version__}"


def _which(program: str, flag: str, fix: str) -> str:
    found = shutil.which(program)
    if found is None:
        raise UsageError(f"{flag} needs {program}, which is not on PATH: {fix}")
    return str(Path(found).resolve())


def _python(given: str | None) -> str:
    if given is None:
        return sys.executable
    found = shutil.which(given)
    if found is None:
        raise UsageError(f"--python {given} is not an executable")
    proc = subprocess.run(
        [found, "-c", "import plainmcp"], capture_output=True, text=True, timeout=60, check=False
    )
    if proc.returncode != 0:
        raise UsageError(
            f"--python {given} cannot import plainmcp: install it there ({found} -m pip install"
            " plainmcp), or use --uv"
        )
    return str(Path(found).absolute())


def launch(args: argparse.Namespace, target: str) -> Launch:
    """The absolute command that serves FILE[:OBJECT] through `plainmcp run`."""
    file, obj = split_target(target)
    path = str(check_file(file))
    served = path if obj is None else f"{path}:{obj}"
    env = _env(args)
    if args.uv or args.with_:
        uv = _which("uv", "--uv", "install uv (https://docs.astral.sh/uv/) or drop --uv/--with")
        extra = [a for p in args.with_ for a in ("--with", p)]
        python = ["--python", args.python] if args.python else []
        argv = ["run", "--no-project", "--with", plainmcp_requirement(), *extra, *python]
        return Launch(uv, (*argv, "plainmcp", "run", served), env)
    return Launch(_python(args.python), ("-m", "plainmcp", "run", served), env)


def _server_name_of(target: str) -> str | None:
    """The Server's own name, importing the file as `plainmcp run` would (its prints to stderr);
    None once the traceback of a failed import is shown."""
    from plainmcp.cli.target import import_failure, load_server

    try:
        with contextlib.redirect_stdout(sys.stderr):
            return load_server(target).name
    except UsageError:
        raise
    except Exception as exc:
        print(import_failure(exc), end="", file=sys.stderr)
        print(f"plainmcp install: importing {target} failed (see above)", file=sys.stderr)
        return None


# --- where it goes -----------------------------------------------------------------------------


def current_os() -> OS:
    if sys.platform == "darwin":
        return "macos"
    return "windows" if sys.platform == "win32" else "linux"


def _scope(host: Host, args: argparse.Namespace) -> str:
    scope: str = args.scope or host.default_scope
    if scope not in host.scopes:
        raise UsageError(f"{host.title} has no {scope} scope (it has {', '.join(host.scopes)})")
    return scope


def config_file(host: Host, scope: str, given: str | None, env: Mapping[str, str]) -> Path:
    if given:
        return Path(given).absolute()
    place = host.places[scope][current_os()]
    return Path(resolve(place, current_os(), env, str(Path.home()), str(Path.cwd())))


def _read(path: Path) -> str:
    """The file as it is, line ends too (newline="": a CRLF file is written back CRLF)."""
    try:
        with path.open(encoding="utf-8", newline="") as f:
            return f.read()
    except FileNotFoundError:
        return ""
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None


def _new_mode(private: bool) -> int:
    """The mode of a file the host would make: 0600, or 0666 less the umask (what open() gives)."""
    if private:
        return 0o600
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


def _write(path: Path, text: str, *, private: bool) -> None:
    """Replace `path` whole: a temporary file beside it, renamed over it. It keeps the mode the
    file had; a new one gets the mode its host gives its own (`private`: 0600)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = path.stat().st_mode & 0o777
    except FileNotFoundError:
        mode = _new_mode(private)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        with contextlib.suppress(OSError):
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _malformed(path: Path, exc: config_edit.Malformed) -> UsageError:
    where = f"{path}:{exc.line}" if exc.line else str(path)
    return UsageError(f"{where}: {exc}; fix the file first (it was left as it was)")


def fill_step(step: str, host: Host, name: str, path: Path) -> str:
    """A host's next step (Host.next_step) for the server `name` just written to `path`."""
    cwd = Path.cwd()
    user = config_file(host, "user", None, os.environ) if "user" in host.places else path
    return step.format(cwd=cwd, name=name, path=path, cwd_toml=json.dumps(str(cwd)), user_file=user)


def _claude(host: Host, scope: str, given: str | None) -> str | None:
    """The `claude` command when it writes this scope, else None (the file is edited)."""
    if given or host.cli is None or scope not in host.cli_scopes:
        return None
    return shutil.which(host.cli)


def _run_cli(argv: list[str]) -> None:
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    if proc.returncode != 0:
        said = (proc.stderr or proc.stdout).strip()
        raise UsageError(f"{' '.join(argv[:3])} failed ({proc.returncode}): {said}")


# --- the commands ------------------------------------------------------------------------------


def cmd_install(args: argparse.Namespace) -> int:
    host = host_named(args.host)
    server: Launch | Remote
    if is_url(args.target):
        local = [
            f
            for f, v in (
                ("--env", args.env),
                ("--env-file", args.env_file),
                ("--python", args.python),
                ("--uv", args.uv),
                ("--with", args.with_),
            )
            if v
        ]
        if local:
            raise UsageError(f"{', '.join(local)}: for a server the host starts, not a URL")
        if host.remote is None:
            raise UsageError(host.no_remote)
        server = Remote(args.target, _headers(args.header))
        name = args.name or remote_name(server)
    else:
        if args.header:
            raise UsageError("--header is for a remote server (a URL)")
        server = launch(args, args.target)
        # A server run by another interpreter may import what this one lacks: not imported here.
        elsewhere = args.python or args.uv or args.with_
        stem = Path(split_target(args.target)[0]).stem
        found = args.name or (stem if elsewhere else _server_name_of(args.target))
        if found is None:
            return 1
        name = found if args.name else server_name(found)
    value = entry(host, server)
    if host is not HOSTS.get(host.name):  # json: the snippet, printed
        if args.scope or args.config or args.force:
            raise UsageError("json prints the snippet: --scope, --config and --force are for hosts")
        print(json.dumps({"mcpServers": {name: value}}, indent=2, ensure_ascii=False))
        return 0
    scope = _scope(host, args)
    path = config_file(host, scope, args.config, os.environ)
    keys = host.servers_path(scope, Path.cwd().as_posix())
    with locked(path):
        there, how = _add(host, scope, path, keys, name, value, args)
    verb = "replaced" if there else "added"
    print(f"{host.title} ({scope} scope): {verb} {name} in {path}{how}")
    step = host.next_step.get(scope)
    if step is not None:
        print(f"next: {fill_step(step, host, name, path)}")
    return 0


def _add(
    host: Host,
    scope: str,
    path: Path,
    keys: tuple[str, ...],
    name: str,
    value: dict[str, object],
    args: argparse.Namespace,
) -> tuple[bool, str]:
    """Add the entry (under the file's lock): whether one was replaced, and how it was written."""
    text = _read(path)
    try:
        there = config_edit.existing(host, text, keys, name) is not None
        if there and not args.force:
            raise UsageError(
                f"{path} already has a server named {name!r}: --force replaces it,"
                " --name adds it under another name"
            )
        claude = _claude(host, scope, args.config)
        if claude is not None:
            if there:
                _run_cli([claude, "mcp", "remove", "--scope", scope, name])
            _run_cli([claude, "mcp", "add-json", "--scope", scope, name, json.dumps(value)])
            return there, " (through claude mcp add-json)"
        edited = config_edit.add(host, text, keys, name, value, force=args.force)
        _write(path, edited, private=scope in host.private)
        return there, ""
    except config_edit.Malformed as exc:
        raise _malformed(path, exc) from None


def cmd_uninstall(args: argparse.Namespace) -> int:
    host = host_named(args.host)
    if host is not HOSTS.get(host.name):
        raise UsageError("json only prints a snippet: there is nothing to uninstall")
    scope = _scope(host, args)
    path = config_file(host, scope, args.config, os.environ)
    keys = host.servers_path(scope, Path.cwd().as_posix())
    if not path.exists():  # nothing to lock, nor a folder to make for the lock
        raise UsageError(f"{path} has no server named {args.name!r} ({scope} scope)")
    with locked(path):
        text = _read(path)
        try:
            if config_edit.existing(host, text, keys, args.name) is None:
                raise UsageError(f"{path} has no server named {args.name!r} ({scope} scope)")
            claude = _claude(host, scope, args.config)
            if claude is not None:
                _run_cli([claude, "mcp", "remove", "--scope", scope, args.name])
            else:
                removed = config_edit.remove(host, text, keys, args.name)
                assert removed is not None
                _write(path, removed, private=scope in host.private)
        except config_edit.Malformed as exc:
            raise _malformed(path, exc) from None
    print(f"{host.title} ({scope} scope): removed {args.name} from {path}")
    return 0
