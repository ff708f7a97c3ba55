"""`Skills`: the skills extension (SEP-2640, `io.modelcontextprotocol/skills`) on the seam of
plainmcp.extensions: `skills/list`, `skills/get` and `resources/directory/read`, and every
skill file a `skill://` resource of the server.

SEP-2640 has the client call skills/* once it sees the server's declaration; it declares
nothing itself. So `refusal` serves this extension's rows to every client at a revision it is
offered in (the seam's default: only to a client that declared it), and `bind` registers the
files as the server's resources (through `add_resource`) when the Server is made.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import unquote

from plainmcp.components import Components
from plainmcp.errors import ResourceError
from plainmcp.extensions import Extension, Handler
from plainmcp.model import mime
from plainmcp.resource_contents import Contents
from plainmcp.skills import folder as disk
from plainmcp.skills.catalog import Catalog
from plainmcp.skills.defined import define
from plainmcp.skills.frontmatter import SkillError
from plainmcp.skills.skill import SCHEME, Skill, SkillFile, segments
from plainmcp.wire.extension_ids import SKILLS_EXTENSION
from plainmcp.wire.jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND, RpcError
from plainmcp.wire.methods import Method, Param

if TYPE_CHECKING:
    from plainmcp.exchange import Exchange
    from plainmcp.server import Server

__all__ = ["DIRECTORY_READ", "SKILLS_GET", "SKILLS_LIST", "Skills"]

_CURSOR = Param("cursor", "string", problem="Invalid params: unknown cursor")
_URI = Param("uri", "string", required=True)
SKILLS_LIST = Method(
    "skills/list", params=(_CURSOR,), since="2025-11-25", lists="skills", ttl="list"
)
SKILLS_GET = Method("skills/get", params=(_URI,), since="2025-11-25", ttl="read")
DIRECTORY_READ = Method(
    "resources/directory/read", params=(_URI, _CURSOR), since="2025-11-25", lists="resources"
)


class Skills(Extension):
    """Skills from folders (`Skills("skills/")`) and from Python (`add`), given to
    `Server(extensions=[skills])`, which serves them.

    Refuses (SkillError) any skill it cannot serve, when it is added: bad frontmatter, a name
    that is not its folder's, over 512 files or 16 MiB, a link out of its folder."""

    id: ClassVar[str] = SKILLS_EXTENSION
    since: ClassVar[str] = "2025-11-25"
    """Offered from 2025-11-25, whose capabilities take extra members, to 2026-07-28 and on."""

    def __init__(self, *folders: str | os.PathLike[str], prefix: str = "") -> None:
        self.catalog = Catalog()
        """The skills served, their files and folders (skills/catalog.py)."""
        self._servers: list[Server] = []
        """The servers it is bound to: a skill added later becomes their resources at once."""
        for each in folders:
            self.add_folder(each, prefix=prefix)

    # --- what is served --------------------------------------------------------------------

    def add_folder(self, folder: str | os.PathLike[str], *, prefix: str = "") -> list[str]:
        """Serve the skills under `folder` (every folder holding a SKILL.md), under `prefix`
        ("acme/billing": `skill://acme/billing/<name>/...`); returns their SKILL.md URIs."""
        return self._add(disk.load(folder, _segments(prefix)))

    def add(
        self,
        name: str,
        *,
        description: str,
        body: str,
        files: Mapping[str, str | bytes] | None = None,
        frontmatter: Mapping[str, Any] | None = None,
        prefix: str = "",
    ) -> str:
        """Serve a skill defined here: its SKILL.md is the frontmatter (`name`, `description`
        and any other `frontmatter` fields) then `body`; `files` maps paths within the skill
        ("references/GUIDE.md") to their text or bytes. Returns its SKILL.md URI."""
        made = define(
            name,
            description=description,
            body=body,
            files=files,
            frontmatter=frontmatter,
            prefix=_segments(prefix),
        )
        return self._add([made])[0]

    @property
    def skills(self) -> Sequence[Skill]:
        return tuple(self.catalog.skills)

    def _add(self, skills: list[Skill]) -> list[str]:
        fresh = self.catalog.add(skills)
        for server in self._servers:
            self._register(server, fresh)
        return [s.uri for s in skills]

    # --- the seam --------------------------------------------------------------------------

    def capability(self) -> Mapping[str, Any]:
        return {"directoryRead": True}

    def methods(self) -> Sequence[tuple[Method, Handler]]:
        return (
            (SKILLS_LIST, self.list_skills),
            (SKILLS_GET, self.get_skill),
            (DIRECTORY_READ, self.read_directory),
        )

    def bind(self, server: Server) -> None:
        """Its files become `server`'s resources (and those of skills added later)."""
        if server not in self._servers:
            self._servers.append(server)
            self._register(server, list(self.catalog.files.values()))

    def refusal(self, ex: Exchange, method: Method) -> RpcError | None:
        """Served to every client at a revision with the extension: SEP-2640 clients call
        skills/* on the server's declaration alone, declaring nothing."""
        if self.offered_in(ex.revision):
            return None
        return RpcError(METHOD_NOT_FOUND, f"Method not found: {method.name}")

    def _register(self, server: Server, files: list[SkillFile]) -> None:
        for file in files:
            skill = self.catalog.by_uri.get(file.uri)
            server.add_resource(
                _reader(file),
                file.uri,
                name=skill.name if skill else unquote(file.uri[len(SCHEME) :]),
                description=skill.description if skill else None,
                mime_type=file.mime_type,
                size=file.size,
            )

    # --- the handlers ----------------------------------------------------------------------

    async def list_skills(self, core: Components, ex: Exchange) -> dict[str, Any]:
        found, next_cursor = self.catalog.page(
            ex.params.get("cursor"), core.settings.limits.page_size
        )
        result: dict[str, Any] = {"skills": [s.entry() for s in found]}
        if next_cursor is not None:
            result["nextCursor"] = next_cursor
        return result

    async def get_skill(self, core: Components, ex: Exchange) -> dict[str, Any]:
        uri = ex.params["uri"]
        skill = self.catalog.by_uri.get(uri)
        if skill is None:
            raise RpcError(INVALID_PARAMS, f"No skill is served at {uri}")
        return {"skill": skill.entry()}

    async def read_directory(self, core: Components, ex: Exchange) -> dict[str, Any]:
        uri = ex.params["uri"]
        if uri not in self.catalog.folders:
            what = "is not a directory resource" if uri in self.catalog.files else "is not served"
            raise RpcError(INVALID_PARAMS, f"{uri} {what}")
        children, next_cursor = self.catalog.children(
            uri, ex.params.get("cursor"), core.settings.limits.page_size
        )
        result: dict[str, Any] = {"resources": children}
        if next_cursor is not None:
            result["nextCursor"] = next_cursor
        return result


def _segments(prefix: str) -> tuple[str, ...]:
    return segments(prefix.strip("/"), "prefix") if prefix.strip("/") else ()


def _reader(file: SkillFile) -> Callable[[], Contents]:
    def read_skill_file() -> Contents:
        # No docstring: a resource function's docstring would become its description.
        try:
            data = file.read()
        except SkillError as exc:
            raise ResourceError(str(exc)) from None
        if mime.is_text(file.mime_type):
            try:
                return Contents(file.uri, text=data.decode("utf-8"), mime_type=file.mime_type)
            except UnicodeDecodeError:
                pass
        return Contents(file.uri, blob=data, mime_type=file.mime_type)

    return read_skill_file
