"""The rules on one rendered tool result, read the way a host profile says its host reads it."""

from __future__ import annotations

from typing import Any

from plainmcp.hosts.profiles import GENERIC, Cell, HostProfile
from plainmcp.lint.problems import Problem
from plainmcp.lint.results import model_chars, result_problems

SUBJECT = "tool t call {}"


def host(**cells: Any) -> HostProfile:
    """A profile made for the test: GENERIC but for `cells`."""
    made = {name: Cell(value, "this test") for name, value in cells.items()}
    return GENERIC._replace(key="test-host", title="Test host", **made)


def problem(code: str, message: str) -> Problem:
    return Problem(code, SUBJECT, message, hosts=("test-host",))


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def test_over_the_limit_states_characters_and_the_token_estimate() -> None:
    result = {"content": [text("x" * 1001)], "isError": False}
    strict = host(limit=1000, limit_raise="MAX_OUTPUT=20000")
    assert result_problems(result, strict, SUBJECT) == [
        problem(
            "over-limit",
            "1001 characters reach the model, about 251 tokens (characters/4), over Test host's"
            " limit of 1000 characters (about 250 tokens); raise it with MAX_OUTPUT=20000, or"
            " return less, or hold the tool to the host's limit"
            " (@app.tool(limits=PayloadLimits(text_result=1000))) so that plainmcp cuts it and"
            " the model reads the rest with read_more",
        )
    ]
    assert result_problems({"content": [text("x" * 1000)]}, strict, SUBJECT) == []


def test_what_is_counted_is_what_the_host_reads() -> None:
    result = {"content": [text('{"a":1}'), text("note")], "structuredContent": {"a": 1}}
    assert model_chars(result, host(reads="content")) == 11
    assert model_chars(result, host(reads="structured")) == 7
    assert model_chars(result, GENERIC) == 18


def test_an_error_in_several_blocks_for_a_host_that_reads_the_first() -> None:
    result = {"content": [text("failed"), text("because")], "isError": True}
    assert result_problems(result, host(error_blocks="first"), SUBJECT) == [
        problem(
            "first-block-only",
            "the error has 2 content blocks; the host hands its model only the first: say"
            " everything the model needs in one block (raise ToolError with the whole message)",
        )
    ]
    assert result_problems(result, GENERIC, SUBJECT) == []
    ok = {"content": [text("done"), text("more")], "isError": False}
    assert result_problems(ok, host(error_blocks="first"), SUBJECT) == []


def test_images_alone_for_a_host_that_drops_them() -> None:
    image = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
    result = {"content": [image], "isError": False}
    assert result_problems(result, host(images="dropped"), SUBJECT) == [
        problem(
            "image-only",
            "the result is image content with no text, which the host drops: its model gets"
            " nothing; add a text block that describes it",
        )
    ]
    captioned = {"content": [text("a red square"), image], "isError": False}
    assert result_problems(captioned, host(images="dropped"), SUBJECT) == []
    assert result_problems(result, host(images="shown"), SUBJECT) == []


def test_text_that_differs_from_the_structured_value() -> None:
    result = {
        "content": [text("TEXT-SAYS-SEVEN files were found")],
        "structuredContent": {"count": 2},
    }
    assert result_problems(result, host(reads="structured"), SUBJECT) == [
        problem(
            "text-differs",
            "the text and structuredContent differ; the host hands its model only the"
            " structuredContent, so what only the text says is lost; put every fact in both, or"
            " return the value alone and let plainmcp write the text",
        )
    ]
    assert result_problems(result, host(reads="content"), SUBJECT) == [
        problem(
            "text-differs",
            "the text and structuredContent differ; the host hands its model only the text,"
            " so what only the structuredContent says is lost; put every fact in both, or"
            " return the value alone and let plainmcp write the text",
        )
    ]
    assert result_problems(result, GENERIC, SUBJECT) == []


def test_the_json_mirror_and_the_wrapped_value_agree() -> None:
    mirror = {"content": [text('{\n  "count": 2\n}')], "structuredContent": {"count": 2}}
    wrapped = {"content": [text("[1,2]")], "structuredContent": {"result": [1, 2]}}
    for result in (mirror, wrapped):
        assert result_problems(result, host(reads="structured"), SUBJECT) == []


def test_a_cut_linked_only_as_a_resource_for_a_host_that_cannot_read_it() -> None:
    link = {"type": "resource_link", "uri": "plainmcp://blob/abc", "name": "rest"}
    result = {"content": [text("first part"), link]}
    lost = problem(
        "rest-lost",
        "the result was cut and the rest is only at plainmcp://blob/abc; the host cannot (or"
        " is not known to) read resources, and no text it shows says which tool call returns"
        " the rest; say it in the text (`call the tool NAME with arguments {...}.`), as"
        " plainmcp's own cuts do while its continuation tool is on (read_more, the default)",
    )
    assert result_problems(result, host(reads_resources=False), SUBJECT) == [lost]
    assert result_problems(result, host(reads_resources=None), SUBJECT) == [lost]
    assert result_problems(result, host(reads_resources=True), SUBJECT) == []
    continued = {
        "content": [
            text('first part. For the rest, call the tool read_more with arguments {"ref":"abc"}.'),
            link,
        ]
    }
    assert result_problems(continued, host(reads_resources=False), SUBJECT) == []


SENTENCE = 'For the rest, call the tool read_more with arguments {"ref":"abc"}.'


def test_a_structured_only_host_reads_the_continuation_only_in_the_link() -> None:
    # The marker is in the text, which such a host does not show beside structuredContent.
    marker = text(f"[partial: the result holds the first 2 of 9 items. {SENTENCE}]")
    link = {"type": "resource_link", "uri": "plainmcp://blob/abc", "name": "result.json"}
    result = {"content": [text("[1,2]"), marker, link], "structuredContent": [1, 2]}
    blind = host(reads="structured", reads_resources=False)

    def lost(found: list[Problem]) -> list[str]:
        return [p.code for p in found if p.code == "rest-lost"]

    assert lost(result_problems(result, blind, SUBJECT)) == ["rest-lost"]
    assert result_problems(result, host(reads="both", reads_resources=False), SUBJECT) == []
    # As hosts.adapt renders it for such a host: the sentence is in the link's description too.
    told = {**link, "description": f"The full structured result. {SENTENCE}"}
    adapted = {**result, "content": [text("[1,2]"), marker, told]}
    assert lost(result_problems(adapted, blind, SUBJECT)) == []
    dropping = host(reads="structured", reads_resources=False, links="dropped")
    assert lost(result_problems(adapted, dropping, SUBJECT)) == ["rest-lost"]


def test_a_cut_whose_link_became_text_for_an_older_revision() -> None:
    result = {"content": [text("first part"), text("Resource link: plainmcp://blob/abc\nname: r")]}
    found = result_problems(result, host(reads_resources=False), SUBJECT)
    assert [(p.code, p.message.split(";")[0]) for p in found] == [
        ("rest-lost", "the result was cut and the rest is only at plainmcp://blob/abc")
    ]
