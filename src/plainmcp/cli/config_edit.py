"""Adding and removing one server in a host's config text, in the host's format (sans-I/O).

JSON and JSONC go through jsonc.Editor (every other byte kept); TOML through tomlkit, which keeps
comments and layout and is loaded only here (`pip install 'plainmcp[install]'`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from plainmcp.cli.host_configs import Host
from plainmcp.cli.jsonc import Editor, NotAnObject, SyntaxProblem
from plainmcp.cli.usage import UsageError

if TYPE_CHECKING:
    from tomlkit.items import Table


class Malformed(ValueError):
    """The file cannot be read as the host's format: never written over."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


class Exists(ValueError):
    """A server of that name is there already (replaced only with --force)."""


def _editor(host: Host, text: str) -> Editor:
    try:
        return Editor(text, comments=host.format == "jsonc", trailing_commas=host.trailing_commas)
    except SyntaxProblem as exc:
        raise Malformed(exc.reason, exc.line) from None


def _tomlkit() -> Any:
    try:
        import tomlkit
    except ImportError:
        raise UsageError(
            "editing TOML needs tomlkit, which is not installed: pip install 'plainmcp[install]'"
        ) from None
    return tomlkit


def _toml_table(host: Host, text: str, path: tuple[str, ...], create: bool) -> tuple[Any, Any]:
    """The parsed document and the table at `path` (made when `create`, else None if absent)."""
    import re
    import tomllib

    try:  # the standard library's reader says where, for every kind of mistake
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        where = re.search(r" \(at line (\d+), column \d+\)$", str(exc))
        reason = str(exc)[: where.start()] if where else str(exc)
        raise Malformed(reason, int(where.group(1)) if where else 0) from None
    except RecursionError:  # arrays or inline tables nested deeper than Python recurses
        raise Malformed(
            "arrays or inline tables are nested deeper than Python's TOML reader can follow", 0
        ) from None
    tomlkit = _tomlkit()
    doc = tomlkit.parse(text)
    table: Any = doc
    for key in path:
        if key not in table:
            if not create:
                return doc, None
            table.add(key, tomlkit.table(is_super_table=True))
        table = table[key]
        if not hasattr(table, "keys"):
            raise Malformed(f"{key} is not a table", 0)
    return doc, table


def _toml_value(value: dict[str, Any]) -> Table:
    tomlkit = _tomlkit()
    table: Table = tomlkit.table()
    for key, item in value.items():
        if isinstance(item, dict):
            sub = tomlkit.table()
            for k, v in item.items():
                sub.add(k, v)
            table.add(key, sub)
        else:
            table.add(key, item)
    return table


def _newlines_as(original: str, text: str) -> str:
    """tomlkit writes the lines it adds with \\n: in a file whose every line ends with \\r\\n,
    so do these (a file of mixed line ends is left as tomlkit gives it)."""
    if "\n" not in original or original.count("\n") != original.count("\r\n"):
        return text
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


def existing(host: Host, text: str, path: tuple[str, ...], name: str) -> Any:
    """The entry named `name` now, or None (raises Malformed for a file it cannot read)."""
    if host.format == "toml":
        _, table = _toml_table(host, text, path, create=False)
        return None if table is None or name not in table else table[name].unwrap()
    try:
        return _editor(host, text).get(path, name)
    except NotAnObject as exc:
        raise Malformed(str(exc).split(": ", 1)[1], exc.line) from None


def add(
    host: Host, text: str, path: tuple[str, ...], name: str, value: dict[str, Any], *, force: bool
) -> str:
    """`text` with the server `name` set to `value`; Exists unless `force` when it is there."""
    if existing(host, text, path, name) is not None and not force:
        raise Exists(name)
    if host.format == "toml":
        doc, table = _toml_table(host, text, path, create=True)
        table[name] = _toml_value(value)  # in the old one's place, when there was one
        dumped: str = _tomlkit().dumps(doc)
        return _newlines_as(text, dumped)
    return _editor(host, text).set(path, name, value)


def remove(host: Host, text: str, path: tuple[str, ...], name: str) -> str | None:
    """`text` without the server `name`, or None when there is none of that name."""
    if existing(host, text, path, name) is None:
        return None
    if host.format == "toml":
        doc, table = _toml_table(host, text, path, create=False)
        del table[name]
        dumped = _newlines_as(text, _tomlkit().dumps(doc))
        # tomlkit leaves the blank line it put before the table it added.
        newline = "\r\n" if dumped.endswith("\r\n") else "\n"
        return dumped.rstrip("\r\n") + newline if dumped.strip() else ""
    return _editor(host, text).remove(path, name)
