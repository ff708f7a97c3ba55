"""transports.stdio in process: `serve()` on os pipes; line splitting, the oversized-line path,
EOF. Every line written is validated against the schema (pre-initialize: the latest revision)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from typing import Any

import anyio
import orjson
import pytest

from plainmcp import Server
from plainmcp.transports import stdio
from tests.conftest import validate

TIMEOUT = 10.0


class Pipes:
    def __init__(self, server: Server) -> None:
        self.in_r, self.in_w = os.pipe()
        self.out_r, self.out_w = os.pipe()
        self.lines: list[Any] = []
        self.error: BaseException | None = None
        self.server_thread = threading.Thread(target=self._serve, daemon=True)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.server = server
        self.server_thread.start()
        self.reader.start()

    def _serve(self) -> None:
        try:
            anyio.run(stdio.serve, self.server, self.in_r, self.out_w)
        except BaseException as exc:
            self.error = exc
        finally:
            os.close(self.out_w)

    def _read(self) -> None:
        with os.fdopen(self.out_r, "rb") as out:
            for line in out:
                message = orjson.loads(line)
                validate(message, "2025-11-25", {})
                self.lines.append(message)

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self.in_w, view) :]

    def close(self) -> None:
        os.close(self.in_w)

    def finish(self) -> list[Any]:
        self.close()
        self.server_thread.join(TIMEOUT)
        assert not self.server_thread.is_alive(), "serve() did not return after EOF"
        self.reader.join(TIMEOUT)
        assert self.error is None, self.error
        os.close(self.in_r)
        return self.lines


@pytest.fixture
def small() -> Iterator[Server]:
    yield Server("small", max_message_bytes=1000)


PING = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'


def test_lines_blank_crlf_and_tail_without_newline(small: Server) -> None:
    pipes = Pipes(small)
    pipes.write(b"\n\n" + PING + b"\r\n   \n" + PING.replace(b"1", b"2"))
    lines = pipes.finish()
    assert lines == [
        {"jsonrpc": "2.0", "id": 1, "result": {}},
        {"jsonrpc": "2.0", "id": 2, "result": {}},
    ]


def test_oversized_line_across_many_chunks(small: Server) -> None:
    pipes = Pipes(small)
    pipes.write(b'{"x":"' + b"a" * 300_000 + b'"}\n' + PING + b"\n")
    lines = pipes.finish()
    errors = [m for m in lines if "error" in m]
    assert len(lines) == 2 and len(errors) == 1
    assert errors[0]["error"]["code"] == -32600
    assert "1000 bytes" in errors[0]["error"]["message"]
    assert {"jsonrpc": "2.0", "id": 1, "result": {}} in lines


def test_oversized_line_in_one_chunk(small: Server) -> None:
    pipes = Pipes(small)
    pipes.write(b"b" * 5000 + b"\n" + PING + b"\n")
    lines = pipes.finish()
    assert sorted(str(m.get("id")) for m in lines) == ["1", "None"]
    assert [m["error"]["code"] for m in lines if "error" in m] == [-32600]


def test_oversized_tail_at_eof(small: Server) -> None:
    pipes = Pipes(small)
    pipes.write(PING + b"\n" + b"c" * 200_000)
    lines = pipes.finish()
    # requests run as tasks, so the ping's reply may come after the error written in line
    assert sorted(str(m.get("id")) for m in lines) == ["1", "None"]


def test_two_oversized_lines_in_a_row(small: Server) -> None:
    pipes = Pipes(small)
    pipes.write(b"d" * 100_000 + b"\n" + b"e" * 100_000 + b"\n" + PING + b"\n")
    lines = pipes.finish()
    assert sorted(str(m.get("id")) for m in lines) == ["1", "None", "None"]


def test_long_line_is_read_in_linear_time() -> None:
    server = Server("big")
    pipes = Pipes(server)
    started = time.monotonic()
    payload = b'{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":"' + b"z" * 40_000_000
    pipes.write(payload + b'"}}\n')
    lines = pipes.finish()
    assert lines == [{"jsonrpc": "2.0", "id": 7, "result": {}}]
    assert time.monotonic() - started < 5


def test_eof_waits_for_running_requests() -> None:
    server = Server("slow")

    @server.tool
    async def nap() -> str:
        await anyio.sleep(0.3)
        return "rested"

    pipes = Pipes(server)
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {}},
    }
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "nap"}}
    pipes.write(orjson.dumps(init) + b"\n" + orjson.dumps(call) + b"\n")
    lines = pipes.finish()
    assert [m["id"] for m in lines] == [1, 2]
    assert lines[1]["result"]["content"] == [{"type": "text", "text": "rested"}]


def test_a_regular_file_on_stdin_is_read_by_the_thread_reader(small: Server, tmp_path: Any) -> None:
    # A file cannot be polled by the event loop; the thread reader serves it the same way.
    source = tmp_path / "requests.jsonl"
    source.write_bytes(PING + b"\n" + PING.replace(b"1", b"2") + b"\n" + b"x" * 5000 + b"\n")
    out_r, out_w = os.pipe()
    with source.open("rb") as stdin:
        assert not stdio._pollable(stdin.fileno())
        anyio.run(stdio.serve, small, stdin.fileno(), out_w)
    os.close(out_w)
    with os.fdopen(out_r, "rb") as out:
        replies = [orjson.loads(line) for line in out]
    assert sorted(replies, key=lambda r: r.get("id", 0)) == [
        {
            "jsonrpc": "2.0",
            "error": {
                "code": -32600,
                "message": "Invalid Request: message exceeds the limit of 1000 bytes",
            },
        },
        {"jsonrpc": "2.0", "id": 1, "result": {}},
        {"jsonrpc": "2.0", "id": 2, "result": {}},
    ]


def test_pipes_are_read_in_the_event_loop_and_left_as_they_were() -> None:
    read_end, write_end = os.pipe()
    try:
        assert stdio._pollable(read_end)
        assert os.get_blocking(read_end)
        os.close(write_end)
        anyio.run(stdio.serve, Server("s"), read_end, os.open(os.devnull, os.O_WRONLY))
        assert os.get_blocking(read_end)  # restored after serving
    finally:
        os.close(read_end)


@pytest.mark.parametrize(
    ("chunks", "lines"),
    [
        ([b"a\nb", b"c\n"], [b"a", b"bc"]),
        ([b"  x \r\n\n\n", b"y"], [b"x", b"y"]),
        ([b"12345", b"6789\nok\n"], [b"12345", b"ok"]),  # limit 4: cut once, rest skipped
        ([b"123", b"456", b"78\n", b"z\n"], [b"12345", b"z"]),
    ],
)
def test_line_splitter(chunks: list[bytes], lines: list[bytes]) -> None:
    splitter = stdio.LineSplitter(4)
    out: list[bytes] = []
    for chunk in chunks:
        out += splitter.feed(chunk)
    out += splitter.finish()
    assert out == lines
