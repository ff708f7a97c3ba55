from __future__ import annotations

import dataclasses
import datetime
import enum
import inspect
import pathlib
import typing
from typing import Annotated, Any, Literal, Optional

import pytest
from pydantic import BaseModel, ConfigDict, Field, computed_field
from typing_extensions import TypedDict

from plainmcp.schema import (
    ArgumentError,
    FieldError,
    OutputMismatch,
    inline_refs,
    input_spec,
    output_spec,
    schema_output_spec,
)


class Item(BaseModel):
    name: str
    qty: int = 1


ITEM = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "qty": {"type": "integer", "default": 1}},
    "required": ["name"],
}


class Node(BaseModel):
    value: int
    children: list[Node] = []


NODE_BODY = {
    "type": "object",
    "properties": {
        "value": {"type": "integer"},
        "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}, "default": []},
    },
    "required": ["value"],
}


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


@dataclasses.dataclass
class Point:
    x: float
    y: float = 0.0


class Movie(TypedDict):
    title: str
    year: int


class Titled(BaseModel):
    """A titled thing."""

    model_config = ConfigDict(title="My Thing")
    v: int = Field(title="Value!")


class Opaque:
    """pydantic cannot describe this."""


def refs(node: Any) -> list[str]:
    """Every "$ref" and "$defs" key anywhere in a schema."""
    found: list[str] = []
    if isinstance(node, dict):
        found += [key for key in node if key in ("$ref", "$defs", "definitions")]
        for value in node.values():
            found += refs(value)
    elif isinstance(node, list):
        for value in node:
            found += refs(value)
    return found


def obj(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return schema


# ----------------------------------------------------------------------------- input schemas


def test_add() -> None:
    def add(a: int, b: int) -> int:
        return a + b

    schema = input_spec(add).schema
    assert schema == obj({"a": {"type": "integer"}, "b": {"type": "integer"}}, ["a", "b"])
    assert list(schema) == ["type", "properties", "required", "additionalProperties"]


@pytest.mark.filterwarnings("error")
def test_defaults_and_unannotated() -> None:
    def f(
        a: str, b: int = 3, c: float = 0.5, d=None, e: bool = False, f: object = object()
    ) -> None:
        pass

    assert input_spec(f).schema == obj(
        {
            "a": {"type": "string"},
            "b": {"type": "integer", "default": 3},
            "c": {"type": "number", "default": 0.5},
            "d": {"default": None},
            "e": {"type": "boolean", "default": False},
            "f": {},  # not JSON-serializable: no "default", and no warning either
        },
        ["a"],
    )


def test_optional_literal_enum() -> None:
    def f(
        a: Optional[int],  # noqa: UP045
        b: int | None = None,
        mode: Literal["fast", "slow"] = "fast",
        color: Color = Color.RED,
    ) -> None:
        pass

    assert input_spec(f).schema == obj(
        {
            "a": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "b": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None},
            "mode": {"type": "string", "enum": ["fast", "slow"], "default": "fast"},
            "color": {"type": "string", "enum": ["red", "green"], "default": "red"},
        },
        ["a"],
    )


def test_annotated_field_and_plain_string_and_param_docs() -> None:
    def f(
        a: Annotated[int, Field(description="From Field", ge=0, le=10)],
        b: Annotated[str, "From a plain string"],
        c: Annotated[str, Field(title="Explicit Title", max_length=5)],
        d: int = 1,
    ) -> None:
        pass

    docs = {"a": "loses to Field", "b": "loses to the string", "c": "From docs", "d": "Also docs"}
    assert input_spec(f, param_docs=docs).schema == obj(
        {
            "a": {"type": "integer", "description": "From Field", "minimum": 0, "maximum": 10},
            "b": {"type": "string", "description": "From a plain string"},
            "c": {
                "type": "string",
                "title": "Explicit Title",
                "maxLength": 5,
                "description": "From docs",
            },
            "d": {"type": "integer", "default": 1, "description": "Also docs"},
        },
        ["a", "b", "c"],
    )


def test_field_as_default() -> None:
    def f(a: int = Field(3, description="A", ge=1), b: int = Field(description="B")) -> None:
        pass

    spec = input_spec(f)
    assert spec.schema == obj(
        {
            "a": {"type": "integer", "default": 3, "description": "A", "minimum": 1},
            "b": {"type": "integer", "description": "B"},
        },
        ["b"],
    )
    # The FieldInfo object must never reach the function: its default is passed explicitly.
    assert spec.validate({"b": 2}) == {"a": 3, "b": 2}


def test_model_param_is_inlined() -> None:
    def f(item: Item, maybe: Item | None = None) -> None:
        pass

    schema = input_spec(f).schema
    assert refs(schema) == []
    assert schema == obj(
        {"item": ITEM, "maybe": {"anyOf": [ITEM, {"type": "null"}], "default": None}}, ["item"]
    )


def test_model_with_explicit_title_and_description_keeps_them() -> None:
    def f(t: Annotated[Titled, Field(description="the thing")]) -> None:
        pass

    assert input_spec(f).schema["properties"]["t"] == {
        "type": "object",
        "title": "My Thing",
        "description": "the thing",
        "properties": {"v": {"type": "integer", "title": "Value!"}},
        "required": ["v"],
    }


def test_dataclass_and_typeddict() -> None:
    def f(p: Point, m: Movie) -> None:
        pass

    assert input_spec(f).schema == obj(
        {
            "p": {
                "type": "object",
                "properties": {"x": {"type": "number"}, "y": {"type": "number", "default": 0.0}},
                "required": ["x"],
            },
            "m": {
                "type": "object",
                "properties": {"title": {"type": "string"}, "year": {"type": "integer"}},
                "required": ["title", "year"],
            },
        },
        ["p", "m"],
    )


def test_collections_of_models() -> None:
    def f(items: list[Item], by_id: dict[str, Item], tags: set[str], pair: tuple[int, str]) -> None:
        pass

    schema = input_spec(f).schema
    assert refs(schema) == []
    assert schema == obj(
        {
            "items": {"type": "array", "items": ITEM},
            "by_id": {"type": "object", "additionalProperties": ITEM},
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
            "pair": {
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "string"}],
                "minItems": 2,
                "maxItems": 2,
            },
        },
        ["items", "by_id", "tags", "pair"],
    )


def test_no_params() -> None:
    def f() -> None:
        pass

    spec = input_spec(f)
    assert spec.schema == {"type": "object", "properties": {}, "additionalProperties": False}
    assert spec.validate({}) == {}


def test_recursive_model_keeps_minimal_defs() -> None:
    def f(tree: Node, items: list[Item]) -> None:
        pass

    schema = input_spec(f).schema
    assert schema == {
        **obj(
            {"tree": NODE_BODY, "items": {"type": "array", "items": ITEM}},
            ["tree", "items"],
        ),
        "$defs": {"Node": NODE_BODY},  # Item is not recursive: inlined, not in $defs
    }


def test_hidden_params() -> None:
    # Ctx is local: under `from __future__ import annotations` its hint cannot be resolved,
    # which must not matter for a hidden parameter.
    class Ctx:
        pass

    def f(query: str, ctx: Ctx, limit: int = 10) -> None:
        pass

    spec = input_spec(f, hidden={"ctx"})
    assert spec.schema == obj(
        {"query": {"type": "string"}, "limit": {"type": "integer", "default": 10}}, ["query"]
    )
    assert spec.validate({"query": "q"}) == {"query": "q"}
    with pytest.raises(ArgumentError) as info:
        spec.validate({"query": "q", "ctx": 1})
    assert info.value.errors == [FieldError("ctx", "Unexpected argument")]


def test_varargs_and_positional_only_rejected() -> None:
    def star(*args: int) -> None:
        pass

    def kw(**kwargs: int) -> None:
        pass

    def pos(a: int, /) -> None:
        pass

    with pytest.raises(TypeError, match=r"\*args"):
        input_spec(star)
    with pytest.raises(TypeError, match=r"\*\*kwargs"):
        input_spec(kw)
    with pytest.raises(TypeError, match="positional-only"):
        input_spec(pos)


def test_unsupported_param_type_is_type_error() -> None:
    def f(x: Opaque) -> None:
        pass

    with pytest.raises(TypeError, match=r"cannot build an input schema.*Opaque"):
        input_spec(f)


def test_unresolvable_visible_hint_is_type_error() -> None:
    class Local:
        pass

    def f(x: Local) -> None:
        pass

    with pytest.raises(TypeError, match="cannot resolve the type hint of 'x'"):
        input_spec(f)


# ----------------------------------------------------------------------------- validation


def test_validate_constructs_python_values_from_json() -> None:
    def f(a: int, items: list[Item], color: Color, p: Point, when: datetime.date, m: Movie) -> None:
        pass

    kwargs = input_spec(f).validate(
        {
            "a": 5,
            "items": [{"name": "x"}],
            "color": "green",
            "p": {"x": 1},
            "when": "2024-05-01",
            "m": {"title": "T", "year": 1999},
        }
    )
    assert kwargs == {
        "a": 5,
        "items": [Item(name="x", qty=1)],
        "color": Color.GREEN,
        "p": Point(1.0, 0.0),
        "when": datetime.date(2024, 5, 1),
        "m": {"title": "T", "year": 1999},
    }
    assert type(kwargs["a"]) is int


def test_json_types_are_strict() -> None:
    def f(a: int, b: float, c: bool, d: str) -> None:
        pass

    with pytest.raises(ArgumentError) as caught:
        input_spec(f).validate({"a": "5", "b": True, "c": 1, "d": 7})
    assert [str(e) for e in caught.value.errors] == [
        'a: Input should be a valid integer, got "5"',
        "b: Input should be a valid number, got true",
        "c: Input should be a valid boolean, got 1",
        "d: Input should be a valid string, got 7",
    ]
    assert input_spec(f).validate({"a": 5, "b": 3, "c": False, "d": "x"}) == {
        "a": 5,
        "b": 3,
        "c": False,
        "d": "x",
    }


def test_omitted_defaults_are_left_to_the_function() -> None:
    def f(a: int, b: list[int] | None = None) -> None:
        pass

    assert input_spec(f).validate({"a": 1}) == {"a": 1}


def test_every_bad_field_reported() -> None:
    def f(a: int, b: int, c: str, items: list[Item]) -> None:
        pass

    with pytest.raises(ArgumentError) as info:
        input_spec(f).validate({"a": "x", "b": [1], "items": [{"qty": 2}], "zzz": 1})
    assert info.value.errors == [
        FieldError("a", 'Input should be a valid integer, got "x"'),
        FieldError("b", "Input should be a valid integer, got [1]"),
        FieldError("c", "Field required"),
        FieldError("items.0.name", "Field required"),
        FieldError("zzz", "Unexpected argument"),
    ]
    assert str(info.value) == "\n".join(
        [
            'a: Input should be a valid integer, got "x"',
            "b: Input should be a valid integer, got [1]",
            "c: Field required",
            "items.0.name: Field required",
            "zzz: Unexpected argument",
        ]
    )


def test_constraint_violation_and_non_mapping() -> None:
    def f(a: Annotated[int, Field(ge=0)]) -> None:
        pass

    spec = input_spec(f)
    with pytest.raises(ArgumentError) as info:
        spec.validate({"a": -1})
    assert info.value.errors == [
        FieldError("a", "Input should be greater than or equal to 0, got -1")
    ]
    with pytest.raises(ArgumentError) as info:
        spec.validate([1])  # type: ignore[arg-type]
    assert info.value.errors == [FieldError("", "Arguments should be an object, got [1]")]


def test_nested_extra_keys_follow_the_nested_type() -> None:
    # extra keys are refused at the root only; nested types keep their own behaviour
    def f(p: Point, item: Item) -> None:
        pass

    kwargs = input_spec(f).validate({"p": {"x": 1, "junk": 1}, "item": {"name": "a", "junk": 2}})
    assert kwargs == {"p": Point(1.0), "item": Item(name="a")}


def test_parameter_names_that_clash_with_pydantic() -> None:
    def f(json: str, model_config: int, schema: bool = True) -> None:
        pass

    spec = input_spec(f)
    assert list(spec.schema["properties"]) == ["json", "model_config", "schema"]
    assert spec.validate({"json": "j", "model_config": 1}) == {"json": "j", "model_config": 1}


# ----------------------------------------------------------------------------- output specs


@pytest.mark.parametrize(
    "annotation",
    [
        inspect.Signature.empty,
        Any,
        object,
        None,
        type(None),
        str,
        bytes,
        bytearray,
        pathlib.Path,
        pathlib.PurePosixPath,
        list,
        dict,
        tuple,
        set,
        frozenset,
        typing.List,  # noqa: UP006
        typing.Dict,  # noqa: UP006
        Annotated[str, "text"],
    ],
)
def test_no_structured_output(annotation: Any) -> None:
    assert output_spec(annotation) is None


def test_output_schemas() -> None:
    def schema(annotation: Any) -> dict[str, Any]:
        spec = output_spec(annotation)
        assert spec is not None
        return spec.schema

    assert schema(int) == {"type": "integer"}
    assert schema(list[int]) == {"type": "array", "items": {"type": "integer"}}
    assert schema(Item) == ITEM
    assert schema(Movie) == {
        "type": "object",
        "properties": {"title": {"type": "string"}, "year": {"type": "integer"}},
        "required": ["title", "year"],
    }
    assert schema(Optional[int]) == {"anyOf": [{"type": "integer"}, {"type": "null"}]}  # noqa: UP045
    assert schema(Item | Point) == {
        "anyOf": [
            ITEM,
            {
                "type": "object",
                "properties": {"x": {"type": "number"}, "y": {"type": "number", "default": 0.0}},
                "required": ["x"],
            },
        ]
    }
    assert schema(datetime.datetime) == {"type": "string", "format": "date-time"}
    assert schema(Color) == {"type": "string", "enum": ["red", "green"]}
    assert schema(Node) == {**NODE_BODY, "$defs": {"Node": NODE_BODY}}
    for annotation in (Item, list[Item], dict[str, Item], Item | Point):
        assert refs(schema(annotation)) == []


def test_output_schema_uses_serialization_mode() -> None:
    class Area(BaseModel):
        w: int

        @computed_field  # type: ignore[prop-decorator]
        @property
        def double(self) -> int:
            return self.w * 2

    spec = output_spec(Area)
    assert spec is not None
    assert spec.schema == {
        "type": "object",
        "properties": {"w": {"type": "integer"}, "double": {"type": "integer", "readOnly": True}},
        "required": ["w", "double"],
    }
    spec.check({"w": 1, "double": 2})


def test_unsupported_output_type_is_type_error() -> None:
    with pytest.raises(TypeError, match="Opaque"):
        output_spec(Opaque)
    with pytest.raises(TypeError, match="Opaque"):
        output_spec(list[Opaque])


def mismatch(annotation: Any, value: Any) -> list[FieldError]:
    spec = output_spec(annotation)
    assert spec is not None
    with pytest.raises(OutputMismatch) as info:
        spec.check(value)
    return info.value.errors


def accepts(annotation: Any, value: Any) -> None:
    spec = output_spec(annotation)
    assert spec is not None
    spec.check(value)


def test_check_accepts_wire_values() -> None:
    accepts(int, 5)
    accepts(int, 2**70)  # beyond orjson's 64-bit range: still checked, losslessly
    accepts(float, 5)
    accepts(list[int], [1, 2])
    accepts(set[int], [1, 2])
    accepts(frozenset[str], ["a"])
    accepts(tuple[int, str], [1, "a"])
    accepts(Item, {"name": "x"})
    accepts(Point, {"x": 1.5})
    accepts(Movie, {"title": "T", "year": 1})
    accepts(datetime.datetime, "2024-01-01T12:00:00Z")
    accepts(datetime.date, "2024-01-01")
    accepts(Optional[int], None)  # noqa: UP045
    accepts(Color, "red")
    accepts(Node, {"value": 1, "children": [{"value": 2}]})


def test_check_is_strict_about_json_types() -> None:
    assert mismatch(int, "5") == [FieldError("", 'Input should be a valid integer, got "5"')]
    assert mismatch(int, 1.5) == [FieldError("", "Input should be a valid integer, got 1.5")]
    assert mismatch(bool, 1) == [FieldError("", "Input should be a valid boolean, got 1")]
    assert mismatch(list[int], [1, "2"]) == [
        FieldError("1", 'Input should be a valid integer, got "2"')
    ]
    assert mismatch(Item, {"qty": 2}) == [FieldError("name", "Field required")]
    assert mismatch(list[Item], [{"name": "a"}, {"name": 1}]) == [
        FieldError("1.name", "Input should be a valid string, got 1")
    ]
    assert mismatch(Color, "blue") == [
        FieldError("", "Input should be 'red' or 'green', got \"blue\"")
    ]
    assert mismatch(datetime.datetime, "yesterday") == [
        FieldError(
            "",
            'Input should be a valid datetime, input is too short, got "yesterday"',
        )
    ]
    assert mismatch(dict[str, int], {"a": 1, "b": "2"}) == [
        FieldError("b", 'Input should be a valid integer, got "2"')
    ]
    assert mismatch(Point, {"x": "1.5"}) == [
        FieldError("x", 'Input should be a valid number, got "1.5"')
    ]


SHAPE_ONLY = [
    dict[str, Any],
    list[dict],
    list[dict[str, Any]],
    list[Any],
    list[list[dict]],
    int,
    float,
    bool,
    list[int],
    list[str],
    dict[str, int],
    dict[str, list[dict]],
    list[float],
]


@pytest.mark.parametrize("annotation", SHAPE_ONLY)
def test_shape_only_schemas_are_settled_by_python_types(annotation: Any) -> None:
    """`list[dict]` and the like need no JSON re-parse: a type look at the value settles them,
    and it never says yes where pydantic says no."""
    spec = output_spec(annotation)
    assert spec is not None and spec._surely_fits is not None
    samples: list[Any] = [
        {},
        {"a": 1, "b": [1, "x"]},
        [],
        [{"a": 1}, {}],
        [[{"a": 1}], []],
        [1, "x"],
        [{"a": 1}, 2],
        ({"a": 1},),
        [({"a": 1},)],
        "text",
        None,
        0,
        -(2**70),
        True,
        1.5,
        float("nan"),
        [1, 2.5, True],
        ["a", 1],
        {"a": 1, "b": True},
        {"a": [{"b": 1}], "c": []},
        [float("inf")],
    ]
    settled = [value for value in samples if spec._surely_fits(value)]
    assert settled, "the fast check settles the usual values"
    for value in settled:
        assert not _errors(spec, value), (annotation, value)


def _errors(spec: Any, value: Any) -> list[FieldError]:
    try:
        spec.check(value)
    except OutputMismatch as exc:
        return exc.errors
    return []


def test_shape_only_check_falls_back_to_pydantic_for_its_errors() -> None:
    spec = output_spec(list[dict])
    assert spec is not None
    spec.check_json(b'[{"a":1},{"b":2}]', [{"a": 1}, {"b": 2}])
    with pytest.raises(OutputMismatch) as info:
        spec.check_json(b'[{"a":1},2]', [{"a": 1}, 2])
    assert info.value.errors == [FieldError("1", "Input should be an object, got 2")]


@pytest.mark.parametrize(
    "annotation",
    [Item, list[Item], Movie, Color, datetime.datetime, Optional[int], tuple[int, str]],  # noqa: UP045
)
def test_constrained_schemas_are_always_checked_by_pydantic(annotation: Any) -> None:
    spec = output_spec(annotation)
    assert spec is not None and spec._surely_fits is None


def test_check_unserializable_value() -> None:
    assert mismatch(int, object())[0].message.startswith("Value is not JSON-serializable")


# ----------------------------------------------------------------------------- hand-written schemas


def test_schema_output_spec_inlines_and_validates() -> None:
    given = {
        "type": "object",
        "properties": {
            "n": {"$ref": "#/$defs/N"},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["n"],
        "$defs": {"N": {"type": "integer", "minimum": 0}},
    }
    spec = schema_output_spec(given)
    assert spec.schema == {
        "type": "object",
        "properties": {
            "n": {"type": "integer", "minimum": 0},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["n"],
    }
    assert "$defs" in given  # input untouched
    spec.check({"n": 1, "tags": ["a"]})
    with pytest.raises(OutputMismatch) as info:
        spec.check({"n": "1", "tags": ["a", 2]})
    assert info.value.errors == [
        FieldError("n", "'1' is not of type 'integer'"),
        FieldError("tags.1", "2 is not of type 'string'"),
    ]
    with pytest.raises(OutputMismatch) as info:
        spec.check({})
    assert info.value.errors == [FieldError("", "'n' is a required property")]


def test_schema_output_spec_rejects_invalid_schema() -> None:
    with pytest.raises(ValueError, match="invalid output schema"):
        schema_output_spec({"type": "nonsense"})


def test_schema_output_spec_without_jsonschema(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "jsonschema", None)  # makes `import jsonschema` fail
    spec = schema_output_spec({"type": "integer"})
    assert spec.schema == {"type": "integer"}
    spec.check("not checked")  # documented: no validator, no check


# ----------------------------------------------------------------------------- inline_refs


def test_inline_refs_root_self_reference_kept() -> None:
    tree = {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#"}}}}
    assert inline_refs(tree) == tree


def test_inline_refs_mutual_recursion_and_siblings() -> None:
    schema = {
        "$ref": "#/definitions/A",
        "definitions": {
            "A": {
                "type": "object",
                "properties": {"b": {"$ref": "#/definitions/B", "description": "bee"}},
            },
            "B": {"type": "object", "properties": {"a": {"$ref": "#/definitions/A"}}},
            "Unused": {"type": "string"},
        },
    }
    a_body = {
        "type": "object",
        "properties": {
            "b": {
                "type": "object",
                "properties": {"a": {"$ref": "#/$defs/A"}},
                "description": "bee",
            }
        },
    }
    assert inline_refs(schema) == {**a_body, "$defs": {"A": a_body}}


def test_inline_refs_leaves_remote_refs_and_enum_values_alone() -> None:
    schema = {
        "type": "object",
        "properties": {
            "x": {"$ref": "https://example.com/schema.json"},
            "y": {"const": {"$ref": "#/nope"}},
        },
    }
    assert inline_refs(schema) == schema
