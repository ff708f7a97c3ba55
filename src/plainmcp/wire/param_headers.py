"""Tool parameters mirrored into `Mcp-Param-{Name}` HTTP headers (`x-mcp-header`, 2026-07-28).

A tool marks a parameter with `Header("Region")`::

    def execute_sql(region: Annotated[str, Header("Region")], query: str) -> str: ...

and its input schema carries `"x-mcp-header": "Region"` on that property. On the Streamable HTTP
transport at 2026-07-28 the client then sends the argument's value again as
`Mcp-Param-Region: us-west1`, and the server MUST reject the request (400, -32020) when the header
is missing, malformed or different from the body. Other transports and older revisions ignore the
keyword; it is an unknown annotation to them.

Everything here is sans-I/O: `check_header_markers` enforces the spec's rules on a finished input
schema (`make_tool` calls it, so a bad marker fails at registration, whether it came from `Header`,
from `Field(json_schema_extra=...)` or from a hand-written `input_schema=`), and
`encode_header_value`, `decode_header_value` and `header_matches` are the value codec and the
header/body comparison the HTTP transport needs. Rules: basic/transports/streamable-http.mdx,
"Custom Headers from Tool Parameters", and server/tools.mdx, "x-mcp-header", of 2026-07-28.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import GetJsonSchemaHandler
    from pydantic.json_schema import JsonSchemaValue
    from pydantic_core import CoreSchema

__all__ = [
    "HEADER_KEYWORD",
    "HEADER_PREFIX",
    "MAX_SAFE_INTEGER",
    "Header",
    "argument_at",
    "check_header_markers",
    "decode_header_value",
    "encode_header_value",
    "header_matches",
]

HEADER_KEYWORD = "x-mcp-header"
"""The JSON Schema extension keyword on a property of a tool's `inputSchema`."""

HEADER_PREFIX = "Mcp-Param-"
"""The field name is this prefix plus the keyword's value (field names are case-insensitive)."""

MAX_SAFE_INTEGER = 2**53 - 1
"""Mirrored integers MUST lie within ±(2**53 - 1), the range a double represents exactly."""

_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")  # RFC 9110 §5.6.2: token = 1*tchar
_TYPES = ("string", "integer", "boolean")
_PREFIX = "=?base64?"
_SUFFIX = "?="
_PLAIN = re.compile(r"[\x20-\x7e]*")  # printable ASCII; edge spaces are checked separately
_FIELD_VALUE = re.compile(r"[\t\x20-\x7e]*")  # what a received field value may contain
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")  # JSON's grammar

# Subschema positions of JSON Schema 2020-12 (and draft-07's `definitions`/`dependencies`).
# Only `properties` keeps a property reachable; every other one breaks the chain.
_ONE = frozenset(
    {
        "items",
        "additionalItems",
        "contains",
        "additionalProperties",
        "unevaluatedProperties",
        "unevaluatedItems",
        "propertyNames",
        "not",
        "if",
        "then",
        "else",
        "contentSchema",
    }
)
_MANY = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})
_NAMED = frozenset(
    {"patternProperties", "dependentSchemas", "dependencies", "$defs", "definitions"}
)

_TOKEN_RULE = (
    "an HTTP token (RFC 9110): ASCII letters, digits and !#$%&'*+-.^_`|~ only, no spaces, "
    "separators or control characters"
)


def _name_problem(name: object, what: str) -> str:
    """What is wrong with `name` as a header name ("" when nothing); `what` names it."""
    if not isinstance(name, str):
        return f"{what} must be a string, not {type(name).__name__}"
    if not name:
        return f'{what} is empty; it needs a header name such as "Region"'
    if not _TOKEN.fullmatch(name):
        return f"{what} is {name!r}, not {_TOKEN_RULE}"
    return ""


class Header:
    """Marks a tool parameter to be mirrored into the `Mcp-Param-{name}` HTTP header.

    Use it inside `Annotated`, on a parameter of type `str`, `int` or `bool` (enums and
    `Literal`s of those work too; `float`, optional and union types do not)::

        region: Annotated[str, Header("Region")]

    The parameter's schema gets `"x-mcp-header": "Region"`. A field of a pydantic model used as a
    parameter may carry one too, as long as it is reached through object properties only (not
    through a list, an optional model or a union). Header values are visible to every proxy on
    the way: never mark secrets or personal data.
    """

    __slots__ = ("name",)

    name: str

    def __init__(self, name: str) -> None:
        if not isinstance(name, str):
            raise TypeError(f"Header() takes a header name string, not {type(name).__name__}")
        problem = _name_problem(name, "the header name")
        if problem:
            raise ValueError(problem)
        self.name = name

    def __repr__(self) -> str:
        return f"Header({self.name!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Header) and other.name == self.name

    def __hash__(self) -> int:
        return hash((Header, self.name))

    def __get_pydantic_json_schema__(
        self, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {**handler(schema), HEADER_KEYWORD: self.name}


# --------------------------------------------------------------------------- schema rules


def _pointer(parts: tuple[str, ...]) -> str:
    return "".join("/" + p.replace("~", "~0").replace("/", "~1") for p in parts)


def _positions(
    root: Any,
) -> Iterator[tuple[Mapping[str, Any], tuple[str, ...] | None, tuple[str, ...], str]]:
    """Every subschema: (schema, property path or None when unreachable, schema path, breaker).

    The property path is the chain of `properties` names from the root; once any other keyword
    is crossed it is None and `breaker` names the first such keyword. `$ref` is never followed,
    and data keywords (`default`, `enum`, `const`, `examples`) are never entered.
    """
    stack: list[tuple[Any, tuple[str, ...] | None, tuple[str, ...], str]] = [(root, (), (), "")]
    while stack:
        node, path, where, breaker = stack.pop()
        if not isinstance(node, Mapping):
            continue
        yield node, path, where, breaker
        children: list[tuple[Any, tuple[str, ...] | None, tuple[str, ...], str]] = []
        for key, value in node.items():
            if key == "properties" and isinstance(value, Mapping):
                for name, sub in value.items():
                    sub_path = (*path, name) if path is not None else None
                    children.append((sub, sub_path, (*where, key, name), breaker))
            elif key in _MANY and isinstance(value, list):
                for i, sub in enumerate(value):
                    children.append((sub, None, (*where, key, str(i)), breaker or key))
            elif key in _ONE:
                children.append((value, None, (*where, key), breaker or key))
            elif key in _NAMED and isinstance(value, Mapping):
                for name, sub in value.items():
                    children.append((sub, None, (*where, key, name), breaker or key))
        stack.extend(reversed(children))  # document order, for stable results and messages


def check_header_markers(schema: Mapping[str, Any]) -> dict[str, str]:
    """Check every `x-mcp-header` in an input schema; return header name -> argument path.

    The path is a JSON Pointer into the call's `arguments` ("/region", "/options/limit"); read
    it with `argument_at`. Names keep the case they were declared with. Raises ValueError naming
    the property and the rule for the first violation, in document order, of the spec's rules:
    the value is a non-empty RFC 9110 token; names are unique case-insensitively; the property
    has `"type"` "string", "integer" or "boolean" (not "number", no list of types); and it is
    reached from the root through `properties` alone (not through `items`, `anyOf`/`oneOf`/
    `allOf`/`not`, `if`/`then`/`else`, `$defs` or any other keyword; the root itself is no
    property).
    """
    found: dict[str, str] = {}
    seen: dict[str, tuple[str, str]] = {}  # lower-case name -> (name, pointer)
    for node, path, where, breaker in _positions(schema):
        if HEADER_KEYWORD not in node:
            continue
        name = node[HEADER_KEYWORD]
        if path is None:
            raise ValueError(
                f"{HEADER_KEYWORD} at schema location {_pointer(where)!r} is not on a property "
                f'reached from the root through "properties" alone (it is under {breaker!r}); '
                "a header parameter cannot sit inside a list, a union, an optional object or a "
                "reference"
            )
        if not path:
            raise ValueError(
                f"{HEADER_KEYWORD} on the schema root: it belongs on one property of the arguments"
            )
        pointer = _pointer(path)
        problem = _name_problem(name, f"{HEADER_KEYWORD} on property {pointer!r}")
        if problem:
            raise ValueError(problem)
        kind = node.get("type")
        if kind not in _TYPES:
            found_as = (
                "no single type (a nullable, optional or union type has none)"
                if not isinstance(kind, str)
                else f"type {kind!r}"
            )
            raise ValueError(
                f"{HEADER_KEYWORD} {name!r} on property {pointer!r}: only properties of type "
                f'"string", "integer" or "boolean" can be mirrored into a header, and this one '
                f"has {found_as}"
            )
        earlier = seen.get(name.lower())
        if earlier is not None:
            raise ValueError(
                f"{HEADER_KEYWORD} {name!r} on property {pointer!r} repeats {earlier[0]!r} of "
                f"property {earlier[1]!r}; header names must differ ignoring case"
            )
        seen[name.lower()] = (name, pointer)
        found[name] = pointer
    return found


def argument_at(arguments: Mapping[str, Any], pointer: str) -> Any:
    """The value at `pointer` (from `check_header_markers`) in a call's arguments, or None.

    None stands for both "absent" and "null": in either case the client sends no header and
    the server expects none.
    """
    node: Any = arguments
    for raw in pointer.split("/")[1:]:
        if not isinstance(node, Mapping):
            return None
        node = node.get(raw.replace("~1", "/").replace("~0", "~"))
    return node


# --------------------------------------------------------------------------- values


def _text(value: object) -> str:
    """The spec's type conversion: strings as-is, integers in decimal, booleans lowercase."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError(
                f"{value!r} is not an integer; number parameters cannot be mirrored into headers"
            )
        value = int(value)
    if isinstance(value, int):
        if abs(value) > MAX_SAFE_INTEGER:
            raise ValueError(
                f"{value} is outside the range a header may carry (±(2**53 - 1), the integers a "
                "double holds exactly)"
            )
        return str(value)
    if isinstance(value, str):
        return value
    raise TypeError(
        f"only strings, integers and booleans can be mirrored into headers, not "
        f"{type(value).__name__}"
    )


def encode_header_value(value: str | int | float) -> str:
    """The `Mcp-Param-*` field value for an argument value (str, int or bool).

    Booleans become "true"/"false", integers decimal text (an integral float too). The text goes
    as it is when it is printable ASCII (0x20-0x7E) without a leading or trailing space and does
    not itself look like the sentinel (starts with "=?base64?" and ends with "?="); else it goes
    as "=?base64?" + standard, padded Base64 of its UTF-8 bytes + "?=". Raises ValueError for
    non-integral floats and integers beyond ±(2**53 - 1), TypeError for other types.
    """
    text = _text(value)
    if (
        _PLAIN.fullmatch(text)
        and text == text.strip(" ")
        and not (text.startswith(_PREFIX) and text.endswith(_SUFFIX))
    ):
        return text
    return _PREFIX + base64.b64encode(text.encode()).decode("ascii") + _SUFFIX


def decode_header_value(raw: str) -> str:
    """The value a received `Mcp-Param-*` field carries.

    Surrounding spaces and tabs are not part of a field value (RFC 9110 §5.5) and are dropped.
    A value of the form "=?base64?{payload}?=" (lower case exactly) is decoded: the payload must
    be canonical, padded, standard-alphabet Base64 of UTF-8 text. Anything else is taken
    literally. Raises ValueError for a malformed payload and for characters a field value may not
    contain (outside 0x20-0x7E and tab).
    """
    value = raw.strip(" \t")
    if not _FIELD_VALUE.fullmatch(value):
        bad = next(c for c in value if not _FIELD_VALUE.fullmatch(c))
        raise ValueError(
            f"header value contains {bad!r}; a field value is printable ASCII, spaces and tabs "
            "(other text arrives as =?base64?...?=)"
        )
    if not (
        len(value) >= len(_PREFIX) + len(_SUFFIX)
        and value.startswith(_PREFIX)
        and value.endswith(_SUFFIX)
    ):
        return value
    payload = value[len(_PREFIX) : -len(_SUFFIX)]
    try:
        data = base64.b64decode(payload, validate=True)
    except binascii.Error:
        raise ValueError(f"malformed base64 header value {value!r}") from None
    if base64.b64encode(data).decode("ascii") != payload:
        raise ValueError(f"malformed base64 header value {value!r} (not in canonical form)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"base64 header value {value!r} is not UTF-8 text") from None


def header_matches(raw_header: str, body_value: object) -> bool:
    """Whether a received `Mcp-Param-*` field agrees with the argument value in the body.

    The field is decoded first (`decode_header_value`; a malformed one raises ValueError, which
    the transport answers with 400 and -32020 like a mismatch). Then: a boolean body value
    matches exactly "true" or "false"; an integer (or float) body value matches a JSON number
    with the same numeric value ("42", "42.0", "4.2e1" all match 42); a string matches itself
    exactly (values are case-sensitive). Any other body value, None included, matches nothing:
    a client sends no header for an absent or null argument.
    """
    text = decode_header_value(raw_header)
    if isinstance(body_value, bool):
        return text == ("true" if body_value else "false")
    if isinstance(body_value, int | float):
        if not _NUMBER.fullmatch(text):
            return False
        from decimal import Decimal  # header values only: not at import

        number = Decimal(text)
        if isinstance(body_value, float):
            return float(number) == body_value
        return number == body_value
    if isinstance(body_value, str):
        return text == body_value
    return False
