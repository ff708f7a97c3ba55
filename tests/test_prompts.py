"""prompts.py: arguments from signatures and docstrings, argument checking, every return shape,
errors, pagination, completion, and the rendered definitions and results per revision (each
validated against the official schema)."""

from __future__ import annotations

import enum
import logging
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest
from pydantic import Field

from plainmcp.completion import ChoiceCompleter, complete
from plainmcp.context import ClientCapabilityError, Context
from plainmcp.model.blocks import Audio, EmbeddedResource, Icon, Image, ResourceLink, Text
from plainmcp.model.options import ResultOptions
from plainmcp.prompts import (
    Message,
    Prompt,
    PromptArgument,
    PromptError,
    PromptResult,
    Prompts,
)
from plainmcp.resources import safe_join
from plainmcp.wire import definitions, render
from plainmcp.wire.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, RpcError
from plainmcp.wire.revisions import REVISIONS
from tests.mcp_schemas import validate_definition

pytestmark = pytest.mark.anyio

ALL = list(REVISIONS)
PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"
    b"\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99"
    b"=\x1d\x00\x00\x00\x00IEND\xaeB`\x82"
)
WAV = b"RIFF$\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00@\x1f\x00\x00\x80>\x00\x00"
WAV += b"\x02\x00\x10\x00data\x00\x00\x00\x00"
FALLBACK = ResultOptions()
STRICT = ResultOptions(compat="strict")


def registry(*fns: Any, **settings: Any) -> Prompts:
    prompts = Prompts()
    for fn in fns:
        prompts.add(fn, **settings)
    return prompts


async def error_of(prompts: Prompts, name: Any, arguments: Any) -> RpcError:
    with pytest.raises(RpcError) as info:
        await prompts.get(name, arguments)
    return info.value


# --- arguments from the signature --------------------------------------------------------------


def test_arguments_from_a_google_docstring() -> None:
    def review(code: str, focus: str = "bugs") -> str:
        """Review a piece of code.

        Args:
            code: The code to review.
            focus: What to look for.
        """
        return code

    prompt = Prompts().add(review)
    assert prompt.name == "review"
    assert prompt.description == "Review a piece of code."
    assert prompt.arguments == (
        PromptArgument("code", "The code to review.", True),
        PromptArgument("focus", "What to look for.", False),
    )


def test_arguments_from_numpy_and_rest_docstrings() -> None:
    def numpy_style(topic: str) -> str:
        """Write about a topic.

        Parameters
        ----------
        topic : str
            What to write about.
        """
        return topic

    def rest_style(topic: str) -> str:
        """Write about a topic.

        :param topic: What to write about.
        """
        return topic

    for fn in (numpy_style, rest_style):
        prompt = Prompts().add(fn)
        assert prompt.description == "Write about a topic."
        assert prompt.arguments == (PromptArgument("topic", "What to write about.", True),)


def test_descriptions_and_titles_from_annotated_and_field() -> None:
    def p(
        a: Annotated[str, "from Annotated"],
        b: Annotated[str, Field(description="from Field", title="Bee")],
        c: str = Field(description="from a Field default", title="Sea"),
        d: str = Field("dee", description="optional Field"),
    ) -> str:
        """Doc.

        Args:
            a: loses to Annotated
        """
        return a

    assert Prompts().add(p).arguments == (
        PromptArgument("a", "from Annotated", True),
        PromptArgument("b", "from Field", True, "Bee"),
        PromptArgument("c", "from a Field default", True, "Sea"),
        PromptArgument("d", "optional Field", False),
    )


def test_settings_override_the_function() -> None:
    def p() -> str:
        """Doc."""
        return ""

    prompt = Prompts().add(
        p,
        name="other.name",
        title="Other",
        description="Given.",
        icons=[Icon("https://x/i.png")],
        meta={"k": 1},
    )
    assert (prompt.name, prompt.title, prompt.description) == ("other.name", "Other", "Given.")
    assert prompt.icons == (Icon("https://x/i.png"),)
    assert prompt.meta == {"k": 1}
    assert prompt.arguments == ()


def test_context_parameters_are_hidden() -> None:
    def p(topic: str, ctx: Context) -> str:
        return topic

    prompt = Prompts().add(p)
    assert [a.name for a in prompt.arguments] == ["topic"]
    assert prompt.context_params == ("ctx",)


class Tone(enum.Enum):
    FORMAL = "formal"
    CASUAL = "casual"


class Number(enum.Enum):
    ONE = 1


@pytest.mark.parametrize(
    "annotation", [list[str], dict[str, str], bytes, Number, Literal[1, 2], int | str]
)
def test_types_no_client_can_send_are_refused(annotation: Any) -> None:
    def p(x: str) -> str:
        return x

    p.__annotations__["x"] = annotation
    with pytest.raises(TypeError, match="prompt arguments are strings on the wire"):
        Prompts().add(p)


def test_star_and_positional_only_parameters_are_refused() -> None:
    def star(*args: str) -> str:
        return ""

    def kw(**kwargs: str) -> str:
        return ""

    def pos(a: str, /) -> str:
        return a

    for fn in (star, kw, pos):
        with pytest.raises(TypeError, match="ordinary named parameter"):
            Prompts().add(fn)


def test_names_duplicates_and_removal() -> None:
    calls: list[str] = []
    prompts = Prompts(on_change=lambda: calls.append("changed"))

    def p() -> str:
        return ""

    prompts.add(p)
    with pytest.raises(ValueError, match="already registered"):
        prompts.add(p)
    with pytest.raises(ValueError, match="invalid prompt name"):
        prompts.add(p, name="has space")
    assert "p" in prompts and len(prompts) == 1 and prompts["p"].fn is p
    prompts.remove("p")
    assert "p" not in prompts
    with pytest.raises(KeyError):
        prompts.remove("p")
    assert calls == ["changed", "changed"]


# --- getting a prompt ---------------------------------------------------------------------------


def typed(
    name: str,
    count: int,
    ratio: float,
    loud: bool,
    tone: Tone,
    style: Literal["short", "long"],
    extra: str | None = None,
) -> str:
    return repr((name, count, ratio, loud, tone, style, extra))


async def test_values_are_converted_from_strings() -> None:
    prompts = registry(typed)
    result = await prompts.get(
        "typed",
        {
            "name": "Ann",
            "count": " -3 ",
            "ratio": "2.5e1",
            "loud": "Yes",
            "tone": "casual",
            "style": "long",
        },
    )
    assert result.messages == (
        Message("user", repr(("Ann", -3, 25.0, True, Tone.CASUAL, "long", None))),
    )


async def test_every_bad_argument_is_named() -> None:
    error = await error_of(
        registry(typed),
        "typed",
        {
            "count": "three",
            "ratio": "nan",
            "loud": "maybe",
            "tone": "FORMAL",
            "style": 5,
            "extra": None,
            "bogus": "x",
        },
    )
    assert error.code == INVALID_PARAMS
    assert error.message == (
        "Invalid arguments for prompt 'typed':\n"
        "- name: required argument missing\n"
        "- count: expected an integer, got 'three'\n"
        "- ratio: expected a finite number, got 'nan'\n"
        "- loud: expected true or false, got 'maybe'\n"
        "- tone: expected one of 'formal', 'casual', got 'FORMAL'\n"
        "- style: expected a string, got a number\n"
        "- extra: expected a string, got null\n"
        "- bogus: unexpected argument"
    )


async def test_defaults_apply_when_arguments_are_absent() -> None:
    def p(a: str = "A", b: str = Field("B", description="b"), c: int = 3) -> str:
        return f"{a}{b}{c}"

    prompts = registry(p)
    assert (await prompts.get("p", None)).messages == (Message("user", "AB3"),)
    assert (await prompts.get("p", {"c": "4"})).messages == (Message("user", "AB4"),)


async def test_unknown_prompt_and_malformed_requests() -> None:
    prompts = registry(typed)
    assert (await error_of(prompts, "nope", {})).message == "Unknown prompt: nope"
    assert (await error_of(prompts, 3, {})).message == "Invalid params: name must be a string"
    error = await error_of(prompts, "typed", ["a"])
    assert (error.code, error.message) == (
        INVALID_PARAMS,
        "Invalid params: arguments must be an object",
    )


async def test_sync_prompts_run_in_a_thread_async_ones_on_the_loop() -> None:
    where: dict[str, bool] = {}

    def sync_p() -> str:
        where["sync"] = threading.current_thread() is threading.main_thread()
        return "s"

    async def async_p() -> str:
        where["async"] = threading.current_thread() is threading.main_thread()
        return "a"

    prompts = registry(sync_p, async_p)
    assert (await prompts.get("sync_p", {})).messages == (Message("user", "s"),)
    assert (await prompts.get("async_p", {})).messages == (Message("user", "a"),)
    assert where == {"sync": False, "async": True}


async def test_context_is_injected() -> None:
    marker = object()

    def p(topic: str, ctx: Context) -> str:
        return f"{topic} {ctx is marker}"

    result = await registry(p).get("p", {"topic": "t"}, inject={"ctx": marker})
    assert result.messages == (Message("user", "t True"),)
    error = await error_of(registry(p), "p", {"topic": "t", "ctx": "x"})
    assert error.message == "Invalid arguments for prompt 'p':\n- ctx: unexpected argument"


# --- return shapes ------------------------------------------------------------------------------

IMAGE = Image(PNG)
LINK = ResourceLink("file:///a.txt", "a.txt")


@pytest.mark.parametrize(
    ("value", "messages"),
    [
        ("hi", [Message("user", Text("hi"))]),
        (Message("assistant", "ok"), [Message("assistant", Text("ok"))]),
        (IMAGE, [Message("user", IMAGE)]),
        ({"role": "assistant", "content": "x"}, [Message("assistant", "x")]),
        ({"role": "user", "content": {"type": "text", "text": "t"}}, [Message("user", "t")]),
        ({"role": "user", "content": LINK}, [Message("user", LINK)]),
        (
            ["one", Message("assistant", "two"), IMAGE, {"role": "assistant", "content": "four"}],
            [
                Message("user", "one"),
                Message("assistant", "two"),
                Message("user", IMAGE),
                Message("assistant", "four"),
            ],
        ),
        (("a", "b"), [Message("user", "a"), Message("user", "b")]),
        ([], []),
    ],
)
async def test_return_shapes(value: Any, messages: list[Message]) -> None:
    def p() -> Any:
        """Described."""
        return value

    result = await registry(p).get("p", {})
    assert result == PromptResult(tuple(messages), "Described.")


async def test_a_prompt_result_is_used_as_given() -> None:
    def p() -> PromptResult:
        """Default description."""
        return PromptResult((Message("user", "x"),), meta={"trace": "1"})

    result = await registry(p).get("p", {})
    assert result == PromptResult((Message("user", "x"),), "Default description.", {"trace": "1"})


@pytest.mark.parametrize(
    "value",
    [None, 42, {"role": "system", "content": "x"}, {"content": "x"}, [["nested"]], [b"raw"]],
)
async def test_values_that_are_no_messages_are_internal_errors(
    value: Any, caplog: pytest.LogCaptureFixture
) -> None:
    def p() -> Any:
        return value

    error = await error_of(registry(p), "p", {})
    assert (error.code, error.message) == (
        INTERNAL_ERROR,
        "Prompt 'p' returned a value that cannot be sent",
    )
    assert "prompt 'p' returned a value that cannot be sent" in caplog.text


async def test_prompt_error_reaches_the_client() -> None:
    def p(ticket: str) -> str:
        raise PromptError(f"No ticket {ticket}")

    async def q() -> str:
        raise PromptError("Gone", code=-32002)

    prompts = registry(p, q)
    error = await error_of(prompts, "p", {"ticket": "123"})
    assert (error.code, error.message) == (INVALID_PARAMS, "No ticket 123")
    assert (await error_of(prompts, "q", {})).code == -32002


async def test_refusals_are_logged_as_one_warning_line(
    caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    def ticket(number: str) -> str:
        raise PromptError(f"No ticket {number}")

    def template(name: str) -> str:
        return safe_join(tmp_path, name).read_text()

    def ask() -> str:
        raise ClientCapabilityError("protocol revision 2025-03-26 has no elicitation/create")

    prompts = registry(ticket, template, ask)
    cases = [
        ("ticket", {"number": "9"}, INVALID_PARAMS, "No ticket 9", "PromptError", "No ticket 9"),
        (
            "template",
            {"name": "../x"},
            INVALID_PARAMS,
            "path '../x' is outside the served directory",
            "ResourceError",
            "path '../x' is outside the served directory",
        ),
        (
            "ask",
            {},
            INTERNAL_ERROR,
            "Prompt 'ask' failed: ClientCapabilityError: protocol revision 2025-03-26 has no"
            " elicitation/create",
            "ClientCapabilityError",
            "protocol revision 2025-03-26 has no elicitation/create",
        ),
    ]
    for name, arguments, code, message, kind, reason in cases:
        caplog.clear()
        with caplog.at_level(logging.DEBUG, logger="plainmcp"):
            error = await error_of(prompts, name, arguments)
        assert (error.code, error.message) == (code, message)
        [record] = caplog.records
        assert (record.levelno, record.getMessage(), record.exc_info) == (
            logging.WARNING,
            f"prompt {name!r} refused ({kind}): {reason}",
            None,
        )


async def test_other_failures_are_internal_errors_logged_with_the_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def p() -> str:
        raise KeyError("secret")

    caplog.set_level(logging.ERROR, "plainmcp")
    prompts = registry(p)
    error = await error_of(prompts, "p", {})
    assert (error.code, error.message) == (INTERNAL_ERROR, "Prompt 'p' failed: KeyError: 'secret'")
    assert "Traceback" in caplog.text and "Traceback" not in error.message
    [record] = caplog.records
    assert record.levelno == logging.ERROR and record.exc_info is not None
    with pytest.raises(RpcError) as info:
        await prompts.get("p", {}, mask_errors=True)
    assert info.value.code == INTERNAL_ERROR
    assert "secret" not in info.value.message
    assert info.value.message.startswith("Prompt 'p' failed unexpectedly (error id ")


def test_message_checks_role_and_content() -> None:
    with pytest.raises(ValueError, match="'user' or 'assistant'"):
        Message("system", "x")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="one content block"):
        Message("user", ["a"])  # type: ignore[arg-type]


# --- pagination ---------------------------------------------------------------------------------


def test_pages_in_registration_order_and_bad_cursors() -> None:
    prompts = Prompts()
    for i in range(5):
        prompts.add(lambda: "", name=f"p{i}")
    first, cursor = prompts.page(None, 2)
    assert [p.name for p in first] == ["p0", "p1"] and cursor is not None
    second, cursor = prompts.page(cursor, 2)
    assert [p.name for p in second] == ["p2", "p3"] and cursor is not None
    last, cursor = prompts.page(cursor, 2)
    assert [p.name for p in last] == ["p4"] and cursor is None
    everything, cursor = prompts.page(None, 100)
    assert len(everything) == 5 and cursor is None
    for bad in ("nonsense", "bzo5OTk=", 7):
        with pytest.raises(RpcError) as info:
            prompts.page(bad, 2)
        assert info.value.code == INVALID_PARAMS


# --- completion ---------------------------------------------------------------------------------


async def test_completion_explicit_and_automatic() -> None:
    def city(value: str, args: Mapping[str, str]) -> list[str]:
        return [
            c
            for c in {"fr": ["Paris", "Pau"], "de": ["Bonn"]}[args["country"]]
            if c.startswith(value)
        ]

    def trip(country: Literal["fr", "de"], city: str, tone: Tone, note: str = "") -> str:
        return ""

    prompts = Prompts()
    prompts.add(trip, complete={"city": city})
    found = await complete(prompts.completer("trip", "city"), "Pa", {"country": "fr"})
    assert (found.values, found.total, found.has_more) == (["Paris", "Pau"], 2, False)
    automatic = prompts.completer("trip", "country")
    assert isinstance(automatic, ChoiceCompleter)
    assert (await complete(automatic, "D", {})).values == ["de"]
    assert (await complete(prompts.completer("trip", "tone"), "c", {})).values == ["casual"]
    assert prompts.completer("trip", "note") is None
    for name, argument, message in (
        ("nope", "x", "Unknown prompt: nope"),
        ("trip", "x", "Prompt 'trip' has no argument 'x'"),
    ):
        with pytest.raises(RpcError) as info:
            prompts.completer(name, argument)
        assert (info.value.code, info.value.message) == (INVALID_PARAMS, message)


def test_completers_must_name_arguments() -> None:
    def p(a: str) -> str:
        return a

    with pytest.raises(ValueError, match="names 'b', which is no argument"):
        Prompts().add(p, complete={"b": lambda v, a: []})
    with pytest.raises(TypeError, match="not callable"):
        Prompts().add(p, complete={"a": "nope"})  # type: ignore[dict-item]


# --- rendering ----------------------------------------------------------------------------------


def full_prompt() -> Prompt:
    def review(code: Annotated[str, Field(title="Code")], focus: str = "bugs") -> str:
        """Review code.

        Args:
            code: The code.
        """
        return code

    return Prompts().add(
        review,
        title="Code review",
        icons=[Icon("https://x/i.png", sizes=("48x48",))],
        meta={"k": 1},
    )


EXPECTED_PROMPT: dict[str, dict[str, Any]] = {
    "2024-11-05": {
        "name": "review",
        "description": "Review code.",
        "arguments": [
            {"name": "code", "description": "The code.", "required": True},
            {"name": "focus", "required": False},
        ],
    },
    "2025-06-18": {
        "name": "review",
        "title": "Code review",
        "description": "Review code.",
        "arguments": [
            {"name": "code", "title": "Code", "description": "The code.", "required": True},
            {"name": "focus", "required": False},
        ],
        "_meta": {"k": 1},
    },
    "2025-11-25": {
        "name": "review",
        "title": "Code review",
        "description": "Review code.",
        "arguments": [
            {"name": "code", "title": "Code", "description": "The code.", "required": True},
            {"name": "focus", "required": False},
        ],
        "icons": [{"src": "https://x/i.png", "sizes": ["48x48"]}],
        "_meta": {"k": 1},
    },
}
EXPECTED_PROMPT["2025-03-26"] = EXPECTED_PROMPT["2024-11-05"]
EXPECTED_PROMPT["2026-07-28"] = EXPECTED_PROMPT["2025-11-25"]


@pytest.mark.parametrize("version", ALL)
def test_rendered_prompt(version: str) -> None:
    out = definitions.prompt(full_prompt(), REVISIONS[version])
    assert out == EXPECTED_PROMPT[version]
    validate_definition(out, version, "Prompt")
    listing: dict[str, Any] = {"prompts": [out], "nextCursor": "abc"}
    if version == "2026-07-28":
        listing.update(resultType="complete", ttlMs=0, cacheScope="public")
    validate_definition(listing, version, "ListPromptsResult")


@pytest.mark.parametrize("version", ALL)
def test_rendered_minimal_prompt(version: str) -> None:
    out = definitions.prompt(Prompts().add(lambda: "", name="bare"), REVISIONS[version])
    assert out == {"name": "bare", "arguments": []}
    validate_definition(out, version, "Prompt")


def result_of(*messages: Message, meta: Mapping[str, Any] | None = None) -> PromptResult:
    return PromptResult(messages, "A prompt.", meta)


@pytest.mark.parametrize("version", ALL)
def test_rendered_get_prompt_result(version: str) -> None:
    rev = REVISIONS[version]
    value = result_of(
        Message("user", "Hello"),
        Message("assistant", IMAGE),
        Message("user", EmbeddedResource("file:///n.txt", text="note", mime_type="text/plain")),
        meta={"trace": "t"},
    )
    out = render.get_prompt_result(value, rev, FALLBACK)
    expected: dict[str, Any] = {
        "description": "A prompt.",
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "Hello"}},
            {
                "role": "assistant",
                "content": {"type": "image", "data": IMAGE.base64, "mimeType": "image/png"},
            },
            {
                "role": "user",
                "content": {
                    "type": "resource",
                    "resource": {"uri": "file:///n.txt", "mimeType": "text/plain", "text": "note"},
                },
            },
        ],
        "_meta": {"trace": "t"},
    }
    if version == "2026-07-28":
        expected["resultType"] = "complete"
    assert out == expected
    validate_definition(out, version, "GetPromptResult")


@pytest.mark.parametrize("version", ALL)
def test_audio_in_a_prompt(version: str) -> None:
    rev = REVISIONS[version]
    audio = Audio(WAV)
    value = result_of(Message("user", audio))
    if version == "2024-11-05":
        out = render.get_prompt_result(value, rev, FALLBACK)
        assert out["messages"] == [
            {
                "role": "user",
                "content": {
                    "type": "resource",
                    "resource": {
                        "uri": render.downgrade(audio, rev).uri,  # type: ignore[attr-defined]
                        "mimeType": "audio/wav",
                        "blob": audio.base64,
                    },
                },
            }
        ]
        with pytest.raises(RpcError) as info:
            render.get_prompt_result(value, rev, STRICT)
        assert info.value.code == INTERNAL_ERROR
        assert info.value.message == (
            "This prompt holds audio content, which protocol revision 2024-11-05 cannot carry;"
            " upgrade the client to use it."
        )
    else:
        for options in (FALLBACK, STRICT):
            out = render.get_prompt_result(value, rev, options)
            assert out["messages"] == [
                {
                    "role": "user",
                    "content": {"type": "audio", "data": audio.base64, "mimeType": "audio/wav"},
                }
            ]
    validate_definition(render.get_prompt_result(value, rev, FALLBACK), version, "GetPromptResult")


@pytest.mark.parametrize("version", ALL)
def test_resource_link_in_a_prompt(version: str) -> None:
    rev = REVISIONS[version]
    link = ResourceLink("file:///a.txt", "a.txt", mime_type="text/plain", size=3)
    value = result_of(Message("assistant", "See:"), Message("assistant", link))
    out = render.get_prompt_result(value, rev, FALLBACK)
    if version in ("2024-11-05", "2025-03-26"):
        assert out["messages"][1] == {
            "role": "assistant",
            "content": {
                "type": "text",
                "text": (
                    "Resource link: file:///a.txt\nname: a.txt\ntype: text/plain\nsize: 3 bytes"
                ),
            },
        }
        with pytest.raises(RpcError) as info:
            render.get_prompt_result(value, rev, STRICT)
        assert "resource_link content" in info.value.message
        with pytest.raises(RpcError):
            render.prompt_message(value.messages[1], rev, STRICT)
    else:
        link_out = {
            "type": "resource_link",
            "uri": "file:///a.txt",
            "name": "a.txt",
            "mimeType": "text/plain",
            "size": 3,
        }
        assert out["messages"][1] == {"role": "assistant", "content": link_out}
        assert render.get_prompt_result(value, rev, STRICT) == out
    validate_definition(out, version, "GetPromptResult")


def test_strict_names_every_unsupported_kind() -> None:
    value = result_of(Message("user", Audio(WAV)), Message("user", LINK))
    with pytest.raises(RpcError) as info:
        render.get_prompt_result(value, REVISIONS["2024-11-05"], STRICT)
    assert info.value.message.startswith("This prompt holds audio, resource_link content,")


@pytest.mark.parametrize("version", ALL)
def test_rendered_result_without_description(version: str) -> None:
    out = render.get_prompt_result(
        PromptResult((Message("user", "x"),)), REVISIONS[version], FALLBACK
    )
    assert "description" not in out and "_meta" not in out
    validate_definition(out, version, "GetPromptResult")
