"""Talking to a server: the target started as a child (`plainmcp run`) with a client on its
stdio, and the client's failures as exit codes."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from plainmcp.cli.target import check_file, split_target
from plainmcp.cli.usage import EXIT_USAGE

if TYPE_CHECKING:
    from plainmcp.client import Client


def _spawn_args(command: str, target: str) -> list[str]:
    file, _ = split_target(target)
    check_file(file)
    # --caller: the child's own usage errors then name the command the user ran.
    return ["-m", "plainmcp", "run", "--caller", command, target]


def _session(
    command: str, target: str, protocol: str, body: Callable[[Client], Any]
) -> Callable[[], Any]:
    from plainmcp.client import Client

    args = _spawn_args(command, target)

    async def run() -> Any:
        async with Client.stdio(sys.executable, *args, protocol_version=protocol) as client:
            return await body(client)

    return run


def connect_and_run(command: str, target: str, protocol: str, body: Callable[[Client], Any]) -> int:
    import anyio

    from plainmcp.client import ConnectionClosed, McpError

    try:
        code: int = anyio.run(_session(command, target, protocol, body))
    except ConnectionClosed as exc:
        if exc.returncode == EXIT_USAGE:
            return EXIT_USAGE  # `plainmcp run` already said what was wrong
        print(f"plainmcp {command}: {exc.message}", file=sys.stderr)
        return 1
    except McpError as exc:
        print(f"plainmcp {command}: error {exc.code}: {exc.message}", file=sys.stderr)
        return 1
    return code
