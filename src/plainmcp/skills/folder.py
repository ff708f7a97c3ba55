"""Skills from a folder on disk: every folder under it holding a SKILL.md is a skill (nested
ones too), served with all the files beneath it.

Read once, at load, and refused then with a SkillError that says which skill and why (bad
frontmatter, a name that is not its folder's, over SEP-2640's 512 files or 16 MiB, a link that
leaves the folder). What is served is only ever what was loaded: a read opens the file again,
checks it is still inside the folder, and refuses bytes whose size or digest changed since (the
entry a host holds would not match them); a file removed since is not found. Names starting
with `.` and `__pycache__` folders are not part of a skill.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from plainmcp.model import mime
from plainmcp.skills import frontmatter
from plainmcp.skills.frontmatter import SkillError
from plainmcp.skills.skill import (
    MARKDOWN,
    MAX_BYTES,
    MAX_FILES,
    SKILL_MD,
    Skill,
    SkillFile,
    digest,
    file_uri,
    make,
)

__all__ = ["load", "mime_type"]

Files = dict[tuple[str, ...], Path]
"""A folder's files by their path under it (segments), each at its real location."""


def load(folder: str | os.PathLike[str], prefix: tuple[str, ...] = ()) -> list[Skill]:
    """The skills under `folder` (`folder` itself too when it holds a SKILL.md), served under
    `prefix`, in path order; SkillError if one cannot be served."""
    given = Path(folder)
    if not given.is_dir():
        raise SkillError(f"{given}: not a folder")
    root = given.resolve(strict=True)
    files = _walk(root, root, ())
    homes = sorted(path[:-1] for path in files if path[-1] == SKILL_MD)
    if not homes:
        raise SkillError(f"{given}: no skills found (a skill is a folder holding a SKILL.md)")
    # A folder that is itself a skill is served under its own name, its nested skills below.
    base = (*prefix, root.name) if (SKILL_MD,) in files else prefix
    return [_skill(home, (*base, *home), files, root) for home in homes]


def mime_type(name: str, data: bytes) -> str:
    """A file's type: Markdown by its extension, else what its name suggests, else text/plain
    for UTF-8 and application/octet-stream for anything else."""
    if name.lower().endswith((".md", ".markdown")):
        return MARKDOWN
    guessed = mime.from_path(name) or mime.sniff(data)
    if guessed is not None:
        return guessed
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return "application/octet-stream"
    return "text/plain"


def _walk(root: Path, here: Path, at: tuple[str, ...]) -> Files:
    found: Files = {}
    for entry in sorted(os.scandir(here), key=lambda e: e.name):
        if entry.name.startswith(".") or entry.name == "__pycache__":
            continue
        place = "/".join((*at, entry.name))
        path = Path(entry.path)
        if entry.is_symlink():
            target = path.resolve()
            if not target.is_relative_to(root):
                raise SkillError(f"{root}: {place} links outside the folder, to {target}")
            if target.is_dir():
                raise SkillError(f"{root}: {place} links to a folder; skills hold real folders")
            path = target
        if path.is_dir():
            found.update(_walk(root, path, (*at, entry.name)))
        elif path.is_file():
            found[(*at, entry.name)] = path
        else:
            raise SkillError(f"{root}: {place} is not a regular file")
    return found


def _skill(home: tuple[str, ...], served: tuple[str, ...], files: Files, root: Path) -> Skill:
    where = "/".join(served)
    mine = {path[len(home) :]: real for path, real in files.items() if path[: len(home)] == home}
    if len(mine) > MAX_FILES:  # refused before anything is read
        raise SkillError(f"{where}: {len(mine)} files, over the {MAX_FILES} a skill may have")
    total = sum(real.stat().st_size for real in mine.values())
    if total > MAX_BYTES:
        raise SkillError(f"{where}: {total} bytes of files, over the {MAX_BYTES} (16 MiB) allowed")
    made: list[SkillFile] = []
    head = None
    for path, real in mine.items():
        data = real.read_bytes()
        if path == (SKILL_MD,):
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                raise SkillError(f"{where}: SKILL.md is not UTF-8 text") from None
            head = frontmatter.parse(text, where)
            frontmatter.check(head, where)
        sha = digest(data)
        made.append(
            SkillFile(
                path=path,
                uri=file_uri(served, path),
                digest=sha,
                size=len(data),
                mime_type=mime_type(path[-1], data),
                read=_reader(real, root, sha, len(data), "/".join((*served, *path))),
            )
        )
    assert head is not None  # a home holds a SKILL.md
    return make(served, head, made)


def _reader(real: Path, root: Path, sha: str, size: int, place: str) -> Callable[[], bytes]:
    def read() -> bytes:
        now = real.resolve()  # a folder on the way may have become a link since
        if not now.is_relative_to(root):
            raise SkillError(f"{place} is no longer inside the skills folder")
        with open(now, "rb") as file:
            data = file.read(size + 1)
        if len(data) != size or digest(data) != sha:
            raise SkillError(
                f"{place} changed on disk after the server loaded it; the server serves only"
                " the bytes its skills/list entry names (restart it to serve the new ones)"
            )
        return data

    return read
