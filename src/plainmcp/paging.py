"""Paged tool results: a tool may return an iterator or async iterator of items.

The items are drained into a list when the call returns, and sent as a JSON array (the
structured value): the guards then cut it at the last item that fits, and the continuation
serves the next items from the blob store, so any process that shares the store can serve
them. An iterator that yields more than `MAX_ITEMS` is closed there (logged).
"""

from __future__ import annotations

import collections.abc as abc
import inspect
import logging
import typing
from itertools import islice
from typing import Any

from plainmcp.workers import run_in_worker

log = logging.getLogger("plainmcp")

MAX_ITEMS = 1_000_000
"""Items taken from one paged result at most; the iterator is closed after them."""

_ITERATORS = (
    abc.Iterator,
    abc.Iterable,
    abc.Generator,
    abc.AsyncIterator,
    abc.AsyncIterable,
    abc.AsyncGenerator,
)


def item_annotation(annotation: Any) -> tuple[bool, Any]:
    """(True, list[T]) for a return annotation such as Iterator[T] or AsyncGenerator[T, None]:
    the schema of what is sent; (True, empty) for a bare iterator type; else (False, it)."""
    origin = typing.get_origin(annotation)
    if origin in _ITERATORS:
        args = typing.get_args(annotation)
        return True, list[args[0]] if args else inspect.Signature.empty  # type: ignore[valid-type]
    if annotation in _ITERATORS:
        return True, inspect.Signature.empty
    return False, annotation


def is_paged(value: Any) -> bool:
    """An iterator or async iterator (not a str, list or other container, which are values)."""
    return isinstance(value, abc.Iterator | abc.AsyncIterator)


async def drain(value: Any, name: str, *, inline: bool = False) -> list[Any]:
    """Every item of `value` (at most MAX_ITEMS); the iterator is closed when it is left
    unfinished, or the call is cancelled. A sync iterator is taken in a worker thread, or on the
    loop for an `inline` tool (whose function ran there)."""
    if isinstance(value, abc.AsyncIterator):
        items: list[Any] = []
        try:
            async for item in value:
                if len(items) == MAX_ITEMS:
                    _stopped(name)
                    break
                items.append(item)
        finally:
            close = getattr(value, "aclose", None)
            if close is not None:
                await close()
        return items

    def take() -> list[Any]:
        try:
            taken = list(islice(value, MAX_ITEMS + 1))
        finally:
            close = getattr(value, "close", None)
            if close is not None:
                close()
        if len(taken) > MAX_ITEMS:
            _stopped(name)
            del taken[MAX_ITEMS:]
        return taken

    return take() if inline else await run_in_worker(take)


def _stopped(name: str) -> None:
    log.warning("tool %r: its iterator was closed after %d items", name, MAX_ITEMS)
