"""Input-required results (2026-07-28): a stateless request that needs the client's input.

The tool is re-run on every retry; answers travel in the signed requestState, so nothing lives
in server memory and any process with the same secret can continue.
"""

from __future__ import annotations

import base64
import gc
import warnings
from typing import Any

import pytest

from plainmcp import Context, Server
from plainmcp.wire.request_state import StateSigner
from tests.conftest import Session

pytestmark = pytest.mark.anyio

SECRET = "s" * 40
ELICIT = {"elicitation": {}}


def meta(capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities or {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
    }


def make_server(**options: Any) -> Server:
    app = Server("mrtr", version="1.0.0", state_secret=SECRET, **options)
    runs: list[str] = []
    app.runs = runs  # type: ignore[attr-defined]

    @app.tool
    async def greet(ctx: Context) -> str:
        """Ask for a name, then a colour: two rounds."""
        runs.append("greet")
        name = await ctx.elicit(
            "Name?", {"type": "object", "properties": {"n": {"type": "string"}}}
        )
        colour = await ctx.elicit(
            "Colour?", {"type": "object", "properties": {"c": {"type": "string"}}}
        )
        assert name.content is not None and colour.content is not None
        return f"{name.content['n']} likes {colour.content['c']}"

    @app.tool
    async def summarise(text: str, ctx: Context) -> str:
        answer = await ctx.sample(f"Summarise: {text}", max_tokens=20)
        return f"{answer.model}: {answer.text}"

    @app.tool
    async def where(ctx: Context) -> list[str]:
        return [root.uri for root in await ctx.list_roots()]

    @app.prompt
    async def intro(ctx: Context) -> str:
        """A prompt that asks first."""
        answer = await ctx.elicit(
            "Topic?", {"type": "object", "properties": {"t": {"type": "string"}}}
        )
        assert answer.content is not None
        return f"Tell me about {answer.content['t']}"

    return app


def call(name: str, arguments: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name, "_meta": meta(extra.pop("capabilities", ELICIT))}
    if arguments is not None:
        params["arguments"] = arguments
    params.update(extra)
    return params


def accept(**content: Any) -> dict[str, Any]:
    return {"action": "accept", "content": content}


async def test_two_rounds_then_complete() -> None:
    app = make_server()
    async with Session(app, revision_hint="2026-07-28") as s:
        first = await s.result("tools/call", call("greet"))
        assert first["resultType"] == "input_required"
        assert first["inputRequests"] == {
            "elicitation-1": {
                "method": "elicitation/create",
                "params": {
                    "message": "Name?",
                    "requestedSchema": {"type": "object", "properties": {"n": {"type": "string"}}},
                },
            }
        }
        assert "ttlMs" not in first
        second = await s.result(
            "tools/call",
            call(
                "greet",
                requestState=first["requestState"],
                inputResponses={"elicitation-1": accept(n="Ada")},
            ),
        )
        assert second["resultType"] == "input_required"
        assert list(second["inputRequests"]) == ["elicitation-2"]
        assert second["inputRequests"]["elicitation-2"]["params"]["message"] == "Colour?"
        # The client sends only this round's answer; the first travels in requestState.
        done = await s.result(
            "tools/call",
            call(
                "greet",
                requestState=second["requestState"],
                inputResponses={"elicitation-2": accept(c="green")},
            ),
        )
        assert done["resultType"] == "complete"
        assert done["content"] == [{"type": "text", "text": "Ada likes green"}]
    assert app.runs == ["greet", "greet", "greet"]  # type: ignore[attr-defined]


async def test_missing_answers_are_asked_again_and_extra_ones_ignored() -> None:
    async with Session(make_server(), revision_hint="2026-07-28") as s:
        first = await s.result("tools/call", call("greet"))
        again = await s.result(
            "tools/call",
            call(
                "greet",
                requestState=first["requestState"],
                inputResponses={"something-else": accept(n="Eve")},
            ),
        )
        assert again["resultType"] == "input_required"
        assert list(again["inputRequests"]) == ["elicitation-1"]
        # An answer for a key the state never asked for is ignored, even with the right name.
        sneaky = await s.result(
            "tools/call",
            call(
                "greet",
                requestState=first["requestState"],
                inputResponses={"elicitation-1": accept(n="Ada"), "elicitation-2": accept(c="red")},
            ),
        )
        assert list(sneaky["inputRequests"]) == ["elicitation-2"]


async def test_answers_given_up_front_without_a_state_are_used() -> None:
    # input-required-result-ignore-extra-params sends the answer (and unknown keys) at once.
    async with Session(make_server(), revision_hint="2026-07-28") as s:
        result = await s.result(
            "tools/call",
            call(
                "greet",
                inputResponses={"elicitation-1": accept(n="Ada"), "unknown": accept(x=1)},
            ),
        )
        # The name was answered up front: only the colour is asked.
        assert list(result["inputRequests"]) == ["elicitation-2"]
        unanswered = await s.result(
            "tools/call", call("greet", inputResponses={"unknown": accept(n="Ada")})
        )
        assert list(unanswered["inputRequests"]) == ["elicitation-1"]


def tamper(token: str) -> str:
    version, payload, mac = token.split(".")
    raw = bytearray(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    raw[len(raw) // 2] ^= 1
    return ".".join([version, base64.urlsafe_b64encode(bytes(raw)).decode().rstrip("="), mac])


async def test_a_tampered_state_is_refused() -> None:
    async with Session(make_server(), revision_hint="2026-07-28") as s:
        first = await s.result("tools/call", call("greet"))
        reply = await s.request(
            "tools/call",
            call(
                "greet",
                requestState=tamper(first["requestState"]),
                inputResponses={"elicitation-1": accept(n="Ada")},
            ),
        )
        assert reply["error"] == {
            "code": -32602,
            "message": "Invalid requestState: integrity check failed (altered, or signed with"
            " another server secret)",
        }
        garbage = await s.request("tools/call", call("greet", requestState="v1.abc"))
        assert garbage["error"]["code"] == -32602
        assert (await s.result("tools/call", call("greet")))["resultType"] == "input_required"


async def test_an_expired_state_is_refused() -> None:
    app = make_server()
    now = [1000.0]
    app.state_signer = StateSigner(SECRET, ttl=5, clock=lambda: now[0])
    async with Session(app, revision_hint="2026-07-28") as s:
        first = await s.result("tools/call", call("greet"))
        now[0] += 6
        reply = await s.request(
            "tools/call",
            call(
                "greet",
                requestState=first["requestState"],
                inputResponses={"elicitation-1": accept(n="Ada")},
            ),
        )
        assert reply["error"] == {
            "code": -32602,
            "message": "Expired requestState: send the request again without requestState and"
            " inputResponses to start over",
        }


async def test_a_state_replayed_for_another_tool_or_arguments_is_refused() -> None:
    async with Session(make_server(), revision_hint="2026-07-28") as s:
        first = await s.result(
            "tools/call", call("summarise", {"text": "a"}, capabilities={"sampling": {}})
        )
        token = first["requestState"]
        other_tool = await s.request("tools/call", call("greet", requestState=token))
        assert other_tool["error"] == {
            "code": -32602,
            "message": "Invalid requestState: it was issued for another tool",
        }
        other_args = await s.request(
            "tools/call",
            call("summarise", {"text": "b"}, capabilities={"sampling": {}}, requestState=token),
        )
        assert other_args["error"] == {
            "code": -32602,
            "message": "Invalid requestState: it was issued for other arguments",
        }


async def test_another_process_with_the_same_secret_continues() -> None:
    one, two = make_server(), make_server()
    async with Session(one, revision_hint="2026-07-28") as s:
        first = await s.result(
            "tools/call", call("summarise", {"text": "x"}, capabilities={"sampling": {}})
        )
    answer = {"role": "assistant", "content": {"type": "text", "text": "short"}, "model": "m"}
    async with Session(two, revision_hint="2026-07-28") as s:
        done = await s.result(
            "tools/call",
            call(
                "summarise",
                {"text": "x"},
                capabilities={"sampling": {}},
                requestState=first["requestState"],
                inputResponses={"sampling-1": answer},
            ),
        )
    assert done["content"] == [{"type": "text", "text": "m: short"}]
    assert first["inputRequests"] == {
        "sampling-1": {
            "method": "sampling/createMessage",
            "params": {
                "messages": [{"role": "user", "content": {"type": "text", "text": "Summarise: x"}}],
                "maxTokens": 20,
            },
        }
    }


async def test_roots_round_trip() -> None:
    async with Session(make_server(), revision_hint="2026-07-28") as s:
        first = await s.result("tools/call", call("where", capabilities={"roots": {}}))
        assert first["inputRequests"] == {"roots-1": {"method": "roots/list", "params": {}}}
        done = await s.result(
            "tools/call",
            call(
                "where",
                capabilities={"roots": {}},
                requestState=first["requestState"],
                inputResponses={"roots-1": {"roots": [{"uri": "file:///r"}]}},
            ),
        )
        assert done["structuredContent"] == ["file:///r"]


async def test_a_missing_capability_is_32021() -> None:
    async with Session(make_server(), revision_hint="2026-07-28") as s:
        reply = await s.request("tools/call", call("summarise", {"text": "x"}, capabilities={}))
        assert reply["error"] == {
            "code": -32021,
            "message": "the client did not declare the 'sampling' capability, so"
            " sampling/createMessage cannot be sent to it",
            "data": {"requiredCapabilities": {"sampling": {}}},
        }


async def test_prompts_can_ask_too() -> None:
    async with Session(make_server(), revision_hint="2026-07-28") as s:
        params = {"name": "intro", "_meta": meta(ELICIT)}
        first = await s.result("prompts/get", params)
        assert first["resultType"] == "input_required"
        done = await s.result(
            "prompts/get",
            {
                **params,
                "requestState": first["requestState"],
                "inputResponses": {"elicitation-1": accept(t="tides")},
            },
        )
        assert done["messages"] == [
            {"role": "user", "content": {"type": "text", "text": "Tell me about tides"}}
        ]


async def test_resource_reads_can_ask_too() -> None:
    app = make_server()

    @app.resource("vault://{name}")
    async def vault(name: str, ctx: Context) -> str:
        answer = await ctx.elicit(
            "PIN?", {"type": "object", "properties": {"pin": {"type": "string"}}}
        )
        assert answer.content is not None
        return f"{name} opened with {answer.content['pin']}"

    async with Session(app, revision_hint="2026-07-28") as s:
        params = {"uri": "vault://gold", "_meta": meta(ELICIT)}
        first = await s.result("resources/read", params)
        assert first["resultType"] == "input_required"
        assert "ttlMs" not in first
        done = await s.result(
            "resources/read",
            {
                **params,
                "requestState": first["requestState"],
                "inputResponses": {"elicitation-1": accept(pin="1234")},
            },
        )
        assert done["contents"] == [
            {"uri": "vault://gold", "mimeType": "text/plain", "text": "gold opened with 1234"}
        ]
        assert (done["resultType"], done["ttlMs"], done["cacheScope"]) == ("complete", 0, "public")
        # The state is bound to the resource it was issued for.
        other = await s.request(
            "resources/read",
            {"uri": "vault://silver", "_meta": meta(ELICIT), "requestState": first["requestState"]},
        )
        assert other["error"] == {
            "code": -32602,
            "message": "Invalid requestState: it was issued for another resource",
        }


async def test_prompts_and_resources_answer_32021_too() -> None:
    app = make_server()

    @app.resource("needs://roots")
    async def needs(ctx: Context) -> str:
        return str(await ctx.list_roots())

    async with Session(app, revision_hint="2026-07-28") as s:
        prompt = await s.request("prompts/get", {"name": "intro", "_meta": meta({})})
        read = await s.request("resources/read", {"uri": "needs://roots", "_meta": meta({})})
    assert prompt["error"]["code"] == read["error"]["code"] == -32021
    assert prompt["error"]["data"] == {"requiredCapabilities": {"elicitation": {}}}
    assert read["error"]["data"] == {"requiredCapabilities": {"roots": {}}}


def survey_server() -> Server:
    app = Server("survey", version="1.0.0", state_secret=SECRET)
    form = {"type": "object", "properties": {"n": {"type": "string"}}}

    @app.tool
    async def survey(ctx: Context) -> str:
        """Asks a named question and two at once."""
        name, greeting = await ctx.ask_all(
            ctx.elicit("Name?", form, key="user_name"),
            ctx.sample("Say hi", max_tokens=5, key="hello"),
        )
        (roots,) = await ctx.ask_all(ctx.list_roots())
        return f"{name.content}|{greeting.content['text']}|{[r.uri for r in roots]}"

    return app


async def test_named_keys_and_questions_asked_together() -> None:
    caps = {"elicitation": {}, "sampling": {}, "roots": {}}
    async with Session(survey_server(), revision_hint="2026-07-28") as s:
        first = await s.result("tools/call", call("survey", capabilities=caps))
        assert first["inputRequests"] == {
            "user_name": {
                "method": "elicitation/create",
                "params": {
                    "message": "Name?",
                    "requestedSchema": {"type": "object", "properties": {"n": {"type": "string"}}},
                },
            },
            "hello": {
                "method": "sampling/createMessage",
                "params": {
                    "messages": [{"role": "user", "content": {"type": "text", "text": "Say hi"}}],
                    "maxTokens": 5,
                },
            },
        }
        # A malformed answer (no action) does not count: that question is asked again.
        second = await s.result(
            "tools/call",
            call(
                "survey",
                capabilities=caps,
                requestState=first["requestState"],
                inputResponses={
                    "user_name": {"content": {"n": "Ada"}},
                    "hello": {"role": "assistant", "content": {"type": "text", "text": "hi"}},
                },
            ),
        )
        assert list(second["inputRequests"]) == ["user_name"]
        third = await s.result(
            "tools/call",
            call(
                "survey",
                capabilities=caps,
                requestState=second["requestState"],
                inputResponses={"user_name": accept(n="Ada")},
            ),
        )
        assert third["inputRequests"] == {"roots-1": {"method": "roots/list", "params": {}}}
        done = await s.result(
            "tools/call",
            call(
                "survey",
                capabilities=caps,
                requestState=third["requestState"],
                inputResponses={"roots-1": {"roots": [{"uri": "file:///w"}]}},
            ),
        )
        assert done["content"] == [{"type": "text", "text": "{'n': 'Ada'}|hi|['file:///w']"}]


async def test_ask_all_in_a_session_asks_one_after_another() -> None:
    async with Session(survey_server()) as s:
        await s.initialize(capabilities={"elicitation": {}, "sampling": {}, "roots": {}})
        call_id = await s.start("tools/call", {"name": "survey", "arguments": {}})
        answers = [
            {"action": "accept", "content": {"n": "Bo"}},
            {"role": "assistant", "content": {"type": "text", "text": "yo"}, "model": "m"},
            {"roots": [{"uri": "file:///r"}]},
        ]
        asked = []
        for answer in answers:
            request = await s.wait_for(
                lambda m: (
                    isinstance(m, dict)
                    and "method" in m
                    and "id" in m
                    and m["id"] not in [a["id"] for a in asked]
                )
            )
            asked.append(request)
            await s.send({"jsonrpc": "2.0", "id": request["id"], "result": answer})
        assert [r["method"] for r in asked] == [
            "elicitation/create",
            "sampling/createMessage",
            "roots/list",
        ]
        reply = await s.response(call_id)
    assert reply["result"]["content"] == [{"type": "text", "text": "{'n': 'Bo'}|yo|['file:///r']"}]


async def test_ask_all_stops_at_an_error_without_leaving_questions_unawaited() -> None:
    app = Server("survey", version="1.0.0", state_secret=SECRET)

    @app.tool
    async def needs_sampling(ctx: Context) -> str:
        """Asks for sampling (undeclared), then elicitation."""
        await ctx.ask_all(
            ctx.sample("hi", max_tokens=5),
            ctx.elicit("Name?", {"type": "object", "properties": {}}),
        )
        return "unreachable"

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        async with Session(app, revision_hint="2026-07-28") as s:
            reply = await s.request("tools/call", call("needs_sampling"))
        gc.collect()
    assert [str(w.message) for w in caught if w.category is RuntimeWarning] == []
    assert reply["error"]["code"] == -32021
    assert reply["error"]["data"] == {"requiredCapabilities": {"sampling": {}}}
