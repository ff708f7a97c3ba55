"""Tools: definitions from make_tool; calls through call_tool (validation, errors, threads)."""

from __future__ import annotations

import functools
import json
import logging
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import anyio.from_thread
import orjson
import pytest
from typing_extensions import TypedDict

from plainmcp import Icon, Image, ResultOptions, Server, Text, ToolError, ToolResult
from plainmcp.context import ClientCapabilityError, Context
from plainmcp.model.results import CallResult
from plainmcp.resources import safe_join
from plainmcp.testing import connect, render_all
from plainmcp.tools import Tool, call_tool, make_tool
from plainmcp.wire import definitions, render
from plainmcp.wire.revisions import REVISIONS
from tests.mcp_schemas import validate_definition


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


OPTIONS = ResultOptions()
DOCS = Path(__file__).resolve().parents[1] / "docs" / "results.md"


class Weather(TypedDict):  # typing_extensions: pydantic needs it on Python 3.11
    city: str
    celsius: float


def definition(tool: Tool, revision: str = "2025-11-25") -> dict[str, Any]:
    out = definitions.tool(tool, REVISIONS[revision], OPTIONS)
    validate_definition(out, revision, "Tool")
    return out


def text_of(result: CallResult) -> str:
    assert len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, Text)
    return block.text


async def call(tool: Tool, arguments: dict[str, Any] | None = None, **kw: Any) -> CallResult:
    result = await call_tool(tool, arguments or {}, OPTIONS, **kw)
    rendered = render.call_result(result, REVISIONS["2025-11-25"], OPTIONS, tool.output_schema)
    validate_definition(json.loads(orjson.dumps(rendered)), "2025-11-25", "CallToolResult")
    return result


# --- names ----------------------------------------------------------------------------------


def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a + b


@pytest.mark.parametrize("name", ["a", "get_weather", "files.read", "x-y", "A9", "n" * 128])
def test_valid_names(name: str) -> None:
    assert make_tool(add, name=name).name == name


@pytest.mark.parametrize(
    "name", ["", "n" * 129, "has space", "slash/name", "émoji", "a:b", "tab\t"]
)
def test_invalid_names_raise(name: str) -> None:
    with pytest.raises(ValueError) as caught:
        make_tool(add, name=name)
    assert str(caught.value) == (
        f"invalid tool name {name!r}: use 1-128 characters from A-Z, a-z, 0-9, '_', '-', '.'"
    )


def test_lambda_needs_a_name() -> None:
    with pytest.raises(ValueError, match="invalid tool name '<lambda>'"):
        make_tool(lambda: 1)
    assert make_tool(lambda: 1, name="one").name == "one"


def test_not_callable() -> None:
    with pytest.raises(TypeError, match="a tool must be callable, not int"):
        make_tool(5)  # type: ignore[arg-type]


# --- definition -----------------------------------------------------------------------------


def test_definition_from_signature_and_docstring() -> None:
    tool = make_tool(add)
    assert definition(tool) == {
        "name": "add",
        "description": "Add two integers.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "a": {"type": "integer", "description": "The first number."},
                "b": {"type": "integer", "description": "The second number."},
            },
            "required": ["a", "b"],
            "additionalProperties": False,
        },
        "outputSchema": {
            "type": "object",
            "properties": {"result": {"type": "integer"}},
            "required": ["result"],
        },
    }
    assert tool.output_schema == {"type": "integer"}


def test_description_override_and_missing_docstring() -> None:
    def bare(x: int) -> None:
        pass

    assert make_tool(bare).description is None
    assert "description" not in definition(make_tool(bare))
    assert make_tool(add, description="Sum.").description == "Sum."


def test_title_icons_meta() -> None:
    icon = Icon(src="https://example.com/add.png", mime_type="image/png", theme="dark")
    tool = make_tool(add, title="Adder", icons=[icon], meta={"example.com/v": 1})
    out = definition(tool)
    assert (out["title"], out["icons"], out["_meta"]) == (
        "Adder",
        [{"src": "https://example.com/add.png", "mimeType": "image/png", "theme": "dark"}],
        {"example.com/v": 1},
    )
    # 2025-03-26 has no tool title: it travels as annotations.title.
    assert definition(tool, "2025-03-26") == {
        "name": "add",
        "description": "Add two integers.",
        "inputSchema": tool.input_schema,
        "annotations": {"title": "Adder"},
    }


def test_annotations_wire_and_snake_case_keys() -> None:
    tool = make_tool(
        add,
        annotations={"readOnlyHint": True, "destructive_hint": False, "open_world_hint": False},
    )
    assert definition(tool)["annotations"] == {
        "readOnlyHint": True,
        "destructiveHint": False,
        "openWorldHint": False,
    }
    assert make_tool(add, annotations={"title": "T", "idempotent_hint": True}).annotations == {
        "title": "T",
        "idempotentHint": True,
    }


def test_unknown_or_bad_annotation_raises() -> None:
    with pytest.raises(ValueError) as caught:
        make_tool(add, annotations={"readonly": True})
    assert str(caught.value) == (
        "unknown tool annotation 'readonly'; known: title, readOnlyHint, destructiveHint,"
        " idempotentHint, openWorldHint"
    )
    with pytest.raises(ValueError, match="tool annotation 'readOnlyHint' must be True or False"):
        make_tool(add, annotations={"readOnlyHint": "yes"})


def test_output_schema_override_is_validated() -> None:
    schema = {
        "type": "object",
        "properties": {"sum": {"type": "integer"}},
        "required": ["sum"],
    }
    tool = make_tool(add, output_schema=schema)
    assert definition(tool)["outputSchema"] == schema
    with pytest.raises(ValueError, match="invalid output schema: 'integr' is not valid"):
        make_tool(add, output_schema={"type": "integr"})
    with pytest.raises(ValueError, match="contradict"):
        make_tool(add, output_schema=schema, structured=False)


@pytest.mark.anyio
async def test_output_schema_override_checks_values() -> None:
    def total(a: int) -> Any:
        return {"sum": "many"}

    tool = make_tool(
        total,
        output_schema={"type": "object", "properties": {"sum": {"type": "integer"}}},
    )
    result = await call(tool, {"a": 1})
    assert result.is_error
    assert text_of(result) == (
        "Tool 'total' returned a value that does not match its output schema:\n"
        "- sum: 'many' is not of type 'integer'"
    )


def test_structured_off_and_forced() -> None:
    assert make_tool(add, structured=False).output_schema is None
    assert "outputSchema" not in definition(make_tool(add, structured=False))

    def listing() -> list:  # type: ignore[type-arg]
        return []

    with pytest.raises(TypeError, match="structured=True, but no output schema follows"):
        make_tool(listing, structured=True)
    assert make_tool(listing).output_schema is None


def test_content_annotations_never_get_a_schema() -> None:
    def picture() -> Image:
        raise NotImplementedError

    def full() -> ToolResult:
        raise NotImplementedError

    def maybe() -> Text | None:
        raise NotImplementedError

    for fn in (picture, full, maybe):
        assert make_tool(fn).output_schema is None


def test_decorated_function_stays_callable() -> None:
    app = Server("t")

    @app.tool
    def double(x: int) -> int:
        return 2 * x

    @app.tool(name="triple", annotations={"readOnlyHint": True})
    async def triple(x: int) -> int:
        return 3 * x

    assert double(4) == 8
    assert double.__name__ == "double"
    assert set(app.tools) == {"double", "triple"}
    with pytest.raises(ValueError, match="already registered"):
        app.add_tool(double)


# --- invocation -----------------------------------------------------------------------------


@pytest.mark.anyio
async def test_sync_tool_runs_in_a_worker_thread() -> None:
    seen: list[int] = []

    def where() -> str:
        seen.append(threading.get_ident())
        return "ok"

    result = await call(make_tool(where))
    assert text_of(result) == "ok"
    assert seen and seen[0] != threading.get_ident()


@pytest.mark.anyio
async def test_async_tool_runs_on_the_loop() -> None:
    seen: list[int] = []

    async def where() -> str:
        seen.append(threading.get_ident())
        return "ok"

    assert text_of(await call(make_tool(where))) == "ok"
    assert seen == [threading.get_ident()]


@pytest.mark.anyio
async def test_wrapped_async_tool_is_awaited() -> None:
    async def base(x: int) -> int:
        return x + 1

    @functools.wraps(base)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return base(*args, **kwargs)

    tool = make_tool(wrapper)
    assert tool.is_async
    result = await call(tool, {"x": 1})
    assert result.structured_json == b"2"


@pytest.mark.anyio
async def test_invalid_arguments_name_each_field() -> None:
    def book(city: str, nights: int, guests: int = 1) -> str:
        return city

    result = await call(make_tool(book), {"nights": "two", "guests": "x", "pets": 1})
    assert result.is_error
    assert text_of(result) == (
        "Invalid arguments for tool 'book':\n"
        "- city: Field required\n"
        '- nights: Input should be a valid integer, got "two"\n'
        '- guests: Input should be a valid integer, got "x"\n'
        "- pets: Unexpected argument"
    )


@pytest.mark.anyio
async def test_arguments_are_strict_json_types() -> None:
    result = await call(make_tool(add), {"a": "2", "b": True})
    assert result.is_error
    assert text_of(result) == (
        "Invalid arguments for tool 'add':\n"
        '- a: Input should be a valid integer, got "2"\n'
        "- b: Input should be a valid integer, got true"
    )


@pytest.mark.anyio
async def test_tool_error() -> None:
    def divide(a: float, b: float) -> float:
        if b == 0:
            raise ToolError("Cannot divide by zero")
        return a / b

    result = await call(make_tool(divide), {"a": 1, "b": 0})
    assert (result.is_error, text_of(result)) == (True, "Cannot divide by zero")


@pytest.mark.anyio
async def test_unexpected_exception_message_to_model_traceback_to_log(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def explode() -> str:
        raise KeyError("region")

    with caplog.at_level(logging.DEBUG, logger="plainmcp"):
        result = await call(make_tool(explode))
    assert (result.is_error, text_of(result)) == (True, "Tool 'explode' failed: KeyError: 'region'")
    assert "Traceback" not in text_of(result)
    [record] = caplog.records
    assert (record.levelno, record.getMessage()) == (logging.ERROR, "tool 'explode' failed")
    assert record.exc_info is not None and record.exc_info[0] is KeyError
    assert "in explode" in caplog.text  # the traceback is in the log


# --- expected refusals: one WARNING line, no traceback ----------------------------------------


def only_record(caplog: pytest.LogCaptureFixture) -> logging.LogRecord:
    [record] = caplog.records
    assert record.name == "plainmcp"
    return record


@pytest.mark.anyio
async def test_a_tool_error_is_logged_as_one_warning_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def divide(a: float, b: float) -> float:
        if b == 0:
            raise ToolError("Cannot divide by zero")
        return a / b

    def strict(n: int) -> int:
        raise ToolError("n is too large:\nthe limit is 10")

    with caplog.at_level(logging.DEBUG, logger="plainmcp"):
        result = await call(make_tool(divide), {"a": 1, "b": 0})
    assert text_of(result) == "Cannot divide by zero"
    record = only_record(caplog)
    assert (record.levelno, record.getMessage(), record.exc_info) == (
        logging.WARNING,
        "tool 'divide' refused (ToolError): Cannot divide by zero",
        None,
    )
    assert "Traceback" not in caplog.text
    assert record.getMessage() in DOCS.read_text(encoding="utf-8")  # the example in the docs
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="plainmcp"):
        result = await call(make_tool(strict), {"n": 11})
    assert text_of(result) == "n is too large:\nthe limit is 10"  # the model gets it as is
    record = only_record(caplog)
    assert (
        record.getMessage()
        == "tool 'strict' refused (ToolError): n is too large:\\nthe limit is 10"
    )
    assert "\n" not in caplog.text.rstrip("\n")  # one line


@pytest.mark.anyio
@pytest.mark.parametrize("mask_errors", [False, True])
async def test_a_safe_join_refusal_is_sent_and_logged_as_one_warning_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, mask_errors: bool
) -> None:
    def read_file(name: str) -> str:
        return safe_join(tmp_path, name).read_text()

    with caplog.at_level(logging.DEBUG, logger="plainmcp"):
        result = await call(
            make_tool(read_file), {"name": "../secret.txt"}, mask_errors=mask_errors
        )
    # Written for the client (it never shows the root), so sent even under mask_errors.
    message = "path '../secret.txt' is outside the served directory"
    assert (result.is_error, text_of(result)) == (
        True,
        f"Tool 'read_file' failed: ResourceError: {message}",
    )
    assert text_of(result) in " ".join(DOCS.read_text(encoding="utf-8").split())  # as documented
    record = only_record(caplog)
    assert (record.levelno, record.getMessage(), record.exc_info) == (
        logging.WARNING,
        f"tool 'read_file' refused (ResourceError): {message}",
        None,
    )
    assert str(tmp_path) not in caplog.text


@pytest.mark.anyio
async def test_a_missing_client_capability_is_logged_as_one_warning_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    missing = (
        "the client did not declare the 'elicitation' capability, so elicitation/create cannot"
        " be sent to it"
    )

    def ask() -> str:
        raise ClientCapabilityError(missing)

    def ask_stateless() -> str:
        raise ClientCapabilityError(missing, {"elicitation": {}})

    with caplog.at_level(logging.DEBUG, logger="plainmcp"):
        result = await call(make_tool(ask), mask_errors=True)
    assert text_of(result) == f"Tool 'ask' failed: ClientCapabilityError: {missing}"
    record = only_record(caplog)
    assert (record.levelno, record.getMessage(), record.exc_info) == (
        logging.WARNING,
        f"tool 'ask' refused (ClientCapabilityError): {missing}",
        None,
    )
    caplog.clear()
    # Stateless: the server answers -32021; the log line is the same.
    with caplog.at_level(logging.DEBUG, logger="plainmcp"), pytest.raises(ClientCapabilityError):
        await call_tool(make_tool(ask_stateless), {}, OPTIONS)
    record = only_record(caplog)
    assert (record.levelno, record.getMessage(), record.exc_info) == (
        logging.WARNING,
        f"tool 'ask_stateless' refused (ClientCapabilityError): {missing}",
        None,
    )


@pytest.mark.anyio
async def test_mask_errors_gives_an_id_that_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    def explode() -> str:
        raise RuntimeError("password=hunter2")

    with caplog.at_level(logging.ERROR, logger="plainmcp"):
        result = await call(make_tool(explode), mask_errors=True)
    text = text_of(result)
    match = re.fullmatch(
        r"Tool 'explode' failed unexpectedly \(error id ([0-9a-f]{12})\);"
        r" the details are in the server log\.",
        text,
    )
    assert result.is_error and match is not None
    assert "hunter2" not in text
    [record] = caplog.records
    assert record.getMessage() == f"tool 'explode' failed (error id {match.group(1)})"
    assert "hunter2" in caplog.text


@pytest.mark.anyio
async def test_mask_errors_keeps_tool_errors_and_argument_errors() -> None:
    def strict(n: int) -> int:
        raise ToolError("n is too large")

    tool = make_tool(strict)
    assert text_of(await call(tool, {"n": 1}, mask_errors=True)) == "n is too large"
    assert text_of(await call(tool, {}, mask_errors=True)) == (
        "Invalid arguments for tool 'strict':\n- n: Field required"
    )


@pytest.mark.anyio
async def test_structured_mismatch_names_the_field_and_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def weather() -> Weather:
        return {"city": "Oslo", "celsius": "cold"}  # type: ignore[typeddict-item]

    with caplog.at_level(logging.ERROR, logger="plainmcp"):
        result = await call(make_tool(weather))
    assert result.is_error
    assert text_of(result) == (
        "Tool 'weather' returned a value that does not match its output schema:\n"
        '- celsius: Input should be a valid number, got "cold"'
    )
    [record] = caplog.records
    assert record.getMessage().startswith("tool 'weather': result does not match its output schema")
    assert "celsius" in record.getMessage()


@pytest.mark.anyio
async def test_garbage_return_is_an_error_and_the_next_call_works(
    caplog: pytest.LogCaptureFixture,
) -> None:
    calls = 0

    def flaky() -> Any:
        nonlocal calls
        calls += 1
        return object() if calls == 1 else "fine"

    tool = make_tool(flaky)
    with caplog.at_level(logging.ERROR, logger="plainmcp"):
        first = await call(tool)
    assert first.is_error
    assert text_of(first) == (
        "Tool 'flaky' returned a value that cannot be sent:"
        " a value of type object cannot be converted to JSON; return a str, JSON-able data"
        " (dict, list, dataclass, pydantic model), bytes, or a content block such as"
        " Image(data=png_bytes) or File(data=..., mime_type=...)"
    )
    assert "cannot be sent" in caplog.text
    second = await call(tool)
    assert (second.is_error, text_of(second)) == (False, "fine")


@pytest.mark.anyio
async def test_context_parameters_are_hidden_and_injected() -> None:
    def whoami(name: str, session: Context) -> str:
        return f"{name}@{session}"

    tool = make_tool(whoami)
    assert tool.context_params == ("session",)
    assert list(tool.input_schema["properties"]) == ["name"]
    result = await call(tool, {"name": "a"}, context="s1")
    assert text_of(result) == "a@s1"
    rejected = await call(tool, {"name": "a", "session": "forged"})
    assert (
        text_of(rejected) == "Invalid arguments for tool 'whoami':\n- session: Unexpected argument"
    )


@pytest.mark.anyio
async def test_whole_value_mismatch_says_return_value() -> None:
    def wrong() -> int:
        return "x"  # type: ignore[return-value]

    result = await call(make_tool(wrong))
    assert text_of(result) == (
        "Tool 'wrong' returned a value that does not match its output schema:\n"
        '- (return value): Input should be a valid integer, got "x"'
    )


@pytest.mark.anyio
async def test_integers_beyond_64_bits_pass_output_validation() -> None:
    def big() -> dict[str, int]:
        return {"n": 2**70, "m": 12345678901234567890123}

    result = await call(make_tool(big))
    assert not result.is_error
    assert result.structured_json == b'{"n":1180591620717411303424,"m":12345678901234567890123}'


SCHEMA_2020_12 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
    "additionalProperties": False,
}


@pytest.mark.anyio
async def test_hand_written_input_schema_is_sent_verbatim_and_checked() -> None:
    def register(**arguments: Any) -> str:
        return f"{arguments['name']} lives in {arguments.get('address', {}).get('city', '?')}"

    tool = make_tool(register, name="register", input_schema=SCHEMA_2020_12)
    assert tool.input_schema == SCHEMA_2020_12
    ok = await call(tool, {"name": "Ada", "address": {"city": "London"}})
    assert text_of(ok) == "Ada lives in London"
    bad = await call(tool, {"name": 7, "address": {"city": 1}, "extra": True})
    assert text_of(bad) == (
        "Invalid arguments for tool 'register':\n"
        "- (arguments): Additional properties are not allowed ('extra' was unexpected)\n"
        "- address.city: 1 is not of type 'string'\n"
        "- name: 7 is not of type 'string'"
    )


def test_hand_written_input_schema_needs_an_object_root() -> None:
    with pytest.raises(ValueError, match='needs "type": "object" at its root'):
        make_tool(lambda **kw: "x", name="x", input_schema={"type": "array"})
    with pytest.raises(ValueError, match="invalid input schema"):
        make_tool(lambda **kw: "x", name="x", input_schema={"type": "object", "required": 3})


def test_examples_are_kept_for_plainmcp_check_and_sent_nowhere() -> None:
    def add(a: int, b: int) -> int:
        return a + b

    tool = make_tool(add, examples=[{"a": 2, "b": 3}])
    assert tool.examples == ({"a": 2, "b": 3},)
    assert make_tool(add).examples == ()
    for rev in REVISIONS.values():
        assert "examples" not in str(definitions.tool(tool, rev, ResultOptions()))


@pytest.mark.parametrize("bad", [{"a": 1}, [1], [{1: "a"}]])
def test_examples_must_be_argument_objects(bad: Any) -> None:
    def add(a: int) -> int:
        return a

    with pytest.raises(TypeError, match="tool 'add': "):
        make_tool(add, examples=bad)


# --- inline=True: a plain def on the event loop ----------------------------------------------


def weather(city: str, mode: str = "ok") -> Weather:
    """One function for every outcome: a value, a ToolError, an unexpected exception."""
    if mode == "refuse":
        raise ToolError(f"no station in {city}")
    if mode == "boom":
        raise ValueError("the sensor broke")
    return {"city": city, "celsius": 3.5}


def test_inline_results_errors_and_structured_output_are_those_of_the_thread() -> None:
    inline, threaded = Server("t"), Server("t")
    inline.tool(inline=True)(weather)
    threaded.tool(weather)
    assert inline.tools["weather"].inline and not threaded.tools["weather"].inline
    cases = [{"city": "Oslo"}, {"city": "Oslo", "mode": "refuse"}, {"city": "Oslo", "mode": "boom"}]
    cases.append({"city": 3})
    sent = [render_all(inline, "weather", case) for case in cases]
    assert [orjson.dumps(s) for s in sent] == [
        orjson.dumps(render_all(threaded, "weather", case)) for case in cases
    ]
    assert [s["2025-11-25"] for s in sent] == [
        {
            "content": [{"type": "text", "text": '{"city":"Oslo","celsius":3.5}'}],
            "structuredContent": {"city": "Oslo", "celsius": 3.5},
            "isError": False,
        },
        {"content": [{"type": "text", "text": "no station in Oslo"}], "isError": True},
        {
            "content": [
                {"type": "text", "text": "Tool 'weather' failed: ValueError: the sensor broke"}
            ],
            "isError": True,
        },
        {
            "content": [
                {
                    "type": "text",
                    "text": "Invalid arguments for tool 'weather':\n"
                    "- city: Input should be a valid string, got 3",
                }
            ],
            "isError": True,
        },
    ]


def test_inline_is_refused_for_async_functions_and_with_a_timeout() -> None:
    app = Server("t")

    async def fetch() -> str:
        return "x"

    class Caller:
        __name__ = "caller"

        async def __call__(self) -> str:
            return "x"

    def add(a: int, b: int) -> int:
        return a + b

    messages = []
    for fn in (fetch, Caller(), functools.partial(fetch)):
        with pytest.raises(TypeError) as got:
            app.tool(name="f", inline=True)(fn)
        messages.append(str(got.value))
    with pytest.raises(TypeError) as bounded:
        app.tool(inline=True, timeout=5)(add)
    async_refusal = (
        "tool 'f': inline=True is for a plain def function; an async one runs on the event loop"
        " already"
    )
    assert messages == [async_refusal] * 3
    assert str(bounded.value) == (
        "tool 'add': inline=True and timeout= cannot go together: an inline function runs on the"
        " event loop, where nothing can stop it at a deadline"
    )
    assert app.tools == {}


@pytest.mark.anyio
async def test_an_inline_tools_iterator_is_drained_on_the_loop_too() -> None:
    loop_thread = threading.get_ident()
    taken: list[tuple[str, bool]] = []

    def items(label: str) -> Iterator[int]:
        for n in range(3):
            taken.append((label, threading.get_ident() == loop_thread))
            yield n

    inline = await call(make_tool(items, inline=True), {"label": "inline"})
    threaded = await call(make_tool(items), {"label": "worker"})
    assert inline.structured_json == threaded.structured_json == b"[0,1,2]"
    assert taken == [("inline", True)] * 3 + [("worker", False)] * 3


@pytest.mark.anyio
async def test_an_inline_tool_has_the_synchronous_context_but_not_anyio_from_thread() -> None:
    app = Server("t")
    loop_thread = threading.get_ident()

    async def on_loop() -> str:
        return "reached"

    @app.tool(inline=True)
    def probe(ctx: Context) -> str:
        try:
            hop = anyio.from_thread.run(on_loop)
        except RuntimeError as exc:
            hop = type(exc).__name__
        return (
            f"id={ctx.request_id} client={ctx.client_info['name']} cancelled={ctx.cancelled}"
            f" on the loop={threading.get_ident() == loop_thread} from_thread: {hop}"
        )

    async with connect(app) as client:
        result = await client.call_tool("probe", {})
    assert result.text == (
        "id=2 client=plainmcp cancelled=False on the loop=True from_thread: NoEventLoopError"
    )
