"""Python values to JSON, losslessly and under the Server's ResultOptions.

The fast path is one orjson call; values orjson cannot take natively reach `_convert`. Policies
orjson cannot express (NaN as strings or errors, integers wider than 64 bits) take a slower walk.

A `lift` hook, when given, is called for each content block, bytes value and image object (PIL,
matplotlib) inside the value and returns what to write in its place: tool results use it to send
those as content blocks. Without it, bytes are base64 text and a block raises BlockInValue.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import math
import sys
from collections.abc import Callable, Mapping
from enum import Enum
from typing import TYPE_CHECKING, Any
from uuid import UUID

import orjson

from plainmcp.model import images
from plainmcp.model.blocks import ContentBlock
from plainmcp.model.options import ResultOptions
from plainmcp.model.pydantic_check import is_model

if TYPE_CHECKING:
    from datetime import timedelta

_OPTS = (
    orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_NON_STR_KEYS
    | orjson.OPT_SERIALIZE_NUMPY
)


class EncodeError(ValueError):
    """The value cannot be sent as JSON; the message says why, for the model to read."""


class UnknownType(EncodeError):
    """A value of a type that has no JSON form (the message names the type)."""


class BlockInValue(Exception):
    """A content block sits inside a value that was being encoded as JSON."""


Lift = Callable[[Any], Any]
"""Given a content block, bytes or an image object met inside a value: what to encode instead."""

_BINARY = (bytes, bytearray, memoryview)


def _iso_duration(delta: timedelta) -> str:
    sign = "-" if delta < type(delta)(0) else ""
    delta = abs(delta)
    seconds = delta.seconds + delta.microseconds / 1_000_000
    secs = f"{seconds:.6f}".rstrip("0").rstrip(".")
    return f"{sign}P{delta.days}DT{secs}S"


def _convert(obj: Any, options: ResultOptions, lift: Lift | None = None) -> Any:
    """One step towards JSON for a type orjson does not serialize the way we want."""
    if isinstance(obj, ContentBlock):
        if lift is None:
            raise BlockInValue
        return lift(obj)
    if isinstance(obj, _BINARY):
        if lift is not None and options.bytes_as != "base64_text":
            return lift(obj)
        return base64.b64encode(bytes(obj)).decode("ascii")
    # datetime, decimal and pathlib are asked through sys.modules: none of their values exists
    # before its module is imported, and importing them would slow every server's start-up.
    dt = sys.modules.get("datetime")
    if dt is not None and isinstance(obj, dt.datetime):
        if obj.tzinfo is None:
            obj = obj.astimezone()
        if options.datetimes == "utc":
            obj = obj.astimezone(dt.UTC)
        return obj.isoformat()
    if dt is not None and isinstance(obj, dt.date | dt.time):
        return obj.isoformat()  # a date has no zone; a time of day keeps the one it has
    if is_model(obj):
        return obj.model_dump(mode="python", by_alias=True)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    decimal = sys.modules.get("decimal")
    if decimal is not None and isinstance(obj, decimal.Decimal):
        if obj.is_finite():
            return str(obj)
        return _non_finite(float(obj), options)
    if isinstance(obj, set | frozenset):
        try:
            return sorted(obj)
        except TypeError:
            return list(obj)
    pathlib = sys.modules.get("pathlib")
    if pathlib is not None and isinstance(obj, pathlib.PurePath):
        return str(obj)
    if isinstance(obj, UUID):
        return str(obj)
    if isinstance(obj, Enum):
        return obj.value
    if dt is not None and isinstance(obj, dt.timedelta):
        return _iso_duration(obj)
    if isinstance(obj, Mapping):
        return dict(obj)
    if lift is not None and images.is_image_object(obj):
        return lift(obj)
    raise _Unknown(f"a value of type {type(obj).__qualname__} cannot be converted to JSON")


class _Unknown(TypeError):
    """Raised inside orjson's `default`, which lets only TypeError through; becomes UnknownType."""


def _non_finite(value: float, options: ResultOptions) -> Any:
    if options.non_finite == "null":
        return None
    if options.non_finite == "error":
        raise EncodeError(
            f"the result contains {value}, which JSON cannot carry"
            " (set ResultOptions.non_finite to 'null' or 'string' to allow it)"
        )
    return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")


def to_jsonable(value: Any, options: ResultOptions, lift: Lift | None = None) -> Any:
    """The slow, complete walk: plain dicts, lists, strings, numbers, booleans and None.

    One pass, each value visited once, so a `lift` hook may collect what it is given.
    """
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else _non_finite(value, options)
    if isinstance(value, dict):
        return {_key(k, options): to_jsonable(v, options, lift) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(v, options, lift) for v in value]
    # memoryview has a tolist() too: bytes are settled before numpy's duck type is tried.
    if not isinstance(value, _BINARY) and hasattr(value, "tolist"):  # numpy arrays and scalars
        return to_jsonable(value.tolist(), options, lift)
    return to_jsonable(_convert(value, options, lift), options, lift)


def _key(key: Any, options: ResultOptions) -> str:
    if isinstance(key, str):
        return key
    converted = to_jsonable(key, options)
    if isinstance(converted, str):
        return converted
    if converted is None or isinstance(converted, bool | int | float):
        return json.dumps(converted)
    raise TypeError(f"a dict key of type {type(key).__qualname__} cannot be a JSON key")


def dumps(
    value: Any, options: ResultOptions, *, indent: int | None = None, lift: Lift | None = None
) -> bytes:
    """JSON bytes for a value. Raises EncodeError (or BlockInValue) when it cannot be sent.

    `lift` may be called again for the same value when the fast path gives way to the slow
    walk, so a hook that collects should go through `to_jsonable` instead.
    """
    opts = _OPTS | (orjson.OPT_INDENT_2 if indent == 2 else 0)
    if options.non_finite == "null" and indent in (None, 2):
        try:
            return orjson.dumps(value, default=lambda o: _convert(o, options, lift), option=opts)
        except orjson.JSONEncodeError as exc:
            cause = exc.__cause__
            if isinstance(cause, BlockInValue):
                raise BlockInValue from None
            if isinstance(cause, _Unknown):
                raise UnknownType(str(cause)) from None
            if "Integer exceeds" not in str(exc) and not isinstance(cause, EncodeError):
                raise EncodeError(_reason(exc)) from None
    try:
        plain = to_jsonable(value, options, lift)
    except _Unknown as exc:
        raise UnknownType(str(exc)) from None
    except TypeError as exc:
        raise EncodeError(str(exc)) from None
    try:
        if indent in (None, 2):  # orjson knows no other indentation
            return orjson.dumps(plain, option=(orjson.OPT_INDENT_2 if indent == 2 else 0))
    except orjson.JSONEncodeError:
        pass
    return json.dumps(
        plain,
        ensure_ascii=False,
        allow_nan=False,
        indent=indent,
        separators=(",", ": ") if indent is not None else (",", ":"),
    ).encode()


def as_text(raw: bytes, indent: int | None = None) -> str:
    """Encoded JSON as a text block's text: a JSON string reads as itself, the rest as JSON."""
    if raw[:1] != b'"' and indent is None:
        return raw.decode()
    # The stdlib, not orjson: orjson reads integers wider than 64 bits as floats.
    value = json.loads(raw)
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=indent, ensure_ascii=False)


def _reason(exc: BaseException) -> str:
    cause = exc.__cause__
    if cause is not None:
        return str(cause)
    return str(exc)
