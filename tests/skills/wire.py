"""SEP-2640's result shapes as JSON Schema, transcribed from the interfaces of its specification
(modelcontextprotocol/ext-skills, specification/stable/skills.mdx: SkillResource, Skill,
ListSkillsResult, GetSkillResult, ReadResourceDirectoryResult), which publishes no schema file.
The base types they extend (CacheableResult, Resource) are checked against the official schema
of the revision (tests/mcp_schemas.py)."""

from __future__ import annotations

from typing import Any, ClassVar

import jsonschema
import orjson

from plainmcp import Server
from tests.conftest import STATELESS_VERSION_KEY, negotiated, validate
from tests.mcp_schemas import validate_definition

SKILL_RESOURCE = {
    "type": "object",
    "required": ["uri", "digest", "size"],
    "properties": {
        "uri": {"type": "string"},
        "digest": {"type": "string", "pattern": "^sha256:[0-9a-f]{64}$"},
        "size": {"type": "integer", "minimum": 0},
    },
}
SKILL = {
    "type": "object",
    "required": ["uri", "frontmatter", "resources"],
    "properties": {
        "uri": {"type": "string"},
        "frontmatter": {
            "type": "object",
            "required": ["name", "description"],
            "properties": {"name": {"type": "string"}, "description": {"type": "string"}},
        },
        "resources": {"oneOf": [{"type": "array", "items": SKILL_RESOURCE}, {"const": "dynamic"}]},
    },
}
PAGE = {"nextCursor": {"type": "string"}}
SCHEMAS: dict[str, dict[str, Any]] = {
    "skills/list": {
        "type": "object",
        "required": ["skills"],
        "properties": {"skills": {"type": "array", "items": SKILL}, **PAGE},
    },
    "skills/get": {
        "type": "object",
        "required": ["skill"],
        "properties": {"skill": SKILL},
        "not": {"required": ["nextCursor"]},
    },
    "resources/directory/read": {
        "type": "object",
        "required": ["resources"],
        "properties": {"resources": {"type": "array"}, **PAGE},
    },
}
CACHEABLE = ("skills/list", "skills/get")


def check(method: str, result: Any, revision: str) -> None:
    """`result` is what SEP-2640 says `method` answers at `revision`."""
    jsonschema.validate(result, SCHEMAS[method])
    if revision >= "2026-07-28":
        assert result["resultType"] == "complete"
        validate_definition(result, revision, "Result")
        if method in CACHEABLE:
            assert {"ttlMs", "cacheScope"} <= set(result)
            validate_definition(result, revision, "CacheableResult")
    else:
        assert not {"resultType", "ttlMs", "cacheScope"} & set(result)
    if method == "resources/directory/read":
        for child in result["resources"]:
            validate_definition(child, revision, "Resource")


ORIGINAL_CONNECT = Server.connect
"""Server.connect before conftest's autouse check patches it (this module is imported first)."""


class Checked(Server):
    """A Server whose every written message is validated: results of SEP-2640's methods against
    the JSON-RPC envelope of the revision and `check`, everything else as conftest does.
    `failures` lists what did not validate (the `checked` fixture fails the test on any)."""

    failures: ClassVar[list[str]] = []

    def connect(self, send: Any, **transport: Any) -> Any:
        methods: dict[Any, str] = {}
        per_request: dict[Any, str] = {}
        revision: list[str | None] = [None]

        async def checked(data: bytes) -> None:
            message = orjson.loads(data)
            try:
                revision[0] = negotiated(message, methods) or revision[0]
                rev = per_request.get(message.get("id")) or revision[0] or "2025-11-25"
                method = methods.get(message.get("id")) if "result" in message else None
                if method in SCHEMAS:
                    validate_definition(message, rev, "JSONRPCResultResponse")
                    check(method, message["result"], rev)
                else:
                    validate(message, rev, methods)
            except (AssertionError, ValueError, jsonschema.ValidationError) as exc:
                Checked.failures.append(f"{exc}\n  raw: {data[:600]!r}")
            await send(data)

        conn = ORIGINAL_CONNECT(self, send=checked, **transport)
        receive = conn.receive

        async def remembering(data: bytes) -> None:
            item = orjson.loads(data)
            if isinstance(item, dict) and "method" in item and "id" in item:
                methods[item["id"]] = item["method"]
                meta = (item.get("params") or {}).get("_meta") or {}
                version = meta.get(STATELESS_VERSION_KEY)
                if isinstance(version, str):
                    per_request[item["id"]] = version
            await receive(data)

        conn.receive = remembering
        return conn
