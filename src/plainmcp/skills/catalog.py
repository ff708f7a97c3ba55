"""The skills one server serves: looked up by URI, listed in pages, and their folders as
directory resources (`resources/directory/read`). No I/O.

Skills are refused here when they cannot be served side by side: the same URI twice, a skill
inside another's folder that is not among its files (the enclosing skill's `resources` must be
complete; so no file's URI is ever another skill's folder).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import unquote

from plainmcp.skills.frontmatter import SkillError
from plainmcp.skills.skill import SCHEME, Skill, SkillFile
from plainmcp.wire.cursor import page as cursor_page

__all__ = ["DIRECTORY", "Catalog"]

DIRECTORY = "inode/directory"
"""The MIME type of a directory resource (SEP-2640)."""


class Catalog:
    """Skills in the order they were added, their files and folders by URI."""

    def __init__(self) -> None:
        self.skills: list[Skill] = []
        self.by_uri: dict[str, Skill] = {}
        self.files: dict[str, SkillFile] = {}
        """Every file of every skill once (a nested skill's files are its enclosing one's too)."""
        self.folders: dict[str, list[str]] = {}
        """Each folder's URI: its direct children's URIs (files and folders), in order."""

    def add(self, skills: Iterable[Skill]) -> list[SkillFile]:
        """Add `skills` (all or none); the files not served before, to register as resources."""
        new = list(skills)
        every = [*self.skills, *new]
        _check(every)
        fresh: dict[str, SkillFile] = {}
        for skill in new:
            for file in skill.files:
                known = self.files.get(file.uri) or fresh.get(file.uri)
                if known is None:
                    fresh[file.uri] = file
                elif known.digest != file.digest:
                    raise SkillError(f"{file.uri} is served twice, with different contents")
        folders = _folders([*self.files, *fresh])
        self.skills, self.folders = every, folders
        self.by_uri.update((s.uri, s) for s in new)
        self.files.update(fresh)
        return list(fresh.values())

    def page(self, cursor: object, size: int) -> tuple[Sequence[Skill], str | None]:
        """One page of skills, whole entries only, and the next page's cursor (None: last)."""
        return cursor_page(self.skills, cursor, size)

    def children(
        self, uri: str, cursor: object, size: int
    ) -> tuple[list[dict[str, Any]], str | None]:
        """One page of the folder `uri`'s direct children as Resource objects; KeyError when
        `uri` is no folder of a skill."""
        found, next_cursor = cursor_page(self.folders[uri], cursor, size)
        return [_child(child, self.files.get(child)) for child in found], next_cursor


def _check(skills: list[Skill]) -> None:
    seen: set[str] = set()
    for skill in skills:
        if skill.uri in seen:
            raise SkillError(f"two skills are served at {skill.uri}")
        seen.add(skill.uri)
    for outer in skills:
        listed = {f.uri for f in outer.files}
        for inner in skills:
            if inner.uri.startswith(outer.root + "/") and inner.uri not in listed:
                raise SkillError(
                    f"{inner.uri} is inside the skill {outer.uri} but not one of its files"
                )


def _folders(uris: Iterable[str]) -> dict[str, list[str]]:
    """Every folder above a file, with its children in path order."""
    folders: dict[str, dict[str, None]] = {}
    for uri in sorted(set(uris)):
        parts = uri[len(SCHEME) :].split("/")
        for depth in range(1, len(parts)):
            folder = SCHEME + "/".join(parts[:depth])
            folders.setdefault(folder, {})[SCHEME + "/".join(parts[: depth + 1])] = None
    return {k: sorted(v) for k, v in folders.items()}


def _child(uri: str, file: SkillFile | None) -> dict[str, Any]:
    name = unquote(uri.rsplit("/", 1)[1])
    if file is None:
        return {"uri": uri, "name": name, "mimeType": DIRECTORY}
    return {"uri": uri, "name": name, "mimeType": file.mime_type, "size": file.size}
