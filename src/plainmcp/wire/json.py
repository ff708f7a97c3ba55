"""JSON for the wire, exact: the one place that decodes and encodes protocol messages.

orjson is fast but not exact at the edges of JSON: it reads integers beyond 64 bits as floats,
refuses to write them, and refuses valid JSON text it cannot represent (`1e400`, a lone surrogate
escape like `"\\ud800"`). Every message takes orjson; only those it would get wrong take the
stdlib, so ordinary messages keep orjson's speed:

- Decoding: a message whose bytes hold a run of 19 digits (where an integer may not fit 64 bits)
  or that orjson refuses is read by the stdlib, with integers of any size exact. Valid JSON that
  no Python value carries faithfully (a number beyond a float's range, a lone surrogate in a
  string or key, an integer longer than Python reads) does not raise a parse error: `loads`
  raises `Unrepresentable`, carrying the decoded value and where each such value is, so the
  message can still be answered by its id.
- Encoding: integers of any size are written exactly; NaN and infinities are written as null
  (as orjson writes them, and as a result's `ResultOptions.non_finite="null"` documents: never
  `Infinity`, which is not JSON); lone surrogates are refused (no valid UTF-8 holds one). The
  canonical form a signature covers refuses NaN and infinities too.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import orjson

__all__ = ["DecodeError", "Flaw", "Unrepresentable", "dumps", "dumps_canonical", "loads"]

# Digits to "0", so that one substring search finds a run of 19 digits (where an integer may
# not fit 64 bits): several times faster than a regular expression.
_DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")
_NINETEEN_DIGITS = b"0" * 19
# \uD800-\uDFFF escapes, which alone (unpaired) decode to lone surrogates.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")
# Where a number may be beyond a float (exponent of 3 digits, 309 digits) or an int Python reads.
_HUGE = re.compile(rb"[eE][+-]?\d{3}|\d{309}")


_NON_FINITE = "NaN and infinite numbers are not JSON"


class DecodeError(ValueError):
    """The input is not JSON text."""


class Flaw(NamedTuple):
    """One value of a message that no Python value carries faithfully (a NamedTuple, not a
    dataclass: the class is made at every start, in a sixth of the time)."""

    path: tuple[str | int, ...]
    """Keys and indexes from the top of the message to the value."""
    reason: str

    def where(self, skip: int = 0) -> str:
        """The path as `params.arguments.n` / `items[2]`, without its first `skip` parts."""
        text = ""
        for part in self.path[skip:]:
            text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
        return text or "(the message)"


class Unrepresentable(ValueError):
    """Valid JSON holding values Python cannot carry exactly (see the module docstring).

    `value` is the decoded document, with each flawed number replaced by an `OutOfRange`
    marker; `flaws` names every such place, in document order."""

    def __init__(self, value: Any, flaws: list[Flaw]) -> None:
        super().__init__(f"{flaws[0].where()}: {flaws[0].reason}")
        self.value = value
        self.flaws = flaws


@dataclass(frozen=True, slots=True)
class OutOfRange:
    """A number whose JSON text no float or int can hold (`1e400`, 5,000 digits)."""

    text: str


def _number(text: str) -> Any:
    if text.lstrip("-").isdigit():
        try:
            return int(text)
        except ValueError:  # longer than sys.get_int_max_str_digits()
            return OutOfRange(text)
    number = float(text)
    return number if math.isfinite(number) else OutOfRange(text)


def _not_json(name: str) -> Any:
    raise DecodeError(f"{name} is not JSON")


_DECODER = json.JSONDecoder(parse_float=_number, parse_int=_number, parse_constant=_not_json)


def loads(data: bytes | str) -> Any:
    """The JSON value of `data`, exact. Raises DecodeError for text that is not JSON and
    Unrepresentable for valid JSON that holds values no Python value carries faithfully."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    if _NINETEEN_DIGITS not in data.translate(_DIGITS_TO_ZERO):
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            refusal: str = str(exc)
    else:
        refusal = ""
    try:
        value = _DECODER.decode(data.decode("utf-8"))
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError and JSONDecodeError too
        raise DecodeError(refusal or str(exc)) from None
    surrogates = _SURROGATE_ESCAPE.search(data) is not None
    if not surrogates and _HUGE.search(data) is None:
        return value
    flaws = _find_flaws(value, surrogates)
    if flaws:
        raise Unrepresentable(value, flaws)
    return value


def _find_flaws(value: Any, surrogates: bool) -> list[Flaw]:
    """Every OutOfRange marker and (when `surrogates`) lone surrogate, in document order;
    a loop, not recursion: the stdlib reads documents nested deeper than a Python stack."""
    flaws: list[Flaw] = []
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, OutOfRange):
            flaws.append(Flaw(path, _out_of_range(item.text)))
        elif isinstance(item, _BadKey):
            flaws.append(Flaw(path, _lone_surrogate(item.key, "key")))
        elif isinstance(item, dict):
            children: list[tuple[tuple[str | int, ...], Any]] = []
            for key, child in item.items():
                if surrogates and _SURROGATE.search(key):
                    shown = _escaped(key)  # the path goes into messages: valid text only
                    children.append(((*path, shown), _BadKey(key)))
                    children.append(((*path, shown), child))
                else:
                    children.append(((*path, key), child))
            stack.extend(reversed(children))
        elif isinstance(item, list):
            stack.extend(
                ((*path, index), child) for index, child in reversed(list(enumerate(item)))
            )
        elif surrogates and isinstance(item, str) and _SURROGATE.search(item):
            flaws.append(Flaw(path, _lone_surrogate(item, "string")))
    return flaws


@dataclass(frozen=True, slots=True)
class _BadKey:
    key: str


def _out_of_range(text: str) -> str:
    shown = text if len(text) <= 40 else f"{text[:20]}...({len(text)} characters)"
    if "." in text or "e" in text.lower():
        return f"the number {shown} is beyond the range of a 64-bit floating-point number"
    limit = sys.get_int_max_str_digits()
    return f"the integer {shown} has more than the {limit} digits a server reads"


def _escaped(text: str) -> str:
    return _SURROGATE.sub(lambda found: ascii(found.group())[1:-1], text)


def _lone_surrogate(text: str, what: str) -> str:
    found = _SURROGATE.search(text)
    assert found is not None
    return (
        f"the {what} holds a lone surrogate ({_escaped(found.group())}),"
        " which is not a Unicode character"
    )


def dumps(value: Any) -> bytes:
    """Compact JSON bytes of plain JSON data, exact for integers of any size. Raises ValueError
    for a lone surrogate and TypeError for anything that is not plain JSON data."""
    try:
        return orjson.dumps(value)
    except orjson.JSONEncodeError:
        return _exact_dumps(value, sort_keys=False)


def dumps_canonical(value: Any) -> bytes:
    """JSON bytes with sorted keys, one encoding per value (what a signature covers)."""
    try:
        data = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:
        return _exact_dumps(value, sort_keys=True)
    # A signature covers what the value means: NaN must not pass as null here.
    if b"null" in data and _walk_finds(value, _non_finite):
        raise ValueError(_NON_FINITE)
    return data


def _non_finite(value: Any) -> bool:
    return isinstance(value, float) and not math.isfinite(value)


def _walk_finds(value: Any, test: Callable[[Any], bool]) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if test(item):
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return False


def _exact_dumps(value: Any, *, sort_keys: bool) -> bytes:
    """What orjson refuses, written part by part: integers of any size as their digits, the
    rest by orjson (pre-encoded `orjson.Fragment`s included), so it never differs from orjson
    where orjson can write it."""
    if isinstance(value, dict):
        items = sorted(value.items()) if sort_keys else value.items()
        parts = []
        for key, item in items:
            if not isinstance(key, str):
                raise TypeError(f"a JSON object key must be a string, not {type(key).__name__}")
            parts.append(
                _exact_dumps(key, sort_keys=False) + b":" + _exact_dumps(item, sort_keys=sort_keys)
            )
        return b"{" + b",".join(parts) + b"}"
    if isinstance(value, list | tuple):
        return b"[" + b",".join(_exact_dumps(item, sort_keys=sort_keys) for item in value) + b"]"
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value).encode()
    if isinstance(value, float) and not math.isfinite(value):
        if sort_keys:
            raise ValueError(_NON_FINITE)
        return b"null"  # as orjson writes it
    try:
        return orjson.dumps(value)
    except orjson.JSONEncodeError:
        if isinstance(value, str):
            raise ValueError(
                "a string holds a lone surrogate, which is not a Unicode character"
            ) from None
        raise TypeError(f"a value of type {type(value).__name__} is not JSON") from None
