"""x-mcp-header: the Header marker, the schema rules, and the Mcp-Param-* value codec (2026-07-28).

Spec: basic/transports/streamable-http.mdx "Custom Headers from Tool Parameters" and
server/tools.mdx "x-mcp-header"; the encoding vectors are the spec's own table (and SEP-2243's).
"""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field

from plainmcp.model.options import ResultOptions
from plainmcp.tools import Tool, make_tool
from plainmcp.wire import definitions
from plainmcp.wire.param_headers import (
    HEADER_PREFIX,
    MAX_SAFE_INTEGER,
    Header,
    argument_at,
    check_header_markers,
    decode_header_value,
    encode_header_value,
    header_matches,
)
from plainmcp.wire.revisions import REVISIONS
from tests.mcp_schemas import validate_definition

# --- the marker -----------------------------------------------------------------------------


def execute_sql(
    region: Annotated[str, Header("Region"), "The region to execute the query in"],
    query: Annotated[str, "The SQL query to execute"],
) -> str:
    """Execute SQL on Google Cloud Spanner"""
    return f"{region}: {query}"


def test_marked_parameter_schema_is_the_spec_example() -> None:
    tool = make_tool(execute_sql)
    assert tool.input_schema == {
        "type": "object",
        "properties": {
            "region": {
                "description": "The region to execute the query in",
                "type": "string",
                "x-mcp-header": "Region",
            },
            "query": {"description": "The SQL query to execute", "type": "string"},
        },
        "required": ["region", "query"],
        "additionalProperties": False,
    }
    assert tool.headers == {"Region": "/region"}


@pytest.mark.parametrize("revision", ["2025-11-25", "2026-07-28"])
def test_marked_definition_is_valid_on_the_wire(revision: str) -> None:
    out = definitions.tool(make_tool(execute_sql), REVISIONS[revision], ResultOptions())
    validate_definition(out, revision, "Tool")
    assert out["inputSchema"]["properties"]["region"]["x-mcp-header"] == "Region"


class Color(Enum):
    RED = "red"
    BLUE = "blue"


def test_every_permitted_type_and_default() -> None:
    def fn(
        count: Annotated[int, Header("Count")] = 3,
        dry_run: Annotated[bool, Header("Dry-Run")] = False,
        mode: Annotated[Literal["fast", "safe"], Header("Mode")] = "fast",
        color: Annotated[Color, Header("Color")] = Color.RED,
        note: str = "",
    ) -> None: ...

    tool = make_tool(fn)
    props = tool.input_schema["properties"]
    assert props["count"] == {"default": 3, "type": "integer", "x-mcp-header": "Count"}
    assert props["dry_run"] == {"default": False, "type": "boolean", "x-mcp-header": "Dry-Run"}
    assert props["mode"] == {
        "default": "fast",
        "enum": ["fast", "safe"],
        "type": "string",
        "x-mcp-header": "Mode",
    }
    assert props["color"] == {
        "default": "red",
        "enum": ["red", "blue"],
        "type": "string",
        "x-mcp-header": "Color",
    }
    assert props["note"] == {"default": "", "type": "string"}
    assert tool.headers == {
        "Count": "/count",
        "Dry-Run": "/dry_run",
        "Mode": "/mode",
        "Color": "/color",
    }


def test_marker_with_field_description_and_validation_unchanged() -> None:
    def fn(
        tenant: Annotated[str, Field(description="Tenant id", min_length=2), Header("T")],
    ) -> str:
        return tenant

    tool = make_tool(fn)
    assert tool.input_schema["properties"]["tenant"] == {
        "description": "Tenant id",
        "minLength": 2,
        "type": "string",
        "x-mcp-header": "T",
    }
    assert tool.input.validate({"tenant": "acme"}) == {"tenant": "acme"}


def test_tools_without_markers_have_no_headers() -> None:
    def fn(a: int) -> int:
        return a

    assert make_tool(fn).headers == {}


class Options(BaseModel):
    limit: Annotated[int, Header("Limit")] = 10
    shard: str = Field("a", json_schema_extra={"x-mcp-header": "Shard"})


class Shadow(BaseModel):
    region: Annotated[str, Header("region")] = "x"


def test_nested_model_field_is_reachable_through_properties() -> None:
    def fn(region: Annotated[str, Header("Region")], options: Options) -> None: ...

    tool = make_tool(fn)
    assert tool.input_schema["properties"]["options"] == {
        "properties": {
            "limit": {"default": 10, "type": "integer", "x-mcp-header": "Limit"},
            "shard": {"default": "a", "type": "string", "x-mcp-header": "Shard"},
        },
        "type": "object",
    }
    assert tool.headers == {
        "Region": "/region",
        "Limit": "/options/limit",
        "Shard": "/options/shard",
    }


def test_header_marker_object() -> None:
    assert Header("Region") == Header("Region")
    assert Header("Region") != Header("region")
    assert len({Header("A"), Header("A")}) == 1
    assert repr(Header("Region")) == "Header('Region')"
    assert HEADER_PREFIX + Header("Region").name == "Mcp-Param-Region"


TOKEN_RULE = (
    "an HTTP token (RFC 9110): ASCII letters, digits and !#$%&'*+-.^_`|~ only, no spaces, "
    "separators or control characters"
)


TYPE_RULE = (
    'only properties of type "string", "integer" or "boolean" can be mirrored into a header, '
    "and this one has "
)
NO_SINGLE_TYPE = "no single type (a nullable, optional or union type has none)"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", 'the header name is empty; it needs a header name such as "Region"'),
        ("My Region", f"the header name is 'My Region', not {TOKEN_RULE}"),
        ("Region:Primary", f"the header name is 'Region:Primary', not {TOKEN_RULE}"),
        ("Région", f"the header name is 'Région', not {TOKEN_RULE}"),
        ("Region\t1", f"the header name is 'Region\\t1', not {TOKEN_RULE}"),
        ("Region\r\n", f"the header name is 'Region\\r\\n', not {TOKEN_RULE}"),
        ("a/b", f"the header name is 'a/b', not {TOKEN_RULE}"),
    ],
)
def test_header_name_rules(name: str, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        Header(name)
    assert str(caught.value) == message


def test_header_name_must_be_a_string() -> None:
    with pytest.raises(TypeError) as caught:
        Header(5)  # type: ignore[arg-type]
    assert str(caught.value) == "Header() takes a header name string, not int"


def test_every_token_character_is_accepted() -> None:
    name = "!#$%&'*+-.^_`|~09azAZ"
    assert Header(name).name == name
    assert check_header_markers(
        {"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": name}}}
    ) == {name: "/a"}


def test_standard_header_names_are_allowed_as_param_names() -> None:
    # SEP-2243: "Method" produces Mcp-Param-Method, not Mcp-Method.
    def fn(method: Annotated[str, Header("Method")]) -> None: ...

    assert make_tool(fn).headers == {"Method": "/method"}


# --- rule violations at registration --------------------------------------------------------


def registration_error(fn: Any) -> str:
    with pytest.raises(ValueError) as caught:
        make_tool(fn)
    return str(caught.value)


def test_number_parameter_is_refused() -> None:
    def fn(ratio: Annotated[float, Header("Ratio")]) -> None: ...

    assert registration_error(fn) == (
        f"tool 'fn': x-mcp-header 'Ratio' on property '/ratio': {TYPE_RULE}type 'number'"
    )


def test_optional_parameter_is_refused() -> None:
    def fn(region: Annotated[str | None, Header("Region")] = None) -> None: ...

    assert registration_error(fn) == (
        f"tool 'fn': x-mcp-header 'Region' on property '/region': {TYPE_RULE}{NO_SINGLE_TYPE}"
    )


@pytest.mark.parametrize(
    ("annotation", "found"),
    [(list[str], "type 'array'"), (dict[str, int], "type 'object'"), (None, "type 'null'")],
)
def test_non_primitive_parameters_are_refused(annotation: Any, found: str) -> None:
    def fn(value: Any) -> None: ...

    fn.__annotations__ = {"value": Annotated[annotation, Header("V")], "return": None}
    assert registration_error(fn) == (
        "tool 'fn': x-mcp-header 'V' on property '/value': only properties of type "
        '"string", "integer" or "boolean" can be mirrored into a header, and this one has ' + found
    )


def test_duplicate_names_are_refused_case_insensitively() -> None:
    def fn(a: Annotated[str, Header("Region")], b: Annotated[str, Header("REGION")]) -> None: ...

    assert registration_error(fn) == (
        "tool 'fn': x-mcp-header 'REGION' on property '/b' repeats 'Region' of property '/a'; "
        "header names must differ ignoring case"
    )


def test_duplicate_names_across_nesting_are_refused() -> None:
    def fn(region: Annotated[str, Header("Region")], options: Shadow) -> None: ...

    assert registration_error(fn) == (
        "tool 'fn': x-mcp-header 'region' on property '/options/region' repeats 'Region' of "
        "property '/region'; header names must differ ignoring case"
    )


class Row(BaseModel):
    region: Annotated[str, Header("Region")]


def test_marker_inside_a_list_is_refused() -> None:
    def fn(rows: list[Row]) -> None: ...

    assert registration_error(fn) == (
        "tool 'fn': x-mcp-header at schema location '/properties/rows/items/properties/region' "
        'is not on a property reached from the root through "properties" alone (it is under '
        "'items'); a header parameter cannot sit inside a list, a union, an optional object or "
        "a reference"
    )


def test_marker_inside_an_optional_model_is_refused() -> None:
    def fn(row: Row | None = None) -> None: ...

    assert registration_error(fn) == (
        "tool 'fn': x-mcp-header at schema location '/properties/row/anyOf/0/properties/region' "
        'is not on a property reached from the root through "properties" alone (it is under '
        "'anyOf'); a header parameter cannot sit inside a list, a union, an optional object or "
        "a reference"
    )


def test_marker_on_a_field_given_by_json_schema_extra_is_checked() -> None:
    def fn(region: str = Field("x", json_schema_extra={"x-mcp-header": "has space"})) -> None: ...

    assert registration_error(fn) == (
        f"tool 'fn': x-mcp-header on property '/region' is 'has space', not {TOKEN_RULE}"
    )


# --- hand-written schemas -------------------------------------------------------------------


def schema_error(schema: dict[str, Any]) -> str:
    with pytest.raises(ValueError) as caught:
        check_header_markers(schema)
    return str(caught.value)


def test_hand_written_schema_is_checked_at_registration() -> None:
    def run(**kwargs: Any) -> None: ...

    good = {
        "type": "object",
        "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "query": {"type": "string"},
        },
        "required": ["region", "query"],
    }
    tool = make_tool(run, input_schema=good)
    assert tool.input_schema == good
    assert tool.headers == {"Region": "/region"}

    bad = {"type": "object", "properties": {"x": {"type": "number", "x-mcp-header": "X"}}}
    with pytest.raises(ValueError) as caught:
        make_tool(run, input_schema=bad)
    assert (
        str(caught.value)
        == f"tool 'run': x-mcp-header 'X' on property '/x': {TYPE_RULE}type 'number'"
    )


def test_nested_hand_written_paths_are_json_pointers() -> None:
    schema = {
        "type": "object",
        "properties": {
            "options": {
                "type": "object",
                "properties": {
                    "limit": {"type": "integer", "x-mcp-header": "Limit"},
                    "a/b~c": {"type": "boolean", "x-mcp-header": "Flag"},
                },
            },
            "plain": {"type": "string"},
        },
    }
    assert check_header_markers(schema) == {"Limit": "/options/limit", "Flag": "/options/a~1b~0c"}
    arguments = {"options": {"limit": 5, "a/b~c": True}}
    assert argument_at(arguments, "/options/limit") == 5
    assert argument_at(arguments, "/options/a~1b~0c") is True
    assert argument_at(arguments, "/plain") is None
    assert argument_at({"options": None}, "/options/limit") is None
    assert argument_at({"options": "text"}, "/options/limit") is None


def test_keyword_inside_data_is_not_a_marker() -> None:
    schema = {
        "type": "object",
        "properties": {
            "x-mcp-header": {"type": "string"},  # a property *named* x-mcp-header
            "a": {
                "type": "object",
                "default": {"x-mcp-header": "nope"},
                "examples": [{"x-mcp-header": "nope"}],
                "const": {"x-mcp-header": "nope"},
            },
        },
        "required": ["x-mcp-header"],
    }
    assert check_header_markers(schema) == {}


def test_marker_on_the_root_is_refused() -> None:
    assert schema_error({"type": "object", "x-mcp-header": "Root"}) == (
        "x-mcp-header on the schema root: it belongs on one property of the arguments"
    )


MARKED = {"type": "string", "x-mcp-header": "H"}
HAS_MARKED = {"properties": {"a": MARKED}}


@pytest.mark.parametrize(
    ("schema", "where", "under"),
    [
        ({"properties": {"a": {"type": "array", "items": MARKED}}}, "/properties/a/items", "items"),
        ({"properties": {"a": {"prefixItems": [MARKED]}}}, "/properties/a/prefixItems/0",
         "prefixItems"),
        ({"oneOf": [HAS_MARKED]}, "/oneOf/0/properties/a", "oneOf"),
        ({"allOf": [HAS_MARKED]}, "/allOf/0/properties/a", "allOf"),
        ({"not": HAS_MARKED}, "/not/properties/a", "not"),
        ({"if": HAS_MARKED}, "/if/properties/a", "if"),
        ({"then": HAS_MARKED}, "/then/properties/a", "then"),
        ({"else": HAS_MARKED}, "/else/properties/a", "else"),
        ({"properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": MARKED}}, "/$defs/A", "$defs"),
        ({"additionalProperties": MARKED}, "/additionalProperties", "additionalProperties"),
        ({"patternProperties": {"^a": MARKED}}, "/patternProperties/^a", "patternProperties"),
        ({"properties": {"b": {"anyOf": [HAS_MARKED]}}}, "/properties/b/anyOf/0/properties/a",
         "anyOf"),
        ({"items": [MARKED]}, "/items/0", "items"),  # draft-07's tuple form
        ({"dependencies": {"b": MARKED}}, "/dependencies/b", "dependencies"),
    ],
)  # fmt: skip
def test_unreachable_markers_are_refused(schema: dict[str, Any], where: str, under: str) -> None:
    assert schema_error({"type": "object", **schema}) == (
        f"x-mcp-header at schema location {where!r} is not on a property reached from the root "
        f'through "properties" alone (it is under {under!r}); a header parameter cannot sit '
        "inside a list, a union, an optional object or a reference"
    )


@pytest.mark.parametrize(
    ("prop", "message"),
    [
        (
            {"type": "string", "x-mcp-header": 7},
            "x-mcp-header on property '/a' must be a string, not int",
        ),
        (
            {"type": "string", "x-mcp-header": ""},
            "x-mcp-header on property '/a' is empty; it needs a header name such as \"Region\"",
        ),
        (
            {"type": "string", "x-mcp-header": "a b"},
            f"x-mcp-header on property '/a' is 'a b', not {TOKEN_RULE}",
        ),
        ({"x-mcp-header": "H"}, f"x-mcp-header 'H' on property '/a': {TYPE_RULE}{NO_SINGLE_TYPE}"),
        (
            {"type": ["string", "null"], "x-mcp-header": "H"},
            f"x-mcp-header 'H' on property '/a': {TYPE_RULE}{NO_SINGLE_TYPE}",
        ),
        (
            {"type": "number", "x-mcp-header": "H"},
            f"x-mcp-header 'H' on property '/a': {TYPE_RULE}type 'number'",
        ),
    ],
)
def test_hand_written_property_rules(prop: dict[str, Any], message: str) -> None:
    assert schema_error({"type": "object", "properties": {"a": prop}}) == message


# --- value encoding -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "header"),
    [
        # the spec's table (streamable-http.mdx, Value Encoding)
        ("us-west1", "us-west1"),
        ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
        (" padded ", "=?base64?IHBhZGRlZCA=?="),
        ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
        ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
        # SEP-2243's edge cases
        (" us-west1", "=?base64?IHVzLXdlc3Qx?="),
        ("us-west1 ", "=?base64?dXMtd2VzdDEg?="),
        (" us-west1 ", "=?base64?IHVzLXdlc3QxIA==?="),
        ("us west 1", "us west 1"),
        (True, "true"),
        (False, "false"),
        (42, "42"),
        (-7, "-7"),
        ("日本語", "=?base64?5pel5pys6Kqe?="),
        ("line1\r\nline2", "=?base64?bGluZTENCmxpbmUy?="),
        ("\tindented", "=?base64?CWluZGVudGVk?="),
        ("", ""),
        # the rest of the rules
        ("a\tb", "=?base64?YQli?="),  # a tab is a control character
        ("nul\x00", "=?base64?bnVsAA==?="),
        ("del\x7f", "=?base64?ZGVsfw==?="),
        ("=?base64?=", "=?base64?PT9iYXNlNjQ/PQ==?="),  # prefix and suffix overlap: still encoded
        ("=?base64?abc", "=?base64?abc"),  # no suffix: not the sentinel pattern
        ("=?BASE64?abc?=", "=?BASE64?abc?="),  # the markers are lower case only
        ("~!@#$%^&*()_+{}|:\"<>?`-=[]\\;',./", "~!@#$%^&*()_+{}|:\"<>?`-=[]\\;',./"),
        (42.0, "42"),
        (MAX_SAFE_INTEGER, "9007199254740991"),
        (-MAX_SAFE_INTEGER, "-9007199254740991"),
    ],
)
def test_encode(value: Any, header: str) -> None:
    assert encode_header_value(value) == header
    assert decode_header_value(header) == (
        value if isinstance(value, str) else encode_header_value(value)
    )
    assert header_matches(header, value)


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        (
            2**53,
            ValueError,
            "9007199254740992 is outside the range a header may carry (±(2**53 - 1), the "
            "integers a double holds exactly)",
        ),
        (
            -(2**53),
            ValueError,
            "-9007199254740992 is outside the range a header may carry (±(2**53 - 1), the "
            "integers a double holds exactly)",
        ),
        (
            3.5,
            ValueError,
            "3.5 is not an integer; number parameters cannot be mirrored into headers",
        ),
        (
            None,
            TypeError,
            "only strings, integers and booleans can be mirrored into headers, not NoneType",
        ),
        (
            ["a"],
            TypeError,
            "only strings, integers and booleans can be mirrored into headers, not list",
        ),
    ],
)
def test_encode_refuses(value: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error) as caught:
        encode_header_value(value)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "  two  ",
        "ünïcödé",
        "emoji 🎉",
        "=?base64??=",
        "=?base64?SGVsbG8=?=",
        "tab\there",
        "\r\n",
        "x" * 10_000,
    ],
)
def test_round_trip(text: str) -> None:
    header = encode_header_value(text)
    assert all(" " <= c <= "~" for c in header)
    assert header == header.strip()
    assert decode_header_value(header) == text
    assert header_matches(header, text)


# --- decoding -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("=?base64?SGVsbG8=?=", "Hello"),
        ("SGVsbG8=", "SGVsbG8="),  # no prefix: literal
        ("=?base64?SGVsbG8=", "=?base64?SGVsbG8="),  # no suffix: literal
        ("=?BASE64?SGVsbG8=?=", "=?BASE64?SGVsbG8=?="),  # markers are case-sensitive: literal
        ("=?base64?=", "=?base64?="),  # prefix and suffix overlap: no payload, literal
        ("=?base64??=", ""),  # an empty payload is the empty string
        ("  us-west1 \t", "us-west1"),  # optional whitespace around a field value
        (" =?base64?IHBhZGRlZCA=?= ", " padded "),
        ("us west\t1", "us west\t1"),  # inner space and tab are field-value characters
    ],
)
def test_decode(raw: str, value: str) -> None:
    assert decode_header_value(raw) == value


FIELD_CHARS = (
    "a field value is printable ASCII, spaces and tabs (other text arrives as =?base64?...?=)"
)


def malformed(raw: str) -> str:
    return f"malformed base64 header value {raw!r}"


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("=?base64?SGVsbG8?=", malformed("=?base64?SGVsbG8?=")),  # padding missing
        ("=?base64?SGVs!!!bG8=?=", malformed("=?base64?SGVs!!!bG8=?=")),
        ("=?base64?SGVs bG8=?=", malformed("=?base64?SGVs bG8=?=")),
        ("=?base64?SGVsbG8-?=", malformed("=?base64?SGVsbG8-?=")),  # url-safe alphabet
        ("=?base64?SGVsbG8==?=", malformed("=?base64?SGVsbG8==?=")),  # excess padding
        ("=?base64?SGVsbG9=?=", malformed("=?base64?SGVsbG9=?=") + " (not in canonical form)"),
        ("=?base64?/w==?=", "base64 header value '=?base64?/w==?=' is not UTF-8 text"),
        ("=?base64?SGVsbG8=\n?=", f"header value contains '\\n'; {FIELD_CHARS}"),
        ("caf\xe9", f"header value contains 'é'; {FIELD_CHARS}"),
        ("a\x00b", f"header value contains '\\x00'; {FIELD_CHARS}"),
        ("a\r\nb", f"header value contains '\\r'; {FIELD_CHARS}"),
    ],
)
def test_decode_refuses(raw: str, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        decode_header_value(raw)
    assert str(caught.value) == message


# --- header/body comparison -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "body", "matches"),
    [
        ("42", 42, True),
        ("42.0", 42, True),  # the spec's example: compared numerically
        ("4.2e1", 42, True),
        ("420E-1", 42, True),
        ("-7", -7, True),
        ("-0", 0, True),
        ("=?base64?NDI=?=", 42, True),  # decoded first
        ("9007199254740991", MAX_SAFE_INTEGER, True),
        ("9007199254740992", MAX_SAFE_INTEGER, False),  # exact, not via doubles
        ("43", 42, False),
        ("042", 42, False),  # not a JSON number
        ("+42", 42, False),
        ("42.", 42, False),
        ("0x2a", 42, False),
        ("1_000", 1000, False),
        ("Infinity", 42, False),
        ("NaN", 42, False),
        ("", 0, False),
        ("forty-two", 42, False),
        ("42", 42.0, True),  # a JSON body may carry an integer as 42.0
        ("true", True, True),
        ("false", False, True),
        ("True", True, False),  # values are case-sensitive
        ("TRUE", True, False),
        ("1", True, False),
        ("true", 1, False),
        ("false", False, True),
        ("1", False, False),
        ("us-west1", "us-west1", True),
        ("US-WEST1", "us-west1", False),
        ("42", "42", True),
        ("42.0", "42", False),  # strings compare as strings
        ("=?base64?SGVsbG8sIOS4lueVjA==?=", "Hello, 世界", True),
        ("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=", "=?base64?literal?=", True),
        ("=?base64?literal?=", "=?base64?literal?=", None),  # a sentinel, and malformed
        ("", "", True),
        ("null", None, False),
        ("", None, False),
        ("[]", [], False),
        ("{}", {}, False),
    ],
)
def test_header_matches(raw: str, body: Any, matches: bool | None) -> None:
    """`matches` None: the header is malformed (ValueError)."""
    try:
        result = header_matches(raw, body)
    except ValueError:
        result = None
    assert result is matches


def test_header_matches_raises_for_malformed_headers() -> None:
    with pytest.raises(ValueError) as caught:
        header_matches("=?base64?SGVsbG8?=", "Hello")
    assert str(caught.value) == "malformed base64 header value '=?base64?SGVsbG8?='"


def test_huge_exponents_compare_without_blowing_up() -> None:
    assert not header_matches("1e999999999", 1)
    assert not header_matches("1e-999999999", 0)
    assert not header_matches("1e999999999", 1.0)


# --- the Tool record ------------------------------------------------------------------------


def test_tool_headers_drive_the_client_side_and_the_server_check() -> None:
    tool = make_tool(execute_sql)
    assert isinstance(tool, Tool)
    assert dict(tool.headers) == {"Region": "/region"}
    arguments = {"region": "us-west1", "query": "SELECT 1"}
    sent = {
        HEADER_PREFIX + name: encode_header_value(argument_at(arguments, path))
        for name, path in tool.headers.items()
    }
    assert sent == {"Mcp-Param-Region": "us-west1"}
    assert all(
        header_matches(sent[HEADER_PREFIX + name], argument_at(arguments, path))
        for name, path in tool.headers.items()
    )


def test_bad_name_in_a_lazily_evaluated_annotation_fails_at_registration() -> None:
    # This module uses `from __future__ import annotations`: Header() runs in make_tool.
    def fn(region: Annotated[str, Header("My Region")]) -> None: ...

    assert registration_error(fn) == f"the header name is 'My Region', not {TOKEN_RULE}"


def test_any_mapping_is_checked() -> None:
    from types import MappingProxyType

    schema = MappingProxyType(
        {"type": "object", "properties": MappingProxyType({"a": MappingProxyType(MARKED)})}
    )
    assert check_header_markers(schema) == {"H": "/a"}
