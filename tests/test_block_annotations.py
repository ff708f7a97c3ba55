"""`annotations=` on content blocks as the wire's mapping (`{"audience": [...], "priority": ...,
"lastModified": ...}`): converted to Annotations and checked where the block is built, so a
tool returning one is answered in every revision, and a bad one is refused with its reason
(once it reached the renderer and the call failed with -32603 "Internal error")."""

from __future__ import annotations

from typing import Any

import pytest

from plainmcp import (
    Annotations,
    Audio,
    ContentError,
    EmbeddedResource,
    File,
    Image,
    ResourceLink,
    Server,
    Text,
)
from plainmcp.testing import render_all
from plainmcp.wire.revisions import REVISIONS
from tests.test_content import PNG, WAV, wire

WIRE = {"audience": ["user"], "priority": 0.5, "lastModified": "2025-01-12T15:00:58Z"}
SAME = Annotations(audience="user", priority=0.5, last_modified="2025-01-12T15:00:58Z")
BEFORE_LAST_MODIFIED = {"audience": ["user"], "priority": 0.5}
"""2024-11-05 and 2025-03-26 have annotations without lastModified."""


def per_revision(rev: str) -> dict[str, Any]:
    return WIRE if rev >= "2025-06-18" else BEFORE_LAST_MODIFIED


@pytest.mark.parametrize(
    "block",
    [
        Text("hi", annotations=WIRE),
        Image(PNG, annotations=WIRE),
        Audio(WAV, annotations=WIRE),
        EmbeddedResource("notes://a", text="a", annotations=WIRE),
        File(b"notes", mime_type="text/plain", uri="notes://b", annotations=WIRE),
        ResourceLink("notes://c", "c", annotations=WIRE),
    ],
    ids=lambda block: type(block).__name__,
)
def test_every_block_takes_the_wire_mapping_as_annotations(block: Any) -> None:
    assert block.annotations == SAME
    carried = [rev for rev, r in REVISIONS.items() if block.kind in r.content_types]
    assert len(carried) >= 3
    for rev in carried:
        assert wire(block, rev)["annotations"] == per_revision(rev), rev


def test_a_mapping_with_some_fields_or_none_gives_those() -> None:
    assert Text("hi", annotations={"priority": 1}).annotations == Annotations(priority=1)
    assert Text("hi", annotations={"audience": "assistant"}).annotations == Annotations(
        audience=("assistant",)
    )
    assert wire(Text("hi", annotations={})) == {"type": "text", "text": "hi"}


def test_a_tool_returning_a_block_with_a_mapping_is_answered_in_every_revision() -> None:
    app = Server("notes")

    @app.tool
    def note() -> Text:
        return Text("hi", annotations=dict(WIRE))

    rendered = render_all(app, "note")
    for rev, result in rendered.items():
        assert result["content"] == [
            {"type": "text", "text": "hi", "annotations": per_revision(rev)}
        ], rev
        assert result["isError"] is False
    assert rendered["2026-07-28"]["resultType"] == "complete"


@pytest.mark.parametrize(
    ("annotations", "message"),
    [
        (
            {"priorty": 0.5},
            "annotations have no field 'priorty' (the fields: audience, priority, lastModified)",
        ),
        (
            {"last_modified": "2025-01-12"},
            "annotations have no field 'last_modified'"
            " (the fields: audience, priority, lastModified)",
        ),
        ({"priority": 2}, "priority must be a number between 0 and 1, not 2"),
        ({"priority": "high"}, "priority must be a number between 0 and 1, not 'high'"),
        ({"priority": None}, None),
        ({"audience": ["user", "model"]}, "audience must be 'user' or 'assistant', not 'model'"),
        ({"audience": 5}, "audience must be 'user', 'assistant' or a list of them, not 5"),
        (
            {"lastModified": "yesterday"},
            "lastModified must be an ISO 8601 date (str or datetime), not 'yesterday'",
        ),
        (
            {"lastModified": 1736694058},
            "lastModified must be an ISO 8601 date (str or datetime), not 1736694058",
        ),
        (["user"], "annotations must be an Annotations or a mapping, not list"),
        ("user", "annotations must be an Annotations or a mapping, not str"),
    ],
)
def test_a_bad_mapping_is_refused_where_the_block_is_built(
    annotations: Any, message: str | None
) -> None:
    if message is None:  # a field given as null is a field not given
        assert Text("hi", annotations=annotations).annotations == Annotations()
        return
    for build in (
        lambda: Text("hi", annotations=annotations),
        lambda: Image(PNG, annotations=annotations),
        lambda: ResourceLink("notes://c", "c", annotations=annotations),
    ):
        with pytest.raises(ContentError) as refused:
            build()
        assert str(refused.value) == message


def test_a_tool_building_a_bad_block_says_why() -> None:
    app = Server("notes")

    @app.tool
    def note() -> Text:
        return Text("hi", annotations={"priority": "high"})

    result = render_all(app, "note", revisions=["2025-11-25"])["2025-11-25"]
    assert result == {
        "content": [
            {
                "type": "text",
                "text": "Tool 'note' failed: ContentError:"
                " priority must be a number between 0 and 1, not 'high'",
            }
        ],
        "isError": True,
    }


def test_a_resource_takes_the_mapping_too() -> None:
    app = Server("notes")
    app.add_resource("a note", "notes://a", annotations=dict(WIRE))
    (resource,) = app.resources.resources
    assert resource.annotations == SAME
