"""Requests arrive exactly as sent: integers of any size in arguments, ids, `_meta` and
`inputResponses`; valid JSON that no Python value holds (`1e400`, a lone surrogate) answered by
the request's own id, naming the bad value; and never NaN, Infinity or a lone surrogate written."""

from __future__ import annotations

import json
from typing import Any

import pytest

from plainmcp import Context, Server
from tests.conftest import Session

pytestmark = pytest.mark.anyio

BIG = 2**70  # 1180591620717411303424
SECRET = "e" * 40
META_2026 = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
}


def make_server() -> Server:
    app = Server("exact", version="1.0.0", state_secret=SECRET)

    @app.tool
    def echo(n: int) -> int:
        """Return n."""
        return n

    @app.tool
    def halve(x: float) -> float:
        return x / 2

    @app.tool
    def shout(s: str) -> str:
        return s.upper()

    @app.tool
    async def count(ctx: Context) -> str:
        await ctx.report_progress(1, 2)
        return "counted"

    @app.tool
    async def ask(ctx: Context) -> int:
        answer = await ctx.elicit(
            "n?", {"type": "object", "properties": {"n": {"type": "integer"}}}, key="n"
        )
        assert answer.content is not None
        value: int = answer.content["n"]
        return value + 1

    @app.tool
    def bad_name() -> str:
        return "report-\udcff.txt"  # what os.fsdecode makes of an undecodable file name

    @app.tool
    def ratios() -> dict:  # type: ignore[type-arg]
        return {"inf": float("inf"), "nan": float("nan"), "big": BIG}

    return app


def line(message: dict[str, Any]) -> bytes:
    """One request as a client writes it (the stdlib writes wide integers exactly)."""
    return json.dumps(message).encode()


async def test_a_wide_integer_argument_arrives_exact() -> None:
    async with Session(make_server()) as s:
        await s.initialize("2025-11-25")
        await s.send_raw(
            b'{"jsonrpc":"2.0","id":105,"method":"tools/call","params":{"name":"echo",'
            b'"arguments":{"n":1180591620717411303424}}}'
        )
        reply = await s.response(105)
        assert reply["result"] == {
            "content": [{"type": "text", "text": "1180591620717411303424"}],
            "structuredContent": {"result": BIG},
            "isError": False,
        }


async def test_a_wide_integer_id_is_answered_with_the_same_id() -> None:
    async with Session(make_server()) as s:
        await s.initialize("2025-11-25")
        await s.send_raw(line({"jsonrpc": "2.0", "id": BIG, "method": "ping"}))
        assert await s.response(BIG) == {"jsonrpc": "2.0", "id": BIG, "result": {}}


async def test_a_wide_progress_token_comes_back_exact() -> None:
    async with Session(make_server()) as s:
        await s.initialize("2025-11-25")
        params = {"name": "count", "arguments": {}, "_meta": {"progressToken": -BIG}}
        await s.send_raw(
            line({"jsonrpc": "2.0", "id": 101, "method": "tools/call", "params": params})
        )
        assert (await s.response(101))["result"]["content"] == [{"type": "text", "text": "counted"}]
        (progress,) = s.notifications("notifications/progress")
        assert progress["params"] == {"progressToken": -BIG, "progress": 1, "total": 2}


async def test_wide_integers_in_input_responses_arrive_exact() -> None:
    async with Session(make_server(), revision_hint="2026-07-28") as s:
        params: dict[str, Any] = {"name": "ask", "arguments": {}, "_meta": META_2026}
        first = await s.result("tools/call", params)
        assert first["resultType"] == "input_required"
        retry = {
            **params,
            "inputResponses": {"n": {"action": "accept", "content": {"n": BIG}}},
            "requestState": first["requestState"],
        }
        await s.send_raw(line({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": retry}))
        done = (await s.response(9))["result"]
        assert done["resultType"] == "complete"
        assert done["structuredContent"] == BIG + 1
        assert done["content"] == [{"type": "text", "text": str(BIG + 1)}]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            b'{"x":1e400}',
            "Invalid params: arguments.x: the number 1e400 is beyond the range of a 64-bit"
            " floating-point number",
        ),
        (
            b'{"s":"a\\ud800b"}',
            "Invalid params: arguments.s: the string holds a lone surrogate (\\ud800), which is"
            " not a Unicode character",
        ),
    ],
)
async def test_valid_json_no_python_value_holds_is_answered_by_its_id(
    arguments: bytes, message: str
) -> None:
    async with Session(make_server()) as s:
        await s.initialize("2025-11-25")
        tool = b"halve" if b"1e400" in arguments else b"shout"
        await s.send_raw(
            b'{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"'
            + tool
            + b'","arguments":'
            + arguments
            + b"}}"
        )
        assert await s.response(11) == {
            "jsonrpc": "2.0",
            "id": 11,
            "error": {"code": -32602, "message": message},
        }
        # The next request still works.
        assert (await s.call("halve", {"x": 3}))["content"] == [{"type": "text", "text": "1.5"}]


async def test_a_wide_integer_where_a_float_is_expected_is_read_as_a_number() -> None:
    async with Session(make_server()) as s:
        await s.initialize("2025-11-25")
        await s.send_raw(
            b'{"jsonrpc":"2.0","id":102,"method":"tools/call","params":{"name":"halve",'
            b'"arguments":{"x":1180591620717411303424}}}'
        )
        reply = await s.response(102)
        assert reply["result"]["content"] == [{"type": "text", "text": "5.902958103587057e+20"}]


async def test_text_holding_a_lone_surrogate_is_an_error_result_naming_it() -> None:
    async with Session(make_server()) as s:
        await s.initialize("2025-11-25")
        assert await s.call("bad_name") == {
            "content": [
                {
                    "type": "text",
                    "text": "Tool 'bad_name' returned a value that cannot be sent: the text holds"
                    " a lone surrogate (\\udcff) at index 7, which is not a Unicode character",
                }
            ],
            "isError": True,
        }


async def test_nan_and_infinity_are_never_written() -> None:
    async with Session(make_server()) as s:
        await s.initialize("2025-11-25")
        result = await s.call("ratios")
        assert result["content"] == [
            {"type": "text", "text": '{"inf":null,"nan":null,"big":1180591620717411303424}'}
        ]
        assert "structuredContent" not in result  # a bare `-> dict` declares no output schema
