"""What a running tool, resource or prompt function may use: a `ctx: Context` parameter.

The parameter is found by its annotation, hidden from schemas and filled in per request.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from typing import Any


class Context:
    """The request a function is serving, and what it may do while serving it."""


def context_params(fn: Callable[..., Any]) -> tuple[str, ...]:
    """Names of the parameters of `fn` annotated with Context (they are injected, not asked for)."""
    try:
        hints = typing.get_type_hints(fn)
    except Exception:
        hints = {}
    names = []
    for name, param in inspect.signature(fn).parameters.items():
        annotation = hints.get(name, param.annotation)
        if isinstance(annotation, str):
            matched = annotation.rsplit(".", 1)[-1] == "Context"
        else:
            matched = _is_context(annotation)
        if matched:
            names.append(name)
    return tuple(names)


def _is_context(annotation: Any) -> bool:
    if isinstance(annotation, type) and issubclass(annotation, Context):
        return True
    return any(_is_context(arg) for arg in typing.get_args(annotation))
