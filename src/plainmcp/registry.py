"""One registry for every kind of feature: tools, resources, templates, prompts, completers,
and whatever an extension registers.

Items keep their registration order (the order lists are served in), a duplicate key is
refused at registration, and every change runs the registry's watchers (caches built from it
are forgotten) and is announced once, under the registry's feature name: the server turns that
into `notifications/<feature>/list_changed`. Pagination uses the one cursor format
(wire/cursor.py). No I/O, no Server.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping
from typing import Generic, TypeVar

from plainmcp.wire import cursor

T = TypeVar("T")

Announce = Callable[[str, str], None]
"""(kind, subject): "list_changed" and the feature name, for a registry."""


class Registry(Generic[T]):
    """Items of one kind by key, in registration order."""

    __slots__ = ("_items", "_watchers", "announce", "by_key", "duplicate", "feature")

    def __init__(
        self,
        feature: str | None,
        *,
        duplicate: str = "{key!r} is already registered",
        announce: Announce | None = None,
    ) -> None:
        self.feature = feature
        """The name its changes are announced under ("tools"; None: never announced)."""
        self.duplicate = duplicate
        """The ValueError message for a key registered twice (`{key!r}` is filled in)."""
        self.announce = announce
        self._items: dict[Hashable, T] = {}
        self.by_key: Mapping[Hashable, T] = self._items
        """The items by key, read-only (for lookups on the hot path: no copy, no call)."""
        self._watchers: list[Callable[[], None]] = []

    def watch(self, changed: Callable[[], None]) -> None:
        """Call `changed` after every add and remove (before the change is announced)."""
        self._watchers.append(changed)

    # --- changes -------------------------------------------------------------------------

    def add(self, key: Hashable, item: T) -> T:
        """Register `item` under `key`; ValueError if the key is taken."""
        if key in self._items:
            raise ValueError(self.duplicate.format(key=key))
        self._items[key] = item
        self._changed()
        return item

    def remove(self, key: Hashable) -> T:
        """Unregister the item under `key` (KeyError if there is none) and return it."""
        item = self._items.pop(key)
        self._changed()
        return item

    def _changed(self) -> None:
        for changed in self._watchers:
            changed()
        if self.announce is not None and self.feature is not None:
            self.announce("list_changed", self.feature)

    # --- reading -------------------------------------------------------------------------

    def get(self, key: Hashable) -> T | None:
        return self._items.get(key)

    def __getitem__(self, key: Hashable) -> T:
        return self._items[key]

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[T]:
        """The items in order (a snapshot: the registry may change while it is read)."""
        return iter(list(self._items.values()))

    def values(self) -> list[T]:
        """The items in registration order (a new list)."""
        return list(self._items.values())

    def keys(self) -> list[Hashable]:
        return list(self._items)

    def page(
        self, at: object, size: int, keep: Callable[[T], bool] | None = None
    ) -> tuple[list[T], str | None]:
        """One page of the items `keep` keeps (all by default) from cursor `at`, and the
        cursor of the next page (None on the last). RpcError (-32602) for a bad cursor."""
        if size < 1:
            raise ValueError("page size must be at least 1")
        items = self.values() if keep is None else [i for i in self._items.values() if keep(i)]
        found, next_cursor = cursor.page(items, at, size)
        return list(found), next_cursor
