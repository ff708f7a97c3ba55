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
