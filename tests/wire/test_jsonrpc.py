"""JSON-RPC envelope rules (wire.jsonrpc): parsing, refusal codes, encoding."""

from __future__ import annotations

import json

import orjson
import pytest

from plainmcp.wire import jsonrpc
from plainmcp.wire.jsonrpc import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    Invalid,
    Notification,
    Request,
    Response,
    RpcError,
)


def parse(value: object) -> object:
    return jsonrpc.parse(json.dumps(value).encode())


@pytest.mark.parametrize("request_id", [0, 1, -5, 2**63 - 1, "", "abc", "1"])
def test_string_and_integer_ids_are_requests(request_id: object) -> None:
    msg = parse({"jsonrpc": "2.0", "id": request_id, "method": "ping"})
    assert msg == Request(request_id, "ping", {})  # type: ignore[arg-type]
    assert type(msg.id) is type(request_id)  # type: ignore[attr-defined]


@pytest.mark.parametrize("request_id", [None, True, False, 1.5, 1.0, {"a": 1}, [1]])
def test_other_ids_are_refused_without_an_id(request_id: object) -> None:
    msg = parse({"jsonrpc": "2.0", "id": request_id, "method": "ping"})
    assert isinstance(msg, Invalid)
    assert msg.id is None
    assert msg.reply
    assert msg.error.code == INVALID_REQUEST


@pytest.mark.parametrize(
    "envelope", [{}, {"jsonrpc": "1.0"}, {"jsonrpc": 2.0}, {"jsonrpc": None}, {"jsonrpc": "2"}]
)
def test_jsonrpc_member_must_be_2_0(envelope: dict[str, object]) -> None:
    msg = parse({**envelope, "id": 7, "method": "ping"})
    assert msg == Invalid(7, msg.error)  # type: ignore[union-attr]
    assert isinstance(msg, Invalid)
    assert msg.error.code == INVALID_REQUEST
    assert msg.reply


@pytest.mark.parametrize("method", [1, None, "", ["ping"], {"m": 1}])
def test_method_must_be_a_nonempty_string(method: object) -> None:
    msg = parse({"jsonrpc": "2.0", "id": "x", "method": method})
    assert isinstance(msg, Invalid)
    assert msg.id == "x"
    assert msg.error.code == INVALID_REQUEST


@pytest.mark.parametrize("params", [[1, 2], [], "a", 3, True])
def test_params_not_an_object_is_invalid_params(params: object) -> None:
    msg = parse({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": params})
    assert isinstance(msg, Invalid)
    assert (msg.id, msg.error.code, msg.reply) == (3, INVALID_PARAMS, True)


def test_null_or_missing_params_are_empty() -> None:
    assert parse({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": None}) == Request(
        1, "ping", {}
    )
    assert parse({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"a": 1}}) == Request(
        1, "ping", {"a": 1}
    )


def test_notification_has_no_id() -> None:
    assert parse({"jsonrpc": "2.0", "method": "notifications/initialized"}) == Notification(
        "notifications/initialized", {}
    )


@pytest.mark.parametrize("params", [[1], "x", 5])
def test_notification_with_bad_params_is_never_answered(params: object) -> None:
    msg = parse({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params})
    assert isinstance(msg, Invalid)
    assert msg.reply is False
    assert msg.id is None


def test_responses_from_the_client() -> None:
    assert parse({"jsonrpc": "2.0", "id": 4, "result": {}}) == Response(4, {}, None)
    err = {"code": -1, "message": "no"}
    assert parse({"jsonrpc": "2.0", "id": "s", "error": err}) == Response("s", None, err)


@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "2.0", "id": 4},
        {"jsonrpc": "2.0", "id": 4, "result": {}, "error": {"code": 1, "message": "x"}},
        {"jsonrpc": "2.0", "id": 4, "result": 5},
        {"jsonrpc": "2.0", "id": 4, "error": "bad"},
        {"jsonrpc": "2.0", "result": {}},
    ],
)
def test_malformed_responses_are_invalid(message: dict[str, object]) -> None:
    msg = parse(message)
    assert isinstance(msg, Invalid)
    assert msg.error.code == INVALID_REQUEST


@pytest.mark.parametrize("value", [1, "ping", None, True])
def test_non_object_message_is_invalid_request(value: object) -> None:
    msg = parse(value)
    assert isinstance(msg, Invalid)
    assert (msg.id, msg.error.code) == (None, INVALID_REQUEST)


def test_batch_parses_each_element() -> None:
    msgs = parse(
        [
            {"jsonrpc": "2.0", "id": 1, "method": "ping"},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": True, "method": "ping"},
            5,
        ]
    )
    assert isinstance(msgs, list)
    assert msgs[0] == Request(1, "ping", {})
    assert msgs[1] == Notification("notifications/initialized", {})
    assert isinstance(msgs[2], Invalid) and msgs[2].error.code == INVALID_REQUEST
    assert isinstance(msgs[3], Invalid) and msgs[3].error.code == INVALID_REQUEST


def test_empty_batch_is_invalid_request() -> None:
    msg = jsonrpc.parse(b"[]")
    assert isinstance(msg, Invalid)
    assert (msg.id, msg.error.code) == (None, INVALID_REQUEST)


@pytest.mark.parametrize(
    "data", [b"{", b"", b"not json", b'{"jsonrpc": "2.0",}', b"\xff\xfe", b"[1,", b"NaN"]
)
def test_parse_errors(data: bytes) -> None:
    msg = jsonrpc.parse(data)
    assert isinstance(msg, Invalid)
    assert (msg.id, msg.error.code, msg.reply) == (None, PARSE_ERROR, True)
    assert msg.error.message.startswith("Parse error")


def test_error_message_without_id_leaves_id_out() -> None:
    error = RpcError(PARSE_ERROR, "Parse error")
    assert jsonrpc.error_message(None, error) == {
        "jsonrpc": "2.0",
        "error": {"code": PARSE_ERROR, "message": "Parse error"},
    }
    assert jsonrpc.error_message(0, RpcError(-1, "m", {"d": 1})) == {
        "jsonrpc": "2.0",
        "id": 0,
        "error": {"code": -1, "message": "m", "data": {"d": 1}},
    }


def test_builders() -> None:
    assert jsonrpc.result_message("a", {}) == {"jsonrpc": "2.0", "id": "a", "result": {}}
    assert jsonrpc.notification_message("n") == {"jsonrpc": "2.0", "method": "n"}
    assert jsonrpc.notification_message("n", {"x": 1}) == {
        "jsonrpc": "2.0",
        "method": "n",
        "params": {"x": 1},
    }
    assert jsonrpc.request_message(1, "m") == {"jsonrpc": "2.0", "id": 1, "method": "m"}


def test_encode_is_one_compact_line() -> None:
    data = jsonrpc.encode({"jsonrpc": "2.0", "id": 1, "result": {"text": "a\nb", "é": "ü"}})
    assert b"\n" not in data
    assert data == '{"jsonrpc":"2.0","id":1,"result":{"text":"a\\nb","é":"ü"}}'.encode()


@pytest.mark.parametrize("number", [2**64, -(2**63) - 1, 10**40, -(10**30)])
def test_encode_keeps_wide_integers_exact(number: int) -> None:
    data = jsonrpc.encode({"jsonrpc": "2.0", "id": 1, "result": {"n": number, "s": "ü"}})
    assert b"\n" not in data
    assert str(number).encode() in data
    assert json.loads(data)["result"]["n"] == number
    assert "ü" in data.decode()


def test_encode_64_bit_edges_use_orjson() -> None:
    for number in (2**64 - 1, -(2**63)):
        assert orjson.loads(jsonrpc.encode({"n": number}))["n"] == number


# --- exact requests: wide integers, and valid JSON that no Python value holds ------------------


def test_wide_integers_arrive_exact_in_ids_params_and_meta() -> None:
    data = (
        b'{"jsonrpc":"2.0","id":1180591620717411303424,"method":"tools/call","params":'
        b'{"name":"echo","arguments":{"n":1180591620717411303424},'
        b'"_meta":{"progressToken":-1180591620717411303424}}}'
    )
    assert jsonrpc.parse(data) == Request(
        2**70,
        "tools/call",
        {"name": "echo", "arguments": {"n": 2**70}, "_meta": {"progressToken": -(2**70)}},
    )


def test_a_number_beyond_a_float_is_invalid_params_answered_by_id() -> None:
    data = b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"n":1e400}}}'
    msg = jsonrpc.parse(data)
    assert isinstance(msg, Invalid)
    assert (msg.id, msg.error.code, msg.error.message, msg.reply) == (
        7,
        INVALID_PARAMS,
        "Invalid params: arguments.n: the number 1e400 is beyond the range of a 64-bit"
        " floating-point number",
        True,
    )


def test_a_lone_surrogate_is_invalid_params_answered_by_id() -> None:
    data = b'{"jsonrpc":"2.0","id":"a","method":"m","params":{"s":["ok","\\ud800"]}}'
    msg = jsonrpc.parse(data)
    assert isinstance(msg, Invalid)
    assert (msg.id, msg.error.code, msg.error.message) == (
        "a",
        INVALID_PARAMS,
        "Invalid params: s[1]: the string holds a lone surrogate (\\ud800), which is not a"
        " Unicode character",
    )


def test_many_flaws_are_named_three_in_full() -> None:
    data = b'{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[1e400,2e400,3e400,4e400]}}'
    msg = jsonrpc.parse(data)
    assert isinstance(msg, Invalid)
    assert msg.error.message == (
        "Invalid params: a[0]: the number 1e400 is beyond the range of a 64-bit floating-point"
        " number; a[1]: the number 2e400 is beyond the range of a 64-bit floating-point number;"
        " a[2]: the number 3e400 is beyond the range of a 64-bit floating-point number"
        " (and 1 more)"
    )


def test_a_flaw_outside_params_is_an_invalid_request_by_id() -> None:
    msg = jsonrpc.parse(b'{"jsonrpc":"2.0","id":3,"method":"m\\udc00"}')
    assert isinstance(msg, Invalid)
    assert (msg.id, msg.error.code, msg.error.message) == (
        3,
        INVALID_REQUEST,
        "Invalid Request: method: the string holds a lone surrogate (\\udc00), which is not a"
        " Unicode character",
    )


def test_an_id_that_cannot_be_written_back_is_refused_without_an_id() -> None:
    msg = jsonrpc.parse(b'{"jsonrpc":"2.0","id":"x\\ud800","method":"ping"}')
    assert isinstance(msg, Invalid)
    assert (msg.id, msg.error.code, msg.error.message) == (
        None,
        INVALID_REQUEST,
        "Invalid Request: id: the string holds a lone surrogate (\\ud800), which is not a"
        " Unicode character",
    )


def test_a_flawed_notification_is_never_answered() -> None:
    msg = jsonrpc.parse(b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"p":1e999}}')
    assert isinstance(msg, Invalid)
    assert (msg.id, msg.reply) == (None, False)


def test_a_flawed_response_becomes_an_error_for_the_call_waiting_on_it() -> None:
    msg = jsonrpc.parse(b'{"jsonrpc":"2.0","id":"plainmcp-1","result":{"content":{"n":1e400}}}')
    assert msg == Response(
        "plainmcp-1",
        None,
        {
            "code": INVALID_PARAMS,
            "message": "Unreadable response: result.content.n: the number 1e400 is beyond the"
            " range of a 64-bit floating-point number",
        },
    )


def test_a_batch_answers_only_its_flawed_element_with_an_error() -> None:
    parsed = jsonrpc.parse(
        b'[{"jsonrpc":"2.0","id":1,"method":"ping"},'
        b'{"jsonrpc":"2.0","id":2,"method":"m","params":{"x":1e400}}]'
    )
    assert isinstance(parsed, list)
    first, second = parsed
    assert first == Request(1, "ping", {})
    assert isinstance(second, Invalid)
    assert (second.id, second.error.code, second.error.message) == (
        2,
        INVALID_PARAMS,
        "Invalid params: x: the number 1e400 is beyond the range of a 64-bit floating-point number",
    )


def test_sniffed_wide_ids_are_exact() -> None:
    assert jsonrpc.sniff_id(b'{"jsonrpc":"2.0","id":1180591620717411303424,"x":') == 2**70


def test_a_reply_json_cannot_hold_is_answered_with_an_internal_error() -> None:
    data = jsonrpc.encode({"jsonrpc": "2.0", "id": 4, "result": {"x": "\udc00"}})
    assert data == (
        b'{"jsonrpc":"2.0","id":4,"error":{"code":-32603,'
        b'"message":"Internal error: the reply could not be encoded as JSON"}}'
    )


def test_a_notification_json_cannot_hold_raises_for_its_sender() -> None:
    with pytest.raises(ValueError):
        jsonrpc.encode({"jsonrpc": "2.0", "method": "m", "params": {"s": "\ud800"}})
