"""The conformance fixture server: exactly what the official MCP conformance suite calls.

The tools, resources, resource template and prompts below carry the names, arguments and outputs
the suite's server scenarios expect (../shared/conformance.md §1.4), written with plainmcp and
nothing else. Run it over stdio with `python examples/everything_server.py`; the module's `app`
is what an HTTP runner serves.

Media are made in code (a 1x1 PNG, a 10 ms WAV tone), so the fixture needs no files.
"""

from __future__ import annotations

import asyncio
import io
import json
import math
import struct
import wave
import zlib
from collections.abc import Mapping
from typing import Any

from plainmcp import (
    Audio,
    ClientCapabilityError,
    ClientRequestError,
    Context,
    EmbeddedResource,
    Image,
    Message,
    Server,
    ToolError,
)

app = Server(
    "plainmcp-everything",
    version="0.1.0",
    instructions=(
        "Conformance fixtures: test tools for every kind of content, logging, progress, errors,"
        " sampling and elicitation; test:// resources and a template; four test prompts."
    ),
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
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
    "additionalProperties": False,
}


@app.tool(input_schema=JSON_SCHEMA_2020_12)
def json_schema_2020_12_tool(**arguments: Any) -> str:
    """Tool with JSON Schema 2020-12 features ($schema, $defs, additionalProperties; SEP-1613)."""
    return f"JSON Schema 2020-12 tool called with: {_compact(arguments)}"


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


if __name__ == "__main__":
    app.run()
