"""invoke.py: the one pipeline every user function is called through: where it runs (sync in a
worker thread, async on the loop), validation and Context filling, the timeout, cancellation,
each kind's mapping of every exception (errors.py's policy), masking, and the spec read once."""

from __future__ import annotations

import dataclasses
import functools
import inspect
import logging
import re
import threading
import time
import typing
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import pytest

from plainmcp import Context, ResourceError, Server, ToolError
from plainmcp.completion import FAILURES as COMPLETION
from plainmcp.context import ClientCapabilityError, InputRequired
from plainmcp.errors import Failures
from plainmcp.invoke import FunctionSpec, context_in, function_spec, invoke, is_async
from plainmcp.prompts import FAILURES as PROMPT
from plainmcp.prompts import PromptError
from plainmcp.resources import FAILURES as READ
from plainmcp.resources import ResourceNotFound
from plainmcp.schema import ArgumentError, FieldError
from plainmcp.tools import FAILURES as TOOL
from plainmcp.wire.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, RpcError
from tests.conftest import Session

pytestmark = pytest.mark.anyio

MISSING = "the client did not declare the 'sampling' capability"


def spec_of(fn: Callable[..., Any], failures: Failures = TOOL, **changes: Any) -> FunctionSpec:
    return dataclasses.replace(function_spec(fn, "f", failures), **changes)


def records(caplog: pytest.LogCaptureFixture) -> list[tuple[int, str, bool]]:
    """(level, message, has a traceback) of every plainmcp record."""
    return [
        (r.levelno, r.getMessage(), r.exc_info is not None)
        for r in caplog.records
        if r.name == "plainmcp"
    ]


# --- where it runs ---------------------------------------------------------------------------


async def test_a_sync_function_runs_in_a_worker_thread_and_an_async_one_on_the_loop() -> None:
    loop_thread = threading.get_ident()
    ran: dict[str, int] = {}

    def sync(a: int) -> int:
        ran["sync"] = threading.get_ident()
        return a + 1

    async def run_async(a: int) -> int:
        ran["async"] = threading.get_ident()
        return a + 2

    assert await invoke(spec_of(sync), {"a": 1}) == 2
    assert await invoke(spec_of(run_async), {"a": 1}) == 3
    assert ran["async"] == loop_thread
    assert ran["sync"] != loop_thread


async def test_an_awaitable_a_sync_function_returns_is_awaited_on_the_loop() -> None:
    loop_thread = threading.get_ident()
    where: list[int] = []

    async def later() -> str:
        where.append(threading.get_ident())
        return "awaited"

    def sync() -> Any:
        return later()

    assert await invoke(spec_of(sync), {}) == "awaited"
    assert where == [loop_thread]


async def test_an_inline_sync_function_runs_on_the_loop_thread_and_a_plain_one_does_not() -> None:
    loop_thread = threading.get_ident()
    ran: list[tuple[str, bool]] = []

    def where(label: str) -> str:
        ran.append((label, threading.get_ident() == loop_thread))
        return label

    assert await invoke(spec_of(where, inline=True), {"label": "inline"}) == "inline"
    assert await invoke(spec_of(where), {"label": "worker"}) == "worker"
    assert ran == [("inline", True), ("worker", False)]


def test_inline_is_read_at_registration_and_refused_where_it_cannot_hold() -> None:
    async def coro() -> None: ...

    def plain() -> None: ...

    assert function_spec(plain, "f", TOOL, inline=True).inline is True
    assert function_spec(plain, "f", TOOL).inline is False
    with pytest.raises(TypeError) as not_sync:
        function_spec(coro, "f", TOOL, inline=True)
    with pytest.raises(TypeError) as bounded:
        function_spec(plain, "f", PROMPT, inline=True, timeout=1.0)
    assert str(not_sync.value) == (
        "tool 'f': inline=True is for a plain def function; an async one runs on the event loop"
        " already"
    )
    assert str(bounded.value) == (
        "prompt 'f': inline=True and timeout= cannot go together: an inline function runs on the"
        " event loop, where nothing can stop it at a deadline"
    )


async def test_no_bound_applies_to_an_inline_function(caplog: pytest.LogCaptureFixture) -> None:
    """The same function past the same default bound: in a worker thread it is abandoned at the
    deadline; inline, nothing could stop it, so its result (even an awaitable's) is kept."""
    returned = threading.Event()
    started: list[str] = []

    class Checkpoint:
        """Awaited, it passes a checkpoint (where a bound, had one applied, would cancel)."""

        def __init__(self, label: str) -> None:
            self.label = label

        def __await__(self) -> typing.Generator[Any, None, str]:
            yield from anyio.sleep(0).__await__()
            return self.label

    def overrun(label: str) -> Checkpoint:
        started.append(label)
        start = time.monotonic()
        while time.monotonic() < start + 0.05:  # a CPU spin: past the 0.01 s bound for certain
            pass
        returned.set()
        return Checkpoint(label)

    with caplog.at_level(logging.DEBUG, logger="plainmcp"):
        kept = await invoke(spec_of(overrun, inline=True), {"label": "inline"}, None, False, 0.01)
        returned.clear()
        with pytest.raises(ToolError) as timed_out:
            await invoke(spec_of(overrun), {"label": "worker"}, None, False, 0.01)
    assert kept == "inline"
    # A worker that took the call is abandoned and finishes on its own; on a loaded machine the
    # deadline can pass before any thread takes it, and a call not yet started is skipped.
    if started == ["inline", "worker"]:
        assert await anyio.to_thread.run_sync(returned.wait, 5)
    else:
        assert started == ["inline"]
    assert timed_out.value.message == "Tool 'f' timed out after 0.01 seconds and was stopped."
    assert records(caplog) == [(logging.WARNING, "tool 'f' timed out after 0.01 s", False)]


def test_what_counts_as_async() -> None:
    async def coro() -> None: ...

    @functools.wraps(coro)
    def wrapped() -> Any:
        return coro()

    class Callable_:
        async def __call__(self) -> None: ...

    assert [is_async(f) for f in (coro, wrapped, Callable_(), functools.partial(coro))] == [
        True,
        True,
        True,
        True,
    ]
    assert [is_async(f) for f in (len, lambda: None, functools.partial(print))] == [
        False,
        False,
        False,
    ]


# --- arguments and Context -------------------------------------------------------------------


async def test_context_parameters_get_the_context_and_the_arguments_are_not_changed() -> None:
    def fn(a: str, ctx: Context, other: Context | None = None) -> tuple[Any, ...]:
        return (a, ctx, other)

    spec = spec_of(fn)
    assert spec.context_params == ("ctx", "other")
    arguments = {"a": "x"}
    assert await invoke(spec, arguments, "the context") == ("x", "the context", "the context")
    assert arguments == {"a": "x"}


def test_context_in_finds_the_context_the_server_injects() -> None:
    def fn(ctx: Context) -> None: ...

    def plain() -> None: ...

    marker = object()
    assert context_in(spec_of(fn), {"ctx": marker}) is marker
    assert context_in(spec_of(plain), {"ctx": marker}) is None
    assert context_in(spec_of(fn), None) is None
    assert context_in(None, {"ctx": marker}) is None


async def test_the_validator_turns_wire_arguments_into_keyword_arguments() -> None:
    def validate(arguments: Any) -> dict[str, Any]:
        return {"n": int(arguments["n"])}

    def double(n: int) -> int:
        return n * 2

    assert await invoke(spec_of(double, validate=validate), {"n": "21"}) == 42


LINES = "\n- n: too big\n- (arguments): odd"


@pytest.mark.parametrize(
    ("failures", "expected"),
    [
        (TOOL, ToolError(f"Invalid arguments for tool 'f':{LINES}")),
        (PROMPT, RpcError(INVALID_PARAMS, f"Invalid arguments for prompt 'f':{LINES}")),
    ],
)
async def test_invalid_arguments_name_every_field_and_never_reach_the_function(
    failures: Failures, expected: Exception, caplog: pytest.LogCaptureFixture
) -> None:
    called: list[int] = []

    def validate(arguments: Any) -> dict[str, Any]:
        raise ArgumentError([FieldError("n", "too big"), FieldError("", "odd")])

    def fn(n: int) -> None:
        called.append(n)

    with caplog.at_level(logging.DEBUG, logger="plainmcp"), pytest.raises(type(expected)) as got:
        await invoke(spec_of(fn, failures, validate=validate), {"n": 1})
    assert str(got.value) == str(expected)
    assert getattr(got.value, "code", None) == getattr(expected, "code", None)
    assert called == []
    assert records(caplog) == []  # the client's mistake, not the server's


# --- the timeout -----------------------------------------------------------------------------


async def test_an_async_function_is_cancelled_at_its_timeout(
    caplog: pytest.LogCaptureFixture,
) -> None:
    saw_cancel = anyio.Event()

    async def slow() -> str:
        try:
            await anyio.Event().wait()  # never set
        except anyio.get_cancelled_exc_class():
            saw_cancel.set()
            raise
        return "never"

    with caplog.at_level(logging.DEBUG, logger="plainmcp"), pytest.raises(ToolError) as got:
        await invoke(spec_of(slow, timeout=0.05), {})
    assert got.value.message == "Tool 'f' timed out after 0.05 seconds and was stopped."
    assert saw_cancel.is_set()
    assert records(caplog) == [(logging.WARNING, "tool 'f' timed out after 0.05 s", False)]


async def test_the_specs_own_timeout_wins_over_the_default() -> None:
    async def slow() -> None:
        await anyio.Event().wait()

    with pytest.raises(ToolError) as own:
        await invoke(spec_of(slow, timeout=0.05), {}, None, False, 60.0)
    with pytest.raises(ToolError) as default:
        await invoke(spec_of(slow), {}, None, False, 0.06)
    assert own.value.message == "Tool 'f' timed out after 0.05 seconds and was stopped."
    assert default.value.message == "Tool 'f' timed out after 0.06 seconds and was stopped."


async def test_a_sync_function_past_its_timeout_is_abandoned_and_its_result_dropped() -> None:
    gate, finished = threading.Event(), threading.Event()

    def stuck() -> str:
        gate.wait(10)  # the bound only keeps a failing test from leaving a thread behind
        finished.set()
        return "late"

    with pytest.raises(RpcError) as got:
        await invoke(spec_of(stuck, PROMPT, timeout=0.05), {})
    assert (got.value.code, got.value.message) == (
        INTERNAL_ERROR,
        "Prompt 'f' timed out after 0.05 seconds and was stopped.",
    )
    assert not finished.is_set()  # answered while the thread still runs
    gate.set()
    assert await anyio.to_thread.run_sync(finished.wait, 5)


async def test_a_function_within_its_timeout_returns_its_value() -> None:
    async def quick() -> str:
        return "in time"

    assert await invoke(spec_of(quick, timeout=5.0), {}) == "in time"


# --- cancellation and what passes through ----------------------------------------------------


async def test_cancelling_the_caller_reaches_the_function_and_is_not_a_failure(
    caplog: pytest.LogCaptureFixture,
) -> None:
    started, saw_cancel = anyio.Event(), anyio.Event()
    outcome: list[str] = []

    async def waits() -> None:
        started.set()
        try:
            await anyio.Event().wait()
        except anyio.get_cancelled_exc_class():
            saw_cancel.set()
            raise

    async def caller() -> None:
        try:
            await invoke(spec_of(waits), {})
        except anyio.get_cancelled_exc_class():
            outcome.append("cancelled")
            raise

    with caplog.at_level(logging.DEBUG, logger="plainmcp"):
        async with anyio.create_task_group() as tg:
            tg.start_soon(caller)
            await started.wait()
            tg.cancel_scope.cancel()
    assert saw_cancel.is_set()
    assert outcome == ["cancelled"]
    assert records(caplog) == []


async def test_input_required_passes_through_untouched(caplog: pytest.LogCaptureFixture) -> None:
    needed = InputRequired({"elicitation-1": {"method": "elicitation/create", "params": {}}})

    async def asks() -> None:
        raise needed

    with caplog.at_level(logging.DEBUG, logger="plainmcp"), pytest.raises(InputRequired) as got:
        await invoke(spec_of(asks), {})
    assert got.value is needed
    assert records(caplog) == []


# --- each exception, for each kind -----------------------------------------------------------

ERROR_ID = re.compile(r"error id ([0-9a-f]{12})")


def boom() -> Exception:
    return ValueError("boom")


CASES = [
    # failures, raised, mask, (type, code, message) expected, log records expected
    (TOOL, ToolError("no such city"), False,
     (ToolError, None, "no such city"),
     [(logging.WARNING, "tool 'f' refused (ToolError): no such city", False)]),
    (TOOL, ResourceError("path 'x' is outside"), True,
     (ToolError, None, "Tool 'f' failed: ResourceError: path 'x' is outside"),
     [(logging.WARNING, "tool 'f' refused (ResourceError): path 'x' is outside", False)]),
    (TOOL, ClientCapabilityError(MISSING), True,
     (ToolError, None, f"Tool 'f' failed: ClientCapabilityError: {MISSING}"),
     [(logging.WARNING, f"tool 'f' refused (ClientCapabilityError): {MISSING}", False)]),
    (TOOL, boom(), False,
     (ToolError, None, "Tool 'f' failed: ValueError: boom"),
     [(logging.ERROR, "tool 'f' failed", True)]),
    (PROMPT, PromptError("no ticket 123"), True,
     (RpcError, INVALID_PARAMS, "no ticket 123"),
     [(logging.WARNING, "prompt 'f' refused (PromptError): no ticket 123", False)]),
    (PROMPT, PromptError("offline", code=INTERNAL_ERROR), False,
     (RpcError, INTERNAL_ERROR, "offline"),
     [(logging.WARNING, "prompt 'f' refused (PromptError): offline", False)]),
    (PROMPT, ResourceError("invalid path", code=INVALID_PARAMS), False,
     (RpcError, INVALID_PARAMS, "invalid path"),
     [(logging.WARNING, "prompt 'f' refused (ResourceError): invalid path", False)]),
    (PROMPT, ClientCapabilityError(MISSING), False,
     (RpcError, INTERNAL_ERROR, f"Prompt 'f' failed: ClientCapabilityError: {MISSING}"),
     [(logging.WARNING, f"prompt 'f' refused (ClientCapabilityError): {MISSING}", False)]),
    (PROMPT, boom(), False,
     (RpcError, INTERNAL_ERROR, "Prompt 'f' failed: ValueError: boom"),
     [(logging.ERROR, "prompt 'f' failed", True)]),
    (READ, ResourceError("archive offline", data={"retry": 5}), False,
     (ResourceError, INTERNAL_ERROR, "archive offline"),
     [(logging.WARNING, "reading resource 'f' refused (ResourceError): archive offline", False)]),
    (READ, ClientCapabilityError(MISSING), False,
     (RpcError, INTERNAL_ERROR, f"Cannot read f: {MISSING}"),
     [(logging.WARNING, f"reading resource 'f' refused (ClientCapabilityError): {MISSING}",
       False)]),
    (READ, boom(), False,
     (RpcError, INTERNAL_ERROR, "Internal error while reading f"),
     [(logging.ERROR, "reading resource 'f' failed", True)]),
    (COMPLETION, boom(), False,
     (RpcError, INTERNAL_ERROR, "Internal error: f failed"),
     [(logging.ERROR, "f failed", True)]),
    (COMPLETION, ClientCapabilityError(MISSING, {"sampling": {}}), False,
     (RpcError, INTERNAL_ERROR, "Internal error: f failed"),
     [(logging.ERROR, "f failed", True)]),
]  # fmt: skip


@pytest.mark.parametrize(("failures", "raised", "mask", "expected", "logged"), CASES)
async def test_each_exception_becomes_the_failure_of_its_kind(
    failures: Failures,
    raised: Exception,
    mask: bool,
    expected: tuple[type[Exception], int | None, str],
    logged: list[tuple[int, str, bool]],
    caplog: pytest.LogCaptureFixture,
) -> None:
    def fails() -> None:
        raise raised

    with caplog.at_level(logging.DEBUG, logger="plainmcp"), pytest.raises(Exception) as got:
        await invoke(spec_of(fails, failures), {}, None, mask)
    kind, code, message = expected
    assert type(got.value) is kind
    assert getattr(got.value, "code", None) == code
    assert getattr(got.value, "message", None) == message
    assert records(caplog) == logged


async def test_a_tool_error_and_a_resource_error_leave_as_the_objects_raised() -> None:
    tool_error, resource_error = ToolError("no"), ResourceError("gone", data={"retry": 5})

    def refuses(exc: Exception) -> Callable[[], None]:
        def fn() -> None:
            raise exc

        return fn

    with pytest.raises(ToolError) as as_tool:
        await invoke(spec_of(refuses(tool_error), TOOL), {})
    with pytest.raises(ResourceError) as as_read:
        await invoke(spec_of(refuses(resource_error), READ), {})
    assert as_tool.value is tool_error
    assert as_read.value is resource_error
    assert as_read.value.data == {"retry": 5}


@pytest.mark.parametrize("failures", [TOOL, PROMPT, READ])
async def test_a_stateless_missing_capability_is_reraised_for_the_server(
    failures: Failures, caplog: pytest.LogCaptureFixture
) -> None:
    missing = ClientCapabilityError(MISSING, {"sampling": {}})

    def asks() -> None:
        raise missing

    with caplog.at_level(logging.DEBUG, logger="plainmcp"), pytest.raises(Exception) as got:
        await invoke(spec_of(asks, failures), {})
    assert got.value is missing
    assert [(level, tb) for level, _, tb in records(caplog)] == [(logging.WARNING, False)]


@pytest.mark.parametrize("raised", [ResourceNotFound("x://gone"), FileNotFoundError("gone")])
async def test_not_found_is_a_reads_answer_not_a_failure(
    raised: Exception, caplog: pytest.LogCaptureFixture
) -> None:
    def reads() -> None:
        raise raised

    with caplog.at_level(logging.DEBUG, logger="plainmcp"), pytest.raises(type(raised)) as got:
        await invoke(spec_of(reads, READ), {})
    assert got.value is raised
    assert records(caplog) == []


@pytest.mark.parametrize(
    ("failures", "kind", "noun"), [(TOOL, ToolError, "Tool"), (PROMPT, RpcError, "Prompt")]
)
async def test_masking_sends_only_an_id_that_finds_the_log_record(
    failures: Failures, kind: type[Exception], noun: str, caplog: pytest.LogCaptureFixture
) -> None:
    def leaks() -> None:
        raise RuntimeError("password=hunter2")

    with caplog.at_level(logging.DEBUG, logger="plainmcp"), pytest.raises(kind) as got:
        await invoke(spec_of(leaks, failures), {}, None, True)
    message = getattr(got.value, "message", "")
    found = ERROR_ID.search(message)
    assert found is not None
    assert message == (
        f"{noun} 'f' failed unexpectedly (error id {found.group(1)}); the details are in the"
        " server log."
    )
    assert records(caplog) == [
        (logging.ERROR, f"{noun.lower()} 'f' failed (error id {found.group(1)})", True)
    ]
    assert "hunter2" in caplog.text and "hunter2" not in message


async def test_a_name_given_per_call_is_what_the_failure_names(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def reads(name: str) -> None:
        raise OSError("disk")

    spec = spec_of(reads, READ)
    with caplog.at_level(logging.DEBUG, logger="plainmcp"), pytest.raises(RpcError) as got:
        await invoke(spec, {"name": "a"}, name="files://a")
    assert got.value.message == "Internal error while reading files://a"
    assert records(caplog) == [(logging.ERROR, "reading resource 'files://a' failed", True)]


# --- the spec is read once -------------------------------------------------------------------


@pytest.fixture
def inspections(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every call of inspect.signature and typing.get_type_hints, by name."""
    seen: list[str] = []
    signature, hints = inspect.signature, typing.get_type_hints

    def counted_signature(*args: Any, **kwargs: Any) -> inspect.Signature:
        seen.append("signature")
        return signature(*args, **kwargs)

    def counted_hints(*args: Any, **kwargs: Any) -> dict[str, Any]:
        seen.append("get_type_hints")
        return hints(*args, **kwargs)

    monkeypatch.setattr(inspect, "signature", counted_signature)
    monkeypatch.setattr(typing, "get_type_hints", counted_hints)
    yield seen


async def test_the_signature_is_read_at_registration_never_per_call(
    inspections: list[str],
) -> None:
    def fn(a: int, ctx: Context) -> int:
        return a

    spec = function_spec(fn, "f", TOOL)
    assert "signature" in inspections and "get_type_hints" in inspections
    inspections.clear()
    for n in range(3):
        assert await invoke(spec, {"a": n}, "ctx") == n
    assert inspections == []


async def test_no_request_reads_a_signature(inspections: list[str]) -> None:
    """tools/call, resources/read and prompts/get of functions taking a Context: their Context
    parameters come from the spec, not from the function at each request."""
    app = Server("once")

    @app.tool
    async def echo(text: str, ctx: Context) -> str:
        return f"{text} {ctx.request_id}"

    @app.resource("notes://{name}")
    def note(name: str, ctx: Context) -> str:
        return f"note {name} {ctx.request_id}"

    @app.prompt
    def ask(topic: str, ctx: Context) -> str:
        return f"about {topic} {ctx.request_id}"

    async with Session(app) as s:
        await s.initialize("2025-11-25")
        inspections.clear()
        called = await s.call("echo", {"text": "hi"}, id=7)
        read = await s.result("resources/read", {"uri": "notes://a"}, id=8)
        got = await s.result("prompts/get", {"name": "ask", "arguments": {"topic": "t"}}, id=9)
    assert called["content"] == [{"type": "text", "text": "hi 7"}]
    assert read["contents"] == [{"uri": "notes://a", "mimeType": "text/plain", "text": "note a 8"}]
    assert got["messages"] == [{"role": "user", "content": {"type": "text", "text": "about t 9"}}]
    assert inspections == []
