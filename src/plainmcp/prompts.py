"""Prompts: templates of messages a user picks in the client, built from plain functions.

The function's parameters are the prompt's arguments (`prompt_arguments` says which types a
parameter may have, since every argument is a string on the wire). A `ctx: Context` parameter is
injected, never asked for.

The function returns a string (one user message), a `Message`, a content block (one user message),
a `{"role": ..., "content": ...}` dict, a list of any of these, or a `PromptResult`. Failures are
JSON-RPC errors (prompts/get is not a tool call): raise `PromptError` for a message meant for the
client; anything else is logged and answered as an internal error.
"""

from __future__ import annotations

import dataclasses
import inspect
import logging
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypedDict, Unpack

from plainmcp.context import ClientCapabilityError
from plainmcp.docstrings import parse_docstring
from plainmcp.errors import Failures, ResourceError
from plainmcp.invoke import Around, FunctionSpec, context_in, function_spec, invoke
from plainmcp.model.answers import Message, PromptResult, messages_of
from plainmcp.model.blocks import Icon
from plainmcp.registry import Announce, Registry
from plainmcp.scopes import scope_set
from plainmcp.tools import check_name, unknown_settings
from plainmcp.wire.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, RpcError

if TYPE_CHECKING:
    from plainmcp.completion import Completer
    from plainmcp.prompt_arguments import PromptArgument

# prompt_arguments and completion load with the first prompt: most servers have none, and
# every import is start-up time (tests/test_startup.py).


def __getattr__(name: str) -> Any:
    if name == "PromptArgument":
        from plainmcp.prompt_arguments import PromptArgument

        return PromptArgument
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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


class PromptFailures(Failures):
    """A prompt fails with a JSON-RPC error; a PromptError or ResourceError keeps its code and
    message."""

    noun = "prompt"
    refusals = (PromptError, ResourceError, ClientCapabilityError)

    def refused(self, name: str, exc: Exception) -> Exception:
        if isinstance(exc, PromptError | ResourceError):
            return RpcError(exc.code, exc.message)
        return super().refused(name, exc)


FAILURES = PromptFailures()


@dataclass(frozen=True, slots=True, eq=False)
class Prompt:
    """A registered prompt. `fn` stays the user's ordinary callable."""

    name: str
    title: str | None
    description: str | None
    arguments: tuple[PromptArgument, ...]
    icons: tuple[Icon, ...] | None
    meta: Mapping[str, Any] | None
    spec: FunctionSpec
    """How it is called: the function, its Context parameters and the argument validator."""
    completers: Mapping[str, Completer] = field(default_factory=dict)
    """Explicit completers by argument name (automatic ones come from the annotations)."""
    scopes: frozenset[str] = frozenset()
    """OAuth scopes a caller's token must hold (plainmcp.scopes); empty: none."""

    @property
    def fn(self) -> Callable[..., Any]:
        return self.spec.fn

    @property
    def context_params(self) -> tuple[str, ...]:
        """Parameters the server fills with the request's Context."""
        return self.spec.context_params


# --- building a prompt -------------------------------------------------------------------------


class PromptSettings(TypedDict, total=False):
    """What `@app.prompt(...)` takes besides the function (the one list of its settings)."""

    name: str | None
    title: str | None
    description: str | None
    icons: Sequence[Icon] | None
    meta: Mapping[str, Any] | None
    complete: Mapping[str, Completer] | None
    """Argument name -> completer (Literal and Enum parameters complete on their own)."""
    scopes: Iterable[str] | None
    """OAuth scopes a caller's token must hold."""


def make_prompt(fn: Callable[..., Any], **settings: Unpack[PromptSettings]) -> Prompt:
    """Build a Prompt from a function; raises at registration for anything that cannot work."""
    unknown_settings(settings, PromptSettings, "make_prompt")
    if not callable(fn):
        raise TypeError(f"a prompt must be callable, not {type(fn).__name__}")
    name = settings.get("name")
    description = settings.get("description")
    icons, meta = settings.get("icons"), settings.get("meta")
    try:
        name = check_name(name if name is not None else getattr(fn, "__name__", ""))
    except ValueError as exc:
        raise ValueError(str(exc).replace("tool name", "prompt name")) from None
    spec = function_spec(fn, name, FAILURES)
    doc = parse_docstring(inspect.getdoc(fn))
    from plainmcp.prompt_arguments import read_arguments

    arguments, validate = read_arguments(spec, doc.params)
    known = {a.name for a in arguments}
    completers = dict(settings.get("complete") or {})
    for arg, completer in completers.items():
        if arg not in known:
            raise ValueError(f"prompt {name!r}: complete= names {arg!r}, which is no argument")
        if not callable(completer):
            raise TypeError(f"prompt {name!r}: the completer for {arg!r} is not callable")
    return Prompt(
        name=name,
        title=settings.get("title"),
        description=description if description is not None else (doc.description or None),
        arguments=arguments,
        icons=tuple(icons) if icons else None,
        meta=dict(meta) if meta else None,
        spec=dataclasses.replace(spec, validate=validate),
        completers=completers,
        scopes=scope_set(settings.get("scopes"), f"prompt {name!r}"),
    )


# --- the return value --------------------------------------------------------------------------


def to_result(value: Any, prompt: Prompt) -> PromptResult:
    """A prompt function's return value as a PromptResult (raises TypeError if it is none)."""
    if isinstance(value, PromptResult):
        if value.description is None and prompt.description is not None:
            return PromptResult(value.messages, prompt.description, value.meta)
        return value
    return PromptResult(messages_of(value), prompt.description)


# --- the registry ------------------------------------------------------------------------------


class Prompts:
    """The prompts a server offers, in registration order (that is the `prompts/list` order)."""

    def __init__(
        self, on_change: Callable[[], None] | None = None, *, announce: Announce | None = None
    ) -> None:
        self._prompts: Registry[Prompt] = Registry(
            "prompts", duplicate="a prompt named {key!r} is already registered", announce=announce
        )
        self.on_change = on_change
        """Called after every add/remove (before the change is announced)."""
        self._prompts.watch(self._changed)

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    def add(self, fn: Callable[..., Any], **settings: Unpack[PromptSettings]) -> Prompt:
        """Register `fn` as a prompt; `complete` maps argument names to completers, `scopes`
        names the OAuth scopes a caller must hold."""
        prompt = make_prompt(fn, **settings)
        return self._prompts.add(prompt.name, prompt)

    def add_made(self, prompt: Prompt) -> Prompt:
        """Register a prompt another registry built (a mounted server's, under its namespaced
        name: mount.py); ValueError if the name is taken."""
        return self._prompts.add(prompt.name, prompt)

    def watch(self, changed: Callable[[], None]) -> None:
        """Call `changed` after every add and remove."""
        self._prompts.watch(changed)

    def remove(self, name: str) -> None:
        """Unregister a prompt; KeyError if there is none by that name."""
        self._prompts.remove(name)

    def __len__(self) -> int:
        return len(self._prompts)

    def __iter__(self) -> Iterator[Prompt]:
        return iter(self._prompts)

    def __contains__(self, name: object) -> bool:
        return name in self._prompts

    def __getitem__(self, name: str) -> Prompt:
        return self._prompts[name]

    def page(
        self, cursor: object, size: int, keep: Callable[[Prompt], bool] | None = None
    ) -> tuple[list[Prompt], str | None]:
        """One page of prompts (those `keep` keeps) and the next page's cursor (None on the
        last page).

        An invalid cursor raises RpcError(INVALID_PARAMS).
        """
        return self._prompts.page(cursor, size, keep)

    def _find(self, name: object) -> Prompt:
        if not isinstance(name, str):
            raise RpcError(INVALID_PARAMS, "Invalid params: name must be a string")
        prompt = self._prompts.by_key.get(name)
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
        from plainmcp.completion import completer_for

        return completer_for(prompt.fn, argument, prompt.completers.get(argument))

    async def get(
        self,
        name: str,
        arguments: Mapping[str, Any] | None,
        *,
        inject: Mapping[str, Any] | None = None,
        mask_errors: bool = False,
        around: Around | None = None,
    ) -> PromptResult:
        """Validate the arguments, run the prompt, and shape its messages.

        Every failure is an RpcError: unknown prompt and bad arguments (each one named) are
        INVALID_PARAMS; a PromptError or ResourceError (safe_join's) carries its own code and
        message and is logged as a refusal, in one line; a missing client capability is named
        (INTERNAL_ERROR); anything else is logged with its traceback and answered
        INTERNAL_ERROR.
        """
        prompt = self._find(name)
        spec = prompt.spec
        given = arguments if arguments is not None else {}
        context = context_in(spec, inject)
        value = await invoke(spec, given, context, mask_errors, around=around)
        try:
            return to_result(value, prompt)
        except (TypeError, ValueError) as exc:
            log.error("prompt %r returned a value that cannot be sent: %s", prompt.name, exc)
            raise RpcError(
                INTERNAL_ERROR, f"Prompt '{prompt.name}' returned a value that cannot be sent"
            ) from None
