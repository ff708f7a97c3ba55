"""What each host profile changes in a rendered result (hosts.adapt), end to end over an
in-memory connection: exact results per (revision, host), at a handshake revision (clientInfo in
`initialize`) and at 2026-07-28 (clientInfo in each request's `_meta`). Every message the server
writes is validated against the official schema of its revision (tests.conftest.Session)."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from pydantic import BaseModel

from plainmcp import Audio, Image, PayloadLimits, Server, ToolResult
from plainmcp.hosts import adapt
from plainmcp.hosts.profiles import (
    CODEX_CLI,
    COPILOT_CLI,
    FASTMCP_DEFAULT,
    GEMINI_CLI,
    GENERIC,
    LANGCHAIN,
    PROFILES,
    PYDANTIC_AI,
    HostProfile,
    profile_for,
)
from plainmcp.model.results import CallResult
from tests.conftest import Session
from tests.continuation import next_call
from tests.test_stateless import CLIENT_INFO, EraSession, meta

pytestmark = pytest.mark.anyio

PNG = b"\x89PNG"
WAV = b"RIFF\x00\x00"
SAYS = "TEXT-SAYS-SEVEN files were found"
DESCRIBED_PNG = (
    "[An image block (image/png, 4 bytes) is part of this result; this client does not pass it"
    " to the model.]"
)


class Count(BaseModel):
    count: int


def make_app(**settings: Any) -> Server:
    app = Server("hosts", version="1", **{"continuation": None, **settings})

    @app.tool()
    def says_more() -> ToolResult:
        """Text that says more than the structured value."""
        return ToolResult(SAYS, structured={"count": 2})

    @app.tool()
    def mirrored() -> ToolResult:
        """A structured value whose text is its JSON."""
        return ToolResult(structured={"count": 2})

    @app.tool(output_schema=Count.model_json_schema())
    def schema_says_more() -> ToolResult:
        """Text that says more, with an output schema."""
        return ToolResult(SAYS, structured={"count": 2})

    @app.tool()
    def two_errors() -> ToolResult:
        """An error in two text blocks."""
        return ToolResult(["bad input", "try count=1"], is_error=True)

    @app.tool()
    def picture() -> Image:
        """Only an image."""
        return Image(PNG, mime_type="image/png")

    return app


async def handshake_call(
    app: Server, client: str, tool: str, version: str = "2025-11-25"
) -> dict[str, Any]:
    async with Session(app) as s:
        await s.initialize(version, client_info={"name": client, "version": "1"})
        return await s.call(tool, {})


async def modern_call(app: Server, client: str, tool: str) -> dict[str, Any]:
    async with EraSession(app) as s:
        reply = await s.modern(
            "tools/call",
            {
                "name": tool,
                "arguments": {},
                "_meta": meta(**{CLIENT_INFO: {"name": client, "version": "1"}}),
            },
        )
    result: dict[str, Any] = reply["result"]
    assert result.pop("resultType") == "complete"
    own = result.pop("_meta")
    assert own.pop("io.modelcontextprotocol/serverInfo") == {"name": "hosts", "version": "1"}
    if own:
        result["_meta"] = own  # the result's own, as a handshake revision carries it
    return result


CALLS = [handshake_call, modern_call]


# --- a result whose text says more than its structured value -------------------------------


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize(
    "client", ["claude-code", "Visual Studio Code", "fastmcp", "codex-mcp-client"]
)
async def test_a_structured_only_host_gets_the_text_and_the_value_as_content(
    call: Any, client: str
) -> None:
    assert await call(make_app(), client, "says_more") == {
        "content": [
            {"type": "text", "text": SAYS},
            {"type": "text", "text": '{"count":2}'},
        ],
        "isError": False,
    }


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("client", ["mcp", "gemini-cli-mcp-client"])
async def test_a_content_only_host_gets_the_value_in_the_content_too(
    call: Any, client: str
) -> None:
    # structuredContent stays (the host does not show it, a program beside it may read it).
    assert await call(make_app(), client, "says_more") == {
        "content": [
            {"type": "text", "text": SAYS},
            {"type": "text", "text": '{"count":2}'},
        ],
        "structuredContent": {"count": 2},
        "isError": False,
    }


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("client", ["plainmcp", "claude-ai", "cursor-vscode"])
async def test_other_hosts_get_the_result_as_sent(call: Any, client: str) -> None:
    assert await call(make_app(), client, "says_more") == {
        "content": [{"type": "text", "text": SAYS}],
        "structuredContent": {"count": 2},
        "isError": False,
    }


@pytest.mark.parametrize("call", CALLS)
async def test_a_mirrored_value_is_left_as_it_is(call: Any) -> None:
    assert await call(make_app(), "claude-code", "mirrored") == {
        "content": [{"type": "text", "text": '{"count":2}'}],
        "structuredContent": {"count": 2},
        "isError": False,
    }


@pytest.mark.parametrize("call", CALLS)
async def test_a_one_part_host_gets_both_from_a_tool_with_an_output_schema(call: Any) -> None:
    # It is listed the tool without its output schema, so structuredContent may be left out.
    assert await call(make_app(), "claude-code", "schema_says_more") == {
        "content": [
            {"type": "text", "text": SAYS},
            {"type": "text", "text": '{"count":2}'},
        ],
        "isError": False,
    }


@pytest.mark.parametrize(
    ("client", "has_schema"),
    [
        ("claude-code", False),
        ("copilot-cli", False),
        ("fastmcp", False),
        ("gemini-cli-mcp-client", True),
        ("mcp", True),
        ("claude-ai", True),
        ("plainmcp", True),
    ],
)
async def test_output_schemas_are_listed_to_hosts_that_show_both_parts(
    client: str, has_schema: bool
) -> None:
    async with Session(make_app()) as s:
        await s.initialize("2025-11-25", client_info={"name": client, "version": "1"})
        tools = {t["name"]: t for t in (await s.result("tools/list"))["tools"]}
    assert ("outputSchema" in tools["schema_says_more"]) is has_schema
    assert "outputSchema" in tools["mirrored"] or "outputSchema" not in tools["says_more"]


# --- a structured value cut at an item, for a host that shows only structuredContent ------------


def rows_app() -> Server:
    """Default payload limits: 10,000 rows are cut at an item and continued by read_more."""
    app = Server("hosts", version="1")

    @app.tool()
    def table() -> list[Count]:
        """Many rows."""
        return [Count(count=n) for n in range(10_000)]

    return app


def cut_link(result: dict[str, Any], sent: int = 2_740) -> tuple[str, str]:
    """The marker and the link's description of a result cut at an item (its JSON text first)."""
    json_text, marker, link = result["content"]
    assert [b["type"] for b in (json_text, marker)] == ["text", "text"]
    assert (link["type"], link["name"]) == ("resource_link", "result.json")
    assert marker["text"].startswith(
        f"[partial: the result holds the first {sent:,} of 10,000 items;"
    )
    return marker["text"], link["description"]


LINK_SAYS = "The full structured result (148,891 characters of JSON); stored for 60 minutes."


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize(
    ("client", "sent"), [("claude-code", 2_673), ("Visual Studio Code", 2_740), ("fastmcp", 2_740)]
)
async def test_a_structured_only_host_gets_cut_rows_with_their_marker_as_content(
    call: Any, client: str, sent: int
) -> None:
    # The rows' JSON and the marker reach such a host only as content: structuredContent,
    # which it would show instead, is left out (the tool is listed it without its schema).
    result = await call(rows_app(), client, "table")
    # Claude Code's limit (50,000 characters; 45,000 with the margin) holds the rows' JSON and
    # the marker together: fewer rows than the server's own 40,000 for the JSON alone.
    marker, description = cut_link(result, sent)
    sentence = next_call(marker)
    assert sentence is not None and sentence[0] == "read_more"
    assert description == LINK_SAYS
    assert "structuredContent" not in result
    assert json.loads(result["content"][0]["text"]) == [{"count": n} for n in range(sent)]


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("client", ["plainmcp", "claude-ai", "cursor-vscode"])
async def test_other_hosts_get_the_link_as_sent(call: Any, client: str) -> None:
    result = await call(rows_app(), client, "table")
    marker, description = cut_link(result)
    assert next_call(marker) is not None
    assert description == LINK_SAYS
    rows = [{"count": n} for n in range(2_740)]
    assert result["structuredContent"] == (rows if call is modern_call else {"result": rows})


async def test_before_structured_content_nothing_changes() -> None:
    assert await handshake_call(make_app(), "claude-code", "says_more", "2025-03-26") == {
        "content": [{"type": "text", "text": SAYS}],
        "isError": False,
    }


# --- errors: one text block for hosts that read the first ----------------------------------


@pytest.mark.parametrize("call", CALLS)
async def test_an_error_s_text_blocks_become_one_for_a_first_block_host(call: Any) -> None:
    # pydantic-ai, which sends "fastmcp" too, hands an error on as a success: it is marked.
    assert await call(make_app(), "fastmcp", "two_errors") == {
        "content": [{"type": "text", "text": "Error: bad input\n\ntry count=1"}],
        "isError": True,
    }


@pytest.mark.parametrize("call", CALLS)
async def test_an_error_stays_in_blocks_for_hosts_that_read_them_all(call: Any) -> None:
    assert await call(make_app(), "claude-code", "two_errors") == {
        "content": [
            {"type": "text", "text": "bad input"},
            {"type": "text", "text": "try count=1"},
        ],
        "isError": True,
    }


# --- text blocks a host runs together, errors a host does not mark --------------------------


def blocks_app() -> Server:
    app = Server("hosts", version="1")

    @app.tool()
    def text_picture_text() -> ToolResult:
        """Two text blocks with an image between them."""
        return ToolResult(["first", Image(PNG, mime_type="image/png"), "second"])

    @app.tool()
    def two_errors() -> ToolResult:
        """An error in two text blocks."""
        return ToolResult(["bad input", "try count=1"], is_error=True)

    return app


IMAGE = {"type": "image", "data": base64.b64encode(PNG).decode(), "mimeType": "image/png"}


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("client", ["copilot-cli", "github-copilot-developer"])
async def test_a_host_that_runs_texts_together_gets_one_text_with_blank_lines(
    call: Any, client: str
) -> None:
    # The image's description is a text block too, so it is merged with the others.
    assert await call(blocks_app(), client, "text_picture_text") == {
        "content": [{"type": "text", "text": f"first\n\n{DESCRIBED_PNG}\n\nsecond"}, IMAGE],
        "isError": False,
    }


@pytest.mark.parametrize("call", CALLS)
async def test_an_error_s_texts_become_one_for_a_host_that_runs_them_together(
    call: Any,
) -> None:
    # Copilot CLI puts the same prefix before a failure's text as before a success's.
    assert await call(blocks_app(), "copilot-cli", "two_errors") == {
        "content": [{"type": "text", "text": "Error: bad input\n\ntry count=1"}],
        "isError": True,
    }


@pytest.mark.parametrize("call", CALLS)
async def test_a_host_that_does_not_mark_errors_gets_error_before_the_first_text(
    call: Any,
) -> None:
    assert await call(blocks_app(), "codex-mcp-client", "two_errors") == {
        "content": [
            {"type": "text", "text": "Error: bad input"},
            {"type": "text", "text": "try count=1"},
        ],
        "isError": True,
    }


@pytest.mark.parametrize("call", CALLS)
async def test_blocks_stay_apart_for_a_host_that_keeps_them_apart(call: Any) -> None:
    assert await call(blocks_app(), "codex-mcp-client", "text_picture_text") == {
        "content": [
            {"type": "text", "text": "first"},
            IMAGE,
            {"type": "text", "text": "second"},
        ],
        "isError": False,
    }


def test_an_error_without_text_gets_a_text_saying_it_failed() -> None:
    out = {"content": [dict(IMAGE)], "isError": True}
    result = CallResult(content=(Image(PNG, mime_type="image/png"),), is_error=True)
    assert adapt.call_result(out, result, CODEX_CLI) == {
        "content": [{"type": "text", "text": "Error: the call failed."}, IMAGE],
        "isError": True,
    }


# --- media a host drops --------------------------------------------------------------------


@pytest.mark.parametrize("call", CALLS)
async def test_an_image_only_result_gets_a_description_where_images_are_dropped(
    call: Any,
) -> None:
    image = {"type": "image", "data": base64.b64encode(PNG).decode(), "mimeType": "image/png"}
    assert await call(make_app(), "github-copilot-developer", "picture") == {
        "content": [image, {"type": "text", "text": DESCRIBED_PNG}],
        "isError": False,
    }
    assert await call(make_app(), "claude-code", "picture") == {
        "content": [image],
        "isError": False,
    }


def test_a_client_that_fails_on_audio_gets_its_description_instead() -> None:
    audio = {"type": "audio", "data": base64.b64encode(WAV).decode(), "mimeType": "audio/wav"}
    out = {"content": [{"type": "text", "text": "clip:"}, audio], "isError": False}
    result = CallResult(content=(Audio(WAV, mime_type="audio/wav"),))
    assert adapt.call_result(out, result, LANGCHAIN) == {
        "content": [
            {"type": "text", "text": "clip:"},
            {
                "type": "text",
                "text": "[An audio block (audio/wav, 6 bytes) is part of this result; this"
                " client does not pass it to the model.]",
            },
        ],
        "isError": False,
    }


def test_a_description_of_unreadable_data_says_so() -> None:
    assert adapt.describe({"type": "image", "data": "%%%", "mimeType": "image/png"}) == (
        "[An image block (image/png, unknown size) is part of this result; this client does"
        " not pass it to the model.]"
    )


# --- tools/list: the result limit for hosts that honour it ---------------------------------

BIG = PayloadLimits(text_result=100_000, structured=120_000)


async def listed_meta(app: Server, client: str, version: str) -> list[Any]:
    async with Session(app) as s:
        await s.initialize(version, client_info={"name": client, "version": "1"})
        tools = (await s.result("tools/list"))["tools"]
    return [t.get("_meta") for t in tools]


async def test_claude_code_is_told_each_tool_s_result_limit() -> None:
    assert (
        await listed_meta(make_app(payload_limits=BIG), "claude-code", "2025-11-25")
        == [{"anthropic/maxResultSizeChars": 120_000}] * 5
    )


async def test_the_limit_is_cached_per_revision_and_host() -> None:
    app = make_app(payload_limits=BIG)
    await listed_meta(app, "claude-code", "2025-11-25")
    await listed_meta(app, "plainmcp", "2025-11-25")
    assert sorted(key[0] + " " + key[3] for key in app._tool_pages) == [
        "2025-11-25 ",
        "2025-11-25 claude-code",
    ]
    assert await listed_meta(app, "plainmcp", "2025-11-25") == [None] * 5


@pytest.mark.parametrize(
    ("settings", "client", "version"),
    [
        ({"payload_limits": BIG}, "plainmcp", "2025-11-25"),  # not a host that honours it
        ({"payload_limits": BIG}, "claude-code", "2025-03-26"),  # no _meta on tools there
        ({}, "claude-code", "2025-11-25"),  # 40,000 is below Claude Code's own 50,000
    ],
)
async def test_no_limit_is_advertised_where_it_changes_nothing(
    settings: dict[str, Any], client: str, version: str
) -> None:
    assert await listed_meta(make_app(**settings), client, version) == [None] * 5


async def test_the_limit_in_a_2026_request_s_meta() -> None:
    async with EraSession(make_app(payload_limits=PayloadLimits(text_result=900_000))) as s:
        reply = await s.modern(
            "tools/list", {"_meta": meta(**{CLIENT_INFO: {"name": "claude-code"}})}
        )
    assert [t["_meta"] for t in reply["result"]["tools"]] == [
        {"anthropic/maxResultSizeChars": 500_000}
    ] * 5


# --- the generic client --------------------------------------------------------------------


def test_every_adaptation_is_off_for_the_generic_profile() -> None:
    out = {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}
    out |= {"structuredContent": {"x": 1}, "isError": True}
    before = {**out, "content": list(out["content"])}
    result = CallResult((), structured_json=b'{"x":1}', is_error=True)
    assert adapt.call_result(out, result, GENERIC) == before
    assert adapt.advertised_limit(GENERIC, BIG) is None
    assert PROFILES[-1] is GENERIC


# --- the mcp row, Copilot's links, embedded resources without their URI, Gemini's JSON -----


def test_every_client_sending_mcp_gets_audio_described_and_errors_marked() -> None:
    # LangChain fails the whole call on audio, openai-agents hands an error on unflagged: the
    # server cannot tell them apart, so each gets what costs the others least.
    audio = {"type": "audio", "data": base64.b64encode(WAV).decode(), "mimeType": "audio/wav"}
    out = {"content": [{"type": "text", "text": "no such clip"}, audio], "isError": True}
    result = CallResult(content=(Audio(WAV, mime_type="audio/wav"),), is_error=True)
    assert adapt.call_result(out, result, profile_for({"name": "mcp"})) == {
        "content": [
            {"type": "text", "text": "Error: no such clip"},
            {
                "type": "text",
                "text": "[An audio block (audio/wav, 6 bytes) is part of this result; this"
                " client does not pass it to the model.]",
            },
        ],
        "isError": True,
    }


LINK = {
    "type": "resource_link",
    "uri": "file:///reports/q3.csv",
    "name": "q3.csv",
    "description": "The third quarter.",
}
EMBEDDED = {
    "type": "resource",
    "resource": {"uri": "file:///notes.txt", "mimeType": "text/plain", "text": "remember"},
}


def test_a_host_that_drops_links_gets_a_line_naming_each() -> None:
    out = {"content": [{"type": "text", "text": "see:"}, dict(LINK)], "isError": False}
    assert adapt.call_result(out, CallResult(()), COPILOT_CLI) == {
        "content": [
            {
                "type": "text",
                "text": "see:\n\n[Resource link q3.csv: file:///reports/q3.csv: The third"
                " quarter.]",
            },
            LINK,
        ],
        "isError": False,
    }


@pytest.mark.parametrize("profile", [GEMINI_CLI, PYDANTIC_AI, FASTMCP_DEFAULT])
def test_a_host_that_shows_an_embedded_resource_bare_gets_its_uri_in_a_line(
    profile: HostProfile,
) -> None:
    out = {"content": [dict(EMBEDDED)], "isError": False}
    assert adapt.call_result(out, CallResult(()), profile) == {
        "content": [
            EMBEDDED,
            {
                "type": "text",
                "text": "[The resource file:///notes.txt (text/plain) is embedded in this result.]",
            },
        ],
        "isError": False,
    }


@pytest.mark.parametrize(
    ("text", "structured"),
    [("[1, 2, 3]", {"result": [1, 2, 3]}), ("42", {"result": 42}), (' "x"', {"result": "x"})],
)
def test_gemini_gets_a_json_text_that_is_not_an_object_as_a_structured_value(
    text: str, structured: Any
) -> None:
    # Gemini CLI parses the first text block into structuredContent, and fails the call when
    # the value is not an object; given structuredContent, it shows the text.
    out = {"content": [{"type": "text", "text": text}], "isError": False}
    assert adapt.call_result(out, CallResult(()), GEMINI_CLI) == {
        "content": [{"type": "text", "text": text}],
        "structuredContent": structured,
        "isError": False,
    }
    modern = {"content": [{"type": "text", "text": text}], "isError": False}
    assert (
        adapt.call_result(modern, CallResult(()), GEMINI_CLI, "any")["structuredContent"]
        == (structured["result"])
    )


@pytest.mark.parametrize("text", ['{"a": 1}', "[1, 2", "plain words", ""])
def test_gemini_gets_other_texts_as_they_are(text: str) -> None:
    out = {"content": [{"type": "text", "text": text}], "isError": False}
    assert adapt.call_result(out, CallResult(()), GEMINI_CLI) == {
        "content": [{"type": "text", "text": text}],
        "isError": False,
    }


async def test_gemini_gets_a_list_from_an_unannotated_tool_without_an_error() -> None:
    app = Server("hosts", version="1")

    @app.tool()
    def numbers():  # type: ignore[no-untyped-def]  # unannotated, as in the issue
        return [1, 2, 3]

    result = await handshake_call(app, "gemini-cli-mcp-client", "numbers", "2025-06-18")
    assert result["isError"] is False
    assert result["structuredContent"] == {"result": [1, 2, 3]}
    assert json.loads(result["content"][0]["text"]) == [1, 2, 3]
