"""The renderer (wire.definitions, wire.render): tool definitions and results per revision,
exact dicts, each one validated against the revision's official Tool / CallToolResult
definition."""

from __future__ import annotations

import base64
from typing import Any

import orjson
import pytest

from plainmcp import (
    Annotations,
    Audio,
    EmbeddedResource,
    Icon,
    Image,
    ResourceLink,
    ResultOptions,
    Text,
)
from plainmcp.model.blocks import content_uri
from plainmcp.model.results import CallResult
from plainmcp.tools import make_tool
from plainmcp.wire import definitions, render
from plainmcp.wire.revisions import REVISIONS
from tests.mcp_schemas import validate_definition

ALL = tuple(REVISIONS)
FALLBACK = ResultOptions()
STRICT = ResultOptions(compat="strict")
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)
WAV = b"RIFF" + (36).to_bytes(4, "little") + b"WAVEfmt " + bytes(24) + b"data" + bytes(4)
INPUT = {
    "type": "object",
    "properties": {"a": {"type": "integer"}},
    "required": ["a"],
    "additionalProperties": False,
}


def tool_def(fn: Any, rev: str, options: ResultOptions = FALLBACK, **settings: Any) -> Any:
    out = definitions.tool(make_tool(fn, **settings), REVISIONS[rev], options)
    if rev != "2026-07-28":  # the modern schema is checked where it is served
        validate_definition(out, rev, "Tool")
    return out


def result(content: Any, rev: str, options: ResultOptions = FALLBACK, **kw: Any) -> Any:
    schema = kw.pop("output_schema", None)
    rendered = render.call_result(
        CallResult(content=tuple(content), **kw), REVISIONS[rev], options, schema
    )
    out = orjson.loads(orjson.dumps(rendered))  # structured values are orjson Fragments
    validate_definition(out, rev, "CallToolResult")
    return out


# --- tool definitions ------------------------------------------------------------------------


def add(a: int) -> str:
    """Add one."""
    return str(a + 1)


FULL = {
    "title": "Adder",
    "annotations": {"readOnlyHint": True},
    "icons": [Icon("https://example.com/i.png", mime_type="image/png", sizes=("48x48",))],
    "meta": {"vendor/x": 1},
}


def test_tool_2024_11_05_has_only_the_basics() -> None:
    assert tool_def(add, "2024-11-05", **FULL) == {
        "name": "add",
        "description": "Add one.",
        "inputSchema": INPUT,
    }


def test_tool_2025_03_26_copies_title_into_annotations() -> None:
    assert tool_def(add, "2025-03-26", **FULL) == {
        "name": "add",
        "description": "Add one.",
        "inputSchema": INPUT,
        "annotations": {"readOnlyHint": True, "title": "Adder"},
    }


def test_tool_2025_03_26_annotation_title_wins() -> None:
    out = tool_def(add, "2025-03-26", title="T", annotations={"title": "Own"})
    assert out["annotations"] == {"title": "Own"}


def test_tool_2025_06_18_title_meta_no_icons() -> None:
    assert tool_def(add, "2025-06-18", **FULL) == {
        "name": "add",
        "title": "Adder",
        "description": "Add one.",
        "inputSchema": INPUT,
        "annotations": {"readOnlyHint": True},
        "_meta": {"vendor/x": 1},
    }


@pytest.mark.parametrize("rev", ["2025-11-25", "2026-07-28"])
def test_tool_with_icons(rev: str) -> None:
    assert tool_def(add, rev, **FULL) == {
        "name": "add",
        "title": "Adder",
        "description": "Add one.",
        "inputSchema": INPUT,
        "annotations": {"readOnlyHint": True},
        "icons": [
            {"src": "https://example.com/i.png", "mimeType": "image/png", "sizes": ["48x48"]}
        ],
        "_meta": {"vendor/x": 1},
    }


def obj(a: int) -> dict[str, int]:
    return {"a": a}


def number(a: int) -> int:
    return a


OBJECT_OUT = {"type": "object", "additionalProperties": {"type": "integer"}}


@pytest.mark.parametrize("rev", ALL)
def test_object_output_schema_kept_where_supported(rev: str) -> None:
    out = tool_def(obj, rev)
    if rev in ("2024-11-05", "2025-03-26"):
        assert "outputSchema" not in out
    else:
        assert out["outputSchema"] == OBJECT_OUT


@pytest.mark.parametrize("rev", ["2025-06-18", "2025-11-25"])
def test_non_object_output_schema_wrapped_under_fallback(rev: str) -> None:
    assert tool_def(number, rev)["outputSchema"] == {
        "type": "object",
        "properties": {"result": {"type": "integer"}},
        "required": ["result"],
    }


@pytest.mark.parametrize("rev", ["2025-06-18", "2025-11-25"])
def test_non_object_output_schema_omitted_under_strict(rev: str) -> None:
    assert "outputSchema" not in tool_def(number, rev, STRICT)


@pytest.mark.parametrize("options", [FALLBACK, STRICT])
def test_non_object_output_schema_natural_at_2026_07_28(options: ResultOptions) -> None:
    assert tool_def(number, "2026-07-28", options)["outputSchema"] == {"type": "integer"}


@pytest.mark.parametrize("rev", ["2024-11-05", "2025-03-26"])
def test_no_output_schema_before_2025_06_18(rev: str) -> None:
    assert "outputSchema" not in tool_def(number, rev)


# --- content blocks --------------------------------------------------------------------------

ANN = Annotations(audience=("user",), priority=0.5, last_modified="2025-01-02T03:04:05+00:00")


@pytest.mark.parametrize("rev", ALL)
def test_text_block_annotations_and_meta(rev: str) -> None:
    out = result([Text("hi", annotations=ANN, meta={"k": "v"})], rev)
    block: dict[str, Any] = {
        "type": "text",
        "text": "hi",
        "annotations": {"audience": ["user"], "priority": 0.5},
    }
    if rev >= "2025-06-18":
        block["annotations"]["lastModified"] = "2025-01-02T03:04:05+00:00"
        block["_meta"] = {"k": "v"}
    expected: dict[str, Any] = {"content": [block], "isError": False}
    if rev == "2026-07-28":
        expected["resultType"] = "complete"
    assert out == expected


@pytest.mark.parametrize("rev", ALL)
def test_only_last_modified_annotation_is_dropped_whole_before_2025_06_18(rev: str) -> None:
    out = result([Text("x", annotations=Annotations(last_modified="2025-01-01T00:00:00Z"))], rev)
    if rev < "2025-06-18":
        assert out["content"] == [{"type": "text", "text": "x"}]
    else:
        assert out["content"][0]["annotations"] == {"lastModified": "2025-01-01T00:00:00Z"}


@pytest.mark.parametrize("rev", ALL)
def test_image_block(rev: str) -> None:
    out = result([Image(PNG)], rev)
    assert out["content"] == [
        {"type": "image", "data": base64.b64encode(PNG).decode(), "mimeType": "image/png"}
    ]


@pytest.mark.parametrize("rev", ALL)
def test_embedded_resources(rev: str) -> None:
    out = result(
        [
            EmbeddedResource(
                uri="file:///a.txt", text="A", mime_type="text/plain", resource_meta={"m": 1}
            ),
            EmbeddedResource(uri="file:///b.bin", blob=b"\x00\x01"),
        ],
        rev,
    )
    text_contents: dict[str, Any] = {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "A"}
    if rev >= "2025-06-18":
        text_contents["_meta"] = {"m": 1}
    assert out["content"] == [
        {"type": "resource", "resource": text_contents},
        {"type": "resource", "resource": {"uri": "file:///b.bin", "blob": "AAE="}},
    ]


@pytest.mark.parametrize("rev", ALL[1:])
def test_audio_block_from_2025_03_26(rev: str) -> None:
    out = result([Audio(WAV)], rev)
    assert out["content"] == [
        {"type": "audio", "data": base64.b64encode(WAV).decode(), "mimeType": "audio/wav"}
    ]


def test_audio_becomes_embedded_blob_at_2024_11_05() -> None:
    out = result([Audio(WAV, annotations=Annotations(priority=1))], "2024-11-05")
    assert out == {
        "content": [
            {
                "type": "resource",
                "resource": {
                    "uri": content_uri(WAV),
                    "mimeType": "audio/wav",
                    "blob": base64.b64encode(WAV).decode(),
                },
                "annotations": {"priority": 1},
            }
        ],
        "isError": False,
    }


LINK = ResourceLink(
    uri="https://example.com/r.csv",
    name="r.csv",
    title="Report",
    description="Quarterly numbers",
    mime_type="text/csv",
    size=120,
    icons=(Icon("https://example.com/i.png"),),
)


@pytest.mark.parametrize("rev", ["2024-11-05", "2025-03-26"])
def test_resource_link_becomes_text_before_2025_06_18(rev: str) -> None:
    out = result([Text("see:"), LINK], rev)
    assert out == {
        "content": [
            {"type": "text", "text": "see:"},
            {
                "type": "text",
                "text": "Resource link: https://example.com/r.csv\nname: r.csv\ntitle: Report\n"
                "type: text/csv\nsize: 120 bytes\ndescription: Quarterly numbers",
            },
        ],
        "isError": False,
    }


@pytest.mark.parametrize("rev", ALL[2:])
def test_resource_link_native(rev: str) -> None:
    link: dict[str, Any] = {
        "type": "resource_link",
        "uri": "https://example.com/r.csv",
        "name": "r.csv",
        "title": "Report",
        "description": "Quarterly numbers",
        "mimeType": "text/csv",
        "size": 120,
    }
    if rev >= "2025-11-25":
        link["icons"] = [{"src": "https://example.com/i.png"}]
    assert result([LINK], rev)["content"] == [link]


@pytest.mark.parametrize(
    ("rev", "blocks", "kinds"),
    [
        ("2024-11-05", [Text("a"), Audio(WAV)], "audio"),
        ("2024-11-05", [LINK, Audio(WAV)], "audio, resource_link"),
        ("2025-03-26", [Image(PNG), LINK], "resource_link"),
    ],
)
def test_strict_policy_is_one_error_block(rev: str, blocks: list[Any], kinds: str) -> None:
    assert result(blocks, rev, STRICT) == {
        "content": [
            {
                "type": "text",
                "text": f"This result holds {kinds} content, which protocol revision {rev}"
                " cannot carry; upgrade the client to see it.",
            }
        ],
        "isError": True,
    }


@pytest.mark.parametrize("rev", ALL[2:])
def test_strict_policy_leaves_supported_content_alone(rev: str) -> None:
    assert result([LINK, Audio(WAV)], rev, STRICT)["isError"] is False


# --- structured content ----------------------------------------------------------------------


@pytest.mark.parametrize("rev", ALL)
def test_object_structured(rev: str) -> None:
    out = result([], rev, structured_json=b'{"a":1}', output_schema={"type": "object"})
    assert out["content"] == [{"type": "text", "text": '{"a":1}'}]
    if rev < "2025-06-18":
        assert "structuredContent" not in out
    else:
        assert out["structuredContent"] == {"a": 1}


@pytest.mark.parametrize(
    ("rev", "options", "expected"),
    [
        ("2024-11-05", FALLBACK, None),
        ("2025-03-26", FALLBACK, None),
        ("2025-06-18", FALLBACK, {"result": [1, 2]}),
        ("2025-11-25", FALLBACK, {"result": [1, 2]}),
        ("2025-06-18", STRICT, None),
        ("2025-11-25", STRICT, None),
        ("2026-07-28", FALLBACK, [1, 2]),
        ("2026-07-28", STRICT, [1, 2]),
    ],
)
def test_non_object_structured(rev: str, options: ResultOptions, expected: Any) -> None:
    schema = {"type": "array", "items": {"type": "integer"}}
    out = result([], rev, options, structured_json=b"[1,2]", output_schema=schema)
    assert out["content"] == [{"type": "text", "text": "[1,2]"}]
    assert out.get("structuredContent") == expected
    assert out["isError"] is False


def test_structured_without_text_fallback_points_at_it() -> None:
    options = ResultOptions(text_fallback=False)
    out = result([], "2025-06-18", options, structured_json=b'{"a":1}')
    assert out["content"] == [{"type": "text", "text": render.STRUCTURED_ELSEWHERE}]
    # a revision without structuredContent still gets the value as text
    out = result([], "2025-03-26", options, structured_json=b'{"a":1}')
    assert out["content"] == [{"type": "text", "text": '{"a":1}'}]


@pytest.mark.parametrize("rev", ALL)
def test_content_is_never_empty(rev: str) -> None:
    assert result([], rev)["content"] == [{"type": "text", "text": ""}]


@pytest.mark.parametrize("rev", ALL)
def test_result_meta_and_error_flag(rev: str) -> None:
    out = result([Text("no")], rev, is_error=True, meta={"x": 1})
    assert out["isError"] is True
    assert out["_meta"] == {"x": 1}
