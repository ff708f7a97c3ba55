"""Skills as the client holds them (SEP-2640, `io.modelcontextprotocol/skills`): the entries of
`skills/list` and `skills/get`, and the checks a file read must pass before its content is used.
No I/O: surface.py sends the requests and hands the results here.

An entry is a manifest: each file's URI, `sha256:` digest and byte size, and the SKILL.md's
frontmatter. A read whose bytes differ in size or digest, a SKILL.md whose frontmatter differs
from the entry's in any field, or a read of a file the entry does not list, raises
SkillVerificationError and the content is not returned.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from plainmcp.client.errors import bad_reply

# The skills methods need only the server's declaration; a client tells a server it loads
# skills with `Client(..., extensions={SKILLS_EXTENSION: {}})`.
DYNAMIC: Literal["dynamic"] = "dynamic"
"""An entry's `resources` when the server generates the skill and publishes no digests."""

_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")

Check = Literal["size", "digest", "frontmatter", "unlisted"]


class SkillVerificationError(Exception):
    """What the server sent for a skill's file is not what its entry describes: the content
    is not used. `check` says which check failed; `uri` is the file's."""

    def __init__(self, uri: str, check: Check, message: str) -> None:
        super().__init__(f"{uri}: {message}")
        self.uri = uri
        self.check = check


@dataclass(frozen=True, slots=True)
class SkillFileInfo:
    """One file of a skill as its entry lists it: where, its SHA-256 and its length in bytes."""

    uri: str
    digest: str
    size: int


@dataclass(frozen=True, slots=True)
class SkillInfo:
    """A skill's entry: the URI of its SKILL.md, its frontmatter as the server rendered it, and
    its files (`"dynamic"`: generated, so nothing to verify sizes and digests against)."""

    uri: str
    frontmatter: dict[str, Any]
    resources: tuple[SkillFileInfo, ...] | Literal["dynamic"]

    @property
    def name(self) -> str:
        return str(self.frontmatter["name"])

    @property
    def description(self) -> str:
        return str(self.frontmatter["description"])

    @property
    def root(self) -> str:
        """The skill's directory: its files' URIs start with this and a `/`."""
        return self.uri.removesuffix("/SKILL.md")

    def file(self, path: str) -> str:
        """The URI of the file at `path` relative to the skill's root (a URI is kept as it is)."""
        return path if "://" in path else f"{self.root}/{path.lstrip('/')}"


@dataclass(frozen=True, slots=True)
class LoadedSkill:
    """A SKILL.md read and verified against `info`: its text, frontmatter and body."""

    info: SkillInfo
    text: str
    frontmatter: dict[str, Any]
    body: str


def parse_skill(value: object) -> SkillInfo:
    """One entry of `skills/list` or `skills/get`; McpError when it is not a valid entry (one
    a client must not load: no `resources`, a bad digest or size, a file outside the skill)."""
    if not isinstance(value, dict):
        raise bad_reply("a skill entry must be an object")
    uri, fm, resources = value.get("uri"), value.get("frontmatter"), value.get("resources")
    if not isinstance(uri, str) or not uri.endswith("/SKILL.md"):
        raise bad_reply(f"a skill's uri must be the URI of its SKILL.md, not {uri!r}")
    if not isinstance(fm, dict) or not all(
        isinstance(fm.get(k), str) for k in ("name", "description")
    ):
        raise bad_reply(f"skill {uri}: frontmatter must be an object with a name and description")
    if resources == DYNAMIC:
        return SkillInfo(uri, fm, DYNAMIC)
    if not isinstance(resources, list):
        raise bad_reply(f"skill {uri}: resources must be an array or 'dynamic', not {resources!r}")
    root = uri.removesuffix("SKILL.md")
    files = tuple(_parse_file(item, uri, root) for item in resources)
    return SkillInfo(uri, fm, files)


def _parse_file(value: object, skill: str, root: str) -> SkillFileInfo:
    if not isinstance(value, dict):
        raise bad_reply(f"skill {skill}: each of its resources must be an object")
    uri, digest, size = value.get("uri"), value.get("digest"), value.get("size")
    if not isinstance(uri, str) or not uri.startswith(root):
        raise bad_reply(f"skill {skill}: resource {uri!r} is not a file of the skill")
    if not isinstance(digest, str) or not _DIGEST.fullmatch(digest):
        raise bad_reply(f"skill {skill}: {uri} has digest {digest!r}, not sha256:<64 hex>")
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise bad_reply(f"skill {skill}: {uri} has size {size!r}, not a byte count")
    return SkillFileInfo(uri, digest, size)


def raw_bytes(result: Mapping[str, Any], uri: str) -> bytes:
    """The bytes of `uri` in a resources/read result: its text as UTF-8, or its decoded blob."""
    contents = result.get("contents")
    items = [c for c in contents if isinstance(c, dict)] if isinstance(contents, list) else []
    mine = [c for c in items if c.get("uri") == uri] or (items if len(items) == 1 else [])
    if len(mine) != 1:
        raise bad_reply(f"resources/read of {uri} returned {len(mine)} contents for it, not 1")
    item = mine[0]
    text, blob = item.get("text"), item.get("blob")
    if isinstance(text, str):
        return text.encode()
    try:
        if isinstance(blob, str):
            return base64.b64decode(blob, validate=True)
    except (binascii.Error, ValueError):
        pass
    raise bad_reply(f"resources/read of {uri} returned neither text nor base64 blob")


def listed(info: SkillInfo, uri: str) -> SkillFileInfo | None:
    """The entry's record of the file at `uri` (None for a dynamic skill's files); a file the
    entry does not list, or one outside the skill, is a verification failure."""
    if isinstance(info.resources, str):  # dynamic
        if uri != info.uri and not uri.startswith(f"{info.root}/"):
            raise SkillVerificationError(uri, "unlisted", f"is not a file of the skill {info.uri}")
        return None
    for record in info.resources:
        if record.uri == uri:
            return record
    raise SkillVerificationError(uri, "unlisted", f"is not listed in the entry of {info.uri}")


def verify(record: SkillFileInfo | None, data: bytes) -> None:
    """The bytes read for a file against its record: the size first, then the digest."""
    if record is None:
        return
    if len(data) != record.size:
        raise SkillVerificationError(
            record.uri, "size", f"read {len(data)} bytes, the entry says {record.size}"
        )
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    if digest != record.digest:
        raise SkillVerificationError(
            record.uri, "digest", f"read content of {digest}, the entry says {record.digest}"
        )


def verify_skill_md(info: SkillInfo, data: bytes) -> LoadedSkill:
    """A SKILL.md's bytes against its entry: size and digest (when listed), then its YAML
    frontmatter compared field by field with the entry's."""
    verify(listed(info, info.uri), data)
    # The server's own reading (YAML 1.2 core types, as JavaScript hosts read it): what a
    # plainmcp server puts in an entry is what its client finds in the file.
    from plainmcp.skills.frontmatter import SkillError, parse, split

    try:
        text = data.decode()
        parsed = parse(text, info.uri)
    except UnicodeDecodeError as exc:
        raise SkillVerificationError(info.uri, "frontmatter", f"is not UTF-8 text: {exc}") from None
    except SkillError as exc:
        message = str(exc).removeprefix(f"{info.uri}: ")
        raise SkillVerificationError(info.uri, "frontmatter", message) from None
    _, body = split(text) or ("", "")
    for field in [*info.frontmatter, *(k for k in parsed if k not in info.frontmatter)]:
        if field not in parsed:
            raise SkillVerificationError(
                info.uri, "frontmatter", f"frontmatter has no {field!r}, the entry has one"
            )
        if field not in info.frontmatter:
            raise SkillVerificationError(
                info.uri, "frontmatter", f"frontmatter has {field!r}, the entry has none"
            )
        if not same(parsed[field], info.frontmatter[field]):
            raise SkillVerificationError(
                info.uri,
                "frontmatter",
                f"frontmatter {field!r} is {parsed[field]!r}, the entry says"
                f" {info.frontmatter[field]!r}",
            )
    return LoadedSkill(info, text, parsed, body)


def same(a: object, b: object) -> bool:
    """JSON equality: True is not 1, 1 is 1.0, objects and arrays compared member by member."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b
