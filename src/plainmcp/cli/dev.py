"""`plainmcp dev`: serve a file and restart it when it or a module it imports changes.

Over stdio the host keeps one session across restarts (relay.py). Over HTTP the server process
is replaced on the same port once the changed code imports cleanly (clients of a session
get 404 for it and start a new one, as the transport asks of them). Each request is logged on
stderr with its duration (the child's Timing middleware, dev_child.py). watchfiles
(`pip install watchfiles`, or `plainmcp[watch]`) is imported here only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import anyio.abc

from plainmcp.cli.relay import LIMIT, READY, Relay, host_writer, log
from plainmcp.cli.target import check_file, split_target
from plainmcp.cli.usage import UsageError

INSPECTOR = "@modelcontextprotocol/inspector"
CHILD = [sys.executable, "-m", "plainmcp.cli.dev_child"]


def _require_watchfiles() -> None:
    try:
        import watchfiles  # noqa: F401
    except ImportError:
        raise UsageError(
            "dev needs watchfiles, which is not installed: pip install 'plainmcp[watch]'"
        ) from None


def find_inspector(start: Path) -> str | None:
    """The `mcp-inspector` command: on PATH, or in a node_modules/.bin above `start`. Looked
    up rather than run through `npx`, which would stop at an install prompt."""
    found = shutil.which("mcp-inspector")
    if found is not None:
        return found
    for folder in (start, *start.parents):
        candidate = folder / "node_modules" / ".bin" / "mcp-inspector"
        if candidate.is_file():
            return str(candidate)
    return None


def inspector_args(target: str, url: str | None) -> list[str]:
    """What the Inspector is started with: the URL of the HTTP server, or the command that
    starts this dev server over stdio (the Inspector becomes its host)."""
    if url is not None:
        return ["--web", "--transport", "http", "--server-url", url]
    return ["--web", "--", sys.executable, "-m", "plainmcp", "dev", target]


def _absolute(target: str) -> str:
    file, name = split_target(target)
    path = str(check_file(file))
    return f"{path}:{name}" if name else path


def cmd_dev(args: argparse.Namespace) -> int:
    _require_watchfiles()
    if not args.http and (args.host is not None or args.port is not None):
        given = [f for f, v in (("--host", args.host), ("--port", args.port)) if v is not None]
        raise UsageError(f"{', '.join(given)} {'needs' if len(given) == 1 else 'need'} --http")
    target = _absolute(args.target)
    inspector = None
    if args.inspector:
        inspector = find_inspector(Path.cwd())
        if inspector is None:
            raise UsageError(
                "--inspector needs the MCP Inspector (Node.js 22+), which was not found:"
                f" npm install -g {INSPECTOR}  (or run `npx {INSPECTOR}` yourself)"
            )
    if args.http:
        from plainmcp.cli.run import require_uvicorn

        require_uvicorn()
        host = args.host or "127.0.0.1"
        port = 8000 if args.port is None else args.port
        return anyio.run(serve_http, target, host, port, inspector)
    if inspector is not None:
        return subprocess.run([inspector, *inspector_args(target, None)]).returncode
    from plainmcp.transports.stdout import claim_stdout

    return anyio.run(serve_stdio, target, claim_stdout())


# --- watching -------------------------------------------------------------------------------


class Watcher:
    """The files to watch (the target and what it imported) and a wake-up when one changes."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.files = {file}
        self.changed: set[str] = set()
        self.wake = anyio.Event()
        self._scope: anyio.CancelScope | None = None

    def update(self, files: list[str]) -> None:
        folders = {str(Path(f).parent) for f in self.files}
        self.files = {self.file, *files}
        if {str(Path(f).parent) for f in self.files} != folders and self._scope is not None:
            self._scope.cancel()  # watch the new set of folders

    async def run(self) -> None:
        import watchfiles

        while True:
            folders = sorted({str(Path(f).parent) for f in self.files})
            with anyio.CancelScope() as self._scope:
                ready = False
                # yield_on_timeout: the first (empty) yield says the watch is in place.
                async for changes in watchfiles.awatch(
                    *folders,
                    watch_filter=None,
                    recursive=False,
                    debounce=400,
                    step=30,
                    rust_timeout=200,
                    yield_on_timeout=True,
                ):
                    if not ready:
                        ready = True
                        count = len(self.files)
                        log(f"watching {count} file{'s' if count > 1 else ''} for changes")
                    hit = {path for _, path in changes if path in self.files}
                    if hit:
                        self.changed |= hit
                        self.wake.set()

    async def next_change(self) -> list[str]:
        await self.wake.wait()
        self.wake = anyio.Event()
        changed, self.changed = sorted(self.changed), set()
        return changed


def _names(paths: list[str]) -> str:
    return ", ".join(os.path.relpath(p) for p in paths)


Restart = Callable[[], Awaitable[list[str] | None]]


async def _reload_loop(watcher: Watcher, restart: Restart) -> None:
    clock = anyio.current_time
    while True:
        changed = await watcher.next_change()
        started = clock()
        log(f"{_names(changed)} changed; restarting")
        files = await restart()
        if files is None:
            shown = os.path.relpath(watcher.file)
            log(f"{shown} failed to load (see above); still serving the last good version")
        else:
            watcher.update(files)
            log(f"restarted in {(clock() - started) * 1000:.0f} ms")


# --- stdio ----------------------------------------------------------------------------------


async def _host_lines(fd: int) -> Any:
    """The host's lines, read in a thread (stdin may be a terminal, a pipe or a file)."""
    from plainmcp.transports.stdio import LineSplitter

    splitter = LineSplitter(LIMIT)
    while True:
        chunk = await anyio.to_thread.run_sync(os.read, fd, 1 << 16, abandon_on_cancel=True)
        if not chunk:
            for line in splitter.finish():
                yield line
            return
        for line in splitter.feed(chunk):
            yield line


async def serve_stdio(target: str, out_fd: int) -> int:
    file = split_target(target)[0]
    shown = os.path.relpath(file)
    async with anyio.create_task_group() as tasks:
        relay = Relay([*CHILD, target], host_writer(out_fd), tasks, shown)
        if not await relay.start():
            log(f"{shown} failed to load (see above); fix it and run plainmcp dev again")
            tasks.cancel_scope.cancel()
            return 1
        watcher = Watcher(file)
        assert relay.child is not None and relay.child.files is not None
        watcher.update(relay.child.files)
        tasks.start_soon(watcher.run)
        tasks.start_soon(_reload_loop, watcher, relay.restart)
        async for line in _host_lines(0):
            await relay.from_host(line)
        child, relay.child = relay.child, None  # its exit is not a crash
        if child is not None:
            await child.stop()
        tasks.cancel_scope.cancel()
    return 0


# --- HTTP -----------------------------------------------------------------------------------


class HttpChild:
    """The server process on the port, and the one line it prints once it has loaded."""

    def __init__(self, process: anyio.abc.Process) -> None:
        self.process = process
        self.files: list[str] | None = None
        self.path = "/mcp"
        self.loaded = anyio.Event()

    async def read(self) -> None:
        assert self.process.stdout is not None
        buffered = b""
        async for chunk in self.process.stdout:
            buffered += chunk
            *lines, buffered = buffered.split(b"\n")
            for line in lines:
                self._line(line)
        if buffered:
            self._line(buffered)
        self.loaded.set()

    def _line(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        if isinstance(message, dict) and message.get("method") == READY:
            files = message.get("params", {}).get("files") or []
            self.files = [f for f in files if isinstance(f, str)]
            self.path = str(message["params"].get("path", self.path))
            self.loaded.set()
        else:
            sys.stdout.buffer.write(line + b"\n")  # what the server printed
            sys.stdout.flush()

    async def stop(self) -> None:
        with anyio.CancelScope(shield=True):
            if self.process.returncode is None:
                self.process.terminate()
                with anyio.move_on_after(3):  # open streams would keep uvicorn waiting
                    await self.process.wait()
                if self.process.returncode is None:
                    self.process.kill()
                    await self.process.wait()


async def _loads(target: str) -> bool:
    """Whether the target imports in a fresh process (checked before the running server is
    stopped, so a broken edit keeps the last good version on the port)."""
    process = await anyio.run_process(
        [*CHILD, "--check", target], stdout=subprocess.DEVNULL, stderr=None, check=False
    )
    return process.returncode == 0


async def serve_http(target: str, host: str, port: int, inspector: str | None) -> int:
    file = split_target(target)[0]
    shown = os.path.relpath(file)
    async with anyio.create_task_group() as tasks:

        async def start() -> HttpChild:
            # stdin a pipe nobody writes: it ends with this process, and so does the child.
            process = await anyio.open_process(
                [*CHILD, target, host, str(port)], stdin=subprocess.PIPE, stderr=None
            )
            child = HttpChild(process)
            tasks.start_soon(child.read)
            await child.loaded.wait()
            return child

        child = await start()
        if child.files is None:
            log(f"{shown} failed to load (see above); fix it and run plainmcp dev again")
            tasks.cancel_scope.cancel()
            return 1
        url = f"http://{host}:{port}{child.path}"
        log(f"serving {url}")
        watcher = Watcher(file)
        watcher.update(child.files)

        async def restart() -> list[str] | None:
            nonlocal child
            if not await _loads(target):
                return None
            await child.stop()
            child = await start()
            return child.files

        tasks.start_soon(watcher.run)
        tasks.start_soon(_reload_loop, watcher, restart)
        try:
            if inspector is not None:
                await anyio.run_process(
                    [inspector, *inspector_args(target, url)],
                    stdout=None,
                    stderr=None,
                    check=False,
                )
            else:
                await anyio.sleep_forever()
        finally:
            await child.stop()
            tasks.cancel_scope.cancel()
    return 0
