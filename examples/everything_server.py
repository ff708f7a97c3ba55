"""The conformance fixture server: exactly what the official MCP conformance suite calls.

The tools, resources, resource template and prompts below carry the names, arguments and outputs
the suite's server scenarios expect (../shared/conformance.md §1.4), written with plainmcp and
nothing else. Run it over stdio with `python examples/everything_server.py`; the module's `app`
is what an HTTP runner serves. The fixtures of the 2026-07-28 requirement set (suite
0.2.0-alpha.12: input-required results, list changes for subscriptions/listen, a missing client
capability, an x-mcp-header parameter) come after the older ones, so the older ones keep their
places in tools/list and prompts/list.

Media are made in code (a 1x1 PNG, a 10 ms WAV tone), so the fixture needs no files.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import math
import struct
import wave
import zlib
from collections.abc import Awaitable, Iterator, Mapping
from pathlib import Path
from typing import Annotated, Any

from plainmcp import (
    Audio,
    ClientCapabilityError,
    ClientRequestError,
    Context,
    ElicitResult,
    EmbeddedResource,
    Header,
    Image,
    Message,
    PromptError,
    Server,
    ToolError,
)
from plainmcp.skills import Skills

skills = Skills()  # the sep-2640-skills-* fixtures, added last (the end of this file)
app = Server(
    "plainmcp-everything",
    version="0.1.0",
    instructions=(
        "Conformance fixtures: test tools for every kind of content, logging, progress, errors,"
        " sampling and elicitation; test:// resources and a template; test prompts; and the"
        " 2026-07-28 fixtures (input-required results, list changes, a missing capability, an"
        " x-mcp-header parameter)."
    ),  # No result here reaches the payload limits: no continuation tool (read_more) in the list.
    continuation=None,
    extensions=[skills],
)


# --- media made in code ------------------------------------------------------------------------


def _png_rgb(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """An 8-bit RGB PNG of one colour."""
    row = b"\x00" + bytes(rgb) * width  # filter byte 0, then the pixels

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + data))
        return struct.pack(">I", len(data)) + kind + data + crc

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(row * height, 9))
        + chunk(b"IEND", b"")
    )


def _wav_tone(frequency: int = 440, duration_ms: int = 10, rate: int = 8000) -> bytes:
    """A mono 16-bit PCM WAV of a sine tone."""
    count = rate * duration_ms // 1000
    samples = (round(8000 * math.sin(2 * math.pi * frequency * i / rate)) for i in range(count))
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(b"".join(struct.pack("<h", s) for s in samples))
    return buffer.getvalue()


PNG = _png_rgb(1, 1, (255, 0, 0))
"""A 1x1 red pixel: the image of the image tools and prompt, and test://static-binary."""
WAV = _wav_tone()
"""10 ms of a 440 Hz tone at 8 kHz (80 frames)."""


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


# --- tools: content ----------------------------------------------------------------------------


@app.tool
def test_simple_text() -> str:
    """Tests simple text content response."""
    return "This is a simple text response for testing."


@app.tool
def test_image_content() -> Image:
    """Tests image content response (a PNG)."""
    return Image(PNG, mime_type="image/png")


@app.tool
def test_audio_content() -> Audio:
    """Tests audio content response (a WAV)."""
    return Audio(WAV, mime_type="audio/wav")


@app.tool
def test_embedded_resource() -> EmbeddedResource:
    """Tests embedded resource content response."""
    return EmbeddedResource(
        uri="test://embedded-resource",
        text="This is an embedded resource content.",
        mime_type="text/plain",
    )


@app.tool
def test_multiple_content_types() -> list:
    """Tests a response with multiple content types (text, image, resource)."""
    return [
        "Multiple content types test:",
        Image(PNG, mime_type="image/png"),
        EmbeddedResource(
            uri="test://mixed-content-resource",
            text=_compact({"test": "data", "value": 123}),
            mime_type="application/json",
        ),
    ]


@app.tool
def test_error_handling() -> str:
    """Tests error response handling: always returns an isError result."""
    raise ToolError("This tool intentionally returns an error for testing")


# --- tools: notifications during a call --------------------------------------------------------


@app.tool
async def test_tool_with_logging(ctx: Context) -> str:
    """Tests a tool that sends three log messages (level info) while it runs."""
    await ctx.info("Tool execution started")
    await asyncio.sleep(0.05)
    await ctx.info("Tool processing data")
    await asyncio.sleep(0.05)
    await ctx.info("Tool execution completed")
    return "Tool with logging executed successfully"


@app.tool
async def test_tool_with_progress(ctx: Context) -> str:
    """Tests a tool that reports progress 0, 50 and 100 of 100; returns the progress token."""
    await ctx.report_progress(0, 100)
    await asyncio.sleep(0.05)
    await ctx.report_progress(50, 100)
    await asyncio.sleep(0.05)
    await ctx.report_progress(100, 100)
    if ctx.progress_token is None:
        return "No progress token was given"
    return str(ctx.progress_token)


# --- tools: requests to the client -------------------------------------------------------------


async def _elicit(ctx: Context, message: str, schema: Mapping[str, Any]) -> str:
    """Ask the client; the answer as "action=<action>, content=<JSON>"."""
    try:
        answer = await ctx.elicit(message, schema)
    except (ClientCapabilityError, ClientRequestError, TimeoutError) as exc:
        raise ToolError(f"Elicitation failed: {exc}") from None
    return f"action={answer.action}, content={_compact(answer.content or {})}"


@app.tool
async def test_sampling(prompt: str, ctx: Context) -> str:
    """Tests server-initiated sampling: asks the client's model and returns its answer.

    Args:
        prompt: The prompt to send to the client's model.
    """
    try:
        answer = await ctx.sample(prompt, max_tokens=100)
    except (ClientCapabilityError, ClientRequestError, TimeoutError) as exc:
        raise ToolError(f"Sampling failed: {exc}") from None
    if answer.text is None:
        kind = answer.content.get("type") if isinstance(answer.content, dict) else None
        return f"LLM response: (a {kind} answer, not text)"
    return f"LLM response: {answer.text}"


USER_INFO = {
    "type": "object",
    "properties": {
        "username": {"type": "string", "description": "The user's name"},
        "email": {"type": "string", "description": "The user's email address"},
    },
    "required": ["username", "email"],
}


@app.tool
async def test_elicitation(message: str, ctx: Context) -> str:
    """Tests server-initiated elicitation: asks the user for a username and an email.

    Args:
        message: The message to show the user.
    """
    return "User response: " + await _elicit(ctx, message, USER_INFO)


DEFAULTS = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "User name", "default": "John Doe"},
        "age": {"type": "integer", "description": "User age", "default": 30},
        "score": {"type": "number", "description": "User score", "default": 95.5},
        "status": {
            "type": "string",
            "description": "User status",
            "enum": ["active", "inactive", "pending"],
            "default": "active",
        },
        "verified": {"type": "boolean", "description": "Verification status", "default": True},
    },
}


@app.tool
async def test_elicitation_sep1034_defaults(ctx: Context) -> str:
    """Tests elicitation with a default value for every primitive type (SEP-1034)."""
    answer = await _elicit(ctx, "Please review and update the form fields with defaults", DEFAULTS)
    return "Elicitation completed: " + answer


ENUMS = {
    "type": "object",
    "properties": {
        "untitledSingle": {
            "type": "string",
            "description": "Select one option",
            "enum": ["option1", "option2", "option3"],
        },
        "titledSingle": {
            "type": "string",
            "description": "Select one option with titles",
            "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"},
                {"const": "value3", "title": "Third Option"},
            ],
        },
        "legacyEnum": {
            "type": "string",
            "description": "Select one option (legacy)",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
        "untitledMulti": {
            "type": "array",
            "description": "Select multiple options",
            "minItems": 1,
            "maxItems": 3,
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
        },
        "titledMulti": {
            "type": "array",
            "description": "Select multiple options with titles",
            "minItems": 1,
            "maxItems": 3,
            "items": {
                "anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"},
                ]
            },
        },
    },
}


@app.tool
async def test_elicitation_sep1330_enums(ctx: Context) -> str:
    """Tests elicitation with the five enum schema shapes of SEP-1330 (2025-11-25 and later)."""
    if ctx.revision < "2025-11-25":
        # Multi-select (array) fields are not in the earlier elicitation schemas.
        raise ToolError(
            "test_elicitation_sep1330_enums needs protocol revision 2025-11-25 or later"
            f" (multi-select and titled enums); this session speaks {ctx.revision}"
        )
    answer = await _elicit(ctx, "Please select options from the enum fields", ENUMS)
    return "Elicitation completed: " + answer


# --- tools: a hand-written input schema --------------------------------------------------------

JSON_SCHEMA_2020_12 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "$anchor": "address",
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
    "additionalProperties": False,
    # 2020-12 composition and conditionals, kept verbatim (SEP-2106; they constrain little).
    "allOf": [{"anyOf": [{"required": ["name"]}, {"required": ["address"]}, {"maxProperties": 0}]}],
    "if": {"required": ["address"]},
    "then": {"properties": {"address": {"type": "object"}}},
    "else": {"properties": {"name": {"type": "string"}}},
}


@app.tool(input_schema=JSON_SCHEMA_2020_12)
def json_schema_2020_12_tool(**arguments: Any) -> str:
    """Tool with JSON Schema 2020-12 features: $schema, $defs, $anchor, allOf, if/then/else."""
    return f"JSON Schema 2020-12 tool called with: {_compact(arguments)}"


# --- tools: the 2026-07-28 fixtures (suite 0.2.0-alpha.12, --requirements 2026-07-28) -----------
#
# In a 2026-07-28 (stateless) request, ctx.elicit, ctx.sample and ctx.list_roots end the call
# with an input-required result; the client's retry runs the tool again from the start, with the
# answers so far. In a handshake session the same calls ask the client during the call.

STATELESS = "2026-07-28"


@contextlib.contextmanager
def _asking(what: str, error: type[Exception] = ToolError) -> Iterator[None]:
    """A failure to ask the client becomes `error` (a tool error the model can read), except a
    stateless request's undeclared capability, which the server answers with -32021."""
    try:
        yield
    except ClientCapabilityError as exc:
        if exc.required is not None:
            raise
        raise error(f"{what} failed: {exc}") from None
    except (ClientRequestError, TimeoutError, ValueError) as exc:
        raise error(f"{what} failed: {exc}") from None


def _one_string(name: str) -> dict[str, Any]:
    """A form with one required string field."""
    return {"type": "object", "properties": {name: {"type": "string"}}, "required": [name]}


CONFIRM = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
CONFIRM_DELETE = {
    "type": "object",
    "properties": {"confirm": {"type": "boolean"}},
    "required": ["confirm"],
}
CONFIRM_WITH_NAME = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "confirm": {"type": "boolean"}},
}


def _accepted(answer: ElicitResult, field: str, error: type[Exception] = ToolError) -> Any:
    """The accepted answer's `field`, or `error` naming what the user did instead."""
    if answer.action != "accept":
        raise error(f"The user did not answer (action={answer.action})")
    content = answer.content or {}
    if field not in content:
        raise error(f"The answer has no {field!r}: {_compact(content)}")
    return content[field]


def _sampled_text(answer: Any) -> str:
    kind = answer.content.get("type") if isinstance(answer.content, dict) else None
    return answer.text if answer.text is not None else f"(a {kind} answer, not text)"


def _roots_text(roots: list[Any]) -> str:
    if not roots:
        return "no roots"
    return ", ".join(r.uri if r.name is None else f"{r.uri} ({r.name})" for r in roots)


@app.tool
async def test_missing_capability(ctx: Context) -> str:
    """Tests a request that needs the client's sampling capability: a 2026-07-28 request that
    does not declare it fails with -32021 (requiredCapabilities {"sampling": {}})."""
    with _asking("Sampling"):
        answer = await ctx.sample("Say hello.", max_tokens=20)
    return f"Sampling response: {_sampled_text(answer)}"


TEMPORARY_TOOL = "test_temporary_tool"
TEMPORARY_PROMPT = "test_temporary_prompt"


def _temporary_tool() -> str:
    """A tool that exists only for a moment, inside test_trigger_tool_change."""
    return "temporary"


def _temporary_prompt() -> str:
    """A prompt that exists only for a moment, inside test_trigger_prompt_change."""
    return "temporary"


@app.tool
async def test_trigger_tool_change() -> str:
    """Tests tool list change notifications: adds and then removes a temporary tool, so each
    session and subscriptions/listen stream that asked for tool list changes is told twice."""
    # async and without an await in between: no other request sees the temporary tool.
    app.add_tool(_temporary_tool, name=TEMPORARY_TOOL)
    app.remove_tool(TEMPORARY_TOOL)
    return f"The tool list changed: {TEMPORARY_TOOL} was added and removed"


@app.tool
async def test_trigger_prompt_change() -> str:
    """Tests prompt list change notifications: adds and then removes a temporary prompt, so each
    session and subscriptions/listen stream that asked for prompt list changes is told twice."""
    app.prompts.add(_temporary_prompt, name=TEMPORARY_PROMPT)
    app.prompts.remove(TEMPORARY_PROMPT)
    return f"The prompt list changed: {TEMPORARY_PROMPT} was added and removed"


@app.tool
async def test_input_required_result_elicitation(ctx: Context) -> str:
    """Tests an input-required result with one elicitation (input key "user_name"): asks for a
    name and greets it."""
    with _asking("Elicitation"):
        answer = await ctx.elicit("What is your name?", _one_string("name"), key="user_name")
    return f"Hello, {_accepted(answer, 'name')}!"


@app.tool
async def test_input_required_result_sampling(ctx: Context) -> str:
    """Tests an input-required result with one sampling request: asks the client's model for
    the capital of France and returns its answer."""
    with _asking("Sampling"):
        answer = await ctx.sample("What is the capital of France?", max_tokens=100)
    return f"Sampling response: {_sampled_text(answer)}"


@app.tool
async def test_input_required_result_list_roots(ctx: Context) -> str:
    """Tests an input-required result with one roots/list request: returns the client's roots."""
    with _asking("Listing roots"):
        roots = await ctx.list_roots()
    return f"Client roots: {_roots_text(roots)}"


@app.tool
async def test_input_required_result_request_state(ctx: Context) -> str:
    """Tests the requestState round trip: asks for a confirmation; the answer is only accepted
    with the signed requestState of the first round, so the result says "state-ok"."""
    with _asking("Elicitation"):
        answer = await ctx.elicit("Please confirm", CONFIRM)
    return f"state-ok: ok={_compact(_accepted(answer, 'ok'))}"


@app.tool
async def test_input_required_result_multiple_inputs(ctx: Context) -> str:
    """Tests one input-required result with three input requests: an elicitation (a name), a
    sampling request (a greeting) and roots/list."""
    with _asking("Asking the client"):
        name, greeting, roots = await ctx.ask_all(
            ctx.elicit("What is your name?", _one_string("name")),
            ctx.sample("Generate a greeting", max_tokens=50),
            ctx.list_roots(),
        )
    return (
        f"name={_accepted(name, 'name')}; greeting={_sampled_text(greeting)};"
        f" roots={_roots_text(roots)}"
    )


@app.tool
async def test_input_required_result_multi_round(ctx: Context) -> str:
    """Tests two rounds of input-required results: asks for a name, then for a favorite colour
    (a new requestState each round)."""
    with _asking("Elicitation"):
        name = await ctx.elicit("Step 1: What is your name?", _one_string("name"))
        color = await ctx.elicit("Step 2: What is your favorite color?", _one_string("color"))
    return f"{_accepted(name, 'name')}'s favorite color is {_accepted(color, 'color')}"


@app.tool
async def test_input_required_result_tampered_state(ctx: Context) -> str:
    """Tests requestState integrity: asks for a confirmation; a retry whose requestState was
    altered is rejected with -32602."""
    with _asking("Elicitation"):
        answer = await ctx.elicit("Please confirm", CONFIRM)
    return f"Confirmed: ok={_compact(_accepted(answer, 'ok'))}"


@app.tool
async def test_input_required_result_capabilities(ctx: Context) -> str:
    """Tests that input requests follow the client's declared capabilities: asks for a name by
    elicitation and a greeting by sampling, each only if the client declared that capability."""
    asks: list[Awaitable[Any]] = []
    kinds = [kind for kind in ("elicitation", "sampling") if kind in ctx.client_capabilities]
    if not kinds:
        return "The client declared neither elicitation nor sampling: nothing was asked"
    for kind in kinds:
        if kind == "elicitation":
            asks.append(ctx.elicit("What is your name?", _one_string("name")))
        else:
            asks.append(ctx.sample("Generate a greeting", max_tokens=50))
    with _asking("Asking the client"):
        answers = await ctx.ask_all(*asks)
    parts = [
        f"name={_accepted(answer, 'name')}"
        if kind == "elicitation"
        else f"greeting={_sampled_text(answer)}"
        for kind, answer in zip(kinds, answers, strict=True)
    ]
    return "; ".join(parts)


@app.tool
async def test_streaming_elicitation(ctx: Context) -> str:
    """Tests an elicitation during a call: a handshake session gets elicitation/create while the
    call runs; a 2026-07-28 request gets an input-required result (never a request on the
    response stream)."""
    with _asking("Elicitation"):
        answer = await ctx.elicit("Please provide your information", USER_INFO)
    return f"User response: action={answer.action}, content={_compact(answer.content or {})}"


@app.tool
async def test_logging_tool(ctx: Context) -> str:
    """Tests log filtering: logs at debug, info and warning; a 2026-07-28 request receives only
    those at or above the level its _meta names, and none when it names no level."""
    await ctx.debug("Logging tool: a debug message")
    await ctx.info("Logging tool: an info message")
    await ctx.warning("Logging tool: a warning message")
    return "Logged a debug, an info and a warning message"


@app.tool
def test_x_mcp_header(region: Annotated[str, Header("Region")]) -> str:
    """Tests a parameter mirrored into an HTTP header: `region` is sent again as Mcp-Param-Region
    (x-mcp-header "Region"), and the HTTP transport checks that both agree.

    Args:
        region: The region to report back.
    """
    return f"Region: {region}"


@app.tool
def test_reconnection(ctx: Context) -> str:
    """Tests SSE polling: closes the HTTP response stream before returning, so the client
    reconnects with Last-Event-ID and gets the result from the event log (2025-11-25)."""
    ctx.close_stream()
    return "Reconnection test completed"


# --- tasks: SEP-2663 (io.modelcontextprotocol/tasks, 2026-07-28) and 2025-11-25's core tasks ----


@app.tool
def greet(name: str) -> str:
    """Greets by name; never a task (the tasks scenarios' plain tool).

    Args:
        name: Who to greet.
    """
    return f"Hello, {name}!"


@app.tool(task="optional")
async def slow_compute(seconds: float, label: str = "") -> str:
    """Waits `seconds`, then reports: answered inline when that is within the server's task
    budget (seconds 0), else run as a task; a cancelled task stops waiting.

    Args:
        seconds: How long the computation takes.
        label: A name for this computation, repeated in the result.
    """
    await asyncio.sleep(seconds)
    return f"Computed {label or 'a result'} in {seconds:g} seconds"


@app.tool(task="required")
async def failing_job() -> str:
    """Always a task; after a second it fails with its own error (an isError result, so the
    task is completed at 2026-07-28, failed at 2025-11-25)."""
    await asyncio.sleep(1)
    raise ToolError("failing_job failed, as it always does")


@app.tool(task="required")
async def protocol_error_job() -> str:
    """Always a task; after a second it ends in a JSON-RPC error, not a tool result: it needs a
    client capability no client declares (-32021), so the task is failed with that error."""
    await asyncio.sleep(1)
    raise ClientCapabilityError(
        "protocol_error_job needs the client capability com.example/never",
        {"extensions": {"com.example/never": {}}},
    )


@app.tool(task="optional")
async def confirm_delete(filename: str, ctx: Context) -> str:
    """Becomes a task at once, then asks the user (one elicitation, an input request of the
    task) to confirm deleting `filename`; nothing is deleted.

    Args:
        filename: The file to delete.
    """
    await ctx.become_task()
    answer = await ctx.elicit(f"Delete {filename}?", CONFIRM_DELETE)
    confirmed = answer.action == "accept" and bool((answer.content or {}).get("confirm"))
    return f"{filename}: {'deleted' if confirmed else 'kept'} (a fixture: nothing is deleted)"


@app.tool(task="optional")
async def multi_input(ctx: Context) -> str:
    """Becomes a task at once, then asks two questions at the same time, so that two input
    requests are outstanding together; answers once both are in."""
    await ctx.become_task()
    first, second = await asyncio.gather(
        ctx.elicit("First: your name?", CONFIRM_WITH_NAME),
        ctx.elicit("Second: your name?", CONFIRM_WITH_NAME),
    )
    return f"Answers: {_compact(first.content or {})} and {_compact(second.content or {})}"


@app.tool(task="required")
async def test_tool_with_task(ctx: Context) -> str:
    """Asks the user's name first (an input-required result, answered before any task), then
    becomes a task whose result greets that name."""
    with _asking("Elicitation"):
        answer = await ctx.elicit("What is your name?", _one_string("name"))
    name = _accepted(answer, "name")
    await ctx.become_task()
    await asyncio.sleep(0.1)
    return f"Hello, {name}! (from a task)"


# --- resources ---------------------------------------------------------------------------------

app.add_resource(
    "This is the content of the static text resource.",
    "test://static-text",
    name="static-text",
    title="Static Text Resource",
    description="A static text resource for testing",
    mime_type="text/plain",
)

app.add_resource(
    PNG,
    "test://static-binary",
    name="static-binary",
    title="Static Binary Resource",
    description="A static binary resource (a PNG image) for testing",
    mime_type="image/png",
)

TEMPLATE_IDS = ("1", "2", "3", "123")
"""Suggested ids for completion of the template's {id} (any id reads)."""


def _complete_id(value: str, _arguments: Mapping[str, str]) -> list[str]:
    return [i for i in TEMPLATE_IDS if i.startswith(value)]


@app.resource(
    "test://template/{id}/data",
    name="template",
    title="Resource Template",
    description="A resource template with parameter substitution",
    mime_type="application/json",
    complete={"id": _complete_id},
)
def template_data(id: str) -> dict[str, Any]:
    return {"id": id, "templateTest": True, "data": f"Data for ID: {id}"}


WATCHED = {"text": "Watched resource content"}
"""The watched resource's current text (whoever changes it calls app.notify_resource_updated)."""


@app.resource(
    "test://watched-resource",
    name="watched-resource",
    title="Watched Resource",
    description="A resource clients can subscribe to for updates",
    mime_type="text/plain",
)
def watched_resource() -> str:
    return WATCHED["text"]


# --- prompts -----------------------------------------------------------------------------------

PROMPT_SUGGESTIONS = ("testValue1", "testValue2")


def _complete_arg(value: str, _arguments: Mapping[str, str]) -> list[str]:
    return [s for s in PROMPT_SUGGESTIONS if s.startswith(value)]


@app.prompt
def test_simple_prompt() -> str:
    """A simple prompt without arguments."""
    return "This is a simple prompt for testing."


@app.prompt(complete={"arg1": _complete_arg, "arg2": _complete_arg})
def test_prompt_with_arguments(arg1: str, arg2: str) -> str:
    """A prompt with two required arguments.

    Args:
        arg1: First test argument.
        arg2: Second test argument.
    """
    return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"


@app.prompt
def test_prompt_with_embedded_resource(resourceUri: str) -> list[Message]:
    """A prompt that includes an embedded resource.

    Args:
        resourceUri: URI of the resource to embed.
    """
    return [
        Message(
            "user",
            EmbeddedResource(
                uri=resourceUri,
                text="Embedded resource content for testing.",
                mime_type="text/plain",
            ),
        ),
        Message("user", "Please process the embedded resource above."),
    ]


@app.prompt
def test_prompt_with_image() -> list[Message]:
    """A prompt that includes image content."""
    return [
        Message("user", Image(PNG, mime_type="image/png")),
        Message("user", "Please analyze the image above."),
    ]


@app.prompt
async def test_input_required_result_prompt(ctx: Context) -> str:
    """A prompt that needs the user's input first (an input-required result at 2026-07-28)."""
    with _asking("Elicitation", PromptError):
        answer = await ctx.elicit("What context should the prompt use?", _one_string("context"))
    return f"Please answer using this context: {_accepted(answer, 'context', PromptError)}"


skills.add_folder(Path(__file__).parent / "skills")  # listed after every other resource

if __name__ == "__main__":
    app.run()
