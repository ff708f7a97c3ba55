"""End to end over a real subprocess: `python tests/e2e/servers/everything.py` (`app.run()`),
raw JSON lines over pipes. Every line the server writes on stdout is validated against the
official schema of the negotiated revision; every wait is bounded."""

from __future__ import annotations

import base64
import itertools
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.conftest import HANDSHAKE_REVISIONS, negotiated, validate
from tests.mcp_schemas import wire_loads

SERVER = Path(__file__).parent / "servers" / "everything.py"
REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 10.0
PNG_B64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgAAACAAFUok9dAAAAAElFTkSuQmCC"


class Proc:
    """A server subprocess and a minimal line-based client that validates everything."""

    def __init__(self, revision_hint: str = "2025-11-25") -> None:
        env = dict(os.environ)
        env.pop("PYTHONUNBUFFERED", None)  # stdout is a block-buffered pipe, as under a host
        env["PYTHONPATH"] = str(REPO / "src")
        self.p = subprocess.Popen(
            [sys.executable, str(SERVER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        self.revision_hint = revision_hint
        self.revision: str | None = None
        self.messages: list[Any] = []
        self.failures: list[str] = []
        self.stderr = bytearray()
        self._methods: dict[Any, str] = {}
        self._ids = itertools.count(1)
        self._cond = threading.Condition()
        self._eof = False
        self._threads = [
            threading.Thread(target=self._read_stdout, daemon=True),
            threading.Thread(target=self._read_stderr, daemon=True),
        ]
        for t in self._threads:
            t.start()

    # --- reading -------------------------------------------------------------------------

    def _read_stdout(self) -> None:
        assert self.p.stdout is not None
        for line in self.p.stdout:
            try:
                assert line.endswith(b"\n"), "a message must end with a newline"
                message = wire_loads(line)
                self.revision = negotiated(message, self._methods) or self.revision
                validate(message, self.revision or self.revision_hint, self._methods)
            except (AssertionError, ValueError) as exc:
                self.failures.append(f"{exc}\n  raw: {line[:400]!r}")
                message = {"__invalid__": line[:400]}
            with self._cond:
                self.messages.append(message)
                self._cond.notify_all()
        with self._cond:
            self._eof = True
            self._cond.notify_all()

    def _read_stderr(self) -> None:
        assert self.p.stderr is not None
        while chunk := self.p.stderr.read1(65536):
            self.stderr += chunk

    def check(self) -> None:
        if self.failures:
            raise AssertionError(
                "the server wrote invalid messages:\n"
                + "\n".join(self.failures)
                + f"\nstderr:\n{self.stderr.decode(errors='replace')[-3000:]}"
            )

    def wait_for(
        self, predicate: Callable[[Any], bool], timeout: float = TIMEOUT, since: int = 0
    ) -> Any:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                self.check()
                for message in self.messages[since:]:
                    if predicate(message):
                        return message
                since = len(self.messages)
                left = deadline - time.monotonic()
                if left <= 0 or self._eof:
                    raise AssertionError(
                        f"no matching message within {timeout}s (eof={self._eof}); stderr:\n"
                        + self.stderr.decode(errors="replace")[-3000:]
                    )
                self._cond.wait(left)

    def response(self, request_id: Any, timeout: float = TIMEOUT, since: int = 0) -> Any:
        return self.wait_for(
            lambda m: (
                isinstance(m, dict)
                and "method" not in m
                and type(m.get("id")) is type(request_id)
                and m.get("id") == request_id
            ),
            timeout,
            since,
        )

    def next_message(self, since: int, timeout: float = TIMEOUT) -> Any:
        return self.wait_for(lambda m: True, timeout, since)

    # --- writing -------------------------------------------------------------------------

    def send_raw(self, data: bytes) -> int:
        """Write one line; returns the message count before it (for `since`)."""
        assert self.p.stdin is not None
        with self._cond:
            before = len(self.messages)
        self.p.stdin.write(data if data.endswith(b"\n") else data + b"\n")
        self.p.stdin.flush()
        return before

    def send(self, message: Any) -> int:
        items = message if isinstance(message, list) else [message]
        for item in items:
            if isinstance(item, dict) and "method" in item and "id" in item:
                self._methods[item["id"]] = item["method"]
        return self.send_raw(orjson.dumps(message))

    def start(self, method: str, params: dict[str, Any] | None = None, id: Any = None) -> Any:
        request_id = next(self._ids) if id is None else id
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return request_id

    def request(
        self, method: str, params: dict[str, Any] | None = None, timeout: float = TIMEOUT
    ) -> Any:
        with self._cond:
            since = len(self.messages)
        request_id = self.start(method, params)
        return self.response(request_id, timeout, since)

    def result(self, method: str, params: dict[str, Any] | None = None) -> Any:
        reply = self.request(method, params)
        assert "result" in reply, reply
        return reply["result"]

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> Any:
        return self.result("tools/call", {"name": name, "arguments": arguments or {}})

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def initialize(self, version: str = "2025-11-25") -> Any:
        self.revision_hint = version
        result = self.result(
            "initialize",
            {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "e2e"}},
        )
        self.notify("notifications/initialized")
        return result

    # --- ending --------------------------------------------------------------------------

    def close_stdin(self) -> None:
        assert self.p.stdin is not None
        self.p.stdin.close()

    def wait(self, timeout: float = TIMEOUT) -> int:
        rc = self.p.wait(timeout)
        for t in self._threads:
            t.join(timeout)
        return rc

    def kill(self) -> None:
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait(TIMEOUT)


@pytest.fixture
def proc() -> Iterator[Proc]:
    server = Proc()
    try:
        yield server
        server.check()
    finally:
        server.kill()


def text_of(result: dict[str, Any]) -> str:
    return "".join(b.get("text", "") for b in result["content"])


# --- the four revisions end to end -----------------------------------------------------------


@pytest.mark.parametrize("version", HANDSHAKE_REVISIONS)
def test_revision_end_to_end(version: str) -> None:
    server = Proc(version)
    try:
        init = server.initialize(version)
        assert init["protocolVersion"] == version
        assert init["instructions"] == "Test server."
        tools = server.result("tools/list")["tools"]
        assert {"add", "image", "audio", "link", "hang"} <= {t["name"] for t in tools}
        add = server.call("add", {"a": 20, "b": 22})
        assert text_of(add) == "42"
        assert ("structuredContent" in add) == (version >= "2025-06-18")
        # every content type, rendered for this revision (validated by the reader)
        assert server.call("text")["content"] == [{"type": "text", "text": "plain text"}]
        assert server.call("image")["content"] == [
            {"type": "image", "data": PNG_B64, "mimeType": "image/png"}
        ]
        audio = server.call("audio")["content"][0]
        assert audio["type"] == ("resource" if version == "2024-11-05" else "audio")
        link = server.call("link")["content"][0]
        assert link["type"] == ("resource_link" if version >= "2025-06-18" else "text")
        resources = server.call("resources")["content"]
        assert [b["resource"].get("text") for b in resources] == ["notes", None]
        assert resources[1]["resource"]["blob"] == base64.b64encode(b"\x00\x01\x02").decode()
        mixed = server.call("mixed")["content"]
        assert [b["type"] for b in mixed] == ["text", "image", "text"]
        items = server.call("items")
        assert text_of(items) == "[1,2,3]"
        if version >= "2025-06-18":
            assert items["structuredContent"] == {"result": [1, 2, 3]}
        server.close_stdin()
        assert server.wait() == 0
        server.check()
        assert b"Traceback" not in server.stderr
    finally:
        server.kill()


# --- errors ----------------------------------------------------------------------------------


def test_tool_failures_are_error_results(proc: Proc) -> None:
    proc.initialize()
    raised = proc.call("raises")
    assert raised["isError"] is True
    assert "kaboom" in text_of(raised)
    refused = proc.call("refuses")
    assert refused == {
        "content": [{"type": "text", "text": "Cannot divide by zero"}],
        "isError": True,
    }
    garbage = proc.call("garbage")
    assert garbage["isError"] is True
    wrong = proc.call("add", {"a": "one", "b": [2]})
    assert wrong["isError"] is True
    assert "a" in text_of(wrong) and "b" in text_of(wrong)
    assert text_of(proc.call("add", {"a": 1, "b": 2})) == "3"
    proc.close_stdin()
    assert proc.wait() == 0
    # the model reads the message; the traceback goes only to stderr
    assert b"Traceback" in proc.stderr and b"kaboom" in proc.stderr
    assert "Traceback" not in text_of(raised)


def test_protocol_errors(proc: Proc) -> None:
    proc.initialize()
    assert proc.request("tools/call", {"name": "nope"})["error"]["code"] == -32602
    assert proc.request("no/such/method")["error"]["code"] == -32601
    assert proc.request("tools/call", {"name": "add", "arguments": [1]})["error"]["code"] == -32602
    assert proc.request("tools/list", {"cursor": "bad"})["error"]["code"] == -32602
    assert proc.result("ping") == {}


def test_requests_before_initialize(proc: Proc) -> None:
    assert proc.request("tools/list")["error"]["code"] == -32602
    assert proc.result("ping") == {}
    proc.initialize("2025-06-18")
    assert proc.result("tools/list")["tools"]


@pytest.mark.parametrize(
    "line",
    [
        b"{not json",
        b'{"jsonrpc":"2.0","id":null,"method":"ping"}',
        b'{"jsonrpc":"2.0","id":true,"method":"ping"}',
        b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
        b'{"jsonrpc":"2.0","id":[1],"method":"ping"}',
        b"[]",
        b'"just a string"',
    ],
)
def test_malformed_lines_then_the_next_request_works(proc: Proc, line: bytes) -> None:
    proc.initialize("2025-11-25")
    since = proc.send_raw(line)
    reply = proc.next_message(since)
    assert "id" not in reply
    assert reply["error"]["code"] in (-32700, -32600)
    assert proc.result("ping") == {}


def test_integers_beyond_64_bits_arrive_and_leave_exact(proc: Proc) -> None:
    proc.initialize("2025-11-25")
    since = proc.send_raw(
        b'{"jsonrpc":"2.0","id":1180591620717411303424,"method":"tools/call",'
        b'"params":{"name":"add","arguments":{"a":1180591620717411303424,"b":-1}}}'
    )
    reply = proc.next_message(since)
    assert reply["id"] == 2**70
    assert reply["result"]["structuredContent"] == {"result": 2**70 - 1}
    assert reply["result"]["content"] == [{"type": "text", "text": str(2**70 - 1)}]


@pytest.mark.parametrize(
    ("arguments", "where"),
    [
        (b'{"a":1e400,"b":1}', "a: the number 1e400 is beyond the range of a 64-bit"),
        (b'{"a":1,"b":"\\udfff"}', "b: the string holds a lone surrogate (\\udfff)"),
    ],
)
def test_valid_json_orjson_refuses_is_answered_by_id(
    proc: Proc, arguments: bytes, where: str
) -> None:
    proc.initialize("2025-11-25")
    since = proc.send_raw(
        b'{"jsonrpc":"2.0","id":"q","method":"tools/call","params":{"name":"add","arguments":'
        + arguments
        + b"}}"
    )
    reply = proc.next_message(since)
    assert reply["id"] == "q"
    assert reply["error"]["code"] == -32602
    assert reply["error"]["message"].startswith("Invalid params: arguments." + where)
    assert proc.call("add", {"a": 1, "b": 2})["structuredContent"] == {"result": 3}


def test_malformed_lines_on_an_old_revision_are_not_answered(proc: Proc) -> None:
    proc.initialize("2024-11-05")
    since = proc.send_raw(b"{not json")
    proc.send_raw(b'{"jsonrpc":"2.0","id":null,"method":"ping"}')
    assert proc.result("ping") == {}
    assert all("error" not in m for m in proc.messages[since:])


def test_twenty_megabyte_lines(proc: Proc) -> None:
    proc.initialize("2025-11-25")
    big = "x" * (20 * 1024 * 1024)
    result = proc.call("size", {"data": big})
    assert text_of(result) == str(len(big))
    since = proc.send_raw(b"{" + b"g" * (20 * 1024 * 1024))
    reply = proc.next_message(since)
    assert reply["error"]["code"] == -32700
    assert proc.result("ping") == {}
    assert text_of(proc.call("add", {"a": 1, "b": 1})) == "2"


# --- concurrency and cancellation ------------------------------------------------------------


def test_cancel_a_hanging_tool(proc: Proc) -> None:
    proc.initialize("2025-06-18")
    hang_id = proc.start("tools/call", {"name": "hang"})
    time.sleep(0.2)
    proc.notify("notifications/cancelled", {"requestId": hang_id, "reason": "test"})
    assert proc.result("ping") == {}
    assert text_of(proc.call("add", {"a": 2, "b": 2})) == "4"
    time.sleep(0.2)
    assert not [m for m in proc.messages if m.get("id") == hang_id]
    proc.close_stdin()
    assert proc.wait() == 0
    assert not [m for m in proc.messages if m.get("id") == hang_id]


def test_concurrent_calls(proc: Proc) -> None:
    proc.initialize("2025-03-26")
    started = time.monotonic()
    ids = [
        proc.start("tools/call", {"name": "slow", "arguments": {"seconds": 1}}) for _ in range(5)
    ]
    ids += [
        proc.start("tools/call", {"name": "sync_slow", "arguments": {"seconds": 1}})
        for _ in range(3)
    ]
    ping_started = time.monotonic()
    assert proc.result("ping") == {}
    assert time.monotonic() - ping_started < 0.8
    for request_id in ids:
        assert text_of(proc.response(request_id)["result"]) == "slept 1.0"
    assert time.monotonic() - started < 3


def test_batch_over_stdio_on_2025_03_26(proc: Proc) -> None:
    proc.initialize("2025-03-26")
    since = proc.send(
        [
            {"jsonrpc": "2.0", "id": "a", "method": "ping"},
            {"jsonrpc": "2.0", "id": "b", "method": "tools/call", "params": {"name": "text"}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
        ]
    )
    reply = proc.next_message(since)
    assert sorted(m["id"] for m in reply) == ["a", "b"]


# --- stdout hygiene --------------------------------------------------------------------------


def test_prints_go_to_stderr(proc: Proc) -> None:
    proc.initialize()
    assert text_of(proc.call("prints")) == "printed"
    assert text_of(proc.call("fd_write")) == "wrote"
    proc.close_stdin()
    assert proc.wait() == 0
    err = proc.stderr.decode()
    for noise in (
        "noise printed at import time",
        "printed by a tool",
        "written to sys.stdout",
        "written to fd 1 directly",
    ):
        assert noise in err
    proc.check()  # every stdout line was a valid message


# --- ending ----------------------------------------------------------------------------------


def test_eof_with_requests_running_answers_them_then_exits_0(proc: Proc) -> None:
    proc.initialize("2025-11-25")
    ids = [
        proc.start("tools/call", {"name": "slow", "arguments": {"seconds": 0.5}}) for _ in range(3)
    ]
    ids.append(proc.start("tools/call", {"name": "sync_slow", "arguments": {"seconds": 0.5}}))
    ids.append(proc.start("ping"))
    proc.close_stdin()
    assert proc.wait() == 0
    for request_id in ids:
        assert "result" in proc.response(request_id, timeout=1)
    assert b"Traceback" not in proc.stderr


def test_eof_right_away_exits_0(proc: Proc) -> None:
    proc.close_stdin()
    assert proc.wait() == 0
    assert proc.messages == []


def test_broken_pipe_exits_cleanly() -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    env.pop("PYTHONUNBUFFERED", None)
    p = subprocess.Popen(
        [sys.executable, str(SERVER)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        assert p.stdin is not None and p.stdout is not None and p.stderr is not None
        p.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
        p.stdin.flush()
        assert orjson.loads(p.stdout.readline())["id"] == 1
        p.stdout.close()  # the client stops reading
        p.stdin.write(b'{"jsonrpc":"2.0","id":2,"method":"ping"}\n')
        p.stdin.write(b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"text"}}\n')
        p.stdin.flush()
        rc = p.wait(TIMEOUT)
        err = p.stderr.read().decode()
        assert rc == 0, err
        assert "Traceback" not in err
        assert "BrokenPipe" not in err
    finally:
        if p.poll() is None:
            p.kill()
            p.wait(TIMEOUT)
