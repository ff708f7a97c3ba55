"""JSON Schema from type hints (tool inputs and outputs), and validation against it, via pydantic.

Hosts are the audience of these schemas, and many of them break on `$ref`/`$defs` or show
pydantic's generated titles ("A", "Item") as if they were help text. So every local reference is
inlined, auto-generated titles are dropped, and only a true cycle (a recursive type) keeps a
minimal `$defs`. Only pydantic and orjson are imported at module level; `jsonschema` is imported
on demand, for hand-written output schemas only.
"""

from __future__ import annotations

import copy
import enum
import inspect
import math
import pathlib
import typing
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any
from urllib.parse import unquote

import orjson
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PydanticSchemaGenerationError,
    PydanticUserError,
    TypeAdapter,
    ValidationError,
    create_model,
)
from pydantic.fields import FieldInfo
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue, JsonSchemaWarningKind
from pydantic_core import PydanticSerializationError, core_schema

from plainmcp.wire import json as wire_json

__all__ = [
    "ArgumentError",
    "FieldError",
    "InputSpec",
    "OutputMismatch",
    "OutputSpec",
    "inline_refs",
    "input_spec",
    "output_spec",
    "schema_output_spec",
]


@dataclass(frozen=True, slots=True)
class FieldError:
    """One problem with one value; `path` is dotted ("items.0.name"), "" for the whole value."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class _FieldErrors(Exception):
    """Carries `errors`; str() is one "path: message" line per error."""

    def __init__(self, errors: list[FieldError]) -> None:
        super().__init__("\n".join(str(e) for e in errors))
        self.errors = errors


class ArgumentError(_FieldErrors):
    """Tool arguments failed validation; `errors` names every bad field, so a model can fix all."""

    errors: list[FieldError]


class OutputMismatch(_FieldErrors):
    """A structured value does not conform to the tool's output schema."""

    errors: list[FieldError]


# --------------------------------------------------------------------------- schema generation


class _Generator(GenerateJsonSchema):
    """pydantic's generator minus the titles it derives from names (user-given titles stay)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._enum_names: set[str] = set()

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def model_schema(self, schema: core_schema.ModelSchema) -> JsonSchemaValue:
        result = super().model_schema(schema)
        cls = schema["cls"]
        _drop_class_title(result, cls, cls.model_config)
        return result

    def dataclass_schema(self, schema: core_schema.DataclassSchema) -> JsonSchemaValue:
        result = super().dataclass_schema(schema)
        cls = schema["cls"]
        _drop_class_title(result, cls, getattr(cls, "__pydantic_config__", None))
        return result

    def typed_dict_schema(self, schema: core_schema.TypedDictSchema) -> JsonSchemaValue:
        result = super().typed_dict_schema(schema)
        cls = schema.get("cls")
        if cls is not None:
            _drop_class_title(result, cls, getattr(cls, "__pydantic_config__", None))
        return result

    def enum_schema(self, schema: core_schema.EnumSchema) -> JsonSchemaValue:
        # pydantic adds the class-name title after this method returns; generate() drops it.
        self._enum_names.add(schema["cls"].__name__)
        return super().enum_schema(schema)

    def generate(self, schema: Any, mode: Any = "validation") -> JsonSchemaValue:
        result = super().generate(schema, mode)
        _drop_enum_titles(result, self._enum_names)
        return result

    def emit_warning(self, kind: JsonSchemaWarningKind, detail: str) -> None:
        # A default that cannot be written as JSON is simply left out of the schema: that is
        # the documented behaviour, not something to warn every tool author about.
        if kind != "non-serializable-default":
            super().emit_warning(kind, detail)


def _drop_enum_titles(node: Any, names: set[str]) -> None:
    if isinstance(node, list):
        for item in node:
            _drop_enum_titles(item, names)
    elif isinstance(node, dict):
        if "enum" in node and node.get("title") in names:
            del node["title"]
        for key, value in node.items():
            if key not in _NOT_SCHEMAS:
                _drop_enum_titles(value, names)


def _drop_class_title(result: dict[str, Any], cls: type[Any], config: Any) -> None:
    explicit = isinstance(config, Mapping) and (
        config.get("title") is not None or config.get("model_title_generator") is not None
    )
    if not explicit and result.get("title") == cls.__name__:
        del result["title"]


# --------------------------------------------------------------------------- $ref inlining

_NOT_SCHEMAS = frozenset({"enum", "const", "default", "examples", "example"})
_DEF_KEYS = ("$defs", "definitions")


def inline_refs(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Replace every local `$ref` ("#", "#/$defs/X", any "#/json/pointer") with its target.

    A reference that would recurse forever (a recursive type) is inlined once and then kept as a
    `$ref`; the targets of such references are the only entries of the returned `$defs`. A root
    that is itself a `$ref` is replaced by its target, so the root keeps its "type". Non-local
    references (URLs) are never followed. Sibling keywords next to a `$ref` win over the target's.
    The input is not modified.
    """
    root = dict(schema)
    cycle_names: dict[str, str] = {}
    unresolved = False

    def def_name(pointer: str) -> str:
        if pointer not in cycle_names:
            base = unquote(pointer.rsplit("/", 1)[-1]).replace("~1", "/").replace("~0", "~")
            base = base or "def"
            name, n = base, 2
            while name in cycle_names.values():
                name, n = f"{base}{n}", n + 1
            cycle_names[pointer] = name
        return cycle_names[pointer]

    def expand(node: Any, stack: tuple[str, ...], at_root: bool = False) -> Any:
        nonlocal unresolved
        if isinstance(node, list):
            return [expand(item, stack) for item in node]
        if not isinstance(node, dict):
            return node
        siblings = {
            key: (value if key in _NOT_SCHEMAS else expand(value, stack))
            for key, value in node.items()
            if key != "$ref" and not (at_root and key in _DEF_KEYS)
        }
        ref = node.get("$ref")
        if not isinstance(ref, str) or not ref.startswith("#"):
            if ref is not None:
                siblings = {"$ref": ref, **siblings}
            return siblings
        found, target = _resolve_pointer(root, ref)
        if not found:
            unresolved = True
            return {"$ref": ref, **siblings}
        if ref in stack:
            kept = ref if ref == "#" else "#/$defs/" + _escape(def_name(ref))
            return {"$ref": kept, **siblings}
        body = expand(target, (*stack, ref), at_root=ref == "#")
        if not isinstance(body, dict):  # a boolean schema
            return body if not siblings else {"allOf": [body], **siblings}
        return {**body, **siblings}

    result = expand(root, ("#",), at_root=True)
    if not isinstance(result, dict):
        result = {"allOf": [result]}
    defs: dict[str, Any] = {}
    done: set[str] = set()
    while len(done) < len(cycle_names):
        for pointer, name in list(cycle_names.items()):
            if pointer not in done:
                done.add(pointer)
                defs[name] = expand(_resolve_pointer(root, pointer)[1], (pointer,))
    if unresolved:  # "#anchor" and friends: keep what they might point into
        for key in _DEF_KEYS:
            if key in root:
                result.setdefault(key, copy.deepcopy(root[key]))
    if defs:
        result["$defs"] = {**result.get("$defs", {}), **defs}
    return result


def _escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def _resolve_pointer(root: Any, ref: str) -> tuple[bool, Any]:
    if ref == "#":
        return True, root
    if not ref.startswith("#/"):
        return False, None
    node = root
    for raw in ref[2:].split("/"):
        part = unquote(raw).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return False, None
    return True, node


# --------------------------------------------------------------------------- errors


def _json_repr(value: Any, limit: int = 80) -> str:
    """How the model sent the value (JSON), not how Python would print it."""
    try:
        text = wire_json.dumps(value).decode()
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _short_repr(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _json_bytes(value: Any) -> bytes:
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:  # integers beyond 64 bits, or what JSON cannot hold
        return wire_json.dumps(value)


def _field_errors(exc: ValidationError) -> list[FieldError]:
    errors: list[FieldError] = []
    for err in exc.errors(include_url=False):
        path = ".".join(str(part) for part in err["loc"])
        kind = err["type"]
        if kind == "missing":
            message = "Field required"
        elif kind == "extra_forbidden":
            message = "Unexpected argument"
        else:
            message = err["msg"]
            if ", got " not in message:
                message += f", got {_json_repr(err.get('input'))}"
        errors.append(FieldError(path, message))
    return errors


# --------------------------------------------------------------------------- input


@dataclass(frozen=True)
class InputSpec:
    """A tool's input schema and the validator that turns JSON arguments into keyword arguments."""

    schema: dict[str, Any]
    _model: type[BaseModel] | None = field(default=None, repr=False, compare=False)
    _names: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)
    _always: frozenset[str] = field(default=frozenset(), repr=False, compare=False)
    _accepted: frozenset[str] = field(default=frozenset(), repr=False, compare=False)
    _check: Callable[[Any], list[FieldError]] | None = field(
        default=None, repr=False, compare=False
    )

    def validate(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """Validate against the advertised schema and construct Python values by parameter name.

        JSON types are strict ("5" is not an integer, true is not a number): the model reads
        the error and corrects itself, rather than having a guess made for it. Strings still
        become datetimes, UUIDs and enum members, and objects become models, as JSON requires.

        Parameters the client left out are left out here too, so the function's own default
        applies. Raises ArgumentError naming every bad, missing or unexpected field.
        """
        if type(arguments) is not dict and not isinstance(arguments, Mapping):
            raise ArgumentError(
                [FieldError("", f"Arguments should be an object, got {_short_repr(arguments)}")]
            )
        if self._model is None:
            errors = self._check(dict(arguments)) if self._check is not None else []
            if errors:
                raise ArgumentError(errors)
            return dict(arguments)
        # Unknown keys are found here rather than with extra="forbid": pydantic would pass that
        # config down to nested dataclasses and TypedDicts, unlike nested models.
        unexpected = [
            FieldError(str(key), "Unexpected argument")
            for key in arguments
            if key not in self._accepted
        ]
        try:
            validated = self._model.__pydantic_validator__.validate_json(
                _json_bytes(arguments), strict=True
            )
        except ValidationError as exc:
            raise ArgumentError(_field_errors(exc) + unexpected) from None
        if unexpected:
            raise ArgumentError(unexpected)
        given = validated.model_fields_set | self._always
        return {self._names[key]: getattr(validated, key) for key in self._names if key in given}


def input_spec(
    fn: Callable[..., Any],
    *,
    param_docs: Mapping[str, str] | None = None,
    hidden: Collection[str] = (),
) -> InputSpec:
    """Build the input schema and validator of `fn` from its signature and type hints.

    `hidden` parameters are injected by the caller and are neither described nor accepted.
    Descriptions come from `Field(description=...)`, then a plain string in `Annotated[...]`, then
    `param_docs`. A parameter defaulting to `pydantic.Field(...)` is supported too. Recursive types
    keep a minimal `$defs` (see `inline_refs`). Raises TypeError for `*args`/`**kwargs`,
    positional-only parameters and types pydantic cannot describe.
    """
    name = getattr(fn, "__qualname__", None) or repr(fn)
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"cannot read the signature of {name}: {exc}") from exc
    hints = _type_hints(fn, name, hidden)
    docs = dict(param_docs or {})
    fields: dict[str, Any] = {}
    names: dict[str, str] = {}
    always: set[str] = set()
    for index, param in enumerate(signature.parameters.values()):
        if param.name in hidden:
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            star = "*" if param.kind is param.VAR_POSITIONAL else "**"
            raise TypeError(
                f"{name}: {star}{param.name} cannot be described by a JSON schema; "
                "tools take named parameters only"
            )
        if param.kind is param.POSITIONAL_ONLY:
            raise TypeError(
                f"{name}: parameter {param.name!r} is positional-only; tools are called with "
                "keyword arguments"
            )
        annotation = hints.get(param.name, param.annotation)
        if annotation is inspect.Parameter.empty:
            annotation = Any
        annotation, text, described = _split_description(annotation)
        default = param.default
        if isinstance(default, FieldInfo):
            annotation = Annotated[annotation, default]
            described = described or default.description is not None
            always.add(f"p{index}")
            default = inspect.Parameter.empty
        options: dict[str, Any] = {"alias": param.name}
        if not described:
            description = text if text is not None else docs.get(param.name)
            if description is not None:
                options["description"] = description
        if default is not inspect.Parameter.empty:
            options["default"] = default
        fields[f"p{index}"] = (annotation, Field(**options))
        names[f"p{index}"] = param.name
    try:
        model: type[BaseModel] = create_model(
            f"{getattr(fn, '__name__', 'tool')}_arguments",
            __config__=ConfigDict(extra="ignore"),
            **fields,
        )
        raw = model.model_json_schema(schema_generator=_Generator)
    except (PydanticSchemaGenerationError, PydanticUserError) as exc:
        raise TypeError(f"{name}: cannot build an input schema: {exc}") from exc
    return InputSpec(
        schema=_input_root(inline_refs(raw)),
        _model=model,
        _names=names,
        _always=frozenset(always),
        _accepted=frozenset(names.values()),
    )


def _type_hints(fn: Callable[..., Any], name: str, skip: Collection[str]) -> dict[str, Any]:
    """Resolved hints of the parameters, one at a time when resolving all at once fails.

    One at a time, so that a hint nobody can resolve (a local class under
    `from __future__ import annotations`) only matters when the parameter is not hidden.
    """
    target: Any = inspect.unwrap(fn)
    if inspect.isclass(target):
        target = target.__init__
    elif not inspect.isroutine(target):
        target = type(target).__call__
    try:
        return typing.get_type_hints(target, include_extras=True)
    except NameError:
        pass
    except TypeError:
        return {}  # e.g. functools.partial: fall back to the signature's annotations
    globalns = getattr(target, "__globals__", {})
    hints: dict[str, Any] = {}
    for key, value in getattr(target, "__annotations__", {}).items():
        if key in skip or key == "return":
            continue
        holder = _AnnotationHolder({key: value})
        try:
            hints.update(typing.get_type_hints(holder, globalns, include_extras=True))
        except NameError as exc:
            raise TypeError(f"{name}: cannot resolve the type hint of {key!r}: {exc}") from exc
    return hints


class _AnnotationHolder:
    def __init__(self, annotations: dict[str, Any]) -> None:
        self.__annotations__ = annotations


def _split_description(annotation: Any) -> tuple[Any, str | None, bool]:
    """Take a plain-string description out of Annotated[X, "text"].

    Returns the annotation without string metadata, that text, and whether a Field(...) in the
    metadata already carries a description (which then wins).
    """
    if typing.get_origin(annotation) is not Annotated:
        return annotation, None, False
    base, *metadata = typing.get_args(annotation)
    strings = [m for m in metadata if isinstance(m, str)]
    rest = [m for m in metadata if not isinstance(m, str)]
    described = any(isinstance(m, FieldInfo) and m.description is not None for m in rest)
    rebuilt = Annotated.__class_getitem__((base, *rest)) if rest else base
    return rebuilt, strings[0] if strings else None, described


def _input_root(schema: dict[str, Any]) -> dict[str, Any]:
    """Fixed key order and the keys every host expects on an input schema root."""
    root: dict[str, Any] = {"type": "object", "properties": schema.pop("properties", {})}
    schema.pop("type", None)
    if "required" in schema:
        root["required"] = schema.pop("required")
    root["additionalProperties"] = schema.pop("additionalProperties", False)
    defs = schema.pop("$defs", None)
    root.update(schema)
    if defs is not None:
        root["$defs"] = defs
    return root


# --------------------------------------------------------------------------- output


@dataclass(frozen=True)
class OutputSpec:
    """A tool's output schema and a strict check of wire values (JSON-compatible) against it."""

    schema: dict[str, Any]
    _check: Callable[[Any], list[FieldError]] | None = field(
        default=None, repr=False, compare=False
    )
    _check_json: Callable[[bytes], list[FieldError]] | None = field(
        default=None, repr=False, compare=False
    )
    _surely_fits: Callable[[Any], bool] | None = field(default=None, repr=False, compare=False)
    """For schemas that only say "an object" or "an array of objects" (`dict[str, Any]`,
    `list[dict]`): a look at the Python value's types that, when True, proves the encoded value
    matches, so a large result skips re-parsing its JSON. False proves nothing."""

    def check(self, value: Any) -> None:
        """Raise OutputMismatch naming each mismatch; JSON types are strict ("5" is no int)."""
        if self._check is not None:
            errors = self._check(value)
            if errors:
                raise OutputMismatch(errors)

    def check_json(self, data: bytes, value: Any = None) -> None:
        """`check` for a value already encoded, without decoding it again when avoidable.
        `value` is what `data` encodes, when the caller has it."""
        if value is not None and self._surely_fits is not None and self._surely_fits(value):
            return
        if self._check_json is not None:
            errors = self._check_json(data)
            if errors:
                raise OutputMismatch(errors)
        elif self._check is not None:
            self.check(wire_json.loads(data))


_UNSTRUCTURED: tuple[Any, ...] = (
    Any,
    object,
    None,
    type(None),
    str,
    bytes,
    bytearray,
    list,
    dict,
    tuple,
    set,
    frozenset,
)


def output_spec(annotation: Any) -> OutputSpec | None:
    """The output spec of a return annotation, or None when it says nothing about the shape.

    None for: no annotation, Any, object, None, str, bytes, bytearray, paths, and bare
    list/dict/tuple/set/frozenset (`-> list` often means "caption plus image", not data).
    Everything else gets pydantic's serialization-mode schema; a type pydantic cannot describe
    raises TypeError.
    """
    if _is_unstructured(annotation):
        return None
    try:
        adapter: TypeAdapter[Any] = TypeAdapter(annotation)
        raw = adapter.json_schema(mode="serialization", schema_generator=_Generator)
    except (PydanticSchemaGenerationError, PydanticUserError) as exc:
        raise TypeError(
            f"cannot build an output schema for return type {annotation!r}: {exc}"
        ) from exc

    def check_json(data: bytes) -> list[FieldError]:
        try:
            adapter.validate_json(data, strict=True)
        except ValidationError as exc:
            return _field_errors(exc)
        except PydanticSerializationError as exc:  # pragma: no cover - defensive
            return [FieldError("", str(exc))]
        return []

    def check(value: Any) -> list[FieldError]:
        try:  # orjson as the result is written (NaN as null); else exact for wide integers
            data = _json_bytes(value)
        except (TypeError, ValueError) as exc:
            return [FieldError("", f"Value is not JSON-serializable: {exc}")]
        return check_json(data)

    schema = inline_refs(raw)
    return OutputSpec(
        schema=schema,
        _check=check,
        _check_json=check_json,
        _surely_fits=_shape_only_check(schema),
    )


def _shape_only_check(schema: Mapping[str, Any]) -> Callable[[Any], bool] | None:
    """A type check of Python values that settles `schema`, when the schema says nothing more
    than JSON types: `{}`, `{"type": "integer"}`, objects with any keys, arrays (else None).

    Each Python type here encodes to exactly that JSON type (a `dict` to an object, a `list` to
    an array, an `int` to an integer), so where the check says True, pydantic would too; other
    values (tuples, models, NaN) go to pydantic, which names what is wrong.
    """
    if not schema:
        return _anything
    kind = schema.get("type")
    keys = set(schema)
    if keys == {"type"} and kind in _SCALARS:
        return _SCALARS[kind]
    if kind == "object" and keys <= {"type", "additionalProperties"}:
        extra = schema.get("additionalProperties", True)
        if extra is True or extra == {}:
            return lambda value: type(value) is dict
        members = _shape_only_check(extra) if isinstance(extra, dict) else None
        if members is None:
            return None
        return lambda value: type(value) is dict and all(map(members, value.values()))
    if kind == "array" and keys <= {"type", "items"}:
        items = _shape_only_check(schema.get("items", {}))
        if items is None:
            return None
        return lambda value: type(value) is list and all(map(items, value))
    return None


def _anything(value: Any) -> bool:
    return True


_SCALARS: dict[str, Callable[[Any], bool]] = {
    "integer": lambda value: type(value) is int,
    "boolean": lambda value: type(value) is bool,
    "string": lambda value: type(value) is str,
    "number": lambda value: type(value) is int or (type(value) is float and math.isfinite(value)),
}


def _is_unstructured(annotation: Any) -> bool:
    while typing.get_origin(annotation) is Annotated:
        annotation = typing.get_args(annotation)[0]
    if annotation is inspect.Parameter.empty:
        return True
    if any(annotation is plain for plain in _UNSTRUCTURED):
        return True
    origin = typing.get_origin(annotation)
    if origin in (list, dict, tuple, set, frozenset) and not typing.get_args(annotation):
        return True  # typing.List, typing.Dict, ... without parameters
    return (
        isinstance(annotation, type)
        and issubclass(annotation, pathlib.PurePath)
        and not issubclass(annotation, enum.Enum)
    )


def _jsonschema_check(
    schema: dict[str, Any], what: str
) -> Callable[[Any], list[FieldError]] | None:
    """A Draft 2020-12 check of values against `schema`, when `jsonschema` is installed.

    Without it there is no check: pydantic cannot validate arbitrary JSON Schema, and a
    home-made validator would disagree with clients on the corner cases. Raises ValueError when
    `jsonschema` says the schema itself is invalid.
    """
    try:
        import jsonschema  # type: ignore[import-untyped, unused-ignore]
    except ImportError:
        return None
    validator_cls = jsonschema.Draft202012Validator
    try:
        validator_cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise ValueError(f"invalid {what} schema: {exc.message}") from exc
    validator = validator_cls(schema)

    def check(value: Any) -> list[FieldError]:
        return [
            FieldError(".".join(str(p) for p in err.absolute_path), err.message)
            for err in sorted(
                validator.iter_errors(value), key=lambda e: [str(p) for p in e.absolute_path]
            )
        ]

    return check


def schema_output_spec(schema: Mapping[str, Any]) -> OutputSpec:
    """An output spec for a hand-written schema, kept as given apart from inlined refs.

    check() validates with `jsonschema` (the `validation` extra) when it is installed.
    """
    given = copy.deepcopy(dict(schema))
    return OutputSpec(schema=inline_refs(given), _check=_jsonschema_check(given, "output"))


def schema_input_spec(schema: Mapping[str, Any]) -> InputSpec:
    """An input spec for a hand-written schema, sent VERBATIM (the author chose every keyword,
    `$ref`s included); arguments are checked with `jsonschema` when it is installed and passed
    to the function as keyword arguments."""
    given = copy.deepcopy(dict(schema))
    if given.get("type") != "object":
        raise ValueError('an input schema needs "type": "object" at its root')
    return InputSpec(schema=given, _check=_jsonschema_check(given, "input"))
