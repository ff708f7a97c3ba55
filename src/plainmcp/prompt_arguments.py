"""Prompt arguments: from a function's parameters to the listed arguments, and from the wire's
strings back to Python values.

On the wire every prompt argument is a string, so a parameter may be annotated `str` (or
nothing), a `Literal` / `Enum` of strings (the value must be one of them), or `int` / `float` /
`bool` (converted from the string: "42", "-1.5e3", and true/false, yes/no, on/off, 1/0, any case).
Anything else is refused at registration, because no client could send it.
"""

from __future__ import annotations

import enum
import inspect
import math
import re
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from plainmcp.invoke import FunctionSpec, Validator
from plainmcp.model.pydantic_check import is_field_info
from plainmcp.schema import ArgumentError, FieldError
from plainmcp.wire.jsonrpc import INVALID_PARAMS, RpcError

__all__ = ["PromptArgument", "read_arguments"]


@dataclass(frozen=True, slots=True)
class PromptArgument:
    name: str
    description: str | None = None
    required: bool = False
    title: str | None = None


@dataclass(frozen=True, slots=True)
class _Param:
    """How one wire argument becomes a Python keyword argument."""

    name: str
    convert: Callable[[str], Any]
    required: bool
    default: Any = None
    """Passed when the argument is absent and the signature's default is a pydantic Field."""
    explicit_default: bool = False


def read_arguments(
    spec: FunctionSpec, param_docs: Mapping[str, str]
) -> tuple[tuple[PromptArgument, ...], Validator]:
    """The arguments a prompt lists, and the validator of the ones a client sends; TypeError
    for a parameter no client could fill."""
    name = spec.name
    hints = _hints(spec.fn, name)
    arguments: list[PromptArgument] = []
    params: list[_Param] = []
    for param in spec.parameters.values():
        if param.name in spec.context_params:
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD, param.POSITIONAL_ONLY):
            raise TypeError(
                f"prompt {name!r}: parameter {param.name!r} must be an ordinary named parameter"
                " (prompts are called with keyword arguments)"
            )
        annotation = hints.get(param.name, param.annotation)
        convert = _converter(annotation)
        if convert is None:
            raise TypeError(
                f"prompt {name!r}: parameter {param.name!r} is annotated {annotation!r}, but"
                " prompt arguments are strings on the wire; use str, a Literal or Enum of"
                " strings, int, float or bool"
            )
        arg_description, arg_title = _described(annotation)
        default = param.default
        required = default is inspect.Parameter.empty
        explicit = False
        if is_field_info(default):
            arg_description = default.description or arg_description
            arg_title = default.title or arg_title
            required = default.is_required()
            explicit = not required
            default = None if required else default.get_default(call_default_factory=True)
        if arg_description is None:
            arg_description = param_docs.get(param.name) or None
        arguments.append(PromptArgument(param.name, arg_description, required, arg_title))
        params.append(_Param(param.name, convert, required, default, explicit))
    return tuple(arguments), _validator(tuple(params))


def _validator(params: tuple[_Param, ...]) -> Validator:
    known = frozenset(p.name for p in params)

    def validate(arguments: Any) -> dict[str, Any]:
        """Wire arguments to keyword arguments; ArgumentError naming every bad one."""
        if not isinstance(arguments, Mapping):
            raise RpcError(INVALID_PARAMS, "Invalid params: arguments must be an object")
        problems: list[FieldError] = []
        kwargs: dict[str, Any] = {}
        for param in params:
            if param.name not in arguments:
                if param.required:
                    problems.append(FieldError(param.name, "required argument missing"))
                elif param.explicit_default:
                    kwargs[param.name] = param.default
                continue
            raw = arguments[param.name]
            if not isinstance(raw, str):
                problems.append(FieldError(param.name, f"expected a string, got {_json_type(raw)}"))
                continue
            try:
                kwargs[param.name] = param.convert(raw)
            except _BadValue as exc:
                problems.append(FieldError(param.name, str(exc)))
        problems += [
            FieldError(key, "unexpected argument") for key in arguments if key not in known
        ]
        if problems:
            raise ArgumentError(problems)
        return kwargs

    return validate


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list | tuple):
        return "an array"
    return type(value).__name__


# --- conversion from strings -----------------------------------------------------------------

_INT = re.compile(r"[+-]?\d+")
_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})


class _BadValue(ValueError):
    pass


def _to_int(text: str) -> int:
    if not _INT.fullmatch(text.strip()):
        raise _BadValue(f"expected an integer, got {text!r}")
    return int(text)


def _to_float(text: str) -> float:
    try:
        number = float(text)
    except ValueError:
        raise _BadValue(f"expected a number, got {text!r}") from None
    if not math.isfinite(number):
        raise _BadValue(f"expected a finite number, got {text!r}")
    return number


def _to_bool(text: str) -> bool:
    word = text.strip().lower()
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    raise _BadValue(f"expected true or false, got {text!r}")


def _one_of(choices: Mapping[str, Any]) -> Callable[[str], Any]:
    def convert(text: str) -> Any:
        if text in choices:
            return choices[text]
        listed = ", ".join(repr(c) for c in choices)
        raise _BadValue(f"expected one of {listed}, got {text!r}")

    return convert


def _identity(text: str) -> str:
    return text


def _converter(annotation: Any) -> Callable[[str], Any] | None:
    """How a wire string becomes a value of `annotation`; None when it cannot."""
    if typing.get_origin(annotation) is Annotated:
        return _converter(typing.get_args(annotation)[0])
    if annotation in (str, Any, inspect.Parameter.empty):
        return _identity
    if annotation is bool:
        return _to_bool
    if annotation is int:
        return _to_int
    if annotation is float:
        return _to_float
    choices = _choices(annotation)
    if choices is not None:
        return _one_of(choices)
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        # Optional[X]: None is only ever the default (a client cannot send null).
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return _converter(args[0])
    return None


def _choices(annotation: Any) -> dict[str, Any] | None:
    """Literal / str-Enum (or a union of them) as {wire value: Python value}."""
    if typing.get_origin(annotation) is Literal:
        values = typing.get_args(annotation)
        return {v: v for v in values} if all(isinstance(v, str) for v in values) else None
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        members = list(annotation)
        if members and all(isinstance(m.value, str) for m in members):
            return {m.value: m for m in members}
        return None
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        found: dict[str, Any] = {}
        for arg in typing.get_args(annotation):
            if arg is type(None):
                continue
            part = _choices(arg)
            if part is None:
                return None
            found.update(part)
        return found or None
    return None


def _hints(fn: Callable[..., Any], name: str) -> dict[str, Any]:
    target: Any = inspect.unwrap(fn)
    if not inspect.isroutine(target) and not inspect.isclass(target):
        target = type(target).__call__
    try:
        return typing.get_type_hints(target, include_extras=True)
    except TypeError:
        return {}  # functools.partial and friends: the signature's annotations are used
    except Exception as exc:
        raise TypeError(f"prompt {name!r}: cannot read type hints: {exc}") from exc


def _described(annotation: Any) -> tuple[str | None, str | None]:
    """(description, title) given in Annotated[X, "text"] or Annotated[X, Field(...)]."""
    if typing.get_origin(annotation) is not Annotated:
        return None, None
    description = title = None
    for item in typing.get_args(annotation)[1:]:
        if isinstance(item, str) and description is None:
            description = item
        elif is_field_info(item):
            description = item.description or description
            title = item.title or title
    return description, title
