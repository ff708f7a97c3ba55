"""The typed requests of the client beyond tools: resources, templates, prompts, completion,
skills, and lists page by page. `Client` inherits them; they need only its `request` and the
server's capabilities."""

from __future__ import annotations

import abc
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, overload

from plainmcp.client.errors import McpError, bad_reply
from plainmcp.client.results import (
    Completion,
    Page,
    PromptInfo,
    ReadResourceResult,
    ResourceInfo,
    ResourceTemplateInfo,
    ToolInfo,
    parse_completion,
    parse_prompt,
    parse_prompt_result,
    parse_read_result,
    parse_resource,
    parse_resource_template,
    parse_tool,
)
from plainmcp.client.skills import (
    LoadedSkill,
    SkillInfo,
    listed,
    parse_skill,
    raw_bytes,
    verify,
    verify_skill_md,
)
from plainmcp.wire.extension_ids import SKILLS_EXTENSION
from plainmcp.wire.jsonrpc import METHOD_NOT_FOUND

if TYPE_CHECKING:
    from plainmcp.model.answers import PromptResult

ListMethod = Literal[
    "tools/list", "resources/list", "resources/templates/list", "prompts/list", "skills/list"
]
_LISTS: dict[str, tuple[str, Callable[[object], Any]]] = {
    "tools/list": ("tools", parse_tool),
    "resources/list": ("resources", parse_resource),
    "resources/templates/list": ("resourceTemplates", parse_resource_template),
    "prompts/list": ("prompts", parse_prompt),
    "skills/list": ("skills", parse_skill),
}
"""Each list method: the result's key for its items, and how one item is read."""
_EXTENSION_OF = {"skills/list": SKILLS_EXTENSION, "skills/get": SKILLS_EXTENSION}
"""The methods an extension adds: sent only to a server that declared it."""


class Surface(abc.ABC):
    capabilities: dict[str, Any]
    """The server's, from initialize or server/discover (session.py's Client)."""

    @abc.abstractmethod
    async def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """One request's result (session.py's Client)."""

    async def list_resources(self) -> list[ResourceInfo]:
        return await self._every("resources/list")

    async def list_resource_templates(self) -> list[ResourceTemplateInfo]:
        return await self._every("resources/templates/list")

    async def list_prompts(self) -> list[PromptInfo]:
        return await self._every("prompts/list")

    async def read_resource(self, uri: str) -> ReadResourceResult:
        """The resource's contents: text, or bytes in `blob` (base64 on the wire)."""
        return parse_read_result(await self.request("resources/read", {"uri": uri}))

    async def get_prompt(
        self, name: str, arguments: Mapping[str, str] | None = None
    ) -> PromptResult:
        """The prompt's messages, as the plainmcp `PromptResult` a prompt function returns."""
        params: dict[str, Any] = {"name": name}
        if arguments:
            params["arguments"] = dict(arguments)
        return parse_prompt_result(await self.request("prompts/get", params))

    async def complete(
        self,
        argument: str,
        value: str,
        *,
        prompt: str | None = None,
        resource_template: str | None = None,
        context: Mapping[str, str] | None = None,
    ) -> Completion:
        """Suggestions for one argument of a prompt or a resource template (name exactly one);
        `context`: the arguments already filled in."""
        if (prompt is None) == (resource_template is None):
            raise TypeError("complete() needs exactly one of prompt= or resource_template=")
        ref = (
            {"type": "ref/prompt", "name": prompt}
            if prompt is not None
            else {"type": "ref/resource", "uri": resource_template}
        )
        params: dict[str, Any] = {"ref": ref, "argument": {"name": argument, "value": value}}
        if context:
            params["context"] = {"arguments": dict(context)}
        return parse_completion(await self.request("completion/complete", params))

    async def list_skills(self) -> list[SkillInfo]:
        """Every skill's entry (`skills/list`, all pages). No file is read: `load_skill` reads
        a SKILL.md, `read_skill_file` another file, each when asked."""
        return await self._every("skills/list")

    async def get_skill(self, uri: str) -> SkillInfo:
        """The entry of the skill whose SKILL.md is at `uri` (`skills/get`), listed or not."""
        self._offered("skills/get")
        result = await self.request("skills/get", {"uri": uri})
        info = parse_skill(result.get("skill"))
        if info.uri != uri:
            raise bad_reply(f"skills/get of {uri} returned the skill {info.uri}")
        return info

    async def load_skill(self, skill: SkillInfo | str) -> LoadedSkill:
        """Read a skill's SKILL.md and verify it against the entry (given, or from `skills/get`
        when `skill` is a URI): its size, digest and frontmatter field by field.
        SkillVerificationError on any difference, and the content is not returned."""
        info = skill if isinstance(skill, SkillInfo) else await self.get_skill(skill)
        listed(info, info.uri)
        return verify_skill_md(info, await self._read_bytes(info.uri))

    async def read_skill_file(self, skill: SkillInfo | LoadedSkill, path: str) -> bytes:
        """The bytes of one file of the skill (`path` relative to its root, or a URI), verified
        against the entry's size and digest. A file the entry does not list is refused
        (SkillVerificationError) without being read."""
        info = skill.info if isinstance(skill, LoadedSkill) else skill
        uri = info.file(path)
        record = listed(info, uri)
        data = await self._read_bytes(uri)
        verify(record, data)
        return data

    @overload
    async def page(
        self, method: Literal["tools/list"], cursor: str | None = None
    ) -> Page[ToolInfo]: ...
    @overload
    async def page(
        self, method: Literal["resources/list"], cursor: str | None = None
    ) -> Page[ResourceInfo]: ...
    @overload
    async def page(
        self, method: Literal["resources/templates/list"], cursor: str | None = None
    ) -> Page[ResourceTemplateInfo]: ...
    @overload
    async def page(
        self, method: Literal["prompts/list"], cursor: str | None = None
    ) -> Page[PromptInfo]: ...
    @overload
    async def page(
        self, method: Literal["skills/list"], cursor: str | None = None
    ) -> Page[SkillInfo]: ...
    async def page(self, method: ListMethod, cursor: str | None = None) -> Page[Any]:
        """One page of a list, for walking it yourself: `cursor` is the last page's
        `next_cursor` (None: the first page). The `list_*` methods read every page."""
        if method not in _LISTS:
            raise ValueError(f"page() lists one of {', '.join(_LISTS)}, not {method!r}")
        key, parse = _LISTS[method]
        self._offered(method)
        result = await self.request(method, {"cursor": cursor} if cursor is not None else None)
        items = result.get(key)
        if not isinstance(items, list):
            raise bad_reply(f"{method} result without a {key} array")
        next_cursor = result.get("nextCursor")
        if next_cursor is not None and not isinstance(next_cursor, str):
            raise bad_reply(f"{method} returned an invalid cursor {next_cursor!r}")
        return Page([parse(item) for item in items], next_cursor or None)

    async def _every(self, method: ListMethod) -> list[Any]:
        """Every item of a list, following `nextCursor` across pages."""
        items: list[Any] = []
        cursor: str | None = None
        seen: set[str] = set()
        while True:
            page = await self.page(method, cursor)
            items.extend(page.items)
            cursor = page.next_cursor
            if cursor is None:
                return items
            if cursor in seen:
                raise bad_reply(f"{method} returned a repeated cursor {cursor!r}")
            seen.add(cursor)

    async def _read_bytes(self, uri: str) -> bytes:
        return raw_bytes(await self.request("resources/read", {"uri": uri}), uri)

    def _offered(self, method: str) -> None:
        """Refuse, before sending, an extension's method when the server did not declare the
        extension (McpError -32601, as such a server would answer): SEP-2640 clients call
        skills/* only after seeing the server's declaration."""
        ident = _EXTENSION_OF.get(method)
        if ident is None:
            return
        declared = self.capabilities.get("extensions")
        if not isinstance(declared, dict) or ident not in declared:
            raise McpError(METHOD_NOT_FOUND, f"The server does not declare {ident}: no {method}")
