"""Prompts: templates of messages a user picks in the client, built from plain functions.

The function's parameters are the prompt's arguments. On the wire every argument is a string, so
a parameter may be annotated `str` (or nothing), a `Literal` / `Enum` of strings (the value must be
one of them), or `int` / `float` / `bool` (converted from the string: "42", "-1.5e3", and
true/false, yes/no, on/off, 1/0, any case). Anything else is refused at registration, because no
client could send it. A `ctx: Context` parameter is injected, never asked for.

The function returns a string (one user message), a `Message`, a content block (one user message),
a `{"role": ..., "content": ...}` dict, a list of any of these, or a `PromptResult`. Failures are
JSON-RPC errors (prompts/get is not a tool call): raise `PromptError` for a message meant for the
client; anything else is logged and answered as an internal error.
"""

from __future__ import annotations

import enum
import functools
import inspect
import logging
import math
import re
import secrets
import types
import typing
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic.fields import FieldInfo

from plainmcp.completion import Completer, completer_for
from plainmcp.content import ContentBlock, Icon, Role, Text
from plainmcp.context import ClientCapabilityError, context_params
from plainmcp.docstrings import parse_docstring
from plainmcp.refusals import log_refusal
from plainmcp.resources import ResourceError
from plainmcp.tools import check_name
from plainmcp.wire import cursor as cursors
from plainmcp.wire.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, RpcError
from plainmcp.workers import run_in_worker

__all__ = [
    "Message",
    "Prompt",
    "PromptArgument",
    "PromptError",
    "PromptResult",
    "Prompts",
]

log = logging.getLogger("plainmcp")


class PromptError(Exception):
    """Raise it in a prompt function to answer prompts/get with this message (a JSON-RPC error).

    The code defaults to -32602 (invalid params): a prompt usually fails because of what it was
    asked for ("no ticket 123").
    """

    def __init__(self, message: str, *, code: int = INVALID_PARAMS) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


@dataclass(frozen=True, slots=True, init=False)
class Message:
    """One prompt message: who says it, and one content block (a str becomes a Text block)."""

    role: Role
    content: ContentBlock

    def __init__(self, role: Role, content: str | ContentBlock) -> None:
        if role not in ("user", "assistant"):
            raise ValueError(f"a message role is 'user' or 'assistant', not {role!r}")
        if isinstance(content, str):
            content = Text(content)
        elif not isinstance(content, ContentBlock):
            raise TypeError(
                f"message content is a str or one content block, not {type(content).__name__}"
            )
        object.__setattr__(self, "role", role)
        object.__setattr__(self, "content", content)


@dataclass(frozen=True, slots=True)
class PromptResult:
    """What prompts/get answers; a prompt function may also return one to set `meta`."""

    messages: tuple[Message, ...]
    description: str | None = None
    meta: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "messages", _messages(self.messages))


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


@dataclass(frozen=True, slots=True, eq=False)
class Prompt:
    """A registered prompt. `fn` stays the user's ordinary callable."""

    name: str
    fn: Callable[..., Any]
    title: str | None
    description: str | None
    arguments: tuple[PromptArgument, ...]
    icons: tuple[Icon, ...] | None
    meta: Mapping[str, Any] | None
    completers: Mapping[str, Completer] = field(default_factory=dict)
    """Explicit completers by argument name (automatic ones come from the annotations)."""
    context_params: tuple[str, ...] = ()
    """Parameters the server fills with the request's Context."""
    _params: tuple[_Param, ...] = ()
    _is_async: bool = False


# --- building a prompt -------------------------------------------------------------------------

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
        elif isinstance(item, FieldInfo):
            description = item.description or description
            title = item.title or title
    return description, title


def make_prompt(
    fn: Callable[..., Any],
    *,
    name: str | None = None,
    title: str | None = None,
    description: str | None = None,
    icons: Sequence[Icon] | None = None,
    meta: Mapping[str, Any] | None = None,
    complete: Mapping[str, Completer] | None = None,
) -> Prompt:
    """Build a Prompt from a function; raises at registration for anything that cannot work."""
    if not callable(fn):
        raise TypeError(f"a prompt must be callable, not {type(fn).__name__}")
    try:
        name = check_name(name if name is not None else getattr(fn, "__name__", ""))
    except ValueError as exc:
        raise ValueError(str(exc).replace("tool name", "prompt name")) from None
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"prompt {name!r}: cannot read the signature: {exc}") from exc
    hidden = context_params(fn)
    hints = _hints(fn, name)
    doc = parse_docstring(inspect.getdoc(fn))
    arguments: list[PromptArgument] = []
    params: list[_Param] = []
    for param in signature.parameters.values():
        if param.name in hidden:
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
        if isinstance(default, FieldInfo):
            arg_description = default.description or arg_description
            arg_title = default.title or arg_title
            required = default.is_required()
            explicit = not required
            default = None if required else default.get_default(call_default_factory=True)
        if arg_description is None:
            arg_description = doc.params.get(param.name) or None
        arguments.append(PromptArgument(param.name, arg_description, required, arg_title))
        params.append(_Param(param.name, convert, required, default, explicit))
    known = {p.name for p in params}
    completers = dict(complete or {})
    for arg, completer in completers.items():
        if arg not in known:
            raise ValueError(f"prompt {name!r}: complete= names {arg!r}, which is no argument")
        if not callable(completer):
            raise TypeError(f"prompt {name!r}: the completer for {arg!r} is not callable")
    target = inspect.unwrap(fn)
    return Prompt(
        name=name,
        fn=fn,
        title=title,
        description=description if description is not None else (doc.description or None),
        arguments=tuple(arguments),
        icons=tuple(icons) if icons else None,
        meta=dict(meta) if meta else None,
        completers=completers,
        context_params=hidden,
        _params=tuple(params),
        _is_async=inspect.iscoroutinefunction(target) or inspect.iscoroutinefunction(fn),
    )


# --- the return value --------------------------------------------------------------------------


def _message(item: Any) -> Message:
    if isinstance(item, Message):
        return item
    if isinstance(item, str | ContentBlock):
        return Message("user", item)
    if isinstance(item, Mapping) and set(item) == {"role", "content"}:
        content = item["content"]
        if (
            isinstance(content, Mapping)
            and content.get("type") == "text"
            and isinstance(content.get("text"), str)
        ):
            content = content["text"]
        return Message(item["role"], content)
    raise TypeError(
        "a prompt returns a str, a Message, a content block, a {'role', 'content'} dict, a list"
        f" of these, or a PromptResult; got {type(item).__name__}"
    )


def _messages(value: Any) -> tuple[Message, ...]:
    if isinstance(value, list | tuple):
        return tuple(_message(item) for item in value)
    return (_message(value),)


def to_result(value: Any, prompt: Prompt) -> PromptResult:
    """A prompt function's return value as a PromptResult (raises TypeError if it is none)."""
    if isinstance(value, PromptResult):
        if value.description is None and prompt.description is not None:
            return PromptResult(value.messages, prompt.description, value.meta)
        return value
    return PromptResult(_messages(value), prompt.description)


# --- the registry ------------------------------------------------------------------------------


class Prompts:
    """The prompts a server offers, in registration order (that is the `prompts/list` order)."""

    def __init__(self, on_change: Callable[[], None] | None = None) -> None:
        self._prompts: dict[str, Prompt] = {}
        self.on_change = on_change
        """Called after every add/remove (the server sends notifications/prompts/list_changed)."""

    def add(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        icons: Sequence[Icon] | None = None,
        meta: Mapping[str, Any] | None = None,
        complete: Mapping[str, Completer] | None = None,
    ) -> Prompt:
        """Register `fn` as a prompt; `complete` maps argument names to completers."""
        prompt = make_prompt(
            fn,
            name=name,
            title=title,
            description=description,
            icons=icons,
            meta=meta,
            complete=complete,
        )
        if prompt.name in self._prompts:
            raise ValueError(f"a prompt named {prompt.name!r} is already registered")
        self._prompts[prompt.name] = prompt
        self._changed()
        return prompt

    def remove(self, name: str) -> None:
        """Unregister a prompt; KeyError if there is none by that name."""
        del self._prompts[name]
        self._changed()

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    def __len__(self) -> int:
        return len(self._prompts)

    def __iter__(self) -> Iterator[Prompt]:
        return iter(list(self._prompts.values()))

    def __contains__(self, name: object) -> bool:
        return name in self._prompts

    def __getitem__(self, name: str) -> Prompt:
        return self._prompts[name]

    def page(self, cursor: object, size: int) -> tuple[list[Prompt], str | None]:
        """One page of prompts and the next page's cursor (None on the last page).

        An invalid cursor raises RpcError(INVALID_PARAMS).
        """
        items, next_cursor = cursors.page(list(self._prompts.values()), cursor, size)
        return list(items), next_cursor

    def _find(self, name: object) -> Prompt:
        if not isinstance(name, str):
            raise RpcError(INVALID_PARAMS, "Invalid params: name must be a string")
        prompt = self._prompts.get(name)
        if prompt is None:
            raise RpcError(INVALID_PARAMS, f"Unknown prompt: {name}")
        return prompt

    def completer(self, name: str, argument: str) -> Completer | None:
        """The completer of one argument (explicit, else from its annotation), or None.

        An unknown prompt or argument raises RpcError(INVALID_PARAMS).
        """
        prompt = self._find(name)
        if argument not in {a.name for a in prompt.arguments}:
            raise RpcError(INVALID_PARAMS, f"Prompt '{name}' has no argument '{argument}'")
        return completer_for(prompt.fn, argument, prompt.completers.get(argument))

    async def get(
        self,
        name: str,
        arguments: Mapping[str, Any] | None,
        *,
        inject: Mapping[str, Any] | None = None,
        mask_errors: bool = False,
    ) -> PromptResult:
        """Validate the arguments, run the prompt, and shape its messages.

        Every failure is an RpcError: unknown prompt and bad arguments (each one named) are
        INVALID_PARAMS; a PromptError or ResourceError (safe_join's) carries its own code and
        message and is logged as a refusal, in one line; a missing client capability is named
        (INTERNAL_ERROR); anything else is logged with its traceback and answered
        INTERNAL_ERROR.
        """
        prompt = self._find(name)
        kwargs = _arguments(prompt, arguments)
        if inject:
            kwargs.update(inject)
        try:
            if prompt._is_async:
                value = await prompt.fn(**kwargs)
            else:
                value = await run_in_worker(functools.partial(prompt.fn, **kwargs))
                if inspect.isawaitable(value):
                    value = await value
        except (PromptError, ResourceError) as exc:  # refusals, a safe_join one among them
            log_refusal(f"prompt {prompt.name!r}", exc)
            raise RpcError(exc.code, exc.message) from None
        except ClientCapabilityError as exc:
            log_refusal(f"prompt {prompt.name!r}", exc)
            if exc.required is not None:
                raise  # stateless: the server answers -32021
            raise RpcError(
                INTERNAL_ERROR, f"Prompt '{prompt.name}' failed: ClientCapabilityError: {exc}"
            ) from None
        except Exception as exc:
            raise _unexpected(prompt.name, exc, mask_errors) from None
        try:
            return to_result(value, prompt)
        except (TypeError, ValueError) as exc:
            log.error("prompt %r returned a value that cannot be sent: %s", prompt.name, exc)
            raise RpcError(
                INTERNAL_ERROR, f"Prompt '{prompt.name}' returned a value that cannot be sent"
            ) from None


def _arguments(prompt: Prompt, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, Mapping):
        raise RpcError(INVALID_PARAMS, "Invalid params: arguments must be an object")
    problems: list[str] = []
    kwargs: dict[str, Any] = {}
    for param in prompt._params:
        if param.name not in arguments:
            if param.required:
                problems.append(f"- {param.name}: required argument missing")
            elif param.explicit_default:
                kwargs[param.name] = param.default
            continue
        raw = arguments[param.name]
        if not isinstance(raw, str):
            problems.append(f"- {param.name}: expected a string, got {_json_type(raw)}")
            continue
        try:
            kwargs[param.name] = param.convert(raw)
        except _BadValue as exc:
            problems.append(f"- {param.name}: {exc}")
    known = {p.name for p in prompt._params}
    problems += [f"- {key}: unexpected argument" for key in arguments if key not in known]
    if problems:
        raise RpcError(
            INVALID_PARAMS,
            f"Invalid arguments for prompt '{prompt.name}':\n" + "\n".join(problems),
        )
    return kwargs


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


def _unexpected(name: str, exc: BaseException, mask: bool) -> RpcError:
    """The client reads the message; the traceback goes only to the log (stderr)."""
    if mask:
        error_id = secrets.token_hex(6)
        log.error("prompt %r failed (error id %s)", name, error_id, exc_info=exc)
        return RpcError(
            INTERNAL_ERROR,
            f"Prompt '{name}' failed unexpectedly (error id {error_id}); the details are in the"
            " server log.",
        )
    log.error("prompt %r failed", name, exc_info=exc)
    return RpcError(INTERNAL_ERROR, f"Prompt '{name}' failed: {type(exc).__name__}: {exc}")
