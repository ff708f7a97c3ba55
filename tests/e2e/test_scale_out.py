"""Handshake sessions on Redis, served by three plainmcp processes behind nginx (round robin, not
sticky): any process serves any request of any session, and the client's answers to the
server's requests reach the process whose call waits for them.

redis-server and nginx are real, started here on random ports (tests/cluster.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.types import CreateMessageResult, ElicitResult, TextContent

from tests.cluster import CuttingProxy, Nginx, RedisServer, nginx, redis_server
from tests.http_server import HttpServer, Pinned, free_port, http_server, pin_workers
from tests.interop.tools import ensure_ts_client, run_ts_client

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning"),
]

SERVER = Path(__file__).resolve().parent / "servers" / "cluster_server.py"


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def redis() -> Iterator[RedisServer]:
    with redis_server() as server:
        yield server


@contextlib.contextmanager
def workers(redis: RedisServer, n: int) -> Iterator[list[HttpServer]]:
    env = {"PLAINMCP_TEST_SESSIONS": redis.url}
    with contextlib.ExitStack() as stack:
        yield [stack.enter_context(http_server(SERVER, env=env, script=True)) for _ in range(n)]


@pytest.fixture(scope="module")
def three(redis: RedisServer) -> Iterator[list[HttpServer]]:
    with workers(redis, 3) as servers:
        yield servers


@pytest.fixture(scope="module")
def balancer(three: list[HttpServer]) -> Iterator[Nginx]:
    with nginx([s.port for s in three]) as lb:
        yield lb


async def on_sampling(context: Any, params: Any) -> CreateMessageResult:
    asked = params.messages[0].content.text
    return CreateMessageResult(
        role="assistant",
        content=TextContent(type="text", text=f"echo {asked}"),
        model="test-model",
        stop_reason="endTurn",
    )


def elicitation(name: str) -> Any:
    async def on_elicitation(context: Any, params: Any) -> ElicitResult:
        assert params.message == "Your name?"
        return ElicitResult(action="accept", content={"name": name})

    return on_elicitation


def text_of(result: Any) -> str:
    assert result.is_error is False, result
    (block,) = result.content
    assert isinstance(block, TextContent)
    return block.text


async def counted(client: Client) -> None:
    """A call reporting progress: every notification reaches the callback, in order."""
    seen: list[tuple[float, float | None]] = []
    all_in = anyio.Event()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total))
        if len(seen) == 3:
            all_in.set()

    result = await client.call_tool("count", {"steps": 3}, progress_callback=on_progress)
    assert text_of(result) == "3"
    with anyio.fail_after(5):
        await all_in.wait()
    assert seen == [(1, 3), (2, 3), (3, 3)]


async def one_session(url: str, number: int, pids: set[int]) -> int:
    """20 calls in one legacy session: progress, elicitation, sampling and plain calls."""
    done = 0
    async with Client(
        url,
        mode="legacy",
        read_timeout_seconds=30,
        sampling_callback=on_sampling,
        elicitation_callback=elicitation(f"user{number}"),
    ) as client:
        assert client.protocol_version == "2025-11-25"
        for call in range(20):
            kind = call % 4
            if kind == 0:
                pids.add(int(text_of(await client.call_tool("where", {}))))
            elif kind == 1:
                await counted(client)
            elif kind == 2:
                result = await client.call_tool("ask_name", {})
                assert text_of(result) == f"accept: user{number}"
            else:
                result = await client.call_tool("ask_model", {"prompt": f"hi {number}.{call}"})
                assert text_of(result) == f"model said: echo hi {number}.{call}"
            done += 1
    return done


async def test_ten_sdk_sessions_of_twenty_calls_through_nginx_and_three_processes(
    balancer: Nginx, three: list[HttpServer]
) -> None:
    pids: set[int] = set()
    finished: list[int] = []

    async def run(number: int) -> None:
        finished.append(await one_session(balancer.url, number, pids))

    with anyio.fail_after(90):
        async with anyio.create_task_group() as tg:
            for number in range(10):
                tg.start_soon(run, number)
    assert finished == [20] * 10
    # Round robin spread the sessions' calls over every process.
    assert pids == {s.proc.pid for s in three}
    for server in three:
        assert "Traceback" not in server.log(), server.log()


def ts_session(url: str, number: int) -> dict[str, Any]:
    """The TypeScript client's job for one session: 20 calls as in `one_session`."""
    calls: list[dict[str, Any]] = []
    for call in range(20):
        kind = call % 4
        if kind == 0:
            calls.append({"id": f"{call}", "tool": "where"})
        elif kind == 1:
            calls.append({"id": f"{call}", "tool": "count", "arguments": {"steps": 3}})
            calls[-1]["progress"] = True
        elif kind == 2:
            calls.append({"id": f"{call}", "tool": "ask_name"})
        else:
            prompt = {"prompt": f"hi {number}.{call}"}
            calls.append({"id": f"{call}", "tool": "ask_model", "arguments": prompt})
    return {
        "url": url,
        "mode": "legacy",
        "elicitation": {"action": "accept", "content": {"name": f"user{number}"}},
        "sampling": {"model": "test-model", "prefix": "echo "},
        "calls": calls,
    }


def ts_expected(number: int, call: int) -> tuple[str | None, dict[str, Any]]:
    """What call `call` of session `number` must return (None: a process id) and what the
    record holds besides (progress, what the server asked)."""
    kind = call % 4
    if kind == 0:
        return None, {}
    if kind == 1:
        return "3", {"progress": [[1, 3, None], [2, 3, None], [3, 3, None]]}
    if kind == 2:
        return f"accept: user{number}", {"asked": [{"elicitation": "Your name?"}]}
    prompt = f"hi {number}.{call}"
    return f"model said: echo {prompt}", {"asked": [{"sampling": prompt}]}


def test_ten_typescript_sdk_sessions_of_twenty_calls_through_nginx_and_three_processes(
    balancer: Nginx, three: list[HttpServer]
) -> None:
    ensure_ts_client()
    sessions = [ts_session(balancer.url, number) for number in range(10)]
    records = run_ts_client({"sessions": sessions}, timeout=120)
    connected = [r for r in records if r["kind"] == "connected"]
    assert sorted(r["session"] for r in connected) == list(range(10))
    assert {(r["protocolVersion"], r["era"]) for r in connected} == {("2025-11-25", "legacy")}
    pids: set[int] = set()
    for number in range(10):
        calls = [r for r in records if r["kind"] == "call" and r["session"] == number]
        assert [r["id"] for r in calls] == [str(n) for n in range(20)]
        for record in calls:
            text, extras = ts_expected(number, int(record["id"]))
            assert "error" not in record, record
            [sent] = record["wire"]
            assert sent["isError"] is False, record
            [block] = sent["content"]
            if text is None:
                pids.add(int(block["text"]))
            else:
                assert block == {"type": "text", "text": text}, record
            assert {k: record[k] for k in ("progress", "asked") if k in record} == extras
    assert pids == {s.proc.pid for s in three}
    for server in three:
        assert "Traceback" not in server.log(), server.log()


async def test_a_stream_cut_mid_call_resumes_on_another_process_with_every_event_once(
    balancer: Nginx, three: list[HttpServer], redis: RedisServer
) -> None:
    from redis.asyncio import Redis

    seen: list[tuple[float, str | None]] = []
    first = asyncio.Event()

    async def progressed(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, message))
        first.set()

    raw = Redis.from_url(redis.url)
    try:
        async with (
            CuttingProxy(balancer.port) as proxy,
            Client(
                f"http://127.0.0.1:{proxy.port}/mcp", mode="legacy", read_timeout_seconds=30
            ) as client,
        ):
            call = asyncio.create_task(
                client.call_tool("paced", {"n": 1}, progress_callback=progressed)
            )
            await asyncio.wait_for(first.wait(), 20)
            assert proxy.cut() >= 1  # the call's stream (and the GET stream) are cut
            await raw.rpush("release:1", "go")  # progress 2 and the reply: logged in Redis
            result = await asyncio.wait_for(call, 30)
    finally:
        await raw.aclose()
    (served_by,) = [s for s in three if f"in {s.proc.pid}" == seen[0][1]]
    assert text_of(result) == f"done 1 in {served_by.proc.pid}"
    assert seen == [(1, f"in {served_by.proc.pid}"), (2, f"in {served_by.proc.pid}")]
    # The client resumed the call's stream (an id of a POST stream, not "get:") elsewhere.
    resumed = [
        line.split()
        for line in balancer.access_log().splitlines()
        if line.startswith("GET ") and '"-"' not in line and '"get:' not in line
    ]
    assert len(resumed) == 1, balancer.access_log()
    _, upstream, status, _ = resumed[0]
    assert status == "200"
    assert upstream != f"127.0.0.1:{served_by.port}"
    assert upstream in {f"127.0.0.1:{s.port}" for s in three}


# --- one session over several processes, by hand -----------------------------------------------

ACCEPT = "application/json, text/event-stream"
REVISION = "2025-11-25"


class Stream:
    """An open SSE response, read event by event."""

    def __init__(self, conn: http.client.HTTPConnection, response: http.client.HTTPResponse):
        self.conn, self.response = conn, response
        self.status = response.status
        self.last_id: str | None = None
        """The id of the last event read (the priming event's too)."""

    def next(self) -> Any:
        """The next event's message; None when the stream ended."""
        data = None
        while True:
            line = self.response.readline()
            if not line:
                return None
            text = line.decode().rstrip("\r\n")
            if text.startswith("id:"):
                self.last_id = text[3:].strip()
            elif text.startswith("data:") and text[5:].strip():  # not a priming event
                data = json.loads(text[5:])
            elif text == "" and data is not None:
                return data

    def close(self) -> None:
        self.conn.close()


def open_post(server: HttpServer, body: Any, session: str | None = None) -> Stream:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=20)
    headers = {"Content-Type": "application/json", "Accept": ACCEPT}
    if session is not None:
        headers |= {"Mcp-Session-Id": session, "MCP-Protocol-Version": REVISION}
    conn.request("POST", "/mcp", json.dumps(body).encode(), headers)
    return Stream(conn, conn.getresponse())


def post(server: HttpServer, body: Any, session: str | None = None) -> tuple[int, Any]:
    stream = open_post(server, body, session)
    try:
        raw = stream.response.read()
        if stream.response.getheader("content-type") == "text/event-stream":
            lines = raw.decode().split("\n")
            # A 2025-11-25 stream opens with a priming event whose data is empty.
            events = [json.loads(x[5:]) for x in lines if x.startswith("data:") and x[5:].strip()]
            return stream.status, events[-1]
        return stream.status, json.loads(raw) if raw else None
    finally:
        stream.close()


def get_stream(server: HttpServer, session: str, last_event_id: str | None = None) -> Stream:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=20)
    headers = {
        "Accept": "text/event-stream",
        "Mcp-Session-Id": session,
        "MCP-Protocol-Version": REVISION,
    }
    if last_event_id is not None:
        headers["Last-Event-ID"] = last_event_id
    conn.request("GET", "/mcp", headers=headers)
    return Stream(conn, conn.getresponse())


def open_session(server: HttpServer, capabilities: dict[str, Any] | None = None) -> str:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=20)
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": REVISION,
            "capabilities": capabilities or {},
            "clientInfo": {"name": "by-hand", "version": "0"},
        },
    }
    headers = {"Content-Type": "application/json", "Accept": ACCEPT}
    conn.request("POST", "/mcp", json.dumps(init).encode(), headers)
    response = conn.getresponse()
    response.read()
    session = response.getheader("mcp-session-id")
    conn.close()
    assert session is not None
    done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert post(server, done, session) == (202, None)
    return session


def call(request_id: int, name: str, **arguments: Any) -> dict[str, Any]:
    params = {"name": name, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def text_reply(request_id: int, text: str) -> dict[str, Any]:
    result = {"content": [{"type": "text", "text": text}], "isError": False}
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def test_an_elicitation_answer_posted_to_another_process_reaches_the_waiting_call(
    three: list[HttpServer],
) -> None:
    a, b, c = three
    session = open_session(a, {"elicitation": {}})
    waiting = open_post(b, call(1, "ask_name"), session)
    asked = waiting.next()
    assert asked["method"] == "elicitation/create"
    answer = {
        "jsonrpc": "2.0",
        "id": asked["id"],
        "result": {"action": "accept", "content": {"name": "Ada"}},
    }
    assert post(c, answer, session) == (202, None)
    assert waiting.next() == text_reply(1, "accept: Ada")
    waiting.close()


def test_a_cancellation_posted_to_another_process_cancels_the_call(
    three: list[HttpServer],
) -> None:
    a, b, c = three
    session = open_session(a)
    held = open_post(b, call(7, "hold"), session)
    logged = held.next()
    assert logged["params"]["data"] == f"holding in {b.proc.pid}"
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}
    assert post(c, cancel, session) == (202, None)
    assert held.next() is None  # the call ended without a reply, as cancelled requests do
    held.close()
    assert post(a, call(8, "where"), session) == (200, text_reply(8, str(a.proc.pid)))


def test_a_resource_update_raised_anywhere_reaches_the_stream_on_another_process(
    three: list[HttpServer],
) -> None:
    a, b, c = three
    session = open_session(a)
    # The stream opens on b before the subscription is taken on a: b reads the session's
    # state again when the update arrives.
    stream = get_stream(b, session)
    assert stream.status == 200
    subscribe = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "resources/subscribe",
        "params": {"uri": "memo://note"},
    }
    assert post(a, subscribe, session) == (200, {"jsonrpc": "2.0", "id": 1, "result": {}})
    assert post(c, call(3, "touch", uri="memo://other"), session)[0] == 200
    assert post(c, call(4, "touch", uri="memo://note"), session) == (
        200,
        text_reply(4, "touched memo://note"),
    )
    assert stream.next() == {
        "jsonrpc": "2.0",
        "method": "notifications/resources/updated",
        "params": {"uri": "memo://note"},
    }
    stream.close()


def test_a_get_stream_lost_on_one_process_resumes_on_another_where_its_ids_go_on(
    three: list[HttpServer],
) -> None:
    a, b, c = three
    session = open_session(a)
    subscribe = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "resources/subscribe",
        "params": {"uri": "memo://note"},
    }
    assert post(a, subscribe, session) == (200, {"jsonrpc": "2.0", "id": 1, "result": {}})
    updated = {
        "jsonrpc": "2.0",
        "method": "notifications/resources/updated",
        "params": {"uri": "memo://note"},
    }
    lost = get_stream(a, session)
    assert post(c, call(2, "touch", uri="memo://note"), session)[0] == 200
    assert lost.next() == updated
    assert lost.last_id == "get:1"  # after the priming event, get:0
    lost.close()
    again = get_stream(b, session, "get:1")
    assert again.status == 200
    assert post(c, call(3, "touch", uri="memo://note"), session)[0] == 200
    assert again.next() == updated
    assert again.last_id == "get:2"  # the same log, written by another process now
    again.close()


def test_a_session_outlives_a_process_killed_with_sigkill(redis: RedisServer) -> None:
    with workers(redis, 2) as (a, b):
        session = open_session(a)
        a.proc.kill()
        a.proc.wait(10)
        assert post(b, call(1, "where"), session) == (200, text_reply(1, str(b.proc.pid)))


def test_plainmcp_run_workers_with_sessions_on_redis_serve_a_session_from_every_worker(
    redis: RedisServer,
) -> None:
    env = {"PLAINMCP_TEST_SESSIONS": redis.url}
    flags = ("--workers", "3", "--sessions", redis.url)
    with http_server(SERVER, *flags, env=env) as server:
        session = open_session(server)
        pids = set()
        for n in range(30):  # each on a new connection: the kernel hands it to any worker
            status, reply = post(server, call(n, "where"), session)
            assert status == 200, reply
            pids.add(int(reply["result"]["content"][0]["text"]))
        assert server.proc.pid not in pids  # the workers answered, not the supervisor
        assert "Traceback" not in server.log(), server.log()


REFS = Path(__file__).resolve().parent / "servers" / "refs_server.py"


@pytest.mark.parametrize("sessions", ["redis", "none"])
def test_workers_on_redis_without_a_secret_share_one_so_read_more_works_on_every_worker(
    sessions: str,
) -> None:
    """`--workers 3` with the sessions on Redis, or with none and the blob store on Redis: the
    workers sign refs with one secret kept in Redis, so a cut text is read back part after part
    from worker after worker. (Each worker's own secret made 5 to 11 of 12 parts "Unknown
    reference", issue 23.)"""
    from plainmcp.wire.request_state import ENV_SECRET
    from tests.continuation import next_call

    text = "".join(f"line {n:04d} of a text read back in parts\n" for n in range(240))  # REFS's
    assert ENV_SECRET not in os.environ  # what the test is about: no secret given
    with redis_server() as own:
        flags = ("--workers", "3", "--sessions", own.url if sessions == "redis" else "none")
        env = {"PLAINMCP_TEST_SESSIONS": own.url}
        with http_server(REFS, *flags, env=env) as server:
            workers = pin_workers(server, open_session(server) if sessions == "redis" else None)
            cut = Pinned.text(workers[0].call("long_text", arguments={}))
            parts = [cut[: cut.rindex("\n…[truncated: ")]]
            served_by = [workers[0].pid]
            found = next_call(cut)
            while found is not None:
                worker = workers[len(parts) % len(workers)]  # each part from the next worker
                result = worker.call(found[0], arguments=found[1])
                part, *marker = [Pinned.text({**result, "content": [b]}) for b in result["content"]]
                parts.append(part)
                served_by.append(worker.pid)
                found = next_call(marker[0]) if marker else None
            assert len(parts) == 1 + 12  # the first part, then 12 read_more calls
            assert "".join(parts) == text
            assert set(served_by) == {w.pid for w in workers}
            # Each connection stayed with its worker throughout.
            assert [int(Pinned.text(w.call("where"))) for w in workers] == [w.pid for w in workers]
            log = server.log()
        made = [line for line in log.splitlines() if "made a state secret" in line]
        assert made == [
            f"{ENV_SECRET} is not set: made a state secret for read_more refs and requestState"
            f" and stored it at Redis key plainmcp:state-secret at {own.url}, which every"
            f" process of this endpoint signs with (set {ENV_SECRET} to keep it out of Redis)"
        ]
        assert "Traceback" not in log, log


# --- faults ------------------------------------------------------------------------------------


def test_redis_unreachable_at_start_is_a_clear_error() -> None:
    port = free_port()
    env = {"PLAINMCP_TEST_SESSIONS": f"redis://127.0.0.1:{port}/0"}
    with pytest.raises(RuntimeError) as failed, http_server(SERVER, env=env, script=True):
        pass
    assert (
        f"the session store did not start: Redis at redis://127.0.0.1:{port}/0 is unreachable"
        in str(failed.value)
    )


def test_a_state_secret_in_redis_too_short_to_sign_with_stops_the_start() -> None:
    import subprocess
    import sys

    import redis as redis_py

    with redis_server() as own:
        client = redis_py.Redis.from_url(own.url)
        client.set("plainmcp:state-secret", "short")
        client.close()
        command = [sys.executable, "-m", "plainmcp", "run", str(REFS), "--http"]
        command += ["--port", str(free_port()), "--sessions", own.url]
        env = {k: v for k, v in os.environ.items() if k != "PLAINMCP_STATE_SECRET"}
        stopped = subprocess.run(
            command,
            env={**env, "PLAINMCP_TEST_SESSIONS": own.url},
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert stopped.returncode == 3  # uvicorn's exit status for a failed lifespan start-up
    assert (
        "the shared state secret is unusable: the requestState secret (from Redis key"
        f" plainmcp:state-secret at {own.url}) is 5 bytes; at least 32 are required: delete the"
        " key for a new one to be made, or set PLAINMCP_STATE_SECRET"
    ) in stopped.stderr


STORE_DOWN = {"code": -32603, "message": "Internal error: the session store is unavailable"}


def initialize(request_id: int) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": REVISION,
            "capabilities": {},
            "clientInfo": {"name": "by-hand", "version": "0"},
        },
    }


def test_redis_restarted_under_a_process_is_503_with_each_id_then_the_first_request_works() -> None:
    with redis_server() as own, workers(own, 1) as (server,):
        pid = str(server.proc.pid)
        session = open_session(server)
        # 20 requests at once leave the process about 20 pooled connections to Redis, which
        # the restart breaks without the process noticing.
        with ThreadPoolExecutor(20) as pool:
            warm = list(pool.map(lambda n: post(server, call(n, "where"), session), range(20)))
        assert warm == [(200, text_reply(n, pid)) for n in range(20)]
        own.stop(save=True)  # the session is kept through the restart
        assert post(server, initialize(30)) == (
            503,
            {"jsonrpc": "2.0", "id": 30, "error": STORE_DOWN},
        )
        assert post(server, call(31, "where"), session) == (
            503,
            {"jsonrpc": "2.0", "id": 31, "error": STORE_DOWN},
        )
        named = {**call(0, "where"), "id": "call-32"}
        assert post(server, named, session) == (
            503,
            {"jsonrpc": "2.0", "id": "call-32", "error": STORE_DOWN},
        )
        # No id to carry: a notification's error leaves it out, and so does a GET's.
        note = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {}}
        assert post(server, note, session) == (503, {"jsonrpc": "2.0", "error": STORE_DOWN})
        stream = get_stream(server, session)
        assert (stream.status, json.loads(stream.response.read())) == (
            503,
            {"jsonrpc": "2.0", "error": STORE_DOWN},
        )
        stream.close()
        assert f"Redis at {own.url} is unavailable" in server.log()
        own.start()
        # The first request after the restart, and 40 more at once, on the broken
        # connections: each is retried once on a new connection.
        assert post(server, call(40, "where"), session) == (200, text_reply(40, pid))
        with ThreadPoolExecutor(20) as pool:
            after = list(pool.map(lambda n: post(server, call(n, "where"), session), range(41, 81)))
        assert after == [(200, text_reply(n, pid)) for n in range(41, 81)]
        status, reply = post(server, initialize(81))
        assert (status, reply["id"], "error" in reply) == (200, 81, False)
        assert "Traceback" not in server.log(), server.log()


def initialize_from(server: HttpServer, forwarded_for: str, request_id: int) -> tuple[int, Any]:
    """An initialize whose X-Forwarded-For names `forwarded_for` (as a proxy would send it)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=20)
    headers = {"Content-Type": "application/json", "Accept": ACCEPT}
    conn.request(
        "POST",
        "/mcp",
        json.dumps(initialize(request_id)).encode(),
        {**headers, "X-Forwarded-For": forwarded_for},
    )
    response = conn.getresponse()
    try:
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def test_anonymous_clients_are_counted_by_the_address_a_trusted_proxy_forwards() -> None:
    limit = {
        "jsonrpc": "2.0",
        "error": {
            "code": -32600,
            "message": "Too many sessions for this client (the limit is 1);"
            " end one or try again later",
        },
    }
    with redis_server() as own:  # its own: the other tests' sessions are 127.0.0.1's too
        env = {"PLAINMCP_TEST_SESSIONS": own.url, "PLAINMCP_TEST_PER_CLIENT": "1"}
        # uvicorn trusts X-Forwarded-For from 127.0.0.1 by default: the test is the proxy.
        with http_server(SERVER, env=env, script=True) as server:
            assert initialize_from(server, "198.51.100.1", 1)[0] == 200
            assert initialize_from(server, "198.51.100.1", 2) == (429, {**limit, "id": 2})
            assert initialize_from(server, "198.51.100.2", 3)[0] == 200
        # Trusting another proxy only, uvicorn ignores what 127.0.0.1 forwards: one address.
        untrusted = {**env, "FORWARDED_ALLOW_IPS": "192.0.2.1"}
        with http_server(SERVER, env=untrusted, script=True) as server:
            assert initialize_from(server, "198.51.100.3", 4)[0] == 200
            assert initialize_from(server, "198.51.100.4", 5) == (429, {**limit, "id": 5})


# --- what a request costs in Redis -------------------------------------------------------------


def commands(redis: RedisServer, run: Any) -> dict[str, int]:
    """The Redis commands (name -> calls) that `run()` caused, read from INFO commandstats."""
    import redis as redis_py

    client = redis_py.Redis.from_url(redis.url)
    try:
        client.config_resetstat()
        run()
        stats = client.info("commandstats")
    finally:
        client.close()
    counted = {name.removeprefix("cmdstat_"): int(v["calls"]) for name, v in stats.items()}
    return {k: v for k, v in counted.items() if k not in ("info", "config|resetstat")}


def test_a_request_costs_one_round_trip_and_one_more_when_it_changes_the_state() -> None:
    with redis_server() as own, workers(own, 1) as (server,):
        session = open_session(server)
        # One round trip: the EVALSHA of a script whose GETEX reads the state and renews its
        # TTL and whose ZADD records the use (commandstats counts a script's commands too).
        touch = {"evalsha": 1, "getex": 1, "zadd": 1}
        assert commands(own, lambda: post(server, call(1, "where"), session)) == touch
        level = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "logging/setLevel",
            "params": {"level": "debug"},
        }
        assert commands(own, lambda: post(server, level, session)) == {**touch, "set": 1}
