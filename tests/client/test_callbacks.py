"""The callbacks' arguments and answers, without a server: wire params to dataclasses, plain
returns to wire results, and the capabilities each revision gets declared."""

from __future__ import annotations

import pytest

from plainmcp import Client, Context, ElicitResult, Image, Root, Server
from plainmcp.client.callbacks import (
    CallbackError,
    Callbacks,
    Elicitation,
    SamplingResult,
    elicit_result,
    elicitation,
    root_wire,
    sample_result,
)
from plainmcp.extensions import client_extensions
from plainmcp.wire.revisions import REVISIONS

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_a_url_mode_elicitation_names_its_url_and_id() -> None:
    params = {
        "mode": "url",
        "message": "Sign in",
        "url": "https://example.com/login",
        "elicitationId": "e-1",
    }
    assert elicitation(params) == Elicitation(
        message="Sign in", mode="url", url="https://example.com/login", elicitation_id="e-1"
    )


def test_elicit_answers_in_every_form() -> None:
    assert elicit_result(None) == {"action": "decline"}
    assert elicit_result({"name": "Ada"}) == {"action": "accept", "content": {"name": "Ada"}}
    assert elicit_result(ElicitResult("cancel")) == {"action": "cancel"}
    with pytest.raises(CallbackError, match="an elicit callback returned int, not an answer"):
        elicit_result(3)


def test_sample_answers_in_every_form() -> None:
    rev = REVISIONS["2025-11-25"]
    assert sample_result("Paris", rev) == {
        "role": "assistant",
        "content": {"type": "text", "text": "Paris"},
        "model": "unknown",
        "stopReason": "endTurn",
    }
    image = Image(b"\x89PNG\r\n\x1a\n", mime_type="image/png")
    assert sample_result(SamplingResult(image, model="m", stop_reason=None), rev) == {
        "role": "assistant",
        "content": {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
        "model": "m",
    }
    wire = {"role": "assistant", "content": {"type": "text", "text": "x"}, "model": "m"}
    assert sample_result(wire, rev) == wire


def test_roots_in_every_form() -> None:
    assert [root_wire(r) for r in ("file:///a", Root("file:///b", "b"), {"uri": "file:///c"})] == [
        {"uri": "file:///a"},
        {"uri": "file:///b", "name": "b"},
        {"uri": "file:///c"},
    ]


def test_capabilities_follow_the_callbacks_and_the_revision() -> None:
    every = Callbacks(elicit=lambda e: None, sample=lambda r: "x", roots=["file:///"])
    assert every.capabilities(REVISIONS["2025-11-25"]) == {
        "elicitation": {"form": {}, "url": {}},
        "sampling": {},
        "roots": {},
    }
    assert every.capabilities(REVISIONS["2026-07-28"]) == {
        "elicitation": {"form": {}, "url": {}},
        "sampling": {},
        "roots": {},
    }
    # 2024-11-05 has no elicitation: none is declared, though there is a callback.
    assert every.capabilities(REVISIONS["2024-11-05"]) == {"sampling": {}, "roots": {}}
    assert Callbacks().capabilities(REVISIONS["2025-11-25"]) == {}


async def test_a_coroutine_callback_is_awaited_and_a_raising_one_is_a_callback_error() -> None:
    async def roots() -> list[str]:
        return ["file:///a"]

    async def broken(request: Elicitation) -> None:
        raise KeyError("gone")

    rev = REVISIONS["2025-11-25"]
    callbacks = Callbacks(elicit=broken, roots=roots)
    assert await callbacks.answer("roots/list", {}, rev) == {"roots": [{"uri": "file:///a"}]}
    with pytest.raises(CallbackError, match=r"the elicitation/create callback failed: KeyError"):
        await callbacks.answer("elicitation/create", {"message": "?"}, rev)
    with pytest.raises(CallbackError, match="the client has no callback for sampling/create"):
        await callbacks.answer("sampling/createMessage", {}, rev)


def test_declared_extensions_are_sent_at_every_revision_and_bad_ones_refused() -> None:
    widgets = {"com.example/widgets": {"colors": ["red"]}}
    declaring = Callbacks(extensions=widgets)
    for version in ("2024-11-05", "2025-11-25", "2026-07-28"):
        assert declaring.capabilities(REVISIONS[version]) == {"extensions": widgets}
    with pytest.raises(ValueError, match=r"a prefixed name \(vendor/name\), not 'widgets'"):
        Callbacks(extensions={"widgets": {}})
    with pytest.raises(ValueError, match="its settings are an object, not True"):
        Callbacks(extensions={"com.example/widgets": True})  # type: ignore[dict-item]


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
async def test_a_tool_reads_the_extensions_the_client_declared(protocol: str) -> None:
    app = Server("ext")

    @app.tool()
    def seen(ctx: Context) -> dict[str, object]:
        """The client's extensions."""
        return dict(client_extensions(ctx))

    declared = {"com.example/widgets": {"v": 2}, "io.modelcontextprotocol/tasks": {}}
    async with Client.memory(app, protocol=protocol, extensions=declared) as client:
        result = await client.call_tool("seen", {})
    assert result.structured == declared
