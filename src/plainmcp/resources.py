"""Resources and resource templates: the registry that matches URIs and reads them. No I/O.

A resource is a URI plus a static value or a function; a template is a URI with RFC 6570 level-1
variables (`files://{name}`, see `uri_templates`) plus a function taking those variables. The
registry knows nothing of connections or revisions: the server lists and reads through it,
`resource_contents` turns a read's value into contents, and `wire.definitions` and
`wire.render` turn the objects here into each revision's wire shapes.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from plainmcp.docstrings import parse_docstring
from plainmcp.errors import Failures, ResourceError
from plainmcp.invoke import Around, FunctionSpec, context_in, function_spec, invoke
from plainmcp.model.blocks import Annotations, AnnotationsArg, Icon, annotations_of
from plainmcp.model.options import ResultOptions
from plainmcp.registry import Announce, Registry
from plainmcp.resource_contents import (
    Contents,
    safe_join,
    static_size,
    static_type,
    static_value,
    to_contents,
)
from plainmcp.scopes import scope_set
from plainmcp.wire.cursor import page as cursor_page

if TYPE_CHECKING:
    from pydantic import TypeAdapter

    from plainmcp.uri_templates import UriTemplate

__all__ = [
    "Contents",
    "Resource",
    "ResourceError",
    "ResourceNotFound",
    "ResourceTemplate",
    "Resources",
    "safe_join",
]

T = TypeVar("T")
Match = tuple["Resource | ResourceTemplate", dict[str, Any]]
MEMO_SIZE, MEMO_URI_MAX = 64, 2048
"""Template matches kept for the latest URIs up to this length (client-chosen: kept small)."""


class ResourceNotFound(LookupError):
    """No resource has this URI. The server answers with its revision's not-found code."""

    def __init__(self, uri: str) -> None:
        super().__init__(f"Resource not found: {uri}")
        self.uri = uri


class ReadFailures(Failures):
    """A read fails with a JSON-RPC error that never shows an unexpected failure's details; a
    ResourceError is sent as it is, and not-found is an answer, not a failure."""

    noun = "resource"
    answers = (ResourceNotFound, FileNotFoundError)

    def label(self, name: str) -> str:
        return f"reading resource {name!r}"

    def refused(self, name: str, exc: Exception) -> Exception:
        return exc if isinstance(exc, ResourceError) else self.error(f"Cannot read {name}: {exc}")

    def failed(self, name: str, exc: Exception, error_id: str | None) -> Exception:
        return self.error(f"Internal error while reading {name}")


FAILURES = ReadFailures()


# --- model objects -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class Resource:
    """A concrete resource: its listing fields, and either a function (`spec`) or a static
    `value`."""

    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None
    annotations: Annotations | None = None
    icons: tuple[Icon, ...] | None = None
    meta: Mapping[str, Any] | None = None
    spec: FunctionSpec | None = None
    """The function called with no arguments (besides injected context) on every read."""
    value: Any = None
    """The static value read when there is no function."""
    scopes: frozenset[str] = frozenset()
    """OAuth scopes a reader's token must hold (plainmcp.scopes); empty: none."""

    @property
    def fn(self) -> Callable[..., Any] | None:
        return self.spec.fn if self.spec is not None else None


@dataclass(frozen=True, slots=True, eq=False)
class ResourceTemplate:
    """A family of resources: `uri_template` with level-1 variables, read by a function."""

    uri_template: str
    name: str
    spec: FunctionSpec
    variables: tuple[str, ...]
    """Variable names in the order they appear in the template."""
    variable_types: Mapping[str, Any]
    """The parameter annotation of each variable (Any when unannotated); completers read it."""
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    annotations: Annotations | None = None
    icons: tuple[Icon, ...] | None = None
    meta: Mapping[str, Any] | None = None
    scopes: frozenset[str] = frozenset()
    """OAuth scopes a reader's token must hold (plainmcp.scopes); empty: none."""

    @property
    def fn(self) -> Callable[..., Any]:
        return self.spec.fn


# --- registration --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Compiled:
    """A template with what matching needs: the parsed URI and a validator per typed variable."""

    template: ResourceTemplate
    uri: UriTemplate
    adapters: Mapping[str, TypeAdapter[Any]]


def _hints(fn: Callable[..., Any], what: str) -> dict[str, Any]:
    try:
        return typing.get_type_hints(fn)
    except Exception as exc:  # unresolvable forward references
        raise TypeError(f"{what}: cannot read type hints: {exc}") from exc


def _check_params(
    spec: FunctionSpec, variables: Sequence[str], what: str
) -> dict[str, inspect.Parameter]:
    """The parameters that receive variables; TypeError unless they match the variables."""
    injected = set(spec.context_params)
    params = {
        name: p
        for name, p in spec.parameters.items()
        if name not in injected and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    }
    missing = [v for v in variables if v not in params]
    if missing:
        raise TypeError(
            f"{what}: the function has no parameter for {', '.join(repr(m) for m in missing)}"
        )
    for name in variables:
        if params[name].kind is inspect.Parameter.POSITIONAL_ONLY:
            raise TypeError(f"{what}: parameter {name!r} is positional-only")
    unfilled = [
        name
        for name, p in params.items()
        if name not in variables and p.default is inspect.Parameter.empty
    ]
    if unfilled:
        kind = "template variable" if variables else "value (a resource takes no arguments)"
        raise TypeError(
            f"{what}: parameter {', '.join(repr(u) for u in unfilled)} has no {kind};"
            " give it a default or add it to the URI as {name}"
        )
    return {name: params[name] for name in variables}


def _adapter(annotation: Any, what: str) -> TypeAdapter[Any] | None:
    if annotation is inspect.Parameter.empty or annotation is str or annotation is Any:
        return None
    from pydantic import TypeAdapter  # only for typed variables: str ones never load pydantic

    try:
        return TypeAdapter(annotation)
    except Exception as exc:
        raise TypeError(f"{what}: cannot convert a URI value to {annotation!r}: {exc}") from exc


def _template(uri: UriTemplate, fn: Callable[..., Any] | None, common: dict[str, Any]) -> _Compiled:
    what = f"resource template {uri.text!r}"
    if fn is None:
        raise TypeError(f"{what} needs a function to read it, not a static value")
    spec = function_spec(fn, uri.text, FAILURES)
    variables = uri.variables
    params = _check_params(spec, variables, what)
    hints = _hints(fn, what)
    types = {v: hints.get(v, params[v].annotation) for v in variables}
    adapters = {v: a for v in variables if (a := _adapter(types[v], f"{what} {{{v}}}")) is not None}
    template = ResourceTemplate(
        uri_template=uri.text,
        spec=spec,
        variables=variables,
        variable_types={v: Any if t is inspect.Parameter.empty else t for v, t in types.items()},
        **common,
    )
    return _Compiled(template, uri, adapters)


def _resource(
    uri: str, target: Any, fn: Callable[..., Any] | None, size: int | None, common: dict[str, Any]
) -> Resource:
    what = f"resource {uri!r}"
    if fn is not None:
        spec = function_spec(fn, uri, FAILURES)
        _check_params(spec, (), what)
        return Resource(uri=uri, size=size, spec=spec, **common)
    value = static_value(target, what)
    if common["mime_type"] is None:
        common = {**common, "mime_type": static_type(value)}
    return Resource(
        uri=uri, size=static_size(value) if size is None else size, value=value, **common
    )


class Resources:
    """The resources and templates of one server, in registration order."""

    def __init__(
        self, on_change: Callable[[], None] | None = None, *, announce: Announce | None = None
    ) -> None:
        self._static: Registry[Resource] = Registry("resources", announce=announce)
        self._templates: Registry[_Compiled] = Registry("resources", announce=announce)
        self._matches: dict[str, Match | None] = {}  # forgotten at every change
        self._static.watch(self._matches.clear)
        self._templates.watch(self._matches.clear)
        if on_change is not None:  # called after every add/remove
            self._static.watch(on_change)
            self._templates.watch(on_change)

    @property
    def resources(self) -> tuple[Resource, ...]:
        return tuple(self._static.by_key.values())

    @property
    def templates(self) -> tuple[ResourceTemplate, ...]:
        return tuple(c.template for c in self._templates.by_key.values())

    @property
    def has_templates(self) -> bool:
        return bool(self._templates)

    def __len__(self) -> int:
        return len(self._static) + len(self._templates)

    def add(
        self,
        target: Any,
        uri: str,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        size: int | None = None,
        annotations: AnnotationsArg | None = None,
        icons: Sequence[Icon] | None = None,
        meta: Mapping[str, Any] | None = None,
        scopes: Iterable[str] | None = None,
    ) -> Resource | ResourceTemplate:
        """Register a function or a static value at `uri`; `{var}` in the URI makes a template.
        `scopes` names the OAuth scopes a reader must hold.

        Everything that cannot work is refused here (ValueError/TypeError), not at read time.
        """
        if not isinstance(uri, str):
            raise ValueError(f"a resource uri must be a string, not {type(uri).__name__}")
        if uri in self._static or uri in self._templates:
            raise ValueError(f"a resource with URI {uri!r} is already registered")
        from plainmcp.uri_templates import parse_uri  # loaded by the first resource

        parsed = parse_uri(uri)
        if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 0):
            raise ValueError(f"size must be a non-negative int, not {size!r}")
        annotations = annotations_of(annotations)  # ContentError says what is wrong
        fn = target if callable(target) else None
        if description is None and fn is not None:
            description = parse_docstring(inspect.getdoc(fn)).description or None
        if name is None:
            name = getattr(fn, "__name__", None) if fn is not None else uri
        if not isinstance(name, str) or not name:
            raise ValueError(f"resource {uri!r} needs a name")
        common: dict[str, Any] = {
            "name": name,
            "title": title,
            "description": description,
            "mime_type": mime_type,
            "annotations": annotations,
            "icons": tuple(icons) if icons else None,
            "meta": dict(meta) if meta else None,
            "scopes": scope_set(scopes, f"resource {uri!r}"),
        }
        made: Resource | ResourceTemplate
        if parsed.variables:
            if size is not None:
                raise ValueError(f"resource template {uri!r}: size= is for concrete resources")
            made = self._templates.add(uri, _template(parsed, fn, common)).template
        else:
            made = self._static.add(uri, _resource(uri, target, fn, size, common))
        return made

    def add_made(self, item: Resource | ResourceTemplate) -> Resource | ResourceTemplate:
        """Register a resource or template another registry built (a mounted server's, at its
        namespaced URI: mount.py), under its own URI; ValueError if that URI is taken."""
        uri = item.uri if isinstance(item, Resource) else item.uri_template
        if uri in self._static or uri in self._templates:
            raise ValueError(f"a resource with URI {uri!r} is already registered")
        if isinstance(item, Resource):
            return self._static.add(uri, item)
        from plainmcp.uri_templates import parse_uri

        parsed = parse_uri(uri)
        if parsed.variables != item.variables:
            raise ValueError(f"{uri!r} does not have the variables of {item.name!r}")
        what = f"resource template {uri!r}"
        adapters = {
            v: a
            for v in item.variables
            if (a := _adapter(item.variable_types[v], f"{what} {{{v}}}")) is not None
        }
        return self._templates.add(uri, _Compiled(item, parsed, adapters)).template

    def has(self, uri: str) -> bool:
        """A resource or template is registered at exactly `uri` (not: some template matches)."""
        return uri in self._static or uri in self._templates

    def watch(self, changed: Callable[[], None]) -> None:
        """Call `changed` after every add and remove of a resource or template."""
        self._static.watch(changed)
        self._templates.watch(changed)

    def remove(self, uri: str) -> None:
        """Unregister the resource or template registered at exactly `uri` (KeyError if none)."""
        if uri in self._static:
            self._static.remove(uri)
        elif uri in self._templates:
            self._templates.remove(uri)
        else:
            raise KeyError(uri)

    # --- lookup ----------------------------------------------------------------------------

    def match(self, uri: str) -> Match | None:
        """What serves `uri` and the converted template arguments, or None.

        A static resource wins; then templates in registration order. A template whose value
        is unsafe (see `uri_templates`) or does not convert to the parameter's type does not
        match, and the next template is tried. The answer is kept for the latest URIs until
        the registry changes: the HTTP scope check, the handler and the read match once.
        """
        static = self._static.by_key.get(uri)
        if static is not None:
            return static, {}
        memo = self._matches
        if uri not in memo:
            if not self._templates or len(uri) > MEMO_URI_MAX:
                return self._match_template(uri)
            if len(memo) >= MEMO_SIZE:
                del memo[next(iter(memo))]
            memo[uri] = self._match_template(uri)
        found = memo[uri]  # a copy of the arguments: the caller may change its own
        return None if found is None else (found[0], dict(found[1]))

    def _match_template(self, uri: str) -> Match | None:
        for compiled in self._templates.by_key.values():
            values = compiled.uri.match(uri)
            if values is None:
                continue
            arguments = _arguments(compiled, values)
            if arguments is not None:
                return compiled.template, arguments
        return None

    def exists(self, uri: str) -> bool:
        """Whether a read of `uri` would find a resource (for refusing nonsense subscriptions)."""
        return self.match(uri) is not None

    def page(
        self, cursor: str | None, size: int, keep: Callable[[Resource], bool] | None = None
    ) -> tuple[list[Resource], str | None]:
        """One page of resources (those `keep` keeps) and the cursor of the next (None on the
        last page)."""
        return self._static.page(cursor, size, keep)

    def template_page(
        self,
        cursor: str | None,
        size: int,
        keep: Callable[[ResourceTemplate], bool] | None = None,
    ) -> tuple[list[ResourceTemplate], str | None]:
        """One page of templates (those `keep` keeps) and the cursor of the next (None on the
        last page)."""
        items = [c.template for c in self._templates.by_key.values()]
        return _page(items if keep is None else [t for t in items if keep(t)], cursor, size)

    # --- reading ---------------------------------------------------------------------------

    async def read(
        self,
        uri: str,
        *,
        inject: Mapping[str, Any] | None = None,
        options: ResultOptions | None = None,
        around: Around | None = None,
    ) -> list[Contents]:
        """The contents of `uri`, from the static value or the function's return value (the
        table of `resource_contents.to_contents`).

        Template variables are passed converted to their parameter types; `inject` fills the
        Context parameters. Raises ResourceNotFound (no match, or the function raised
        FileNotFoundError), ResourceError (the function said why it failed; logged as a
        refusal, without a traceback), or RpcError(INTERNAL_ERROR) for any other failure, whose
        details are logged, never sent (a missing client capability is named).
        """
        options = options or ResultOptions()
        matched = self.match(uri)
        if matched is None:
            raise ResourceNotFound(uri)
        target, arguments = matched
        spec = target.spec
        if spec is None:
            assert isinstance(target, Resource)
            value = target.value
        else:
            try:
                context = context_in(spec, inject)
                value = await invoke(spec, arguments, context, around=around, name=uri)
            except FileNotFoundError:
                raise ResourceNotFound(uri) from None
        try:
            return to_contents(value, uri, target.mime_type, options)
        except Exception as exc:
            raise FAILURES.unexpected(uri, exc, False) from None


def _arguments(compiled: _Compiled, values: list[str]) -> dict[str, Any] | None:
    """The matched values converted to the parameters' types; None if one does not convert."""
    arguments: dict[str, Any] = {}
    for name, value in zip(compiled.template.variables, values, strict=True):
        adapter = compiled.adapters.get(name)
        if adapter is not None:
            from pydantic import ValidationError  # imported with the adapter already

            try:
                arguments[name] = adapter.validate_python(value)
            except ValidationError:
                return None
        else:
            arguments[name] = value
    return arguments


def _page(items: list[T], cursor: str | None, size: int) -> tuple[list[T], str | None]:
    if size < 1:
        raise ValueError("page size must be at least 1")
    found, next_cursor = cursor_page(items, cursor, size)
    return list(found), next_cursor
