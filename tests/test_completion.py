"""completion.py: automatic completers from Literal/Enum, explicit sync/async completers, the
100-value cap, request parsing, and the rendered CompleteResult per revision."""

from __future__ import annotations

import enum
import threading
from collections.abc import Iterator, Mapping
from typing import Annotated, Any, Literal

import pytest

from plainmcp.completion import (
    MAX_VALUES,
    ChoiceCompleter,
    CompleteRequest,
    CompletionResult,
    choices,
    choices_of,
    complete,
    completer_for,
    read_request,
)
from plainmcp.wire import render
from plainmcp.wire.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, RpcError
from plainmcp.wire.revisions import REVISIONS
from tests.mcp_schemas import validate_definition

pytestmark = pytest.mark.anyio


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"
    Rose = "Rose"


class Level(enum.IntEnum):
    LOW = 1


def pick(
    language: Literal["python", "Perl", "php", "rust"],
    color: Color,
    maybe: Literal["a", "b"] | None = None,
    flag: bool = False,
    free: str = "",
    level: Level = Level.LOW,
    described: Annotated[Literal["x", "y"], "which one"] = "x",
) -> str:
    return ""


# --- automatic completers --------------------------------------------------------------------


async def test_literal_prefix_case_insensitive_in_declaration_order() -> None:
    completer = completer_for(pick, "language", None)
    assert isinstance(completer, ChoiceCompleter)
    assert await complete(completer, "p", {}) == CompletionResult(
        ["python", "Perl", "php"], 3, False
    )
    assert (await complete(completer, "PY", {})).values == ["python"]
    assert (await complete(completer, "", {})).values == ["python", "Perl", "php", "rust"]
    assert await complete(completer, "go", {}) == CompletionResult([], 0, False)


async def test_enum_of_strings_completes_its_values() -> None:
    completer = completer_for(pick, "color", None)
    assert (await complete(completer, "r", {})).values == ["red", "Rose"]
    assert (await complete(completer, "", {})).values == ["red", "green", "Rose"]


async def test_optional_annotated_and_bool() -> None:
    assert (await complete(completer_for(pick, "maybe"), "", {})).values == ["a", "b"]
    assert (await complete(completer_for(pick, "described"), "Y", {})).values == ["y"]
    assert (await complete(completer_for(pick, "flag"), "t", {})).values == ["true"]


def test_no_completer_for_free_text_int_enums_and_unknown_parameters() -> None:
    assert completer_for(pick, "free", None) is None
    assert completer_for(pick, "level", None) is None
    assert completer_for(pick, "nope", None) is None


def test_choices_of() -> None:
    assert choices_of(Literal["a", "b"] | Literal["c"]) == ("a", "b", "c")
    assert choices_of(Literal["a", 1]) is None
    assert choices_of(Color | None) == ("red", "green", "Rose")
    assert choices_of(int) is None


def test_explicit_completer_wins_over_the_annotation() -> None:
    def mine(value: str, args: Mapping[str, str]) -> list[str]:
        return []

    assert completer_for(pick, "language", mine) is mine


async def test_no_completer_completes_to_nothing() -> None:
    assert await complete(None, "x", {}) == CompletionResult([], 0, False)


# --- explicit completers ---------------------------------------------------------------------


CITIES = {"fr": ["Paris", "Lyon", "Pau"], "de": ["Berlin", "Bonn"]}


async def test_sync_completer_gets_value_and_context_and_runs_in_a_thread() -> None:
    seen: list[Any] = []

    def city(value: str, args: Mapping[str, str]) -> Iterator[str]:
        seen.append((value, dict(args), threading.current_thread() is threading.main_thread()))
        yield from (c for c in CITIES[args.get("country", "fr")] if c.startswith(value))

    assert await complete(city, "P", {"country": "fr"}) == CompletionResult(
        ["Paris", "Pau"], 2, False
    )
    assert (await complete(city, "B", {"country": "de"})).values == ["Berlin", "Bonn"]
    assert seen[0] == ("P", {"country": "fr"}, False)


async def test_async_completer_runs_on_the_loop() -> None:
    async def city(value: str, args: Mapping[str, str]) -> list[str]:
        return [c for c in CITIES[args["country"]] if c.lower().startswith(value.lower())]

    assert await complete(city, "b", {"country": "de"}) == CompletionResult(
        ["Berlin", "Bonn"], 2, False
    )


async def test_callable_object_with_async_call() -> None:
    class Lookup:
        async def __call__(self, value: str, args: Mapping[str, str]) -> list[str]:
            return [value + "1"]

    assert (await complete(Lookup(), "v", None)).values == ["v1"]


async def test_at_most_100_values_total_counts_all() -> None:
    many = choices([f"item{i:03}" for i in range(250)])
    result = await complete(many, "item", {})
    assert len(result.values) == MAX_VALUES
    assert result.values[0] == "item000" and result.values[-1] == "item099"
    assert (result.total, result.has_more) == (250, True)
    exact = await complete(choices([f"v{i}" for i in range(100)]), "", {})
    assert (len(exact.values), exact.total, exact.has_more) == (100, 100, False)


async def test_duplicates_are_sent_once() -> None:
    assert (await complete(lambda v, a: ["a", "b", "a"], "", {})).values == ["a", "b"]


@pytest.mark.parametrize(
    "completer",
    [
        lambda v, a: 42,
        lambda v, a: "abc",
        lambda v, a: ["ok", 3],
        lambda v, a: 1 / 0,
    ],
)
async def test_a_broken_completer_is_an_internal_error(
    completer: Any, caplog: pytest.LogCaptureFixture
) -> None:
    with pytest.raises(RpcError) as info:
        await complete(completer, "", {}, label="completion of prompt 'p' argument 'x'")
    assert info.value.code == INTERNAL_ERROR
    assert info.value.message == "Internal error: completion of prompt 'p' argument 'x' failed"
    assert "completion of prompt 'p' argument 'x' failed" in caplog.text


# --- the request -----------------------------------------------------------------------------


def test_read_request_prompt_and_resource() -> None:
    assert read_request(
        {
            "ref": {"type": "ref/prompt", "name": "review"},
            "argument": {"name": "language", "value": "py"},
            "context": {"arguments": {"style": "terse"}},
        }
    ) == CompleteRequest("ref/prompt", "review", "language", "py", {"style": "terse"})
    assert read_request(
        {
            "ref": {"type": "ref/resource", "uri": "files://{name}"},
            "argument": {"name": "name", "value": ""},
        }
    ) == CompleteRequest("ref/resource", "files://{name}", "name", "", {})


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({}, "ref and argument must be objects"),
        (
            {"ref": {"type": "ref/tool", "name": "x"}, "argument": {"name": "a", "value": ""}},
            "ref.type",
        ),
        ({"ref": {"type": "ref/prompt"}, "argument": {"name": "a", "value": ""}}, "ref.name"),
        (
            {"ref": {"type": "ref/resource", "uri": 3}, "argument": {"name": "a", "value": ""}},
            "ref.uri",
        ),
        ({"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "a"}}, "argument.value"),
        (
            {
                "ref": {"type": "ref/prompt", "name": "p"},
                "argument": {"name": "a", "value": ""},
                "context": {"arguments": {"b": 1}},
            },
            "context.arguments",
        ),
    ],
)
def test_read_request_refuses_malformed_params(params: dict[str, Any], message: str) -> None:
    with pytest.raises(RpcError) as info:
        read_request(params)
    assert info.value.code == INVALID_PARAMS
    assert message in info.value.message


# --- rendering -------------------------------------------------------------------------------


@pytest.mark.parametrize("version", list(REVISIONS))
def test_rendered_complete_result(version: str) -> None:
    rev = REVISIONS[version]
    out = render.completion_result(CompletionResult(["a", "b"], 250, True), rev)
    expected: dict[str, Any] = {"completion": {"values": ["a", "b"], "total": 250, "hasMore": True}}
    if version == "2026-07-28":
        expected["resultType"] = "complete"
    assert out == expected
    validate_definition(out, version, "CompleteResult")
    empty = render.completion_result(CompletionResult([], 0, False), rev)
    assert empty["completion"] == {"values": [], "total": 0, "hasMore": False}
    validate_definition(empty, version, "CompleteResult")


async def test_a_full_answer_validates_at_the_spec_limit() -> None:
    result = await complete(choices([str(i) for i in range(500)]), "", {})
    validate_definition(
        render.completion_result(result, REVISIONS["2026-07-28"]), "2026-07-28", "CompleteResult"
    )
