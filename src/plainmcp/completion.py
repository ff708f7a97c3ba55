"""Argument completion (`completion/complete`), independent of where the argument lives.

A prompt argument and a resource-template variable complete the same way: an explicit completer
function if one was given, else the choices of a `Literal[...]` or string `Enum` annotation on the
function parameter behind it (`bool` offers "true"/"false"). Sans-I/O apart from running the
completer; `render.completion_result` writes the wire form.
"""

from __future__ import annotations

import enum
import inspect
import types
import typing
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from plainmcp.errors import Failures
from plainmcp.invoke import Around, FunctionSpec, function_spec, invoke, is_async
from plainmcp.model.answers import CompletionResult
from plainmcp.wire.jsonrpc import INVALID_PARAMS, RpcError

__all__ = [
    "MAX_VALUES",
    "ChoiceCompleter",
    "CompleteRequest",
    "Completer",
    "CompletionResult",
    "choices",
    "choices_of",
    "complete",
    "completer_for",
    "read_request",
]

MAX_VALUES = 100
"""The spec's limit on `completion.values`."""

Completer = Callable[[str, Mapping[str, str]], Iterable[str] | Awaitable[Iterable[str]]]
"""`completer(value_typed_so_far, other_arguments)` -> candidate values, best first.

`other_arguments` are the arguments the client has already filled in (`context.arguments`), so a
completer can narrow its answer (e.g. the cities of the country already chosen). Sync completers
run in a worker thread (they may query a database or the file system); async ones on the loop.
"""


class ChoiceCompleter:
    """Completes from a fixed list of choices: case-insensitive prefix, in declaration order.

    Cheap by construction, so `complete` runs it inline rather than in a thread.
    """

    __slots__ = ("choices",)

    def __init__(self, choices: Iterable[str]) -> None:
        self.choices = tuple(dict.fromkeys(choices))

    def __call__(self, value: str, arguments: Mapping[str, str]) -> list[str]:
        prefix = value.casefold()
        return [c for c in self.choices if c.casefold().startswith(prefix)]

    def __repr__(self) -> str:
        return f"ChoiceCompleter({list(self.choices)!r})"


def choices_of(annotation: Any) -> tuple[str, ...] | None:
    """The string choices a Literal / str-valued Enum (or a union of them, or Optional) allows.

    `bool` gives ("true", "false"). None when the annotation is anything else.
    """
    if typing.get_origin(annotation) is Annotated:
        return choices_of(typing.get_args(annotation)[0])
    if annotation is bool:
        return ("true", "false")
    if typing.get_origin(annotation) is Literal:
        values = typing.get_args(annotation)
        if values and all(isinstance(v, str) for v in values):
            return tuple(dict.fromkeys(values))
        return None
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        members = list(annotation)
        if members and all(isinstance(m.value, str) for m in members):
            return tuple(dict.fromkeys(m.value for m in members))
        return None
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        found: list[str] = []
        for arg in typing.get_args(annotation):
            if arg is type(None):
                continue
            part = choices_of(arg)
            if part is None:
                return None
            found.extend(part)
        return tuple(dict.fromkeys(found)) or None
    return None


def completer_for(
    fn: Callable[..., Any], param: str, explicit: Completer | None = None
) -> Completer | None:
    """The completer of one parameter: `explicit`, else its Literal/Enum choices, else None."""
    if explicit is not None:
        return explicit
    annotation = _annotation(fn, param)
    choices = choices_of(annotation) if annotation is not None else None
    return ChoiceCompleter(choices) if choices else None


def _annotation(fn: Callable[..., Any], param: str) -> Any:
    target: Any = inspect.unwrap(fn)
    try:
        hints = typing.get_type_hints(target, include_extras=True)
    except Exception:  # unresolvable forward references: fall back to the raw annotation
        hints = {}
    if param in hints:
        return hints[param]
    try:
        parameter = inspect.signature(fn).parameters.get(param)
    except (TypeError, ValueError):
        return None
    if parameter is None or parameter.annotation is inspect.Parameter.empty:
        return None
    return parameter.annotation


class CompletionFailures(Failures):
    """`completion/complete` is a request, so its failures are JSON-RPC errors; nothing a
    completer raises is a refusal, and none shows its details."""

    refusals = ()

    def label(self, name: str) -> str:
        return name  # the caller's label names the argument

    def failed(self, name: str, exc: Exception, error_id: str | None) -> Exception:
        return self.error(f"Internal error: {name} failed")


FAILURES = CompletionFailures()


def completer_spec(completer: Completer, label: str = "completion") -> FunctionSpec:
    """A completer as a function `invoke` runs: called with (value, arguments), its iterable
    consumed where it runs (a sync generator does its work lazily, in the thread)."""
    if is_async(completer):

        async def run_async(value: str, arguments: Mapping[str, str]) -> list[str]:
            return _collect(await completer(value, arguments))  # type: ignore[misc]

        return function_spec(run_async, label, FAILURES, signature=False)

    def run_sync(value: str, arguments: Mapping[str, str]) -> list[str]:
        result = completer(value, arguments)
        if inspect.isawaitable(result):
            raise TypeError("a completer returned an awaitable from a sync call; declare it async")
        return _collect(result)

    return function_spec(run_sync, label, FAILURES, signature=False)


async def complete(
    completer: Completer | None,
    value: str,
    context_args: Mapping[str, str] | None = None,
    *,
    label: str = "completion",
    around: Around | None = None,
) -> CompletionResult:
    """Run a completer and cap its answer at MAX_VALUES (None completes to nothing).

    A completer that raises, or yields something other than strings, is logged (with
    `label` naming the argument) and answered with RpcError(INTERNAL_ERROR): `completion/complete`
    is a request, so its failures are JSON-RPC errors.
    """
    if completer is None:
        return CompletionResult(values=[], total=0, has_more=False)
    args = dict(context_args or {})
    if isinstance(completer, ChoiceCompleter):
        found = completer(value, args)  # ours, and cheap: inline, not in a thread
    else:
        spec = completer_spec(completer, label)
        found = await invoke(spec, {"value": value, "arguments": args}, around=around)
    return CompletionResult(
        values=found[:MAX_VALUES], total=len(found), has_more=len(found) > MAX_VALUES
    )


def _collect(found: Iterable[str]) -> list[str]:
    if isinstance(found, str | bytes) or not isinstance(found, Iterable):
        raise TypeError(f"a completer must return an iterable of str, not {type(found).__name__}")
    values = list(dict.fromkeys(found))
    for item in values:
        if not isinstance(item, str):
            raise TypeError(f"a completer must return str values, not {type(item).__name__}")
    return values


# --- the request -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CompleteRequest:
    """The parts of `completion/complete` params a server routes on."""

    ref_type: Literal["ref/prompt", "ref/resource"]
    ref: str
    """The prompt name, or the resource template's URI template."""
    argument: str
    value: str
    context: Mapping[str, str]
    """`context.arguments`: the other arguments already given (2025-06-18+; empty before)."""


def read_request(params: Mapping[str, Any]) -> CompleteRequest:
    """Check `completion/complete` params; anything malformed is RpcError(INVALID_PARAMS)."""
    ref = params.get("ref")
    argument = params.get("argument")
    if not isinstance(ref, Mapping) or not isinstance(argument, Mapping):
        raise RpcError(INVALID_PARAMS, "Invalid params: ref and argument must be objects")
    ref_type = ref.get("type")
    key = "name" if ref_type == "ref/prompt" else "uri" if ref_type == "ref/resource" else None
    if key is None:
        raise RpcError(
            INVALID_PARAMS, 'Invalid params: ref.type must be "ref/prompt" or "ref/resource"'
        )
    target = ref.get(key)
    if not isinstance(target, str):
        raise RpcError(INVALID_PARAMS, f"Invalid params: ref.{key} must be a string")
    name, value = argument.get("name"), argument.get("value")
    if not isinstance(name, str) or not isinstance(value, str):
        raise RpcError(
            INVALID_PARAMS, "Invalid params: argument.name and argument.value must be strings"
        )
    context = params.get("context")
    given = context.get("arguments") if isinstance(context, Mapping) else context
    if given is None:
        given = {}
    if not isinstance(given, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in given.items()
    ):
        raise RpcError(
            INVALID_PARAMS, "Invalid params: context.arguments must map names to strings"
        )
    return CompleteRequest(
        ref_type=typing.cast(Literal["ref/prompt", "ref/resource"], ref_type),
        ref=target,
        argument=name,
        value=value,
        context=dict(given),
    )


def choices(values: Sequence[str]) -> ChoiceCompleter:
    """A completer over fixed `values` (prefix, case-insensitive), for `complete={...}`."""
    return ChoiceCompleter(values)
