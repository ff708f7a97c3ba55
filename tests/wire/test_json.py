"""wire.json: exact decoding and encoding of protocol messages, orjson's speed kept for the rest."""

from __future__ import annotations

import orjson
import pytest

from plainmcp.wire import json


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (b"1180591620717411303424", 2**70),
        (b"18446744073709551616", 2**64),
        (b"-9223372036854775809", -(2**63) - 1),
        (
            b'{"a":[1,{"n":123456789012345678901234567890}]}',
            {"a": [1, {"n": 12345678901234567890123456789 * 10}]},
        ),
        (b"18446744073709551615", 2**64 - 1),
        (b'{"x":1.5,"y":"\\ud83d\\ude00"}', {"x": 1.5, "y": "\U0001f600"}),
        ('{"s": "é", "n": 1180591620717411303424}', {"s": "é", "n": 2**70}),
        (b"1e-400", 0.0),
    ],
)
def test_integers_of_any_size_arrive_exact(text: bytes | str, value: object) -> None:
    decoded = json.loads(text)
    assert decoded == value
    assert type(decoded) is type(value)


def test_a_wide_integer_is_an_int_not_a_float() -> None:
    decoded = json.loads(b'{"n": 1180591620717411303424}')
    assert type(decoded["n"]) is int


@pytest.mark.parametrize(
    "text", [b"NaN", b"[Infinity]", b"-Infinity", b'{"a":', b"\xff", b"", b"[1,]", b"'a'"]
)
def test_text_that_is_not_json_is_a_decode_error(text: bytes) -> None:
    with pytest.raises(json.DecodeError):
        json.loads(text)


def test_valid_json_that_no_python_value_holds_names_each_place() -> None:
    text = b'{"a":[1,{"n":1e400}],"s":"x\\ud800","\\udc00k":-1E+999,"i":' + b"7" * 5000 + b"}"
    with pytest.raises(json.Unrepresentable) as info:
        json.loads(text)
    flaws = [(flaw.where(), flaw.reason) for flaw in info.value.flaws]
    assert flaws == [
        ("a[1].n", "the number 1e400 is beyond the range of a 64-bit floating-point number"),
        ("s", "the string holds a lone surrogate (\\ud800), which is not a Unicode character"),
        ("\\udc00k", "the key holds a lone surrogate (\\udc00), which is not a Unicode character"),
        ("\\udc00k", "the number -1E+999 is beyond the range of a 64-bit floating-point number"),
        (
            "i",
            "the integer 77777777777777777777...(5000 characters) has more than the 4300 digits"
            " a server reads",
        ),
    ]
    # The rest of the document is still there, so the message can be answered by its id.
    assert info.value.value["a"][0] == 1


def test_a_flaw_at_the_top_is_named_as_the_message() -> None:
    with pytest.raises(json.Unrepresentable) as info:
        json.loads(b"1e400")
    assert info.value.flaws[0].where() == "(the message)"


def test_a_path_can_skip_its_first_parts() -> None:
    flaw = json.Flaw(("params", "arguments", "items", 2), "why")
    assert flaw.where() == "params.arguments.items[2]"
    assert flaw.where(skip=1) == "arguments.items[2]"


def test_paired_surrogate_escapes_are_one_character() -> None:
    assert json.loads(b'["\\ud83d\\ude00", 12345678901234567890]') == [
        "\U0001f600",
        12345678901234567890,
    ]


def test_deep_nesting_that_python_cannot_walk_is_a_decode_error_not_a_crash() -> None:
    with pytest.raises(json.DecodeError):
        json.loads(b"[" * 100_000 + b"]" * 100_000)


def test_encoding_is_exact_for_integers_of_any_size() -> None:
    assert json.dumps({"a": 2**70, "b": "é"}) == '{"a":1180591620717411303424,"b":"é"}'.encode()
    assert json.dumps({"n": 5}) == b'{"n":5}'


def test_canonical_encoding_sorts_keys_whichever_encoder_writes_it() -> None:
    assert json.dumps_canonical({"b": 1, "a": 2}) == b'{"a":2,"b":1}'
    assert json.dumps_canonical({"b": 1, "a": 2**70}) == b'{"a":1180591620717411303424,"b":1}'


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("a\ud800", "a string holds a lone surrogate, which is not a Unicode character"),
        ({"\udc00": 1}, "a string holds a lone surrogate, which is not a Unicode character"),
    ],
)
def test_what_json_cannot_hold_is_never_written(value: object, message: str) -> None:
    with pytest.raises(ValueError) as info:
        json.dumps(value)
    assert str(info.value) == message


@pytest.mark.parametrize(
    "value", [{"x": [None, float("nan")]}, {"big": 2**70, "x": [None, float("-inf")]}]
)
def test_nan_and_infinities_are_written_as_null_whichever_encoder_writes_them(
    value: object,
) -> None:
    assert json.dumps(value).endswith(b'"x":[null,null]}')


@pytest.mark.parametrize(
    "value", [float("inf"), {"x": [None, float("nan")]}, {"b": 2**70, "x": float("nan")}]
)
def test_the_canonical_form_refuses_nan_and_infinities(value: object) -> None:
    with pytest.raises(ValueError) as info:
        json.dumps_canonical(value)
    assert str(info.value) == "NaN and infinite numbers are not JSON"


def test_a_null_in_the_canonical_form_is_not_mistaken_for_nan() -> None:
    assert json.dumps_canonical({"t": "null", "a": None}) == b'{"a":null,"t":"null"}'


def test_the_exact_path_keeps_pre_encoded_fragments_and_orjsons_output() -> None:
    message = {"id": 2**70, "result": {"s": orjson.Fragment(b'{"n":1}'), "t": "é", "f": 0.5}}
    assert (
        json.dumps(message)
        == b'{"id":1180591620717411303424,"result":{"s":{"n":1},"t":"\xc3\xa9","f":0.5}}'
    )


def test_the_exact_path_refuses_what_json_cannot_hold() -> None:
    with pytest.raises(TypeError):
        json.dumps({"n": 2**70, "x": object()})
    with pytest.raises(TypeError):
        json.dumps({"n": 2**70, 1: 2})
