"""workers.py: sync functions run in worker threads that are anyio's (anyio.from_thread works in
them), in the caller's context, as many at once as block, abandoned when the caller is cancelled,
with every outcome delivered to its own caller."""

from __future__ import annotations

import contextvars
import threading

import anyio
import anyio.from_thread
import pytest

from plainmcp import Server
from plainmcp.workers import run_in_worker
from tests.conftest import Session

pytestmark = pytest.mark.anyio

REQUEST: contextvars.ContextVar[str] = contextvars.ContextVar("request", default="none")


async def test_anyio_from_thread_reaches_the_loop_from_a_sync_tool() -> None:
    app = Server("t")
    loop_thread = threading.get_ident()

    async def on_loop(x: int) -> str:
        await anyio.sleep(0)
        return f"{x} on the loop: {threading.get_ident() == loop_thread}"

    @app.tool
    def hop(x: int) -> str:
        ran_here = threading.get_ident() == loop_thread
        return anyio.from_thread.run(on_loop, x) + f", tool on the loop: {ran_here}"

    async with Session(app) as s:
        await s.initialize()
        reply = await s.request("tools/call", {"name": "hop", "arguments": {"x": 7}})
    assert reply["result"]["content"] == [
        {"type": "text", "text": "7 on the loop: True, tool on the loop: False"}
    ]


async def test_a_sync_function_sees_the_callers_context_variables() -> None:
    async def one(name: str) -> str:
        REQUEST.set(name)
        return await run_in_worker(REQUEST.get)

    results: dict[str, str] = {}

    async def record(name: str) -> None:
        results[name] = await one(name)

    async with anyio.create_task_group() as tg:
        for name in ("a", "b", "c"):
            tg.start_soon(record, name)
    assert results == {"a": "a", "b": "b", "c": "c"}
    assert REQUEST.get() == "none"


async def test_calls_that_block_each_other_all_run_at_once() -> None:
    """Eight calls that each wait for all eight: they finish only if each has its own thread."""
    barrier = threading.Barrier(8, timeout=10)
    seen: list[int] = []

    def meet(i: int) -> int:
        barrier.wait()
        return i

    async def call(i: int) -> None:
        seen.append(await run_in_worker(lambda: meet(i)))

    async with anyio.create_task_group() as tg:
        for i in range(8):
            tg.start_soon(call, i)
    assert sorted(seen) == list(range(8))


async def test_a_cancelled_caller_abandons_the_thread_and_the_next_call_is_served() -> None:
    started, gate, finished = threading.Event(), threading.Event(), threading.Event()

    def blocked() -> str:
        started.set()
        gate.wait(10)  # the bound only keeps a failing test from leaving a thread behind
        finished.set()
        return "late"

    with anyio.CancelScope() as scope:
        async with anyio.create_task_group() as tg:

            async def wait_for_start() -> None:
                await anyio.to_thread.run_sync(started.wait, 5)
                scope.cancel()

            tg.start_soon(wait_for_start)
            await run_in_worker(blocked)
    assert scope.cancelled_caught
    assert not finished.is_set()
    assert await run_in_worker(lambda: "next") == "next"
    gate.set()
    assert await anyio.to_thread.run_sync(finished.wait, 5)


async def test_each_caller_gets_its_own_exception_and_stop_iteration_becomes_runtime_error() -> (
    None
):
    errors = [ValueError("one"), KeyError("two")]

    def raise_(exc: BaseException) -> None:
        raise exc

    for exc in errors:
        with pytest.raises(type(exc)) as caught:
            await run_in_worker(lambda exc=exc: raise_(exc))  # type: ignore[misc]
        assert caught.value is exc

    def stop() -> None:
        raise StopIteration

    with pytest.raises(RuntimeError, match=r"^the function raised StopIteration$") as stopped:
        await run_in_worker(stop)
    assert isinstance(stopped.value.__cause__, StopIteration)
