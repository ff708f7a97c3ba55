"""A SKILL.md's YAML frontmatter as the client reads it to verify a skill. No I/O.

An entry's `frontmatter` is JSON written by the server; the file is YAML that the client parses
here and compares with it field by field (skills.py). PyYAML alone reads YAML 1.1, where `yes`
is a bool and `2024-01-01` a date, which JSON never carries: a SKILL.md with `version: 2024-01-01`
would fail against its honest entry. So the loader keeps only the YAML 1.2 core schema's implicit
types (null, booleans, integers, floats) and reads every other scalar as a string, as the YAML 1.2
parsers of the JavaScript hosts and servers do. PyYAML is imported on the first parse (the
`skills` extra), never by `import plainmcp`.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any, ClassVar

__all__ = ["FrontmatterError", "parse"]

_BLOCK = re.compile(r"---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)")
"""The frontmatter: a `---` line first, then YAML up to the next `---` line."""


class FrontmatterError(ValueError):
    """The text has no frontmatter, or it is not a YAML mapping JSON can carry."""


def parse(text: str) -> tuple[dict[str, Any], str]:
    """The frontmatter at the start of a SKILL.md's `text` as a JSON object, and the body
    after it."""
    text = text.removeprefix("\ufeff")
    found = _BLOCK.match(text)
    if found is None:
        raise FrontmatterError("it does not begin with YAML frontmatter between --- lines")
    yaml = _yaml()
    try:
        value = yaml.load(found.group(1), Loader=_loader())  # a SafeLoader subclass
    except yaml.YAMLError as exc:
        raise FrontmatterError(f"its frontmatter is not valid YAML: {exc}") from None
    if not isinstance(value, dict):
        raise FrontmatterError("its frontmatter is not a mapping of fields")
    return value, text[found.end() :]


def _yaml() -> Any:
    try:
        import yaml  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - the skills extra installs it
        raise FrontmatterError(
            "verifying SKILL.md frontmatter needs PyYAML: pip install 'plainmcp[skills]'"
        ) from None
    return yaml


_CORE = (  # the YAML 1.2 core schema's implicit scalars (yaml.org/spec/1.2.2 §10.3.2)
    ("tag:yaml.org,2002:null", r"~|null|Null|NULL|", "~nN"),
    ("tag:yaml.org,2002:bool", r"true|True|TRUE|false|False|FALSE", "tTfF"),
    ("tag:yaml.org,2002:int", r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+", "-+0123456789"),
    (
        "tag:yaml.org,2002:float",
        r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)",
        "-+.0123456789",
    ),
)


@cache
def _loader() -> type:
    """A SafeLoader resolving plain scalars by the YAML 1.2 core schema, not YAML 1.1's."""
    yaml = _yaml()

    class Loader(yaml.SafeLoader):  # type: ignore[misc, name-defined]
        yaml_implicit_resolvers: ClassVar[dict[str, list[tuple[str, re.Pattern[str]]]]] = {}

    def integer(loader: Any, node: Any) -> int:
        text = loader.construct_scalar(node)
        if text[:2] in ("0o", "0x"):
            return int(text[2:], 8 if text[1] == "o" else 16)
        return int(text)

    for tag, pattern, first in _CORE:  # PyYAML matches at the start only: anchor the end
        Loader.add_implicit_resolver(tag, re.compile(f"(?:{pattern})$"), list(first))
    Loader.add_implicit_resolver("tag:yaml.org,2002:null", re.compile("$"), [""])
    Loader.add_constructor("tag:yaml.org,2002:int", integer)
    return Loader
