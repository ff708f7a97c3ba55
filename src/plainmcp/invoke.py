"""Calling a user function: one pipeline for tools, resource functions, prompts and completers.

What a call needs to know about its function is read once, at registration, into a
`FunctionSpec`; `invoke` then runs it and applies the error policy of `plainmcp.errors`. The
kind's own steps stay with the kind: a tool's result mapping, a resource's contents, a prompt's
messages.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio

from plainmcp.context import ClientCapabilityError, context_params
from plainmcp.errors import Failures, log_refusal, log_timeout
from plainmcp.schema import ArgumentError
from plainmcp.workers import run_in_worker

__all__ = [
    "FunctionSpec",
    "Validator",
    "context_in",
    "function_spec",
    "invoke",
    "is_async",
]

Validator = Callable[[Any], dict[str, Any]]
"""Wire arguments to keyword arguments; raises ArgumentError naming every bad field (or the
kind's own failure, which passes on untouched)."""


Around = Callable[..., Awaitable[Any]]
"""`around(spec, arguments, context, mask_errors, timeout, name)`: one call through middleware
(a server's call middleware, handed down by the handler that calls: `Components.around`)."""


@dataclass(frozen=True, slots=True, eq=False)
class FunctionSpec:
    """A user function and what calling it needs, read once at registration."""

    fn: Callable[..., Any]
    name: str
    """What failures name: the tool or prompt name, the resource URI (template)."""
    failures: Failures
    """The form its failures take (its kind's `Failures`)."""
    parameters: Mapping[str, inspect.Parameter] = field(default_factory=dict)
    """The signature's parameters, Context ones included (empty for completers, which are
    called with (value, arguments) whatever they name them)."""
    context_params: tuple[str, ...] = ()
    """Parameters annotated `Context`: hidden from the client, filled in per call."""
    is_async: bool = False
    """Awaited on the event loop; a sync function runs in a worker thread."""
    validate: Validator = dict
    """Wire arguments to keyword arguments (without a validator of its own: a copy)."""
    timeout: float | None = None
    """Seconds the function may run (None: the caller's default applies)."""
    inline: bool = False
    """A sync function called on the event loop's thread, by explicit opt-in: no hand-off to a
    worker thread, and so no bound either (nothing can interrupt it there, nor abandon it)."""


def is_async(fn: Callable[..., Any]) -> bool:
    """Whether calling `fn` gives a coroutine: an async function, wrapped or not, or an object
    with an async __call__."""
    target = inspect.unwrap(fn)
    call = None if inspect.isroutine(target) else type(target).__call__
    return (
        inspect.iscoroutinefunction(target)
        or inspect.iscoroutinefunction(fn)
        or inspect.iscoroutinefunction(call)
    )


def function_spec(
    fn: Callable[..., Any],
    name: str,
    failures: Failures,
    *,
    timeout: float | None = None,
    signature: bool = True,
    inline: bool = False,
) -> FunctionSpec:
    """Read `fn` for calling it; TypeError if its signature cannot be read, or if `inline`
    cannot hold for it.

    `signature=False` for functions called positionally (completers). A validator, which needs
    the Context parameters first, is added with `dataclasses.replace`.
    """
    asynchronous = is_async(fn)
    if inline:
        _check_inline(failures.noun, name, asynchronous, timeout)
    if not signature:
        return FunctionSpec(
            fn, name, failures, is_async=asynchronous, timeout=timeout, inline=inline
        )
    try:
        parameters = dict(inspect.signature(fn).parameters)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{failures.noun} {name!r}: cannot read the signature: {exc}") from exc
    return FunctionSpec(
        fn,
        name,
        failures,
        parameters=parameters,
        context_params=context_params(fn),
        is_async=asynchronous,
        timeout=timeout,
        inline=inline,
    )


def _check_inline(noun: str, name: str, asynchronous: bool, timeout: float | None) -> None:
    """Refuse `inline=True` where its promise (a plain call on the loop) cannot hold."""
    if asynchronous:
        raise TypeError(
            f"{noun} {name!r}: inline=True is for a plain def function; an async one runs on"
            " the event loop already"
        )
    if timeout is not None:
        raise TypeError(
            f"{noun} {name!r}: inline=True and timeout= cannot go together: an inline function"
            " runs on the event loop, where nothing can stop it at a deadline"
        )


async def invoke(
    spec: FunctionSpec,
    arguments: Mapping[str, Any],
    context: Any = None,
    mask_errors: bool = False,
    timeout: float | None = None,
    around: Around | None = None,
    *,
    name: str | None = None,
    bare: bool = False,
) -> Any:
    """Validate `arguments`, call the function in its place and return what it returned.

    Every Context parameter gets `context`. An async function runs on the event loop, a sync one
    in a worker thread (an awaitable it returns is awaited on the loop), or on the loop when its
    spec is `inline`. The bound is the spec's timeout, else `timeout`: an async function is
    cancelled at it, a sync one cannot be interrupted, so its thread is abandoned and its result
    ignored; an inline one has no thread to abandon, so no bound applies to it. A cancellation
    of the caller reaches an async function as anyio's cancellation exception and passes on; so
    does InputRequired (a BaseException).

    Every failure leaves as the exception `spec.failures` makes of it (a JSON-RPC error, or a
    ToolError carrying a tool's isError message), logged as `plainmcp.errors` says, except the
    kind's `answers` and a stateless missing client capability, which pass on untouched. `name`
    overrides `spec.name` in messages (the URI a template read).

    This is the one place every user function is called from, so a middleware wraps it: it
    sees the spec (which function, of which kind), the wire arguments before validation and the
    Context; it gets back the function's return value before the kind shapes it (a tool's
    content, a resource's contents, a prompt's messages), or one of the exceptions above.
    `around` is that middleware (None: none); `bare` is its innermost step: the call itself.
    """
    if around is not None and not bare:
        return await around(spec, arguments, context, mask_errors, timeout, name)
    try:
        kwargs = spec.validate(arguments)
    except ArgumentError as exc:
        raise spec.failures.invalid(name or spec.name, exc.errors) from None
    for param in spec.context_params:
        kwargs[param] = context
    bound = spec.timeout if spec.timeout is not None else timeout
    try:
        if bound is None or spec.inline:  # the hot path, written out: no coroutine before fn
            if spec.is_async:
                return await spec.fn(**kwargs)
            if spec.inline:
                value = spec.fn(**kwargs)
            else:
                value = await run_in_worker(functools.partial(spec.fn, **kwargs))
            return (await value) if inspect.isawaitable(value) else value
        with anyio.move_on_after(bound):
            return await _run(spec, kwargs)
    except spec.failures.answers:
        raise
    except spec.failures.refusals as exc:
        failures = spec.failures
        log_refusal(failures.label(name or spec.name), exc)
        if isinstance(exc, ClientCapabilityError) and exc.required is not None:
            raise  # stateless: the server answers -32021
        raise failures.refused(name or spec.name, exc) from None
    except Exception as exc:
        raise spec.failures.unexpected(name or spec.name, exc, mask_errors) from None
    # Only a deadline that expired gets here: move_on_after ended the block.
    log_timeout(spec.failures.label(name or spec.name), bound)
    raise spec.failures.timed_out(name or spec.name, bound)


async def _run(spec: FunctionSpec, kwargs: dict[str, Any]) -> Any:
    """One call in its place, for the path of `invoke` under a timeout."""
    if spec.is_async:
        return await spec.fn(**kwargs)
    value = await run_in_worker(functools.partial(spec.fn, **kwargs))
    return (await value) if inspect.isawaitable(value) else value


def context_in(spec: FunctionSpec | None, inject: Mapping[str, Any] | None) -> Any:
    """The Context `inject` (values by parameter name, as the server passes them to a read or a
    prompt) holds for the spec's Context parameters; None when it names none of them. One
    Context serves a request, however many parameters take it."""
    if spec is not None and inject:
        for param in spec.context_params:
            if param in inject:
                return inject[param]
    return None
