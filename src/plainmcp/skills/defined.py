"""Skills defined in Python: a name, a description and the SKILL.md body, plus files given as
text or bytes. Their SKILL.md is written here (frontmatter that parses back to exactly the
fields given) and every file is served from memory, so its digest never goes stale."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from plainmcp.skills import frontmatter as fm
from plainmcp.skills.folder import mime_type
from plainmcp.skills.frontmatter import SkillError
from plainmcp.skills.skill import SKILL_MD, Skill, SkillFile, digest, file_uri, make, segments

__all__ = ["define"]


def define(
    name: str,
    *,
    description: str,
    body: str,
    files: Mapping[str, str | bytes] | None = None,
    frontmatter: Mapping[str, Any] | None = None,
    prefix: tuple[str, ...] = (),
) -> Skill:
    """The skill `name`, served at `skill://<prefix>/<name>/SKILL.md`; SkillError if it cannot
    be served (a bad name, a path that leaves the skill, over the limits...)."""
    where = "/".join((*prefix, str(name)))
    extra = dict(frontmatter or {})
    for given in ("name", "description"):
        if given in extra:
            raise SkillError(f"{where}: give {given} as its own argument, not in frontmatter")
    head = {"name": name, "description": description, **extra}
    fm.check(head, where)
    if not isinstance(body, str):
        raise SkillError(f"{where}: body must be a str (the SKILL.md after its frontmatter)")
    contents: dict[tuple[str, ...], bytes] = {(SKILL_MD,): fm.write(head, body, where).encode()}
    for path, content in (files or {}).items():
        parts = segments(path, f"{where}: file")
        if parts == (SKILL_MD,):
            raise SkillError(f"{where}: SKILL.md is written from body=, not given in files")
        if isinstance(content, str):
            content = content.encode()
        if not isinstance(content, bytes):
            raise SkillError(f"{where}: file {path!r} must be str or bytes")
        contents[parts] = content
    for parts in contents:
        if any(parts[:n] in contents for n in range(1, len(parts))):
            raise SkillError(f"{where}: {'/'.join(parts)!r} is inside a file, not a folder")
    served = (*prefix, name)
    made = [
        SkillFile(
            path=parts,
            uri=file_uri(served, parts),
            digest=digest(data),
            size=len(data),
            mime_type=mime_type(parts[-1], data),
            read=_constant(data),
        )
        for parts, data in contents.items()
    ]
    return make(served, head, made)


def _constant(data: bytes) -> Callable[[], bytes]:
    return lambda: data
