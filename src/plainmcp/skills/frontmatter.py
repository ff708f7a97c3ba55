"""SKILL.md frontmatter: found, parsed and checked as hosts read it, and written for skills
defined in Python. No I/O.

The entry's `frontmatter` must be identical to what a host parses from the file, and hosts are
mostly JavaScript reading YAML 1.2. PyYAML reads YAML 1.1, where `yes`, `on` and `2024-01-01`
are a bool and a date, so the loader here keeps only the YAML 1.2 core schema's implicit types
(null, true/false, decimal, 0o and 0x integers, floats): everything else is a string, as a host
reads it. What JSON cannot carry (NaN, infinities, binary, keys that are not strings, a key
twice) is refused with the line it is on. PyYAML is imported on the first parse (the `skills`
extra), never by `import plainmcp`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cache
from typing import Any, ClassVar

__all__ = ["NAME", "SkillError", "check", "parse", "split", "write"]

NAME = re.compile(r"(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?")
"""The Agent Skills naming rule: 1-64 lowercase letters, digits and hyphens, no hyphen first,
last or twice in a row."""
DESCRIPTION_MAX = 1024
RESERVED_METADATA = "io.modelcontextprotocol/"
"""Keys of `metadata` kept for MCP extensions (SEP-2640 defines none: refused)."""

_BLOCK = re.compile(r"---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)")
_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9 ._/-]*")
_KEY = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


class SkillError(ValueError):
    """A skill that cannot be served as it is (raised when it is loaded or added)."""


def split(text: str) -> tuple[str, str] | None:
    """(the frontmatter's YAML, the body after it), or None when the text starts with none."""
    if text.startswith("\ufeff"):
        text = text[1:]
    found = _BLOCK.match(text)
    if found is None:
        return None
    return found.group(1), text[found.end() :]


def parse(text: str, where: str) -> dict[str, Any]:
    """The frontmatter of a SKILL.md's text as a JSON object; SkillError saying what is wrong."""
    block = split(text)
    if block is None:
        raise SkillError(f"{where}: SKILL.md must begin with YAML frontmatter between --- lines")
    yaml = _yaml()
    try:
        value = yaml.load(block[0], Loader=_loader())  # a SafeLoader's subclass
    except yaml.YAMLError as exc:
        raise SkillError(f"{where}: the frontmatter is not valid YAML: {exc}") from None
    except _Refused as exc:
        raise SkillError(f"{where}: the frontmatter {exc}") from None
    if not isinstance(value, dict):
        raise SkillError(f"{where}: the frontmatter must be a mapping of fields")
    return value


def check(frontmatter: Mapping[str, Any], where: str) -> None:
    """SkillError unless `name` and `description` follow the Agent Skills rules and `metadata`
    uses no reserved key."""
    name = frontmatter.get("name")
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise SkillError(
            f"{where}: name must be 1-64 lowercase letters, digits and hyphens (no hyphen"
            f" first, last or twice in a row), not {name!r}"
        )
    description = frontmatter.get("description")
    if not isinstance(description, str) or not description.strip():
        raise SkillError(f"{where}: description must be a non-empty string")
    if len(description) > DESCRIPTION_MAX:
        raise SkillError(
            f"{where}: description has {len(description)} characters, over {DESCRIPTION_MAX}"
        )
    metadata = frontmatter.get("metadata")
    if isinstance(metadata, dict):
        taken = sorted(k for k in metadata if k.startswith(RESERVED_METADATA))
        if taken:
            raise SkillError(
                f"{where}: metadata keys under {RESERVED_METADATA!r} are reserved for MCP"
                f" extensions: {', '.join(taken)}"
            )


def write(frontmatter: Mapping[str, Any], body: str, where: str) -> str:
    """A SKILL.md's text: `frontmatter` as YAML that parses back to exactly it, then `body`."""
    lines = ["---"]
    for key, value in frontmatter.items():
        if not isinstance(key, str) or not _KEY.fullmatch(key):
            raise SkillError(f"{where}: frontmatter key {key!r} is not a plain name")
        lines.append(f"{key}: {_scalar(value, where)}")
    text = "\n".join([*lines, "---", ""]) + ("\n" + body if body else "")
    if parse(text, where) != dict(frontmatter):  # a value YAML would read otherwise
        raise SkillError(f"{where}: the frontmatter does not survive YAML: {dict(frontmatter)}")
    return text


def _scalar(value: Any, where: str) -> str:
    """One value on one line: plain when YAML reads it back as the same string, else JSON
    (a YAML 1.2 flow form)."""
    if (
        isinstance(value, str)
        and _PLAIN.fullmatch(value)
        and value.lower() not in _WORDS
        and ": " not in value
        and not value.endswith(" ")
    ):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise SkillError(f"{where}: frontmatter value {value!r} is not JSON: {exc}") from None


_WORDS = frozenset({"null", "true", "false", "yes", "no", "on", "off", "y", "n"})


class _Refused(Exception):
    """A YAML value JSON cannot carry (turned into a SkillError with its place)."""


def _yaml() -> Any:
    try:
        import yaml  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - the skills extra installs it
        raise SkillError(
            "reading SKILL.md frontmatter needs PyYAML: pip install 'plainmcp[skills]'"
        ) from None
    return yaml


_INT = re.compile(r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_NOT_JSON = re.compile(r"[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)")


@cache
def _loader() -> type:
    """A SafeLoader with the YAML 1.2 core schema's implicit types and JSON's values only."""
    yaml = _yaml()

    class Loader(yaml.SafeLoader):  # type: ignore[misc, name-defined]
        yaml_implicit_resolvers: ClassVar[dict[str, list[tuple[str, re.Pattern[str]]]]] = {}

        def construct_mapping(self, node: Any, deep: bool = False) -> dict[str, Any]:
            out: dict[str, Any] = {}
            for key_node, value_node in node.value:
                key = self.construct_object(key_node, deep=True)
                line = key_node.start_mark.line + 1
                if not isinstance(key, str):
                    raise _Refused(f"has a key that is not a string on line {line}: {key!r}")
                if key in out:
                    raise _Refused(f"has the key {key!r} twice (line {line})")
                out[key] = self.construct_object(value_node, deep=True)
            return out

    def integer(loader: Any, node: Any) -> int:
        text = loader.construct_scalar(node)
        base = 16 if text.startswith("0x") else 8 if text.startswith("0o") else 10
        return int(text[2:] if base != 10 else text, base)

    def refused(loader: Any, node: Any) -> None:
        raise _Refused(f"has a value JSON cannot carry on line {node.start_mark.line + 1}")

    resolvers = (
        ("tag:yaml.org,2002:null", re.compile(r"~|null|Null|NULL|"), "~nN"),
        ("tag:yaml.org,2002:bool", re.compile(r"true|True|TRUE|false|False|FALSE"), "tTfF"),
        ("tag:yaml.org,2002:int", re.compile(_INT.pattern), "-+0123456789"),
        ("tag:yaml.org,2002:float", re.compile(_FLOAT.pattern), "-+.0123456789"),
        ("tag:plainmcp,skills:refused", re.compile(_NOT_JSON.pattern), "-+."),
    )
    for tag, pattern, first in resolvers:  # PyYAML matches at the start: anchor the end
        Loader.add_implicit_resolver(tag, re.compile(f"(?:{pattern.pattern})$"), list(first))
    Loader.add_implicit_resolver("tag:yaml.org,2002:null", re.compile("$"), [""])
    Loader.add_constructor("tag:yaml.org,2002:int", integer)
    for tag in ("binary", "timestamp", "set", "omap", "pairs"):
        Loader.add_constructor(f"tag:yaml.org,2002:{tag}", refused)
    Loader.add_constructor("tag:plainmcp,skills:refused", refused)
    return Loader
