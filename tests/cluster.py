"""Real components for the scale-out tests: redis-server on a random port, and nginx as a
round-robin, non-sticky load balancer in front of several plainmcp processes.

Both come from Debian packages (`scripts/setup` installs them when missing). Locally a test
that needs one skips when it is absent; under CI (`CI=true`) it fails instead.

`python -m tests.cluster FILE` keeps such a cluster up for scripts (scripts/conformance): Redis,
three `plainmcp run FILE --http --sessions redis://...` processes and nginx in front; it prints
the nginx URL on a line of its own once every part listens and stops them all on SIGTERM.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.http_server import free_port, http_server


def find(tool: str) -> str | None:
    """The path of `tool` (redis-server, nginx; nginx lives in /usr/sbin, often off PATH)."""
    return shutil.which(tool) or next(
        (p for p in (f"/usr/sbin/{tool}", f"/usr/bin/{tool}") if os.access(p, os.X_OK)), None
    )


def need(tool: str) -> str:
    """The path of `tool`, or skip (fail under CI) when it is missing."""
    found = find(tool)
    if found is None:
        import pytest  # here, so that the benchmark (bench/harness.py) can use this module

        message = f"{tool} is not installed (scripts/setup installs it from Debian)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return found


def wait_for_port(port: int, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 20
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"exited early:\n{log.read_text(errors='replace')}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"did not listen in time:\n{log.read_text(errors='replace')}")
        time.sleep(0.05)


@dataclass
class RedisServer:
    port: int
    proc: subprocess.Popen[bytes]
    log_path: Path
    binary: str
    workdir: Path

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def stop(self, *, save: bool = False) -> None:
        """Stop redis-server and wait until it is gone (its port closed with it). `save`: it
        writes its data to its folder first, and `start` loads it again (a restart that
        keeps the sessions)."""
        if save:
            import redis as redis_py

            client = redis_py.Redis.from_url(self.url)
            try:
                client.shutdown(save=True)
            finally:
                client.close()
        else:
            self.proc.terminate()
        self.proc.wait(10)

    def start(self) -> None:
        """Start again on the same port (after `stop`): the same URL answers again."""
        self.proc = _start_redis(self.binary, self.port, self.workdir, self.log_path)


def _start_redis(binary: str, port: int, workdir: Path, log_path: Path) -> subprocess.Popen[bytes]:
    with log_path.open("ab") as log:
        proc = subprocess.Popen(
            [
                binary,
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(workdir),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    wait_for_port(port, proc, log_path)
    return proc


@contextlib.contextmanager
def redis_server() -> Iterator[RedisServer]:
    binary = need("redis-server")
    workdir = Path(tempfile.mkdtemp(prefix="plainmcp-redis-"))
    log_path = workdir / "redis.log"
    port = free_port()
    server = RedisServer(
        port, _start_redis(binary, port, workdir, log_path), log_path, binary, workdir
    )
    try:
        yield server
    finally:
        server.proc.terminate()
        server.proc.wait(10)
        shutil.rmtree(workdir, ignore_errors=True)


NGINX_CONF = """
worker_processes 1;
daemon off;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    log_format upstream '$request_method $upstream_addr $status "$http_last_event_id"';
    access_log {dir}/access.log upstream;
    keepalive_requests 1000000;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    upstream plainmcp {{
        {servers}
        keepalive 32;
        keepalive_requests 1000000;
    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://plainmcp;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $remote_addr;
            proxy_buffering off;
            proxy_cache off;
            proxy_read_timeout 300s;
            proxy_next_upstream off;
        }}
    }}
}}
"""
"""Round robin (nginx's default), no stickiness; `proxy_next_upstream off`, so a request that
reached a process that died fails instead of being sent again elsewhere. A connection is not
closed after nginx's default 1,000 requests (the benchmark's clients keep one each)."""


@dataclass
class Nginx:
    port: int
    proc: subprocess.Popen[bytes]
    workdir: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def access_log(self) -> str:
        """One line per request: `METHOD UPSTREAM STATUS "LAST-EVENT-ID"` (the process that
        served it, as 127.0.0.1:PORT)."""
        return (self.workdir / "access.log").read_text(errors="replace")


@contextlib.contextmanager
def nginx(upstreams: list[int]) -> Iterator[Nginx]:
    binary = need("nginx")
    workdir = Path(tempfile.mkdtemp(prefix="plainmcp-nginx-"))
    workdir.chmod(0o777)  # nginx's worker may run as another user when started by root
    port = free_port()
    servers = "\n        ".join(f"server 127.0.0.1:{p};" for p in upstreams)
    conf = workdir / "nginx.conf"
    conf.write_text(NGINX_CONF.format(dir=workdir, servers=servers, port=port))
    log_path = workdir / "stderr.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [binary, "-p", str(workdir), "-c", str(conf)],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_for_port(port, proc, log_path)
        yield Nginx(port, proc, workdir)
    finally:
        proc.terminate()
        proc.wait(10)
        shutil.rmtree(workdir, ignore_errors=True)


class CuttingProxy:
    """A TCP proxy in front of the server that can cut every connection through it at once
    (the network failing mid-stream); new connections go through as before."""

    def __init__(self, upstream: int) -> None:
        self.upstream = upstream
        self.port = 0
        self._pairs: set[tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = set()

    async def __aenter__(self) -> CuttingProxy:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.cut()
        self._server.close()

    def cut(self) -> int:
        pairs = list(self._pairs)
        for client, server in pairs:
            client.transport.abort()
            server.transport.abort()
        return len(pairs)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream)
        pair = (writer, up_writer)
        self._pairs.add(pair)

        async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            try:
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            except OSError:
                pass
            finally:
                sink.close()

        try:
            await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        finally:
            self._pairs.discard(pair)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.cluster")
    parser.add_argument("file", help="the server file every process serves (FILE[:OBJECT])")
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--logs", type=Path, help="copy every part's log here on the way out")
    args = parser.parse_args(argv)
    missing = [tool for tool in ("redis-server", "nginx") if find(tool) is None]
    if missing:
        print(f"not installed: {', '.join(missing)} (scripts/setup installs them)", file=sys.stderr)
        return 1
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with contextlib.ExitStack() as stack:
        redis = stack.enter_context(redis_server())
        flags = ("--sessions", redis.url)
        servers = [
            stack.enter_context(http_server(args.file, *flags)) for _ in range(args.processes)
        ]
        lb = stack.enter_context(nginx([s.port for s in servers]))
        try:
            print(lb.url, flush=True)
            signal.pause()
        finally:
            if args.logs is not None:
                args.logs.mkdir(parents=True, exist_ok=True)
                for n, server in enumerate(servers):
                    (args.logs / f"server-{n}.log").write_text(server.log())
                (args.logs / "nginx-access.log").write_text(lb.access_log())
    return 0


if __name__ == "__main__":
    sys.exit(main())
