"""The MCP methods the server serves, as data: one table every layer reads.

For each method: the params it takes (checked here, -32602 naming the field), the capability a
session must have been offered, the target it names (a tool, prompt or resource: the `Mcp-Name`
header and what a requestState is bound to), the revisions it exists in, and whether its result
is a paginated list or carries freshness hints. The dispatcher maps each entry to its handler and
its rendering step; the HTTP rules and the renderer read the entries. Sans-I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from plainmcp.wire.jsonrpc import INVALID_PARAMS, RpcError
from plainmcp.wire.meta import LOG_LEVELS
from plainmcp.wire.revisions import REVISIONS

Kind = Literal["string", "object", "array"]

_PYTHON: dict[str, type[Any]] = {"string": str, "object": dict, "array": list}
_ARTICLE = {"string": "a string", "object": "an object", "array": "an array"}


@dataclass(frozen=True, slots=True)
class Param:
    """One param of a method's request: its JSON type and what a wrong value is answered."""

    name: str
    kind: Kind
    required: bool = False
    """Absent or null is refused."""
    nullable: bool = True
    """An optional param may be sent as null (taken as absent); False refuses an explicit null."""
    one_of: tuple[str, ...] = ()
    """The only values accepted (a closed set of strings)."""
    items: Kind | None = None
    """The type of every item of an array."""
    fields: tuple[Param, ...] = ()
    """The params of an object param, checked when it is present."""
    problem: str = ""
    """The -32602 message; by default "Invalid params: <name> must be <a kind>"."""
    python: type[Any] = field(init=False, repr=False, compare=False)
    """The Python type the JSON kind decodes to (derived once, for the per-request check)."""
    deep: bool = field(init=False, repr=False, compare=False)
    """More to check than the type (values, items, fields)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "python", _PYTHON[self.kind])
        object.__setattr__(self, "deep", bool(self.one_of or self.items or self.fields))
        if not self.problem:
            wanted = "one of " + ", ".join(self.one_of) if self.one_of else _ARTICLE[self.kind]
            object.__setattr__(self, "problem", f"Invalid params: {self.name} must be {wanted}")

    def valid(self, value: Any) -> bool:
        """Beyond its type: one of the values, items of the type; RpcError for a bad field."""
        if self.one_of and value not in self.one_of:
            return False
        if self.items is not None:
            wanted = _PYTHON[self.items]
            if not all(isinstance(item, wanted) for item in value):
                return False
        check(self.fields, value)
        return True


def check(declared: tuple[Param, ...], params: Mapping[str, Any]) -> None:
    """`params` hold what `declared` says, in order; RpcError (-32602) for the first that does
    not. The dispatcher runs it for every request, with the method's `params`."""
    for param in declared:
        value: Any = params.get(param.name)
        if value is None:
            if param.required or (not param.nullable and param.name in params):
                raise RpcError(INVALID_PARAMS, param.problem)
        elif not isinstance(value, param.python) or (param.deep and not param.valid(value)):
            raise RpcError(INVALID_PARAMS, param.problem)


class Target(NamedTuple):
    """What a request is about: the param naming it, and whether `arguments` go with it
    (a NamedTuple, not a dataclass: the class is made at every start, in a sixth of the time)."""

    param: str
    kind: Literal["tool", "prompt", "resource", "task"]
    arguments: bool
    """The request's `arguments` are part of what a requestState is bound to."""


@dataclass(frozen=True, slots=True)
class Method:
    name: str
    params: tuple[Param, ...] = ()
    """Checked in order, before the handler runs; the first wrong one is answered."""
    capability: str | None = None
    """A session is answered only when initialize offered this capability (else -32601).

    What initialize offered holds for the whole session: a prompts/list after the last prompt is
    removed is an empty list, and a prompt added later does not open prompts/* to a session that
    was not offered them (its client never asked and was never told)."""
    target: Target | None = None
    """Set for the methods that may answer with an input-required result (2026-07-28); the
    Mcp-Name header and middleware's `RequestInfo.target` read it too."""
    about: Target | None = None
    """What a method without a `target` still names (resources/subscribe and unsubscribe name a
    resource), for telemetry: it asks no input and needs no Mcp-Name header (see `named`)."""
    since: str = "2024-11-05"
    """The first revision with the method; a later one drops it in `Revision.removed_methods`."""
    before_initialize: bool = False
    """Served in a session before initialize (with the revision initialize would negotiate)."""
    starts_session: bool = False
    """The handshake itself: refused (-32600) once a session is open."""
    needs_envelope: bool = False
    """Only ever served with the 2026-07-28 `_meta`: without it, -32602 in every era."""
    lists: str | None = None
    """A paginated list: the result key its page goes under (`nextCursor` beside it)."""
    ttl: Literal["list", "read"] | None = None
    """2026-07-28 freshness hints on its result (`ttlMs`, `cacheScope`): which policy applies."""
    extension: str | None = None
    """The id of the extension whose row this is (plainmcp.extensions): served only to a
    client that negotiated it, else -32601 as for an unknown method."""
    render: Literal["result", "call"] = "result"
    """The one step that turns the handler's value into the result sent (dispatch.RENDER):
    "result", a dict finished for its revision (resultType, serverInfo, freshness hints);
    "call", a CallResult (what middleware sees) rendered for the revision and the host, then
    finished so."""
    revisions: frozenset[str] = field(init=False, compare=False)
    """The revisions that have the method (derived from `since` and the revision table)."""

    @property
    def named(self) -> Target | None:
        """What a request of this method names: its `target`, else what it is `about`."""
        return self.target or self.about

    def __post_init__(self) -> None:
        versions = list(REVISIONS)
        have = frozenset(
            v
            for v in versions[versions.index(self.since) :]
            if self.name not in REVISIONS[v].removed_methods
        )
        object.__setattr__(self, "revisions", have)


_CURSOR = Param("cursor", "string", problem="Invalid params: unknown cursor")
_URI = Param("uri", "string", required=True)
_NAME = Param("name", "string", required=True)
_ARGUMENTS = Param("arguments", "object")
_A_RESOURCE = Target("uri", "resource", arguments=False)

INITIALIZE = Method(
    "initialize",
    params=(
        Param("protocolVersion", "string", required=True),
        *(
            Param(
                name,
                "object",
                nullable=False,
                problem="Invalid params: capabilities and clientInfo must be objects",
            )
            for name in ("capabilities", "clientInfo")
        ),
    ),
    before_initialize=True,
    starts_session=True,
)
DISCOVER = Method("server/discover", since="2026-07-28", needs_envelope=True, ttl="list")
PING = Method("ping", before_initialize=True)
SET_LEVEL = Method(
    "logging/setLevel", params=(Param("level", "string", required=True, one_of=LOG_LEVELS),)
)
TOOLS_LIST = Method("tools/list", params=(_CURSOR,), lists="tools", ttl="list")
TOOLS_CALL = Method(
    "tools/call",
    params=(_NAME, _ARGUMENTS),
    target=Target("name", "tool", arguments=True),
    render="call",
)
RESOURCES_LIST = Method(
    "resources/list", params=(_CURSOR,), capability="resources", lists="resources", ttl="list"
)
TEMPLATES_LIST = Method(
    "resources/templates/list",
    params=(_CURSOR,),
    capability="resources",
    lists="resourceTemplates",
    ttl="list",
)
RESOURCES_READ = Method(
    "resources/read",
    params=(_URI,),
    capability="resources",
    target=_A_RESOURCE,
    ttl="read",
)
SUBSCRIBE = Method("resources/subscribe", params=(_URI,), capability="resources", about=_A_RESOURCE)
UNSUBSCRIBE = Method(
    "resources/unsubscribe", params=(_URI,), capability="resources", about=_A_RESOURCE
)
PROMPTS_LIST = Method(
    "prompts/list", params=(_CURSOR,), capability="prompts", lists="prompts", ttl="list"
)
PROMPTS_GET = Method(
    "prompts/get",
    # `arguments` is checked by Prompts.get once the prompt is found (an unknown prompt is
    # answered as such first), against that prompt's own arguments.
    params=(_NAME,),
    capability="prompts",
    target=Target("name", "prompt", arguments=True),
)
_REF_AND_ARGUMENT = "Invalid params: ref and argument must be objects"
COMPLETE = Method(
    "completion/complete",
    # The rest of the request (ref.type, ref.name/uri, argument.value, context) is read by
    # completion.read_request, which knows what each kind of reference carries.
    params=tuple(
        Param(name, "object", required=True, problem=_REF_AND_ARGUMENT)
        for name in ("ref", "argument")
    ),
    capability="completions",
)
LISTEN = Method(
    "subscriptions/listen",
    params=(
        Param(
            "notifications",
            "object",
            required=True,
            fields=(
                Param(
                    "resourceSubscriptions",
                    "array",
                    items="string",
                    problem="Invalid params: resourceSubscriptions must be a list of URIs",
                ),
            ),
        ),
    ),
    since="2026-07-28",
)

METHODS: dict[str, Method] = {
    m.name: m
    for m in (
        INITIALIZE,
        DISCOVER,
        PING,
        SET_LEVEL,
        TOOLS_LIST,
        TOOLS_CALL,
        RESOURCES_LIST,
        TEMPLATES_LIST,
        RESOURCES_READ,
        SUBSCRIBE,
        UNSUBSCRIBE,
        PROMPTS_LIST,
        PROMPTS_GET,
        COMPLETE,
        LISTEN,
    )
}
"""Every method the server serves, by name; anything else is answered -32601."""
