"""Resources and resource templates: a registry that matches URIs and reads contents. No I/O.

A resource is a URI plus a static value or a function; a template is a URI with RFC 6570 level-1
variables (`files://{name}`) plus a function taking those variables. The registry knows nothing
of connections or revisions: the server lists and reads through it, and `wire.render` turns the
objects here into each revision's wire shapes.

Template variables are matched one URI segment at a time (never across "/"), percent-decoded once
and refused when the decoded value could walk a path ("..", "/", "\\", NUL), so a function that
joins a variable onto a directory cannot be led outside it. `safe_join` is the second fence for
functions that serve files.
"""

from __future__ import annotations

import functools
import inspect
import logging
import re
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import unquote

from pydantic import TypeAdapter, ValidationError

from plainmcp import encoding, mime
from plainmcp.content import Annotations, Audio, EmbeddedResource, Icon, Image, Text
from plainmcp.context import ClientCapabilityError, context_params
from plainmcp.docstrings import parse_docstring
from plainmcp.options import ResultOptions
from plainmcp.refusals import log_refusal
from plainmcp.wire.cursor import page as cursor_page
from plainmcp.wire.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, RpcError
from plainmcp.workers import run_in_worker

__all__ = [
    "Contents",
    "Resource",
    "ResourceError",
    "ResourceNotFound",
    "ResourceTemplate",
    "Resources",
    "safe_join",
]

log = logging.getLogger("plainmcp")
T = TypeVar("T")

DEFAULT_TEXT_TYPE = "text/plain"
DEFAULT_JSON_TYPE = "application/json"
DEFAULT_BINARY_TYPE = "application/octet-stream"


class ResourceNotFound(LookupError):
    """No resource has this URI. The server answers with its revision's not-found code."""

    def __init__(self, uri: str) -> None:
        super().__init__(f"Resource not found: {uri}")
        self.uri = uri


class ResourceError(RpcError):
    """Raise it in a resource function to fail the read with a message the client sees.

    Reads are not tool calls, so a failure is a JSON-RPC error, not a result; the default code is
    internal error (-32603), INVALID_PARAMS (-32602) says the client asked for something invalid.
    """

    def __init__(self, message: str, *, code: int = INTERNAL_ERROR, data: Any = None) -> None:
        super().__init__(code, message, data)


# --- model objects -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Contents:
    """One item of a read result: the text or bytes of `uri`, with its MIME type."""

    uri: str
    text: str | None = None
    blob: bytes | None = None
    mime_type: str | None = None
    meta: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if not self.uri or not isinstance(self.uri, str):
            raise ValueError("Contents needs a uri")
        if (self.text is None) == (self.blob is None):
            raise ValueError("Contents needs exactly one of text= or blob=")
        if self.text is not None and not isinstance(self.text, str):
            raise TypeError(f"text must be str, not {type(self.text).__name__}")
        if self.blob is not None and not isinstance(self.blob, bytes):
            raise TypeError(f"blob must be bytes, not {type(self.blob).__name__}")

    def __repr__(self) -> str:
        body = f"<{len(self.blob)} bytes>" if self.blob is not None else repr(self.text)[:60]
        return f"Contents(uri={self.uri!r}, {body}, mime_type={self.mime_type!r})"


@dataclass(frozen=True, slots=True, eq=False)
class Resource:
    """A concrete resource: its listing fields, and either `fn` or a static `value`."""

    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None
    annotations: Annotations | None = None
    icons: tuple[Icon, ...] | None = None
    meta: Mapping[str, Any] | None = None
    fn: Callable[..., Any] | None = None
    """Called with no arguments (besides injected context) on every read."""
    value: Any = None
    """The static value read when `fn` is None."""


@dataclass(frozen=True, slots=True, eq=False)
class ResourceTemplate:
    """A family of resources: `uri_template` with level-1 variables, read by `fn`."""

    uri_template: str
    name: str
    fn: Callable[..., Any]
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


# --- URIs and templates --------------------------------------------------------------------

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_EXPRESSION = re.compile(r"\{([^{}]*)\}")
_VARNAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_OPERATORS = "+#./;?&=,!@|"
_SEGMENT = "([^/]+)"


def _check_uri(uri: str, what: str = "uri") -> None:
    if not isinstance(uri, str) or not uri:
        raise ValueError(f"a resource needs a {what} (a non-empty string)")
    if not _SCHEME.match(uri):
        raise ValueError(f"{what} {uri!r} has no scheme; use e.g. 'file:///…' or 'app://…'")
    if any(c.isspace() or ord(c) < 0x20 or ord(c) == 0x7F for c in uri):
        raise ValueError(f"{what} {uri!r} contains whitespace or control characters")


def template_variables(uri: str) -> tuple[str, ...]:
    """The variable names of a URI template (empty for a plain URI); ValueError if malformed."""
    return _parse_template(uri)[0]


def _parse_template(template: str) -> tuple[tuple[str, ...], re.Pattern[str]]:
    """Variable names and the matching regex of a level-1 template; ValueError otherwise."""
    names: list[str] = []
    pattern: list[str] = []
    pos = 0
    for match in _EXPRESSION.finditer(template):
        literal = template[pos : match.start()]
        if "{" in literal or "}" in literal:
            raise ValueError(f"unbalanced braces in resource template {template!r}")
        if not literal and names:
            raise ValueError(
                f"resource template {template!r}: variables {{{names[-1]}}} and"
                f" {{{match.group(1)}}} need literal text between them to be told apart"
            )
        expression = match.group(1)
        if expression and expression[0] in _OPERATORS:
            raise ValueError(
                f"resource template {template!r}: {{{expression}}} uses operator"
                f" {expression[0]!r}; only level-1 simple expansion {{name}} is supported"
            )
        if not _VARNAME.fullmatch(expression):
            raise ValueError(
                f"resource template {template!r}: {{{expression}}} is not a plain variable"
                " name (lists, prefixes ':n' and explode '*' are not supported)"
            )
        if expression in names:
            raise ValueError(f"resource template {template!r} repeats variable {expression!r}")
        names.append(expression)
        pattern.append(re.escape(literal))
        pattern.append(_SEGMENT)
        pos = match.end()
    tail = template[pos:]
    if "{" in tail or "}" in tail:
        raise ValueError(f"unbalanced braces in resource template {template!r}")
    pattern.append(re.escape(tail))
    return tuple(names), re.compile("".join(pattern))


def _safe_value(raw: str) -> str | None:
    """A matched variable, percent-decoded once; None when it could walk a path."""
    try:
        value = unquote(raw, errors="strict")
    except UnicodeDecodeError:
        return None
    if value in (".", "..") or any(c in value for c in "/\\\x00"):
        return None
    return value


def safe_join(root: Path | str, *parts: str) -> Path:
    """`root / parts`, resolved, refusing (ResourceError) anything that lands outside `root`.

    Symlinks are followed before the check, so a link pointing out of `root` is refused too.
    The message never shows `root`: the client should not learn where files live.
    """
    base = Path(root).resolve()
    shown = "/".join(parts)
    if any("\x00" in part for part in parts):
        raise ResourceError(f"invalid path {shown!r}", code=INVALID_PARAMS)
    target = base.joinpath(*parts).resolve()
    if not target.is_relative_to(base):
        raise ResourceError(f"path {shown!r} is outside the served directory", code=INVALID_PARAMS)
    return target


# --- registration --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Compiled:
    """A template with what matching needs: the regex and a validator per typed variable."""

    template: ResourceTemplate
    pattern: re.Pattern[str]
    adapters: Mapping[str, TypeAdapter[Any]]


def _is_async(fn: Callable[..., Any]) -> bool:
    return inspect.iscoroutinefunction(inspect.unwrap(fn)) or inspect.iscoroutinefunction(fn)


def _hints(fn: Callable[..., Any], what: str) -> dict[str, Any]:
    try:
        return typing.get_type_hints(fn)
    except Exception as exc:  # unresolvable forward references
        raise TypeError(f"{what}: cannot read type hints: {exc}") from exc


def _check_params(
    fn: Callable[..., Any], variables: Sequence[str], what: str
) -> dict[str, inspect.Parameter]:
    """The parameters that receive variables; TypeError unless they match the variables."""
    injected = set(context_params(fn))
    params = {
        name: p
        for name, p in inspect.signature(fn).parameters.items()
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
    try:
        return TypeAdapter(annotation)
    except Exception as exc:
        raise TypeError(f"{what}: cannot convert a URI value to {annotation!r}: {exc}") from exc


def _static_size(value: Any) -> int | None:
    if isinstance(value, str):
        return len(value.encode("utf-8"))
    if isinstance(value, bytes | bytearray | memoryview):
        return len(bytes(value))
    if isinstance(value, EmbeddedResource):
        if value.blob is not None:
            return len(value.blob)
        return len((value.text or "").encode("utf-8"))
    return None


def _static_type(value: Any) -> str | None:
    if isinstance(value, str | Text):
        return DEFAULT_TEXT_TYPE
    if isinstance(value, bytes | bytearray | memoryview):
        return mime.sniff(bytes(value)) or DEFAULT_BINARY_TYPE
    if isinstance(value, EmbeddedResource | Contents):
        return value.mime_type
    if isinstance(value, Image | Audio):
        return value.mime_type
    return DEFAULT_JSON_TYPE


def _template(
    uri: str,
    fn: Callable[..., Any] | None,
    variables: tuple[str, ...],
    pattern: re.Pattern[str],
    common: dict[str, Any],
) -> _Compiled:
    what = f"resource template {uri!r}"
    if fn is None:
        raise TypeError(f"{what} needs a function to read it, not a static value")
    params = _check_params(fn, variables, what)
    hints = _hints(fn, what)
    types = {v: hints.get(v, params[v].annotation) for v in variables}
    adapters = {v: a for v in variables if (a := _adapter(types[v], f"{what} {{{v}}}")) is not None}
    template = ResourceTemplate(
        uri_template=uri,
        fn=fn,
        variables=variables,
        variable_types={v: Any if t is inspect.Parameter.empty else t for v, t in types.items()},
        **common,
    )
    return _Compiled(template, pattern, adapters)


def _resource(
    uri: str, target: Any, fn: Callable[..., Any] | None, size: int | None, common: dict[str, Any]
) -> Resource:
    what = f"resource {uri!r}"
    if fn is not None:
        _check_params(fn, (), what)
        return Resource(uri=uri, size=size, fn=fn, **common)
    value = _static_value(target, what)
    if common["mime_type"] is None:
        common = {**common, "mime_type": _static_type(value)}
    return Resource(
        uri=uri, size=_static_size(value) if size is None else size, value=value, **common
    )


class Resources:
    """The resources and templates of one server, in registration order."""

    def __init__(self, on_change: Callable[[], None] | None = None) -> None:
        self._static: dict[str, Resource] = {}
        self._templates: dict[str, _Compiled] = {}
        self._on_change = on_change
        """Called after every add/remove (the server sends resources/list_changed)."""

    @property
    def resources(self) -> tuple[Resource, ...]:
        return tuple(self._static.values())

    @property
    def templates(self) -> tuple[ResourceTemplate, ...]:
        return tuple(c.template for c in self._templates.values())

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
        annotations: Annotations | None = None,
        icons: Sequence[Icon] | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> Resource | ResourceTemplate:
        """Register a function or a static value at `uri`; `{var}` in the URI makes a template.

        Everything that cannot work is refused here (ValueError/TypeError), not at read time.
        """
        if not isinstance(uri, str):
            raise ValueError(f"a resource uri must be a string, not {type(uri).__name__}")
        if uri in self._static or uri in self._templates:
            raise ValueError(f"a resource with URI {uri!r} is already registered")
        variables, pattern = _parse_template(uri)
        _check_uri(_EXPRESSION.sub("x", uri), "uri template" if variables else "uri")
        if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 0):
            raise ValueError(f"size must be a non-negative int, not {size!r}")
        if annotations is not None and not isinstance(annotations, Annotations):
            raise TypeError("annotations must be a plainmcp.Annotations")
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
        }
        made: Resource | ResourceTemplate
        if variables:
            if size is not None:
                raise ValueError(f"resource template {uri!r}: size= is for concrete resources")
            compiled = _template(uri, fn, variables, pattern, common)
            self._templates[uri] = compiled
            made = compiled.template
        else:
            made = self._static[uri] = _resource(uri, target, fn, size, common)
        self._changed()
        return made

    def remove(self, uri: str) -> None:
        """Unregister the resource or template registered at exactly `uri` (KeyError if none)."""
        if uri in self._static:
            del self._static[uri]
        elif uri in self._templates:
            del self._templates[uri]
        else:
            raise KeyError(uri)
        self._changed()

    def _changed(self) -> None:
        if self._on_change is not None:
            self._on_change()

    # --- lookup ----------------------------------------------------------------------------

    def match(self, uri: str) -> tuple[Resource | ResourceTemplate, dict[str, Any]] | None:
        """What serves `uri` and the converted template arguments, or None.

        A static resource wins; then templates in registration order. A template whose value
        is unsafe (see `_safe_value`) or does not convert to the parameter's type does not
        match, and the next template is tried.
        """
        static = self._static.get(uri)
        if static is not None:
            return static, {}
        for compiled in self._templates.values():
            found = compiled.pattern.fullmatch(uri)
            if found is None:
                continue
            arguments = _arguments(compiled, found)
            if arguments is not None:
                return compiled.template, arguments
        return None

    def exists(self, uri: str) -> bool:
        """Whether a read of `uri` would find a resource (for refusing nonsense subscriptions)."""
        return self.match(uri) is not None

    def page(self, cursor: str | None, size: int) -> tuple[list[Resource], str | None]:
        """One page of resources and the cursor of the next (None on the last page)."""
        return _page(list(self._static.values()), cursor, size)

    def template_page(
        self, cursor: str | None, size: int
    ) -> tuple[list[ResourceTemplate], str | None]:
        """One page of templates and the cursor of the next (None on the last page)."""
        return _page([c.template for c in self._templates.values()], cursor, size)

    # --- reading ---------------------------------------------------------------------------

    async def read(
        self,
        uri: str,
        *,
        inject: Mapping[str, Any] | None = None,
        options: ResultOptions | None = None,
    ) -> list[Contents]:
        """The contents of `uri`, from the static value or the function's return value:

        | value                              | contents                                          |
        |------------------------------------|---------------------------------------------------|
        | str                                | one text item, `mime_type` or text/plain          |
        | bytes                              | one blob, `mime_type` or the sniffed type         |
        | Contents, or a list of Contents /  | as they are; embedded resources in a list keep    |
        | EmbeddedResource                   | their own URIs                                    |
        | EmbeddedResource (File), Text,     | one item at the requested URI                     |
        | Image, Audio                       |                                                   |
        | anything else JSON-able            | JSON text (`options`), `mime_type` or             |
        |                                    | application/json                                  |

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
        fn = target.fn
        if fn is not None and inject:
            wanted = set(context_params(fn))
            arguments.update({k: v for k, v in inject.items() if k in wanted})
        try:
            if fn is None:
                assert isinstance(target, Resource)
                value = target.value
            elif _is_async(fn):
                value = await fn(**arguments)
            else:
                value = await run_in_worker(functools.partial(fn, **arguments))
                if inspect.isawaitable(value):
                    value = await value
            return _to_contents(value, uri, target.mime_type, options)
        except ResourceNotFound:
            raise
        except ResourceError as exc:  # the function (or safe_join) refused: sent as it is
            log_refusal(f"reading resource {uri!r}", exc)
            raise
        except FileNotFoundError:
            raise ResourceNotFound(uri) from None
        except ClientCapabilityError as exc:
            log_refusal(f"reading resource {uri!r}", exc)
            if exc.required is not None:
                raise  # stateless: the server answers -32021
            raise RpcError(INTERNAL_ERROR, f"Cannot read {uri}: {exc}") from None
        except Exception as exc:
            log.error("reading resource %r failed", uri, exc_info=exc)
            raise RpcError(INTERNAL_ERROR, f"Internal error while reading {uri}") from None


def _arguments(compiled: _Compiled, found: re.Match[str]) -> dict[str, Any] | None:
    arguments: dict[str, Any] = {}
    for name, raw in zip(compiled.template.variables, found.groups(), strict=True):
        value = _safe_value(raw)
        if value is None:
            return None
        adapter = compiled.adapters.get(name)
        if adapter is not None:
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


def _static_value(value: Any, what: str) -> Any:
    """Check a static value once, at registration, so that reading it cannot fail."""
    if isinstance(value, bytearray | memoryview):
        return bytes(value)
    if isinstance(value, str | bytes | Contents | EmbeddedResource | Text | Image | Audio):
        return value
    try:
        encoding.dumps(value, ResultOptions())
    except (encoding.EncodeError, encoding.BlockInValue) as exc:
        raise TypeError(f"{what}: a static value must be text, bytes or JSON-able: {exc}") from None
    return value


def _to_contents(
    value: Any, uri: str, declared: str | None, options: ResultOptions
) -> list[Contents]:
    """A read's value as contents (the table in `Resources.read`).

    The declared MIME type wins; otherwise a default by kind of value.
    """
    if isinstance(value, str):
        return [Contents(uri, text=value, mime_type=declared or DEFAULT_TEXT_TYPE)]
    if isinstance(value, bytes | bytearray | memoryview):
        raw = bytes(value)
        found = declared or mime.sniff(raw) or DEFAULT_BINARY_TYPE
        return [Contents(uri, blob=raw, mime_type=found)]
    if isinstance(value, Contents):
        return [value]
    if isinstance(value, EmbeddedResource | Text | Image | Audio):
        # A single block stands for the resource being read, so it takes the requested URI.
        return [_from_block(value, uri, declared)]
    if isinstance(value, list | tuple) and any(_is_item(v) for v in value):
        if not all(_is_item(v) for v in value):
            raise TypeError("a list of contents may hold only Contents and EmbeddedResource")
        # In a list, each embedded resource is a resource of its own and keeps its URI.
        return [v if isinstance(v, Contents) else _from_block(v, None, None) for v in value]
    raw_json = encoding.dumps(value, options, indent=options.json_indent)
    return [Contents(uri, text=raw_json.decode(), mime_type=declared or DEFAULT_JSON_TYPE)]


def _is_item(value: Any) -> bool:
    return isinstance(value, Contents | EmbeddedResource)


def _from_block(
    value: EmbeddedResource | Text | Image | Audio, uri: str | None, declared: str | None
) -> Contents:
    if isinstance(value, EmbeddedResource):
        return Contents(
            uri or value.uri,
            text=value.text,
            blob=value.blob,
            mime_type=value.mime_type or declared,
            meta=value.resource_meta,
        )
    if uri is None:  # pragma: no cover - lists take only Contents and EmbeddedResource
        raise TypeError("a content block in a list needs its own URI")
    if isinstance(value, Text):
        return Contents(uri, text=value.text, mime_type=declared or DEFAULT_TEXT_TYPE)
    return Contents(uri, blob=value.data, mime_type=value.mime_type)
