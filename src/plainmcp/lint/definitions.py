"""Rules on definitions as a client lists them: `$ref` left in a schema, missing descriptions,
tool names some host rejects.

The hosts' name rules are data, each with its source. They are not rows of hosts/profiles.py:
what a host does with a *name* is decided before any result, and the rule is the model API's
as often as the host's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from plainmcp.lint.problems import Problem


@dataclass(frozen=True, slots=True)
class NameRule:
    host: str
    """Who rejects the name (a host, or the model API behind several)."""
    allowed: re.Pattern[str] | None
    """What the tool name must match in full (None: any characters)."""
    max_length: int
    """The longest name the host takes, counted on `shown`."""
    shown: str
    """How the host names the tool to its model: `{server}` and `{tool}` filled in."""
    source: str


_FUNCTION_NAME = re.compile(r"[A-Za-z0-9_-]+")

NAME_RULES: tuple[NameRule, ...] = (
    NameRule(
        host="Claude Code",
        allowed=None,
        max_length=64,
        shown="mcp__{server}__{tool}",
        source="https://github.com/anthropics/claude-code/issues/19882 (the Anthropic API"
        " refuses a tool name over 64 characters, and Claude Code prefixes mcp__SERVER__)",
    ),
    NameRule(
        host="Claude Desktop",
        allowed=_FUNCTION_NAME,
        max_length=64,
        shown="{tool}",
        source="https://github.com/loopwork-ai/iMCP/pull/71 (tool names must match"
        " ^[a-zA-Z0-9_-]{1,64}$)",
    ),
    NameRule(
        host="Cursor",
        allowed=None,
        max_length=59,
        shown="{server}{tool}",
        source="https://github.com/ComposioHQ/composio/issues/2788 (Cursor filters out a tool"
        " whose server name and tool name together reach 60 characters)",
    ),
    NameRule(
        host="the OpenAI API (OpenAI Agents SDK, Codex CLI)",
        allowed=_FUNCTION_NAME,
        max_length=64,
        shown="{tool}",
        source="https://github.com/openai/codex/issues/1289 (the API refuses a function name"
        " over 64 characters) and the API's function name rule, a-z, A-Z, 0-9, underscores and"
        " dashes (as quoted in https://pub.dev/documentation/dart_openai/latest/dart_openai/"
        "OpenAIFunctionModel/name.html)",
    ),
    NameRule(
        host="the Gemini API (Gemini CLI)",
        allowed=re.compile(r"[A-Za-z0-9_.:-]+"),
        max_length=64,
        shown="{tool}",
        source="FunctionDeclaration.name of the Gemini API (a-z, A-Z, 0-9, underscores, colons,"
        " dots and dashes, at most 64 characters), https://pub.dev/documentation/"
        "google_cloud_ai_generativelanguage_v1beta/latest/generativelanguage/"
        "FunctionDeclaration/name.html",
    ),
)


def name_problems(
    tool: str, server: str, rules: tuple[NameRule, ...] = NAME_RULES
) -> list[Problem]:
    """The hosts that would reject `tool` of a server configured under the name `server`."""
    found = []
    for rule in rules:
        shown = rule.shown.format(server=server, tool=tool)
        fix = "rename the tool with @app.tool(name=...)"
        if rule.allowed is not None and not rule.allowed.fullmatch(tool):
            why = f"has characters {rule.host} rejects"
        elif len(shown) > rule.max_length:
            why = (
                f"is {len(shown)} characters as {rule.host} names it ({shown}), over its"
                f" {rule.max_length}"
            )
            if "{server}" in rule.shown:
                fix += ", or install the server under a shorter name (plainmcp install --name)"
        else:
            continue
        found.append(
            Problem(
                "name-rejected", f"tool {tool}", f"{tool!r} {why}; {fix}. Source: {rule.source}"
            )
        )
    return found


def schema_refs(schema: Any, at: str = "$") -> Iterator[str]:
    """Where a schema still holds `$ref`: many clients do not resolve references, and the
    model sees the bare pointer. Property names are names, not keywords, and are skipped."""
    for where, _ in _refs(schema, at):
        yield where


def _refs(schema: Any, at: str = "$") -> Iterator[tuple[str, Any]]:
    """Each `$ref` left in a schema: where it is, and what it points at."""
    if isinstance(schema, list):
        for index, item in enumerate(schema):
            yield from _refs(item, f"{at}[{index}]")
        return
    if not isinstance(schema, Mapping):
        return
    if "$ref" in schema:
        yield at, schema["$ref"]
    for key, value in schema.items():
        if key in ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas"):
            if isinstance(value, Mapping):
                for name, sub in value.items():
                    yield from _refs(sub, f"{at}.{key}.{name}")
        elif key not in ("enum", "const", "default", "examples", "$ref"):
            yield from _refs(value, f"{at}.{key}")


def _recursive(root: Any, pointer: str) -> bool:
    """Whether the definition `pointer` reaches itself through the references in it."""
    from plainmcp.schema.refs import resolve_pointer

    seen: set[str] = set()
    todo = [pointer]
    while todo:
        found, target = resolve_pointer(root, todo.pop())
        for _, ref in _refs(target) if found else ():
            if ref == pointer:
                return True
            if isinstance(ref, str) and ref not in seen:
                seen.add(ref)
                todo.append(ref)
    return False


def ref_problems(subject: str, key: str, schema: Any) -> list[Problem]:
    """One problem per definition a schema still points at, with every place that points at it
    (a recursive type is pointed at from its use and from inside itself: still one problem)."""
    places: dict[str, list[str]] = {}
    for where, ref in _refs(schema):
        places.setdefault(str(ref), []).append(where)
    found = []
    for ref, wheres in places.items():
        said = f"{key} has a $ref to {ref} at {', '.join(wheres)}; many clients do not resolve $ref"
        if _recursive(schema, ref):
            fix = (
                "the type refers to itself, so it cannot be inlined: give it a fixed depth (a"
                " type whose children are another type, without children)"
            )
        else:
            fix = (
                "inline the definition in the schema (plainmcp inlines the schemas it derives"
                " from annotations; this one was written by hand)"
            )
        found.append(
            Problem("schema-ref", subject, f"{said}, so their model sees the pointer: {fix}")
        )
    return found


_ANNOTATIONS = frozenset(
    {
        "description",
        "title",
        "default",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
        "$comment",
    }
)
"""Keywords that say nothing about what a value may be: a schema of only these takes anything."""


def _untyped(schema: Any) -> bool:
    return schema is True or (isinstance(schema, Mapping) and set(schema) <= _ANNOTATIONS)


def _named_in(name: str, text: str) -> bool:
    """Whether `text` names the parameter as a word of its own ("Divide a by b." names a, b)."""
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text) is not None


def tool_problems(tool: Mapping[str, Any], server: str) -> list[Problem]:
    """The rules on one tool definition as tools/list sends it (any revision's rendering)."""
    name = str(tool.get("name"))
    subject = f"tool {name}"
    found = name_problems(name, server)
    for key in ("inputSchema", "outputSchema"):
        found.extend(ref_problems(subject, key, tool.get(key)))
    description = str(tool.get("description") or "")
    if not description.strip():
        found.append(
            Problem(
                "missing-description",
                subject,
                "the tool has no description; give the function a docstring (its first"
                " paragraph is the description the model reads) or @app.tool(description=...)",
            )
        )
    properties = (tool.get("inputSchema") or {}).get("properties")
    if not isinstance(properties, Mapping):
        return found
    for param, schema in properties.items():
        about = f"{subject} parameter {param}"
        if _untyped(schema):
            found.append(
                Problem(
                    "untyped-parameter",
                    about,
                    "the parameter's schema has no type, so the model is told it takes any"
                    f" value (`plainmcp list` shows it as any); annotate it ({param}: int, say),"
                    ' or give it a "type" in a hand-written input schema',
                )
            )
        has = isinstance(schema, Mapping) and str(schema.get("description") or "").strip()
        if not has and not _named_in(param, description):
            found.append(
                Problem(
                    "missing-description",
                    about,
                    "the parameter has no description and the tool's description does not name"
                    f" it; describe it in the docstring's Args: section ({param}: what it is),"
                    f' with Annotated[..., "what it is"], or name it in the tool\'s description',
                )
            )
    return found
