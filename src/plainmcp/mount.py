"""Mounting one plainmcp server in another (`app.mount(other, namespace="x")`, docs/composition.md).

The mounted server's tools, prompts, resources and templates are registered in the parent's
registries under namespaced names, and kept in step with the mounted server's registries as
they change (so the parent's clients hear list_changed). A call, read or get runs the mounted
server's own function with the mounted server's Context (its lifespan state, its client
timeout), through the request's exchange: progress, logs and elicitation reach the same client.

Names: a tool or prompt `name` becomes `x_name`. "_" is in the tool-name alphabet of every
revision that has one (2025-11-25: [A-Za-z0-9_.-]) and of every host's (Anthropic and OpenAI
refuse "."), and a namespace may not contain it, so the first "_" splits a name back.
URIs: `scheme:rest` becomes `x+scheme:rest`: a scheme prefix works for every absolute URI (an
authority would not: `urn:`, `mailto:` have none), "+" is valid in a scheme and not in a
namespace, so the first "+" splits it back, and two namespaces never give the same URI.
Handed the two servers' components, never a Server.
"""

from __future__ import annotations

import dataclasses
import re
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from plainmcp.prompts import Prompt
from plainmcp.resources import Resource, ResourceTemplate
from plainmcp.tools import NAME_PATTERN, Tool

if TYPE_CHECKING:
    from plainmcp.components import Components

Item = Resource | ResourceTemplate

NAMESPACE = re.compile(r"[A-Za-z][A-Za-z0-9-]{0,63}")
"""A namespace: valid both before "_" in a tool name and before "+" in a URI scheme."""
SEPARATOR = "_"
SCHEME_SEPARATOR = "+"

_within: weakref.WeakKeyDictionary[Components, list[Components]] = weakref.WeakKeyDictionary()
"""The servers mounted in each server (to refuse a mount that would make a loop)."""


def namespaced_name(namespace: str | None, name: str) -> str:
    return name if namespace is None else f"{namespace}{SEPARATOR}{name}"


def namespaced_uri(namespace: str | None, uri: str) -> str:
    return uri if namespace is None else f"{namespace}{SCHEME_SEPARATOR}{uri}"


def split_uri(uri: str) -> tuple[str, str] | None:
    """(namespace, the mounted server's URI) of a namespaced URI; None if it is not one."""
    namespace, plus, rest = uri.partition(SCHEME_SEPARATOR)
    if not plus or not NAMESPACE.fullmatch(namespace):
        return None
    return namespace, rest


def check_namespace(namespace: str | None) -> str | None:
    if namespace is not None and not NAMESPACE.fullmatch(namespace):
        raise ValueError(
            f"namespace {namespace!r}: a letter, then up to 63 letters, digits or '-' (no '_'"
            " nor '+': they separate it from a name or a URI)"
        )
    return namespace


def _item_uri(item: Item) -> str:
    return item.uri if isinstance(item, Resource) else item.uri_template


class Mount:
    """One server mounted in another under a namespace (None: names unchanged)."""

    def __init__(
        self,
        parent: Components,
        child: Components,
        namespace: str | None,
        label: str,
        on_task: Callable[[], None] | None = None,
    ) -> None:
        if child is parent or _reaches(child, parent):
            raise ValueError(f"cannot mount {label}: the server would be mounted in itself")
        self.parent, self.child, self.label = parent, child, label
        self.namespace = check_namespace(namespace)
        self.tools: dict[str, tuple[Tool, Tool]] = {}
        """By the mounted server's name: its tool, and the one registered in the parent."""
        self.prompts: dict[str, tuple[Prompt, Prompt]] = {}
        self.resources: dict[str, tuple[Item, Item]] = {}
        """Resources and templates by the mounted server's URI (template)."""
        self.on_task = on_task
        """What the parent does before it lists a tool that runs as a task (serves tasks);
        None: such a tool is refused."""
        self.refused: dict[str, list[Any]] = {}
        """Per kind, the items of the mounted server whose copy clashed (not tried again)."""

    # --- mounting ----------------------------------------------------------------------------

    def start(self) -> None:
        """Refuse every clash at once (ValueError naming each), then register everything and
        follow the mounted server's changes."""
        clashes = self.clashes()
        if clashes:
            raise ValueError(f"cannot mount {self.label}: " + "; ".join(clashes))
        child = self.child
        self._sync_tools()
        self._sync_prompts()
        self._sync_resources()
        child.tools.watch(self._sync_tools)
        child.prompts.watch(self._sync_prompts)
        child.resources.watch(self._sync_resources)
        child.announcer.listeners.append(self._heard)
        _within.setdefault(self.parent, []).append(child)

    def clashes(self) -> list[str]:
        """What the mounted server's names and URIs would collide with in the parent."""
        parent, child, ns = self.parent, self.child, self.namespace
        found: list[str] = []
        builtin = parent.settings.results.continuation
        for tool in child.tools.by_key.values():
            found += self._tool_problems(tool, builtin)
        for prompt in child.prompts:
            name = namespaced_name(ns, prompt.name)
            if parent.made_prompts is not None and name in parent.made_prompts:
                found.append(f"a prompt named {name!r} is already registered")
        for item in _items(child):
            uri = namespaced_uri(ns, _item_uri(item))
            if parent.made_resources is not None and parent.made_resources.has(uri):
                found.append(f"a resource with URI {uri!r} is already registered")
        return found

    def _tool_problems(self, tool: Tool, builtin: str | None) -> list[str]:
        name = namespaced_name(self.namespace, tool.name)
        if tool.task is not None and self.on_task is None:
            return [f"tool {tool.name!r} runs as a task, and this server serves no tasks"]
        if not NAME_PATTERN.fullmatch(name):
            return [f"tool name {name!r} is not 1-128 characters of [A-Za-z0-9_.-]"]
        if name in self.parent.tools.by_key or name == builtin:
            return [f"a tool named {name!r} is already registered"]
        return []

    # --- keeping in step ---------------------------------------------------------------------

    def _home(self, spec: Any) -> Components:
        """Whose Context a function gets: the server that registered it (mounts nest)."""
        return self.child.served_for.get(spec, self.child)

    def _sync_tools(self) -> None:
        parent = self.parent
        builtin = parent.settings.results.continuation

        def add(source: Tool, mirror: Tool) -> None:
            problems = self._tool_problems(source, builtin)
            if problems:
                raise ValueError(problems[0])
            if source.task is not None and self.on_task is not None:
                self.on_task()
            parent.tools.add(mirror.name, mirror)

        def remove(mirror: Tool) -> None:
            parent.tools.remove(mirror.name)

        current = {str(key): tool for key, tool in self.child.tools.by_key.items()}
        self._sync("tool", self.tools, current, self._named, add, remove)

    def _sync_prompts(self) -> None:
        prompts = self.parent.prompts
        current = {p.name: p for p in self.child.prompts}
        self._sync(
            "prompt",
            self.prompts,
            current,
            self._named,
            lambda source, mirror: prompts.add_made(mirror),
            lambda mirror: prompts.remove(mirror.name),
        )

    def _sync_resources(self) -> None:
        resources = self.parent.resources

        def add(source: Item, mirror: Item) -> None:
            resources.add_made(mirror)
            self._copy_completers(source, mirror)

        def remove(mirror: Item) -> None:
            self._drop_completers(mirror)
            resources.remove(_item_uri(mirror))

        current = {_item_uri(i): i for i in _items(self.child)}
        self._sync("resource", self.resources, current, self._resource, add, remove)

    def _sync(
        self,
        noun: str,
        mounted: dict[str, tuple[Any, Any]],
        current: dict[str, Any],
        make: Callable[[Any], Any],
        add: Callable[[Any, Any], object],
        remove: Callable[[Any], object],
    ) -> None:
        """Bring the parent's copies of one kind in step with the mounted server's items:
        those gone or replaced are removed, the new ones added. One refused (a clash) is named
        in a ValueError once, to the caller that added it, and not tried again."""
        parent = self.parent
        for key, (source, mirror) in list(mounted.items()):
            if current.get(key) is not source:
                del mounted[key]
                if mirror.spec is not None:
                    parent.served_for.pop(mirror.spec, None)
                remove(mirror)
        present = {id(item) for item in current.values()}
        refused = self.refused[noun] = [r for r in self.refused.get(noun, []) if id(r) in present]
        for key, source in current.items():
            if key in mounted or any(source is r for r in refused):
                continue
            mirror = make(source)
            if mirror.spec is not None:  # before the copy is listed: its first call uses it
                parent.served_for[mirror.spec] = self._home(source.spec)
            try:
                add(source, mirror)
            except ValueError as exc:
                if mirror.spec is not None:
                    parent.served_for.pop(mirror.spec, None)
                refused.append(source)
                raise ValueError(f"cannot mount {noun} {key!r} of {self.label}: {exc}") from None
            mounted[key] = (source, mirror)

    def _named(self, source: Any) -> Any:
        """A tool's or prompt's copy under the namespaced name (failures name it so)."""
        name = namespaced_name(self.namespace, source.name)
        return dataclasses.replace(
            source, name=name, spec=dataclasses.replace(source.spec, name=name)
        )

    def _resource(self, source: Item) -> Item:
        uri = namespaced_uri(self.namespace, _item_uri(source))
        spec = None if source.spec is None else dataclasses.replace(source.spec, name=uri)
        if isinstance(source, ResourceTemplate):
            assert spec is not None
            return dataclasses.replace(source, uri_template=uri, spec=spec)
        return dataclasses.replace(source, uri=uri, spec=spec)

    def _copy_completers(self, source: Item, mirror: Item) -> None:
        """A template's explicit completers, for the same variables of its mounted copy."""
        completers = self.child.completers
        for key in list(completers.by_key):
            if isinstance(key, tuple) and key[0] is source:
                self.parent.completers.add((mirror, key[1]), completers[key])

    def _drop_completers(self, mirror: Item) -> None:
        completers = self.parent.completers
        for key in list(completers.by_key):
            if isinstance(key, tuple) and key[0] is mirror:
                completers.remove(key)

    def _heard(self, kind: str, subject: str) -> None:
        """A resource of the mounted server changed: the parent's subscribers hear it under
        the namespaced URI (list changes reach the parent through the registries)."""
        if kind == "updated":
            self.parent.announcer.announce(kind, namespaced_uri(self.namespace, subject))


def _items(core: Components) -> list[Item]:
    """A server's resources, then its templates."""
    resources = core.resources
    return [*resources.resources, *resources.templates]


def _reaches(start: Components, target: Components) -> bool:
    """`target` is mounted in `start`, directly or through mounts."""
    seen: set[int] = set()
    stack = [start]
    while stack:
        core = stack.pop()
        if core is target:
            return True
        if id(core) in seen:
            continue
        seen.add(id(core))
        stack.extend(_within.get(core, ()))
    return False


def mount(
    parent: Components,
    child: Components,
    namespace: str | None,
    label: str,
    *,
    on_task: Callable[[], None] | None = None,
) -> Mount:
    """Mount `child` in `parent` (ValueError for a clash, a bad namespace or a loop)."""
    made = Mount(parent, child, namespace, label, on_task)
    made.start()
    return made
