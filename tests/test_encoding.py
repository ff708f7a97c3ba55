"""Python values to JSON: lossless numbers, every convertible type, and clear refusals."""

from __future__ import annotations

import dataclasses
import enum
import json
import math
import uuid
from datetime import UTC, date, datetime, time, timedelta, timezone
from decimal import Decimal
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
from pydantic import BaseModel, Field

from plainmcp import Text
from plainmcp.model.encoding import BlockInValue, EncodeError, UnknownType, dumps
from plainmcp.model.options import ResultOptions

DEFAULT = ResultOptions()
PARIS = timezone(timedelta(hours=1))


def enc(value: Any, options: ResultOptions = DEFAULT, indent: int | None = None) -> str:
    return dumps(value, options, indent=indent).decode()


# --- numbers --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "number",
    [2**63, 2**64 + 1, -(2**70) - 3, 10**40 + 7, 123456789012345678901234567890],
)
def test_integers_beyond_64_bits_keep_every_digit(number: int) -> None:
    assert enc(number) == str(number)
    assert enc({"n": number, "list": [number]}) == f'{{"n":{number},"list":[{number}]}}'
    assert json.loads(enc([number, 1.5])) == [number, 1.5]


def test_big_integers_with_every_policy_and_indent() -> None:
    for policy in ("null", "string", "error"):
        assert enc([2**70], ResultOptions(non_finite=policy)) == "[1180591620717411303424]"
    assert enc({"n": 2**70}, indent=2) == '{\n  "n": 1180591620717411303424\n}'


@pytest.mark.parametrize("number", [0.1, 0.1 + 0.2, 1e-300, 1.7976931348623157e308, -0.0, 1 / 3])
def test_floats_round_trip(number: float) -> None:
    text = enc(number)
    assert float(text) == number
    assert repr(number).replace("e+", "e") == text.replace("e+", "e")


def test_bool_and_int_stay_distinct() -> None:
    assert enc([True, 1, False, 0, None]) == "[true,1,false,0,null]"


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        ("null", "[null,null,null]"),
        ("string", '["NaN","Infinity","-Infinity"]'),
    ],
)
def test_non_finite_policies(policy: Any, expected: str) -> None:
    value = [math.nan, math.inf, -math.inf]
    assert enc(value, ResultOptions(non_finite=policy)) == expected


def test_non_finite_error_names_the_value_and_the_option() -> None:
    with pytest.raises(EncodeError) as caught:
        enc({"a": [1.0, math.inf]}, ResultOptions(non_finite="error"))
    assert str(caught.value) == (
        "the result contains inf, which JSON cannot carry"
        " (set ResultOptions.non_finite to 'null' or 'string' to allow it)"
    )


def test_non_finite_decimal_follows_the_policy() -> None:
    assert enc(Decimal("NaN")) == "null"
    assert enc(Decimal("-Infinity"), ResultOptions(non_finite="string")) == '"-Infinity"'


# --- dates and times ------------------------------------------------------------------------


def test_aware_datetime_keeps_its_offset() -> None:
    moment = datetime(2025, 1, 2, 3, 4, 5, 600000, tzinfo=PARIS)
    assert enc(moment) == '"2025-01-02T03:04:05.600000+01:00"'
    assert enc(moment, ResultOptions(datetimes="utc")) == '"2025-01-02T02:04:05.600000+00:00"'


def test_naive_datetime_is_local_time() -> None:
    naive = datetime(2025, 1, 2, 3, 4, 5)
    assert enc(naive) == f'"{naive.astimezone().isoformat()}"'
    assert enc(naive, ResultOptions(datetimes="utc")) == (
        f'"{naive.astimezone().astimezone(UTC).isoformat()}"'
    )


def test_date_time_and_timedelta() -> None:
    assert enc(date(2025, 1, 2)) == '"2025-01-02"'
    assert enc(time(13, 30)) == '"13:30:00"'
    assert enc(time(13, 30, tzinfo=UTC)) == '"13:30:00+00:00"'
    assert enc(timedelta(days=1, hours=2, seconds=3.5)) == '"P1DT7203.5S"'
    assert enc(timedelta(minutes=-1)) == '"-P0DT60S"'
    assert (
        enc({"on": date(2025, 1, 2), "at": [time(1, 2, 3)]})
        == '{"on":"2025-01-02","at":["01:02:03"]}'
    )


# --- other standard types -------------------------------------------------------------------


class Color(enum.Enum):
    RED = "red"
    GREEN = 2


class Level(enum.IntEnum):
    HIGH = 3


def test_decimal_is_a_lossless_string() -> None:
    assert enc(Decimal("1.10")) == '"1.10"'
    assert enc(Decimal("12345678901234567890.123456789")) == '"12345678901234567890.123456789"'


def test_uuid_enum_path() -> None:
    assert enc(uuid.UUID(int=1)) == '"00000000-0000-0000-0000-000000000001"'
    assert enc([Color.RED, Color.GREEN, Level.HIGH]) == '["red",2,3]'
    assert enc(PurePosixPath("/srv/a b.txt")) == '"/srv/a b.txt"'
    assert enc(Path("relative/x")) == f'"{Path("relative/x")}"'


def test_sets_are_sorted_when_they_can_be() -> None:
    assert enc({3, 1, 2}) == "[1,2,3]"
    assert enc(frozenset({"b", "a"})) == '["a","b"]'
    mixed = json.loads(enc({1, "a"}))
    assert sorted(mixed, key=str) == [1, "a"]


def test_bytes_inside_a_value_are_base64() -> None:
    assert enc({"raw": b"\x00\xff"}) == '{"raw":"AP8="}'
    # Every binary type, on the fast path and on the slow walk (which once read a memoryview
    # as a list of numbers through its tolist()).
    value = {"b": bytearray(b"\x00\xff"), "m": memoryview(b"\x00\xff")}
    assert enc(value) == '{"b":"AP8=","m":"AP8="}'
    assert enc(value, ResultOptions(non_finite="string")) == '{"b":"AP8=","m":"AP8="}'


def test_lift_replaces_blocks_bytes_and_image_objects() -> None:
    class Picture:
        mode = "RGB"
        size = (1, 1)

        def save(self, fp: Any, format: str | None = None) -> None:
            raise AssertionError("the hook decides; encoding never draws")

    Picture.__module__ = "PIL.Image"
    seen: list[str] = []

    def lift(value: Any) -> str:
        seen.append(type(value).__name__)
        return f"<{len(seen)}>"

    value = {"t": Text("a"), "b": b"\x00", "p": Picture(), "n": [memoryview(b"\x01")]}
    assert dumps(value, DEFAULT, lift=lift) == b'{"t":"<1>","b":"<2>","p":"<3>","n":["<4>"]}'
    assert seen == ["Text", "bytes", "Picture", "memoryview"]
    # bytes_as="base64_text": bytes stay base64 text, blocks and images still go to the hook.
    seen.clear()
    out = dumps(value, ResultOptions(bytes_as="base64_text"), lift=lift)
    assert out == b'{"t":"<1>","b":"AA==","p":"<2>","n":["AQ=="]}'
    # Without a hook, an image object is just an unknown type.
    with pytest.raises(UnknownType) as caught:
        dumps({"p": Picture()}, DEFAULT)
    assert (
        str(caught.value) == f"a value of type {Picture.__qualname__} cannot be converted to JSON"
    )


def test_tuples_are_arrays_and_non_str_keys_become_strings() -> None:
    assert enc((1, (2, 3))) == "[1,[2,3]]"
    assert enc({1: "a", 2.5: "b", None: "c"}) == '{"1":"a","2.5":"b","null":"c"}'
    assert enc({True: 1}) == enc({True: 1}, ResultOptions(non_finite="string")) == '{"true":1}'
    assert enc({Color.RED: 1, date(2025, 1, 2): 2}) == '{"red":1,"2025-01-02":2}'


def test_non_str_keys_on_the_slow_path() -> None:
    options = ResultOptions(non_finite="string")
    assert enc({1: math.nan, None: 2**70}, options) == '{"1":"NaN","null":1180591620717411303424}'


# --- dataclasses and pydantic models --------------------------------------------------------


@dataclasses.dataclass
class Point:
    x: int
    y: float


@dataclasses.dataclass
class Shape:
    name: str
    points: list[Point]
    created: date
    tags: set[str] = dataclasses.field(default_factory=set)


class Owner(BaseModel):
    user_name: str = Field(alias="userName")
    joined: datetime


class Project(BaseModel):
    project_id: uuid.UUID = Field(alias="projectId")
    owner: Owner
    shape: Shape
    budget: Decimal


def test_nested_dataclass() -> None:
    shape = Shape("tri", [Point(0, 0.5), Point(1, 2.0)], date(2025, 1, 2), {"b", "a"})
    assert enc(shape) == (
        '{"name":"tri","points":[{"x":0,"y":0.5},{"x":1,"y":2.0}],'
        '"created":"2025-01-02","tags":["a","b"]}'
    )


def test_nested_pydantic_model_uses_aliases() -> None:
    project = Project(
        projectId=uuid.UUID(int=2),
        owner=Owner(userName="ann", joined=datetime(2025, 1, 2, tzinfo=UTC)),
        shape=Shape("dot", [Point(1, 1.0)], date(2025, 1, 3)),
        budget=Decimal("10.50"),
    )
    assert enc(project) == (
        '{"projectId":"00000000-0000-0000-0000-000000000002",'
        '"owner":{"userName":"ann","joined":"2025-01-02T00:00:00+00:00"},'
        '"shape":{"name":"dot","points":[{"x":1,"y":1.0}],"created":"2025-01-03","tags":[]},'
        '"budget":"10.50"}'
    )


# --- indentation ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("indent", "expected"),
    [
        (None, '{"a":[1]}'),
        (2, '{\n  "a": [\n    1\n  ]\n}'),
        (4, '{\n    "a": [\n        1\n    ]\n}'),
        (0, '{\n"a": [\n1\n]\n}'),
    ],
)
def test_indent(indent: int | None, expected: str) -> None:
    assert enc({"a": [1]}, indent=indent) == expected
    # The slow path (a policy orjson cannot express) indents the same way.
    assert enc({"a": [1]}, ResultOptions(non_finite="string"), indent=indent) == expected


def test_unicode_is_not_escaped() -> None:
    assert enc({"name": "Zoë 🙂"}) == '{"name":"Zoë 🙂"}'
    assert enc({"name": "Zoë"}, ResultOptions(non_finite="string"), indent=4) == (
        '{\n    "name": "Zoë"\n}'
    )


# --- refusals -------------------------------------------------------------------------------


class Opaque:
    pass


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (object(), "a value of type object cannot be converted to JSON"),
        ({"a": [Opaque()]}, "a value of type Opaque cannot be converted to JSON"),
        ({"f": len}, "a value of type builtin_function_or_method cannot be converted to JSON"),
    ],
)
def test_unserializable_names_the_type(value: Any, message: str) -> None:
    with pytest.raises(UnknownType) as caught:
        enc(value)
    assert str(caught.value) == message
    with pytest.raises(UnknownType) as caught:
        enc(value, ResultOptions(non_finite="string"))
    assert str(caught.value) == message


def test_unserializable_key() -> None:
    with pytest.raises(EncodeError, match="a dict key of type tuple cannot be a JSON key"):
        enc({(1, 2): "a"}, ResultOptions(non_finite="string"))
    with pytest.raises(EncodeError):
        enc({(1, 2): "a"})


@pytest.mark.parametrize("options", [DEFAULT, ResultOptions(non_finite="string")])
def test_content_block_inside_a_value(options: ResultOptions) -> None:
    with pytest.raises(BlockInValue):
        enc({"caption": "x", "chart": Text("a")}, options)
    with pytest.raises(BlockInValue):
        enc([1, [Text("a")]], options)
