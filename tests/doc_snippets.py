"""The fenced code blocks of README.md and docs/*.md, and how each one runs (tests/test_docs.py).

Every fence names its language. A ```text block is prose; every other block carries a marker, an
HTML comment on the line right before its fence, saying how the test suite runs it:

    <!-- snippet: file=server.py -->     python: write the block to server.py (later blocks of
                                          the page import or run it); every file is imported once
                                          at the end of the page, not as __main__
    <!-- snippet: append=server.py -->   python: add the block to the end of that file
    <!-- snippet: run -->                python: a program run with python; bash: run with bash.
                                          It must exit 0; a ```text block right after it is its
                                          exact stdout
    <!-- snippet: test -->               python: a pytest module, run with pytest; every test in
                                          it must pass (none skipped)
    <!-- snippet: serve server=NAME -->  python or bash: a long-running server. Started, asked to
                                          initialize (stdio; over HTTP with port=N, served on a
                                          free port in place of N), and it must answer as NAME;
                                          with redis=P, a redis-server is started on a free port
                                          in place of P (tests/cluster.py) for the block's run
    <!-- snippet: host server=NAME python=/abs/.venv/bin/python root=/abs -->
                                          json (an `mcpServers` config) or bash (`claude mcp add
                                          NAME -- COMMAND...`): each server command, with `python`
                                          replaced by this interpreter and the `root` folder by
                                          the page's folder, is started from another folder and
                                          must answer as NAME (and `call="TOOL k=v"`, if given,
                                          must not be an error)
    <!-- snippet: skip reason="..." -->  not run, for the reason given (installs from PyPI,
                                          runs for minutes, needs a library of the reader's)

`run`, `test` and `serve` take an optional file name (`run=client.py`). A page that names
`<!-- snippets: uses=README.md -->` starts in a copy of the folder the README's snippets left.
Each page runs in its own folder, in order; subprocesses use this interpreter, and the venv's bin
folder (the `plainmcp` command) is first on PATH.
"""

from __future__ import annotations

import ast
import contextlib
import http.client
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import anyio

from plainmcp import Client
from plainmcp.cli import parse_arguments
from tests.http_server import free_port

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
BIN = Path(sys.executable).parent
TIMEOUT = 60.0

KINDS: Mapping[str, frozenset[str]] = {
    "python": frozenset({"file", "append", "run", "test", "serve", "skip"}),
    "bash": frozenset({"run", "serve", "host", "skip"}),
    "json": frozenset({"host", "skip"}),
}
ATTRIBUTES: Mapping[str, frozenset[str]] = {
    "file": frozenset(),
    "append": frozenset(),
    "run": frozenset(),
    "test": frozenset(),
    "serve": frozenset({"server", "port", "redis"}),
    "host": frozenset({"server", "python", "root", "call"}),
    "skip": frozenset({"reason"}),
}
REQUIRED: Mapping[str, frozenset[str]] = {
    "file": frozenset(),
    "append": frozenset(),
    "serve": frozenset({"server"}),
    "host": frozenset({"server", "python", "root"}),
    "skip": frozenset({"reason"}),
}
FENCE = re.compile(r"^(```+|~~~+)(.*)$")
MARKER = re.compile(r"^<!-- snippet: (.*) -->$")
USES = re.compile(r"^<!-- snippets: uses=(\S+) -->$", re.MULTILINE)


class SnippetError(AssertionError):
    """A block that did not run as its page says (the message names the page and line)."""


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # the line of the opening fence, 1-based
    lang: str
    text: str
    kind: str | None = None
    name: str | None = None  # the file of file=, append=, run=, test=, serve=
    attrs: Mapping[str, str] = field(default_factory=dict)
    expected: str | None = None  # the ```text block right after a run block

    @property
    def where(self) -> str:
        page = self.page.relative_to(ROOT) if self.page.is_relative_to(ROOT) else self.page
        return f"{page}:{self.line}"


@dataclass
class Page:
    path: Path
    blocks: list[Block]
    problems: list[str]  # markers missing, unknown or malformed
    uses: str | None


def parse(path: Path) -> Page:
    """The page's blocks with their markers, and every way the page breaks the convention."""
    lines = path.read_text(encoding="utf-8").split("\n")
    rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    raw: list[tuple[int, str, str, str | None]] = []  # line, lang, text, marker
    problems: list[str] = []
    i = 0
    while i < len(lines):
        found = FENCE.match(lines[i])
        if not found:
            if MARKER.match(lines[i]) and not (i + 1 < len(lines) and FENCE.match(lines[i + 1])):
                problems.append(f"{rel}:{i + 1}: a snippet marker must stand right before a fence")
            i += 1
            continue
        fence, lang = found.group(1), found.group(2).strip()
        end = next((j for j in range(i + 1, len(lines)) if lines[j] == fence), None)
        if end is None:
            problems.append(f"{rel}:{i + 1}: the fence is never closed")
            break
        before = MARKER.match(lines[i - 1]) if i else None
        text = "".join(line + "\n" for line in lines[i + 1 : end])
        raw.append((i + 1, lang, text, before.group(1) if before else None))
        i = end + 1

    blocks: list[Block] = []
    for n, (line, lang, text, marker) in enumerate(raw):
        where = f"{rel}:{line}"
        if lang == "text":
            if marker is not None:
                problems.append(f"{where}: a text block takes no marker")
            continue
        if not lang:
            problems.append(f"{where}: the fence names no language (use text for prose)")
            continue
        if lang not in KINDS:
            problems.append(f"{where}: no convention runs {lang!r} blocks")
            continue
        if marker is None:
            problems.append(f"{where}: a {lang} block with no <!-- snippet: ... --> marker")
            continue
        try:
            kind, name, attrs = read_marker(marker)
        except ValueError as exc:
            problems.append(f"{where}: {exc}")
            continue
        if kind not in KINDS[lang]:
            problems.append(f"{where}: a {lang} block cannot be {kind!r}")
            continue
        if kind in ("file", "append") and not name:
            problems.append(f"{where}: {kind}= needs a file name")
            continue
        if kind == "skip" and not attrs.get("reason", "").strip():
            problems.append(f"{where}: skip needs a reason")
            continue
        if lang == "json":
            try:
                json.loads(text)
            except ValueError as exc:
                problems.append(f"{where}: not valid JSON: {exc}")
                continue
        expected = None
        following = raw[n + 1] if n + 1 < len(raw) else None
        if following and following[1] == "text" and following[3] is None:
            between = lines[line + text.count("\n") + 1 : following[0] - 1]
            if all(not b.strip() for b in between):
                if kind != "run":
                    problems.append(f"{where}: only a run block has an expected output after it")
                expected = following[2]
        blocks.append(Block(path, line, lang, text, kind, name, attrs, expected))
    uses = USES.search("\n".join(lines))
    return Page(path, blocks, problems, uses.group(1) if uses else None)


def read_marker(marker: str) -> tuple[str, str | None, dict[str, str]]:
    """`KIND[=NAME] key=value key="a value"` as (kind, name, attributes)."""
    try:
        first, *rest = shlex.split(marker)
    except ValueError as exc:
        raise ValueError(f"malformed marker {marker!r}: {exc}") from None
    kind, _, name = first.partition("=")
    if kind not in ATTRIBUTES:
        raise ValueError(f"unknown snippet kind {kind!r}")
    attrs: dict[str, str] = {}
    for token in rest:
        key, sep, value = token.partition("=")
        if not sep or key not in ATTRIBUTES[kind]:
            raise ValueError(f"{kind} takes no {token!r}")
        attrs[key] = value
    missing = REQUIRED.get(kind, frozenset()) - set(attrs)
    if missing:
        raise ValueError(f"{kind} needs {', '.join(sorted(missing))}")
    return kind, name or None, attrs


def source_of(path: Path, name: str) -> str:
    """The text the page's file= and append= blocks write to `name`, for tests that import it."""
    parts = [b.text for b in parse(path).blocks if b.kind in ("file", "append") and b.name == name]
    if not parts:
        raise LookupError(f"{path.name} writes no {name}")
    return "".join(parts)


# --- running ---------------------------------------------------------------------------------


def environment() -> dict[str, str]:
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}


def run_page(page: Page, folder: Path) -> list[Block]:
    """Run every block of `page` in `folder`, in order; the blocks that ran (not skipped)."""
    if page.problems:
        raise SnippetError("\n".join(page.problems))
    ran: list[Block] = []
    written: list[str] = []
    for block in page.blocks:
        if block.kind == "skip":
            continue
        if block.kind in ("file", "append"):
            assert block.name is not None
            target = folder / block.name
            if block.kind == "append" and block.name not in written:
                raise SnippetError(f"{block.where}: append={block.name} before file={block.name}")
            with target.open("w" if block.kind == "file" else "a", encoding="utf-8") as f:
                f.write(block.text)
            if block.name not in written:
                written.append(block.name)
        elif block.kind == "run":
            run_block(block, folder)
        elif block.kind == "test":
            run_test(block, folder)
        elif block.kind == "serve":
            serve_block(block, folder)
        elif block.kind == "host":
            host_block(block, folder)
        ran.append(block)
    modules = [name for name in written if name.endswith(".py")]
    if modules:
        importer = "import runpy, sys\nfor f in sys.argv[1:]: runpy.run_path(f)\n"
        proc = execute([sys.executable, "-c", importer, *modules], folder)
        if proc.returncode != 0:
            raise SnippetError(f"{page.path.name}: importing {modules} failed:\n{proc.stderr}")
    return ran


def execute(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command,
        cwd=cwd,
        env=environment(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )


def script_name(block: Block, default: str) -> str:
    return block.name or f"{default}_{block.page.stem.lower()}_{block.line}.py"


def run_block(block: Block, folder: Path) -> None:
    if block.lang == "python":
        name = script_name(block, "snippet")
        (folder / name).write_text(block.text, encoding="utf-8")
        proc = execute([sys.executable, name], folder)
    else:
        proc = execute(["bash", "-euo", "pipefail", "-c", block.text], folder)
    if proc.returncode != 0:
        raise SnippetError(
            f"{block.where}: exited with {proc.returncode}\n"
            f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
        )
    if block.expected is not None and proc.stdout != block.expected:
        raise SnippetError(
            f"{block.where}: the output differs from the text block after it\n"
            f"shown:\n{block.expected}\nprinted:\n{proc.stdout}\nstderr:\n{proc.stderr}"
        )


def run_test(block: Block, folder: Path) -> None:
    name = script_name(block, "test_snippet")
    (folder / name).write_text(block.text, encoding="utf-8")
    tests = [
        node.name
        for node in ast.parse(block.text).body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test")
    ]
    proc = execute([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", name], folder)
    summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    if proc.returncode != 0 or not re.fullmatch(rf"{len(tests)} passed in [\d.]+s", summary):
        raise SnippetError(
            f"{block.where}: expected {len(tests)} passed ({', '.join(tests)}), got {summary!r}\n"
            f"{proc.stdout}\n{proc.stderr}"
        )


@contextlib.contextmanager
def started(command: list[str], cwd: Path, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A long-running snippet in its own process group, stopped (all of it) at the end; its
    output goes to `log` (a pipe nobody reads could fill and stall it)."""
    with log.open("wb") as out:
        proc = subprocess.Popen(
            command,
            cwd=cwd,
            env=environment(),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        yield proc
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def serve_block(block: Block, folder: Path) -> None:
    """A server snippet must answer initialize: over HTTP when it names a port, else stdio."""
    text = block.text
    if block.lang == "python":
        name = script_name(block, "serve")
        command = [sys.executable, name]
    else:
        command = ["bash", "-c", text]
    port = block.attrs.get("port")
    if port is None:
        if block.lang == "python":
            (folder / command[1]).write_text(text, encoding="utf-8")
        check_stdio(block, command, folder)
        return
    free = str(free_port())  # other tests may hold the documented port
    if port not in text:
        raise SnippetError(f"{block.where}: port={port} but the block does not mention {port}")
    text = text.replace(port, free)
    log = folder / f"serve_{block.page.stem.lower()}_{block.line}.log"
    with contextlib.ExitStack() as stack:
        redis_port = block.attrs.get("redis")
        if redis_port is not None:
            from tests.cluster import redis_server

            if redis_port not in text:
                raise SnippetError(f"{block.where}: redis={redis_port} is not in the block")
            text = text.replace(redis_port, str(stack.enter_context(redis_server()).port))
        if block.lang == "python":
            (folder / command[1]).write_text(text, encoding="utf-8")
        else:
            command[-1] = text
        with started(command, folder, log) as proc:
            name = initialize_http(block, proc, int(free), log)
    if name != block.attrs["server"]:
        raise SnippetError(f"{block.where}: answered as {name!r}, not {block.attrs['server']!r}")


def initialize_http(block: Block, proc: subprocess.Popen[bytes], port: int, log: Path) -> str:
    """Wait until the port accepts connections (or the process dies), then initialize."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        if proc.poll() is not None:
            output = log.read_text(errors="replace")
            raise SnippetError(f"{block.where}: the server exited ({proc.returncode}):\n{output}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            break
        if time.monotonic() > deadline:
            raise SnippetError(f"{block.where}: nothing listened on port {port}")
        time.sleep(0.05)
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
    body = json.dumps(initialize_request())
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    connection.request("POST", "/mcp", body, headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    if response.status != 200:
        raise SnippetError(f"{block.where}: initialize got HTTP {response.status}: {data!r}")
    name: str = json.loads(data)["result"]["serverInfo"]["name"]
    return name


def initialize_request() -> dict[str, object]:
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "doc-snippets", "version": "0"},
        },
    }


def check_stdio(block: Block, command: list[str], cwd: Path) -> None:
    """Start `command` in `cwd` as a host would, initialize, and make the call the marker names."""
    call = block.attrs.get("call")

    async def session() -> None:
        with anyio.fail_after(TIMEOUT):
            async with Client.stdio(command[0], *command[1:], env=environment(), cwd=cwd) as c:
                if c.server_info.name != block.attrs["server"]:
                    raise SnippetError(f"{block.where}: answered as {c.server_info.name!r}")
                if call:
                    tool, *pairs = shlex.split(call)
                    result = await c.call_tool(tool, parse_arguments(pairs, None))
                    if result.is_error:
                        raise SnippetError(f"{block.where}: {call} failed: {result.text}")

    anyio.run(session)


def host_commands(block: Block) -> list[list[str]]:
    """The server commands a host config names: each `mcpServers` entry, or `claude mcp add`."""
    if block.lang == "json":
        servers = json.loads(block.text)["mcpServers"]
        commands = []
        for name, entry in servers.items():
            if set(entry) - {"command", "args", "env"} or not isinstance(entry["command"], str):
                raise SnippetError(f"{block.where}: {name}: not a stdio server entry: {entry}")
            commands.append([entry["command"], *entry.get("args", [])])
        return commands
    commands = []
    for line in block.text.splitlines():
        words = shlex.split(line, comments=True)
        if not words:
            continue
        if words[:3] != ["claude", "mcp", "add"] or "--" not in words:
            raise SnippetError(f"{block.where}: not a `claude mcp add NAME -- COMMAND` line")
        commands.append(words[words.index("--") + 1 :])
    return commands


def host_block(block: Block, folder: Path) -> None:
    python, root = block.attrs["python"], block.attrs["root"].rstrip("/")
    elsewhere = folder / "elsewhere"  # hosts start servers in a folder of their own choosing
    elsewhere.mkdir(exist_ok=True)
    for command in host_commands(block):
        if command[0] != python:
            raise SnippetError(f"{block.where}: the command is {command[0]!r}, not {python!r}")
        args = [str(folder) + a[len(root) :] if a.startswith(root + "/") else a for a in command]
        if not any(a.startswith(str(folder)) for a in args[1:]):
            raise SnippetError(f"{block.where}: no argument is an absolute path under {root}")
        check_stdio(block, [sys.executable, *args[1:]], elsewhere)
