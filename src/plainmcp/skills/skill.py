"""A skill as plain data: its path, frontmatter and files, each file's URI, digest and size,
and the entry `skills/list` and `skills/get` send. No I/O: where a file's bytes come from is
its `source` (skills/folder.py reads the ones on disk).

A skill at the path `acme/billing/refunds` is served as `skill://acme/billing/refunds/SKILL.md`
and its files under `skill://acme/billing/refunds/`; the last segment is its name. Every
segment and file name is percent-encoded in the URI but for the unreserved characters, so a
name with a space or a colon is still one segment and never a port or a query.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from plainmcp.skills.frontmatter import NAME, SkillError

__all__ = [
    "MAX_BYTES",
    "MAX_FILES",
    "SCHEME",
    "SKILL_MD",
    "Skill",
    "SkillFile",
    "digest",
    "file_uri",
    "segments",
]

SCHEME = "skill://"
SKILL_MD = "SKILL.md"
MAX_FILES = 512
"""SEP-2640's limits per skill, SKILL.md included: hosts must accept up to these."""
MAX_BYTES = 16 * 1024 * 1024
MARKDOWN = "text/markdown"


def digest(data: bytes) -> str:
    """`sha256:` and the 64 lowercase hex digits of the bytes' SHA-256."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def segments(path: str, what: str) -> tuple[str, ...]:
    """A `/`-separated path's segments; SkillError for an empty one, `.` or `..`."""
    parts = tuple(path.split("/"))
    if not path or any(p in ("", ".", "..") or "\\" in p or "\x00" in p for p in parts):
        raise SkillError(f"{what}: {path!r} is not a relative path of named segments")
    return parts


def file_uri(skill_path: tuple[str, ...], file_path: tuple[str, ...]) -> str:
    """`skill://<skill-path>/<file-path>`, each segment percent-encoded."""
    return SCHEME + "/".join(quote(p, safe="-._~") for p in (*skill_path, *file_path))


@dataclass(frozen=True, slots=True)
class SkillFile:
    """One file of a skill, as its entry lists it and resources/read serves it."""

    path: tuple[str, ...]
    """Its path within the skill, by segment (("references", "GUIDE.md"))."""
    uri: str
    digest: str
    size: int
    mime_type: str
    read: Callable[[], bytes]
    """Its bytes now; raises when they are no longer the bytes the digest names."""

    def resource(self) -> dict[str, Any]:
        """Its `{uri, digest, size}` in the entry's `resources`."""
        return {"uri": self.uri, "digest": self.digest, "size": self.size}


@dataclass(frozen=True, slots=True)
class Skill:
    """One skill: where it is served, its frontmatter as the SKILL.md has it, its files (the
    SKILL.md first, then the others by path)."""

    path: tuple[str, ...]
    frontmatter: Mapping[str, Any]
    files: tuple[SkillFile, ...]

    @property
    def name(self) -> str:
        return self.path[-1]

    @property
    def uri(self) -> str:
        """The URI of its SKILL.md, which names the skill."""
        return self.files[0].uri

    @property
    def root(self) -> str:
        """The URI of its folder (a directory resource): the SKILL.md's without `/SKILL.md`."""
        return self.uri[: -len(SKILL_MD) - 1]

    @property
    def description(self) -> str:
        return str(self.frontmatter["description"])

    def entry(self) -> dict[str, Any]:
        """The `Skill` entry of skills/list and skills/get."""
        return {
            "uri": self.uri,
            "frontmatter": dict(self.frontmatter),
            "resources": [f.resource() for f in self.files],
        }


def make(path: tuple[str, ...], frontmatter: Mapping[str, Any], files: list[SkillFile]) -> Skill:
    """A Skill, checked: the name is the path's last segment, SKILL.md is there, and the files
    are within SEP-2640's limits (SkillError naming the skill otherwise)."""
    where = "/".join(path)
    name = frontmatter.get("name")
    if name != path[-1]:
        raise SkillError(f"{where}: the frontmatter names the skill {name!r}, not {path[-1]!r}")
    if not NAME.fullmatch(path[-1]):
        raise SkillError(f"{where}: {path[-1]!r} is not a skill name")
    first = [f for f in files if f.path == (SKILL_MD,)]
    if not first:
        raise SkillError(f"{where}: a skill needs a SKILL.md at its root")
    ordered = (*first, *sorted((f for f in files if f.path != (SKILL_MD,)), key=_by_path))
    if len(ordered) > MAX_FILES:
        raise SkillError(
            f"{where}: {len(ordered)} files, over the {MAX_FILES} a skill may have (SEP-2640)"
        )
    total = sum(f.size for f in ordered)
    if total > MAX_BYTES:
        raise SkillError(
            f"{where}: {total} bytes of files, over the {MAX_BYTES} (16 MiB) a skill may have"
            " (SEP-2640)"
        )
    return Skill(path, dict(frontmatter), ordered)


def _by_path(file: SkillFile) -> tuple[str, ...]:
    return file.path
