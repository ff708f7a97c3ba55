"""The whole server surface through the dispatcher (issue 3): capabilities, resources, templates,
subscriptions, prompts, completion and the payload guards, over in-memory `Session`s.

Every message the server writes is validated against the official schema of the negotiated
revision (tests.conftest). The registries themselves are unit-tested in test_resources.py,
test_prompts.py, test_completion.py, test_guards.py; Context in test_context.py. Here each feature
is shown as a client sees it, with exact outputs, for every handshake revision where they differ.
"""

from __future__ import annotations

import base64
import enum
import os
from pathlib import Path
from typing import Any, Literal

import pytest

from plainmcp import (
    Context,
    EmbeddedResource,
    Image,
    MemoryStore,
    Message,
    PayloadLimits,
    ResourceError,
    Server,
    safe_join,
)
from tests.conftest import HANDSHAKE_REVISIONS, Session
from tests.continuation import as_documented
from tests.doc_snippets import source_of
from tests.test_guards import big_png, big_text, shown

pytestmark = pytest.mark.anyio

MIB = 1024 * 1024
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)
PNG64 = base64.b64encode(PNG).decode()
NOT_FOUND_CODE = -32002  # every handshake revision (2026-07-28 uses -32602)


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"
    BLUE = "blue"


def bare() -> Server:
    """A server with one tool and nothing else."""
    app = Server("surface", version="1.0.0")

    @app.tool
    def echo(text: str) -> str:
        return text

    return app


def full(**kwargs: Any) -> Server:
    """Resources of every kind, a template with an int variable, prompts, completers."""
    app = Server("surface", version="1.0.0", **kwargs)
    app.add_resource("Read me first.", "app://readme", description="The readme.")
    app.add_resource(PNG, "app://logo.png", name="logo")

    @app.resource("app://status")
    def status() -> dict[str, Any]:
        """Server status."""
        return {"ok": True, "load": [0.5, 0.25]}

    @app.resource("app://motd", mime_type="text/markdown")
    async def motd() -> str:
        return "# Hello"

    @app.resource("users://{user_id}/profile", title="User profile")
    def profile(user_id: int) -> dict[str, Any]:
        """A user's profile."""
        return {"id": user_id, "double": user_id * 2}

    def countries(value: str, arguments: Any) -> list[str]:
        return [c for c in ("France", "Finland", "Germany") if c.lower().startswith(value.lower())]

    app.add_resource(
        lambda country: f"weather in {country}",
        "weather://{country}",
        name="weather",
        complete={"country": countries},
    )

    @app.resource("paint://{color}")
    def paint(color: Literal["red", "green", "blue"]) -> str:
        return f"a can of {color} paint"

    @app.prompt
    def greet(name: str, style: Literal["formal", "casual"] = "casual") -> str:
        """Greet someone.

        Args:
            name: Who to greet.
            style: How formally.
        """
        return f"Hello {name}" if style == "casual" else f"Good day, {name}."

    @app.prompt(complete={"language": lambda value, args: ["python", "pascal", "perl"]})
    def review(code: str, language: str, color: Color = Color.RED) -> list[Message]:
        """Review some code."""
        return [
            Message("user", f"Review this {language} code ({color.value}):\n{code}"),
            Message("assistant", "Sure, let me look."),
        ]

    @app.prompt
    def picture() -> list[Any]:
        """A picture and a document."""
        return [
            Message("user", Image(PNG)),
            Message(
                "user",
                EmbeddedResource(uri="app://readme", text="Read me first.", mime_type="text/plain"),
            ),
        ]

    @app.prompt
    async def whoami(ctx: Context) -> str:
        """Who is asking."""
        return f"{ctx.client_info.get('name')} at {ctx.revision}, request {ctx.request_id!r}"

    return app


async def init(app: Server, version: str = "2025-11-25", **kwargs: Any) -> Session:
    """An entered, initialized Session (the caller closes it with `async with`)."""
    s = Session(app)
    await s.__aenter__()
    await s.initialize(version, **kwargs)
    return s


def error_of(reply: dict[str, Any]) -> dict[str, Any]:
    assert "error" in reply, reply
    error: dict[str, Any] = reply["error"]
    return error


# --- capabilities ------------------------------------------------------------------------------

LOGGING_AND_TOOLS = {"logging": {}, "tools": {"listChanged": True}}
RESOURCES = {"resources": {"subscribe": True, "listChanged": True}}
PROMPTS = {"prompts": {"listChanged": True}}


@pytest.mark.parametrize("version", HANDSHAKE_REVISIONS)
async def test_capabilities_with_everything_registered(version: str) -> None:
    async with Session(full()) as s:
        result = await s.initialize(version)
        completions = {"completions": {}} if version >= "2025-03-26" else {}
        assert result["capabilities"] == {
            **LOGGING_AND_TOOLS,
            **RESOURCES,
            **PROMPTS,
            **completions,
        }


@pytest.mark.parametrize("version", HANDSHAKE_REVISIONS)
async def test_capabilities_of_a_tools_only_server(version: str) -> None:
    # Offloaded payloads are read back through resources/read, so resources is offered anyway.
    async with Session(bare()) as s:
        assert (await s.initialize(version))["capabilities"] == {**LOGGING_AND_TOOLS, **RESOURCES}
        assert await s.result("resources/list") == {"resources": []}
        assert await s.result("resources/templates/list") == {"resourceTemplates": []}
        for method, params in UNOFFERED_WITHOUT_PROMPTS:
            reply = await s.request(method, params)
            assert error_of(reply) == {"code": -32601, "message": f"Method not found: {method}"}


UNOFFERED_WITHOUT_PROMPTS = [
    ("prompts/list", None),
    ("prompts/get", {"name": "greet"}),
    (
        "completion/complete",
        {"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "x", "value": ""}},
    ),
]


@pytest.mark.parametrize("version", HANDSHAKE_REVISIONS)
async def test_without_offloading_or_resources_there_is_no_resources_capability(
    version: str,
) -> None:
    app = Server("plain", payload_limits=PayloadLimits(offload=False))
    async with Session(app) as s:
        assert (await s.initialize(version))["capabilities"] == LOGGING_AND_TOOLS
        for method, params in [
            ("resources/list", None),
            ("resources/templates/list", None),
            ("resources/read", {"uri": "app://readme"}),
            ("resources/subscribe", {"uri": "app://readme"}),
            ("resources/unsubscribe", {"uri": "app://readme"}),
            *UNOFFERED_WITHOUT_PROMPTS,
        ]:
            reply = await s.request(method, params)
            assert error_of(reply) == {"code": -32601, "message": f"Method not found: {method}"}
        assert await s.result("ping") == {}


@pytest.mark.parametrize("version", HANDSHAKE_REVISIONS)
async def test_completions_need_prompts_or_templates(version: str) -> None:
    only_static = Server("static", payload_limits=PayloadLimits(offload=False))
    only_static.add_resource("x", "app://x")
    only_template = Server("template", payload_limits=PayloadLimits(offload=False))
    only_template.add_resource(lambda name: name, "echo://{name}", name="echo")
    async with Session(only_static) as s:
        assert (await s.initialize(version))["capabilities"] == {**LOGGING_AND_TOOLS, **RESOURCES}
    async with Session(only_template) as s:
        caps = (await s.initialize(version))["capabilities"]
        completions = {"completions": {}} if version >= "2025-03-26" else {}
        assert caps == {**LOGGING_AND_TOOLS, **RESOURCES, **completions}


# --- resources/list and resources/templates/list --------------------------------------------

README = {
    "uri": "app://readme",
    "name": "app://readme",
    "description": "The readme.",
    "mimeType": "text/plain",
    "size": 14,
}
LOGO = {"uri": "app://logo.png", "name": "logo", "mimeType": "image/png", "size": len(PNG)}
STATUS = {"uri": "app://status", "name": "status", "description": "Server status."}
MOTD = {"uri": "app://motd", "name": "motd", "mimeType": "text/markdown"}


@pytest.mark.parametrize("version", HANDSHAKE_REVISIONS)
async def test_resources_list_in_pages(version: str) -> None:
    async with Session(full(page_size=2)) as s:
        await s.initialize(version)
        first = await s.result("resources/list")
        assert first == {"resources": [README, LOGO], "nextCursor": first["nextCursor"]}
        second = await s.result("resources/list", {"cursor": first["nextCursor"]})
        assert second == {"resources": [STATUS, MOTD]}  # the last page has no nextCursor
        for bad in ("nope", "", 7, "bzo5OQ=="):  # "bzo5OQ==" is offset 99: past the end
            reply = await s.request("resources/list", {"cursor": bad})
            assert error_of(reply) == {"code": -32602, "message": "Invalid params: unknown cursor"}
        assert (await s.result("resources/list", {"cursor": first["nextCursor"]})) == second


@pytest.mark.parametrize("version", HANDSHAKE_REVISIONS)
async def test_resource_templates_list_in_pages(version: str) -> None:
    async with Session(full(page_size=2)) as s:
        await s.initialize(version)
        first = await s.result("resources/templates/list")
        profile = {"uriTemplate": "users://{user_id}/profile", "name": "profile"}
        if version >= "2025-06-18":
            profile["title"] = "User profile"
        profile["description"] = "A user's profile."
        assert first == {
            "resourceTemplates": [
                profile,
                {"uriTemplate": "weather://{country}", "name": "weather"},
            ],
            "nextCursor": first["nextCursor"],
        }
        second = await s.result("resources/templates/list", {"cursor": first["nextCursor"]})
        assert second == {
            "resourceTemplates": [{"uriTemplate": "paint://{color}", "name": "paint"}]
        }
        reply = await s.request("resources/templates/list", {"cursor": "nope"})
        assert error_of(reply)["code"] == -32602


# --- resources/read ----------------------------------------------------------------------------


@pytest.mark.parametrize("version", HANDSHAKE_REVISIONS)
async def test_read_every_kind_of_resource(version: str) -> None:
    async with Session(full()) as s:
        await s.initialize(version)

        async def read(uri: str) -> list[dict[str, Any]]:
            result = await s.result("resources/read", {"uri": uri})
            assert list(result) == ["contents"]
            contents: list[dict[str, Any]] = result["contents"]
            return contents

        assert await read("app://readme") == [
            {"uri": "app://readme", "mimeType": "text/plain", "text": "Read me first."}
        ]
        assert await read("app://logo.png") == [
            {"uri": "app://logo.png", "mimeType": "image/png", "blob": PNG64}
        ]
        assert await read("app://status") == [
            {
                "uri": "app://status",
                "mimeType": "application/json",
                "text": '{"ok":true,"load":[0.5,0.25]}',
            }
        ]
        assert await read("app://motd") == [
            {"uri": "app://motd", "mimeType": "text/markdown", "text": "# Hello"}
        ]
        assert await read("users://42/profile") == [
            {
                "uri": "users://42/profile",
                "mimeType": "application/json",
                "text": '{"id":42,"double":84}',
            }
        ]
        assert await read("weather://France") == [
            {"uri": "weather://France", "mimeType": "text/plain", "text": "weather in France"}
        ]
        # percent-encoding is decoded once before the function sees the value
        assert await read("weather://Costa%20Rica") == [
            {
                "uri": "weather://Costa%20Rica",
                "mimeType": "text/plain",
                "text": "weather in Costa Rica",
            }
        ]


@pytest.mark.parametrize("version", HANDSHAKE_REVISIONS)
@pytest.mark.parametrize(
    "uri",
    [
        "app://nothing",
        "app://readme/",
        "users://abc/profile",  # not an int: the template does not match
        "users://42/profile/extra",
        "users:///profile",
        "plainmcp://blob/unknown",
        "plainmcp://blob/",
    ],
)
async def test_unknown_uri_is_resource_not_found(version: str, uri: str) -> None:
    async with Session(full()) as s:
        await s.initialize(version)
        reply = await s.request("resources/read", {"uri": uri})
        assert error_of(reply) == {
            "code": NOT_FOUND_CODE,
            "message": f"Resource not found: {uri}",
            "data": {"uri": uri},
        }
        assert (await s.result("resources/read", {"uri": "app://readme"}))["contents"]


# --- template values cannot walk a path --------------------------------------------------------


def file_server(root: Path, calls: list[str]) -> Server:
    """The file-serving example of docs/server.md: one directory, nothing outside it."""
    app = Server("files")

    @app.resource("files://{name}", mime_type="text/plain")
    def read_file(name: str) -> str:
        """A file of the served directory."""
        calls.append(name)
        return safe_join(root, name).read_text(encoding="utf-8")

    return app


@pytest.fixture
def served(tmp_path: Path) -> Path:
    root = tmp_path / "served"
    root.mkdir()
    (root / "notes.txt").write_text("my notes", encoding="utf-8")
    (root / "with space.txt").write_text("spaced", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("TOP SECRET", encoding="utf-8")
    os.symlink(tmp_path / "secret.txt", root / "link.txt")
    return root


TRAVERSALS = [
    "files://../secret.txt",
    "files://..%2Fsecret.txt",
    "files://..%2fsecret.txt",
    "files://%2e%2e%2Fsecret.txt",
    "files://%2E%2E",
    "files://..",
    "files://.",
    "files://%2e%2e",
    "files://..%5Csecret.txt",
    "files://..\\secret.txt",
    "files://%2Fetc%2Fpasswd",
    "files://notes.txt%00",
    "files://%ff",  # not UTF-8 after decoding
]


@pytest.mark.parametrize("version", HANDSHAKE_REVISIONS)
async def test_traversal_never_reaches_the_function(served: Path, version: str) -> None:
    calls: list[str] = []
    async with Session(file_server(served, calls)) as s:
        await s.initialize(version)
        for uri in TRAVERSALS:
            reply = await s.request("resources/read", {"uri": uri})
            assert error_of(reply) == {
                "code": NOT_FOUND_CODE,
                "message": f"Resource not found: {uri}",
                "data": {"uri": uri},
            }, uri
            assert error_of(await s.request("resources/subscribe", {"uri": uri}))["code"] == (
                NOT_FOUND_CODE
            )
        assert calls == []
        # what is inside the directory is served
        assert await s.result("resources/read", {"uri": "files://notes.txt"}) == {
            "contents": [{"uri": "files://notes.txt", "mimeType": "text/plain", "text": "my notes"}]
        }
        spaced = await s.result("resources/read", {"uri": "files://with%20space.txt"})
        assert spaced["contents"][0]["text"] == "spaced"
        assert calls == ["notes.txt", "with space.txt"]


async def test_safe_join_refuses_a_symlink_out_of_the_directory(served: Path) -> None:
    calls: list[str] = []
    async with Session(file_server(served, calls)) as s:
        await s.initialize()
        reply = await s.request("resources/read", {"uri": "files://link.txt"})
        # The function ran (the value itself is harmless) but safe_join refused the target, and
        # the message does not say where the served directory is.
        assert error_of(reply) == {
            "code": -32602,
            "message": "path 'link.txt' is outside the served directory",
        }
        assert calls == ["link.txt"]
        assert str(served) not in str(reply)
        # a file that does not exist is not found, like an unknown URI
        missing = await s.request("resources/read", {"uri": "files://missing.txt"})
        assert error_of(missing) == {
            "code": NOT_FOUND_CODE,
            "message": "Resource not found: files://missing.txt",
            "data": {"uri": "files://missing.txt"},
        }
        assert (await s.result("resources/read", {"uri": "files://notes.txt"}))["contents"]


async def test_a_resource_error_reaches_the_client() -> None:
    app = Server("errors")

    @app.resource("app://locked")
    def locked() -> str:
        raise ResourceError("the vault is locked")

    @app.resource("app://broken")
    def broken() -> str:
        raise RuntimeError("disk on fire")

    async with Session(app) as s:
        await s.initialize()
        reply = await s.request("resources/read", {"uri": "app://locked"})
        assert error_of(reply) == {"code": -32603, "message": "the vault is locked"}
        reply = await s.request("resources/read", {"uri": "app://broken"})
        # the details go to the log, never to the client
        assert error_of(reply) == {
            "code": -32603,
            "message": "Internal error while reading app://broken",
        }


# --- subscriptions -----------------------------------------------------------------------------


def updated(s: Session) -> list[str]:
    return [m["params"]["uri"] for m in s.notifications("notifications/resources/updated")]


@pytest.mark.parametrize("version", HANDSHAKE_REVISIONS)
async def test_subscribe_and_notify(version: str) -> None:
    app = full()
    async with Session(app) as a, Session(app) as b:
        await a.initialize(version)
        await b.initialize(version)
        assert await a.result("resources/subscribe", {"uri": "app://readme"}) == {}
        assert await a.result("resources/subscribe", {"uri": "users://7/profile"}) == {}
        assert await b.result("resources/subscribe", {"uri": "app://status"}) == {}
        assert await a.result("resources/subscribe", {"uri": "app://readme"}) == {}  # again: fine

        app.notify_resource_updated("app://readme")
        app.notify_resource_updated("users://7/profile")
        app.notify_resource_updated("app://logo.png")  # nobody subscribed
        await a.quiet(0.05)
        assert updated(a) == ["app://readme", "users://7/profile"]
        assert updated(b) == []
        assert a.notifications("notifications/resources/updated")[0] == {
            "jsonrpc": "2.0",
            "method": "notifications/resources/updated",
            "params": {"uri": "app://readme"},
        }

        app.notify_resource_updated("app://status")
        await b.quiet(0.05)
        assert updated(b) == ["app://status"]
        assert updated(a) == ["app://readme", "users://7/profile"]

        assert await a.result("resources/unsubscribe", {"uri": "app://readme"}) == {}
        assert await a.result("resources/unsubscribe", {"uri": "app://never"}) == {}  # harmless
        app.notify_resource_updated("app://readme")
        app.notify_resource_updated("users://7/profile")
        await a.quiet(0.05)
        assert updated(a) == ["app://readme", "users://7/profile", "users://7/profile"]
        assert updated(b) == ["app://status"]


@pytest.mark.parametrize("version", HANDSHAKE_REVISIONS)
@pytest.mark.parametrize("uri", ["app://nothing", "users://x/profile", "plainmcp://blob/abc"])
async def test_subscribe_to_an_unknown_uri_is_resource_not_found(version: str, uri: str) -> None:
    async with Session(full()) as s:
        await s.initialize(version)
        reply = await s.request("resources/subscribe", {"uri": uri})
        assert error_of(reply) == {
            "code": NOT_FOUND_CODE,
            "message": f"Resource not found: {uri}",
            "data": {"uri": uri},
        }


async def test_notify_from_a_worker_thread_and_after_close() -> None:
    app = full()
    async with Session(app) as s:
        await s.initialize()
        await s.result("resources/subscribe", {"uri": "app://status"})

        @app.tool
        def touch() -> str:
            app.notify_resource_updated("app://status")  # from the tool's worker thread
            return "touched"

        await s.call("touch")
        await s.wait_for(lambda m: m.get("method") == "notifications/resources/updated")
        s.conn.close()
        app.notify_resource_updated("app://status")  # a closed connection is skipped
    assert updated(s) == ["app://status"]


# --- list_changed ------------------------------------------------------------------------------


@pytest.mark.parametrize("version", HANDSHAKE_REVISIONS)
async def test_list_changed_for_resources_and_prompts(version: str) -> None:
    app = full()
    async with Session(app) as a, Session(app) as b:
        await a.initialize(version)
        await b.initialize(version)

        def changes(s: Session) -> list[str]:
            return [
                m["method"]
                for m in s.messages
                if isinstance(m, dict) and str(m.get("method", "")).endswith("/list_changed")
            ]

        app.add_resource("new", "app://new")
        app.add_resource(lambda n: n, "new://{n}", name="new_template")
        app.resources.remove("app://new")
        app.prompt(lambda: "hi", name="hi")
        app.prompts.remove("hi")
        await a.quiet(0.05)
        expected = ["notifications/resources/list_changed"] * 3 + [
            "notifications/prompts/list_changed"
        ] * 2
        assert changes(a) == expected
        assert changes(b) == expected
        assert a.notifications("notifications/prompts/list_changed")[0] == {
            "jsonrpc": "2.0",
            "method": "notifications/prompts/list_changed",
        }
        listed = await a.result("resources/templates/list")
        assert "new://{n}" in [t["uriTemplate"] for t in listed["resourceTemplates"]]
        read = await a.result("resources/read", {"uri": "new://7"})
        assert read["contents"][0]["text"] == "7"


async def test_what_initialize_offered_holds_for_the_session() -> None:
    # Regression: the capability check used to follow the registries, so a client offered
    # prompts got -32601 from prompts/list right after the list_changed for the last one removed,
    # and a session never offered resources was sent resources/list_changed.
    app = Server("dynamic", payload_limits=PayloadLimits(offload=False))
    app.prompt(lambda: "hi", name="hi")
    async with Session(app) as s:
        caps = (await s.initialize("2025-06-18"))["capabilities"]
        assert caps == {**LOGGING_AND_TOOLS, **PROMPTS, "completions": {}}
        app.prompts.remove("hi")
        await s.wait_for(lambda m: m.get("method") == "notifications/prompts/list_changed")
        assert await s.result("prompts/list") == {"prompts": []}
        reply = await s.request("prompts/get", {"name": "hi"})
        assert error_of(reply) == {"code": -32602, "message": "Unknown prompt: hi"}

        app.add_resource("x", "app://x")  # resources were not offered to this session
        await s.quiet(0.05)
        assert s.notifications("notifications/resources/list_changed") == []
        reply = await s.request("resources/list")
        assert error_of(reply) == {"code": -32601, "message": "Method not found: resources/list"}
    async with Session(app) as s:  # a new session is offered what the server has now
        assert (await s.initialize("2025-06-18"))["capabilities"] == {
            **LOGGING_AND_TOOLS,
            **RESOURCES,
        }
        assert (await s.result("resources/list"))["resources"][0]["uri"] == "app://x"


# --- prompts -----------------------------------------------------------------------------------

PROMPT_LIST = [
    {
        "name": "greet",
        "description": "Greet someone.",
        "arguments": [
            {"name": "name", "description": "Who to greet.", "required": True},
            {"name": "style", "description": "How formally.", "required": False},
        ],
    },
    {
        "name": "review",
        "description": "Review some code.",
        "arguments": [
            {"name": "code", "required": True},
            {"name": "language", "required": True},
            {"name": "color", "required": False},
        ],
    },
    {"name": "picture", "description": "A picture and a document.", "arguments": []},
    {"name": "whoami", "description": "Who is asking.", "arguments": []},
]


def user_text(text: str) -> dict[str, Any]:
    return {"role": "user", "content": {"type": "text", "text": text}}


@pytest.mark.parametrize("version", HANDSHAKE_REVISIONS)
async def test_prompts_list_in_pages(version: str) -> None:
    async with Session(full(page_size=3)) as s:
        await s.initialize(version)
        first = await s.result("prompts/list")
        assert first == {"prompts": PROMPT_LIST[:3], "nextCursor": first["nextCursor"]}
        assert await s.result("prompts/list", {"cursor": first["nextCursor"]}) == {
            "prompts": PROMPT_LIST[3:]
        }
        reply = await s.request("prompts/list", {"cursor": "nope"})
        assert error_of(reply) == {"code": -32602, "message": "Invalid params: unknown cursor"}


@pytest.mark.parametrize("version", HANDSHAKE_REVISIONS)
async def test_prompts_get(version: str) -> None:
    async with Session(full()) as s:
        await s.initialize(version)

        async def get(name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
            params: dict[str, Any] = {"name": name}
            if arguments is not None:
                params["arguments"] = arguments
            return await s.result("prompts/get", params)

        assert await get("greet", {"name": "Ada"}) == {
            "description": "Greet someone.",
            "messages": [user_text("Hello Ada")],
        }
        assert await get("greet", {"name": "Ada", "style": "formal"}) == {
            "description": "Greet someone.",
            "messages": [user_text("Good day, Ada.")],
        }
        assert await get("review", {"code": "x = 1", "language": "python", "color": "blue"}) == {
            "description": "Review some code.",
            "messages": [
                user_text("Review this python code (blue):\nx = 1"),
                {"role": "assistant", "content": {"type": "text", "text": "Sure, let me look."}},
            ],
        }
        # an image and an embedded resource: both exist in every revision
        assert await get("picture") == {
            "description": "A picture and a document.",
            "messages": [
                {
                    "role": "user",
                    "content": {"type": "image", "data": PNG64, "mimeType": "image/png"},
                },
                {
                    "role": "user",
                    "content": {
                        "type": "resource",
                        "resource": {
                            "uri": "app://readme",
                            "mimeType": "text/plain",
                            "text": "Read me first.",
                        },
                    },
                },
            ],
        }
        # a prompt taking ctx: Context sees the request it serves
        request_id = s.next_id() + 1
        assert await get("whoami", {}) == {
            "description": "Who is asking.",
            "messages": [user_text(f"plainmcp-tests at {version}, request {request_id}")],
        }


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (
            {"name": "greet"},
            "Invalid arguments for prompt 'greet':\n- name: required argument missing",
        ),
        (
            {"name": "greet", "arguments": {"style": "rude", "extra": "1"}},
            "Invalid arguments for prompt 'greet':\n- name: required argument missing\n"
            "- style: expected one of 'formal', 'casual', got 'rude'\n- extra: unexpected argument",
        ),
        (
            {"name": "greet", "arguments": {"name": 5}},
            "Invalid arguments for prompt 'greet':\n- name: expected a string, got a number",
        ),
        (
            {"name": "review", "arguments": {"code": None, "language": ["py"], "color": True}},
            "Invalid arguments for prompt 'review':\n- code: expected a string, got null\n"
            "- language: expected a string, got an array\n"
            "- color: expected a string, got a boolean",
        ),
        ({"name": "greet", "arguments": ["Ada"]}, "Invalid params: arguments must be an object"),
        ({"name": "nope"}, "Unknown prompt: nope"),
        ({"name": 5}, "Invalid params: name must be a string"),
        ({}, "Invalid params: name must be a string"),
    ],
)
async def test_prompts_get_bad_input_then_a_good_request(
    params: dict[str, Any], message: str
) -> None:
    async with Session(full()) as s:
        await s.initialize()
        reply = await s.request("prompts/get", params)
        assert error_of(reply) == {"code": -32602, "message": message}
        assert (await s.result("prompts/get", {"name": "greet", "arguments": {"name": "A"}}))[
            "messages"
        ] == [user_text("Hello A")]


# --- completion --------------------------------------------------------------------------------


def prompt_ref(name: str, argument: str, value: str) -> dict[str, Any]:
    return {
        "ref": {"type": "ref/prompt", "name": name},
        "argument": {"name": argument, "value": value},
    }


def template_ref(uri: str, argument: str, value: str) -> dict[str, Any]:
    return {
        "ref": {"type": "ref/resource", "uri": uri},
        "argument": {"name": argument, "value": value},
    }


def values(*found: str, total: int | None = None) -> dict[str, Any]:
    return {
        "completion": {
            "values": list(found),
            "total": len(found) if total is None else total,
            "hasMore": False,
        }
    }


# 2024-11-05 has completion/complete but no capability to announce it: it is served too.
@pytest.mark.parametrize("version", HANDSHAKE_REVISIONS)
async def test_completion_of_prompt_arguments_and_template_variables(version: str) -> None:
    async with Session(full()) as s:
        await s.initialize(version)

        async def complete(params: dict[str, Any]) -> dict[str, Any]:
            return await s.result("completion/complete", params)

        # Literal, Enum: automatic, case-insensitive prefix, in declaration order
        assert await complete(prompt_ref("greet", "style", "")) == values("formal", "casual")
        assert await complete(prompt_ref("greet", "style", "F")) == values("formal")
        assert await complete(prompt_ref("review", "color", "g")) == values("green")
        # an explicit completer answers as it likes
        assert await complete(prompt_ref("review", "language", "p")) == values(
            "python", "pascal", "perl"
        )
        # a plain str argument has nothing to offer
        assert await complete(prompt_ref("greet", "name", "A")) == values()
        # template variables: explicit (add_resource(complete=...)) and Literal
        assert await complete(template_ref("weather://{country}", "country", "f")) == values(
            "France", "Finland"
        )
        assert await complete(template_ref("paint://{color}", "color", "b")) == values("blue")
        assert await complete(template_ref("users://{user_id}/profile", "user_id", "4")) == (
            values()
        )


async def test_a_completer_sees_the_other_arguments() -> None:
    app = Server("cities")
    cities = {"France": ["Paris", "Lyon"], "Peru": ["Lima", "Cusco"]}

    def city(value: str, arguments: Any) -> list[str]:
        return [c for c in cities.get(arguments.get("country", ""), []) if c.startswith(value)]

    app.add_resource(
        lambda country, city: f"{city}, {country}",
        "cities://{country}/{city}",
        name="city",
        complete={"country": lambda value, arguments: list(cities), "city": city},
    )
    async with Session(app) as s:
        await s.initialize("2025-06-18")
        params = template_ref("cities://{country}/{city}", "city", "")
        params["context"] = {"arguments": {"country": "Peru"}}
        assert await s.result("completion/complete", params) == values("Lima", "Cusco")
        assert await s.result("resources/read", {"uri": "cities://Peru/Lima"}) == {
            "contents": [
                {"uri": "cities://Peru/Lima", "mimeType": "text/plain", "text": "Lima, Peru"}
            ]
        }


async def test_a_template_registered_again_does_not_keep_the_old_completer() -> None:
    # Regression: explicit template completers were keyed by the URI template string.
    app = Server("again")
    uri = "w://{city}"
    app.add_resource(lambda city: city, uri, name="w", complete={"city": lambda v, a: ["Old"]})
    app.resources.remove(uri)
    app.add_resource(lambda city: city, uri, name="w")
    async with Session(app) as s:
        await s.initialize()
        assert await s.result("completion/complete", template_ref(uri, "city", "")) == values()
    app.resources.remove(uri)
    app.add_resource(lambda city: city, uri, name="w", complete={"city": lambda v, a: ["New"]})
    async with Session(app) as s:
        await s.initialize()
        assert await s.result("completion/complete", template_ref(uri, "city", "")) == (
            values("New")
        )


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (template_ref("nope://{x}", "x", ""), "Unknown resource template: nope://{x}"),
        (
            template_ref("paint://{color}", "shade", ""),
            "Resource template 'paint://{color}' has no variable 'shade'",
        ),
        (template_ref("app://readme", "x", ""), "Unknown resource template: app://readme"),
        (prompt_ref("nope", "x", ""), "Unknown prompt: nope"),
        (prompt_ref("greet", "tone", ""), "Prompt 'greet' has no argument 'tone'"),
        ({}, "Invalid params: ref and argument must be objects"),
        (
            {"ref": "greet", "argument": {"name": "style", "value": ""}},
            "Invalid params: ref and argument must be objects",
        ),
        (
            {"ref": {"type": "ref/tool", "name": "echo"}, "argument": {"name": "x", "value": ""}},
            'Invalid params: ref.type must be "ref/prompt" or "ref/resource"',
        ),
        (
            {"ref": {"type": "ref/prompt"}, "argument": {"name": "style", "value": ""}},
            "Invalid params: ref.name must be a string",
        ),
        (
            {"ref": {"type": "ref/resource", "name": "x"}, "argument": {"name": "x", "value": ""}},
            "Invalid params: ref.uri must be a string",
        ),
        (
            {"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "style"}},
            "Invalid params: argument.name and argument.value must be strings",
        ),
        (
            {**prompt_ref("greet", "style", ""), "context": {"arguments": {"name": 1}}},
            "Invalid params: context.arguments must map names to strings",
        ),
    ],
)
async def test_completion_bad_input_then_a_good_request(
    params: dict[str, Any], message: str
) -> None:
    async with Session(full()) as s:
        await s.initialize()
        reply = await s.request("completion/complete", params)
        assert error_of(reply) == {"code": -32602, "message": message}
        assert await s.result("completion/complete", prompt_ref("greet", "style", "c")) == (
            values("casual")
        )


# --- payload guards through the server ---------------------------------------------------------

TEXT_5MB = big_text(5_000_000)
IMAGE_20MB = big_png(20 * MIB)
LINK_TEXT_DESCRIPTION = (
    "The full text of the block cut above (5,000,000 characters); stored for 60 minutes."
)
LINK_IMAGE_DESCRIPTION = (
    "An image/png image of 20,971,520 bytes, too large to send inline (limit 1,048,576 bytes);"
    " stored for 60 minutes; read it with resources/read."
)


def guarded(**kwargs: Any) -> Server:
    app = Server("big", **kwargs)

    @app.tool
    def dump_log() -> str:
        """Five million characters of log."""
        return TEXT_5MB

    @app.tool(structured=False)
    def scan() -> list[Any]:
        """A caption and a 20 MiB image."""
        return ["The full-resolution scan", Image(IMAGE_20MB)]

    return app


def wire_size(message: Any) -> int:
    import orjson

    return len(orjson.dumps(message))


@pytest.mark.parametrize("version", HANDSHAKE_REVISIONS)
async def test_5mb_of_text_is_served_within_the_limits_and_read_back_whole(version: str) -> None:
    async with Session(guarded()) as s:
        await s.initialize(version)
        reply = await s.request("tools/call", {"name": "dump_log"})
        result = reply["result"]
        assert wire_size(reply) < 45_000  # under Claude Code's 50,000-character file threshold
        assert result["isError"] is False
        cut, link = result["content"]
        uri = cut["text"].rsplit("The full text is also at resource ", 1)[1].split(";", 1)[0]
        assert uri.startswith("plainmcp://blob/")
        kept, marker = cut["text"].split("\n…", 1)
        assert len(cut["text"]) <= 40_000
        assert TEXT_5MB.startswith(kept) and TEXT_5MB[len(kept) :].startswith("\n\n")
        assert as_documented("…" + marker) == (
            "…[truncated: showing 39,506 of 5,000,000 characters. For the rest, call the tool"
            ' read_more with arguments {"ref":"<ref>"}. The full text is also at resource'
            f" {uri}; read it with resources/read]"
        )
        if version >= "2025-06-18":
            assert link == {
                "type": "resource_link",
                "uri": uri,
                "name": "text-1.txt",
                "description": LINK_TEXT_DESCRIPTION,
                "mimeType": "text/plain",
                "size": 5_000_000,
            }
        else:  # no resource_link before 2025-06-18: the documented text fallback
            assert link == {
                "type": "text",
                "text": f"Resource link: {uri}\nname: text-1.txt\ntype: text/plain\n"
                f"size: 5000000 bytes\ndescription: {LINK_TEXT_DESCRIPTION}",
            }
        shown(as_documented("…" + marker), uri)

        read = await s.result("resources/read", {"uri": uri})
        assert read == {"contents": [{"uri": uri, "mimeType": "text/plain", "text": TEXT_5MB}]}


@pytest.mark.parametrize("version", HANDSHAKE_REVISIONS)
async def test_a_20mb_image_is_linked_and_read_back_byte_identical(version: str) -> None:
    async with Session(guarded()) as s:
        await s.initialize(version)
        reply = await s.request("tools/call", {"name": "scan"})
        assert wire_size(reply) < 2_000
        caption, link = reply["result"]["content"]
        assert caption == {"type": "text", "text": "The full-resolution scan"}
        if version >= "2025-06-18":
            uri = link["uri"]
            assert link == {
                "type": "resource_link",
                "uri": uri,
                "name": "image-2.png",
                "description": LINK_IMAGE_DESCRIPTION,
                "mimeType": "image/png",
                "size": 20_971_520,
            }
            shown(json_line(link), uri)
        else:
            uri = link["text"].split("\n", 1)[0].removeprefix("Resource link: ")
            assert link == {
                "type": "text",
                "text": f"Resource link: {uri}\nname: image-2.png\ntype: image/png\n"
                f"size: 20971520 bytes\ndescription: {LINK_IMAGE_DESCRIPTION}",
            }
        assert uri.startswith("plainmcp://blob/")

        read = await s.result("resources/read", {"uri": uri})
        (contents,) = read["contents"]
        assert contents == {"uri": uri, "mimeType": "image/png", "blob": contents["blob"]}
        assert base64.b64decode(contents["blob"], validate=True) == IMAGE_20MB


def json_line(value: Any) -> str:
    import orjson

    return orjson.dumps(value).decode()


@pytest.mark.parametrize("version", HANDSHAKE_REVISIONS)
async def test_expired_or_unknown_blob_uris_are_resource_not_found(version: str) -> None:
    now = [1000.0]
    store = MemoryStore(clock=lambda: now[0])
    app = guarded(blob_store=store)
    # Regression: `blob_store or MemoryStore()` replaced any empty store (MemoryStore has __len__).
    assert app.blob_store is store
    async with Session(app) as s:
        await s.initialize(version)
        result = await s.call("scan")
        text = json_line(result)
        uri = (
            "plainmcp://blob/"
            + text.split("plainmcp://blob/", 1)[1].split('"', 1)[0].split("\\n", 1)[0]
        )
        assert (await s.result("resources/read", {"uri": uri}))["contents"][0]["mimeType"] == (
            "image/png"
        )
        now[0] += 3599.0  # still within the hour
        assert (await s.result("resources/read", {"uri": uri}))["contents"]
        now[0] += 1.0  # the TTL has run out
        for gone in (
            uri,
            "plainmcp://blob/" + "A" * 43,
            "plainmcp://blob/has space",
            "plainmcp://blob/../x",
        ):
            reply = await s.request("resources/read", {"uri": gone})
            assert error_of(reply) == {
                "code": NOT_FOUND_CODE,
                "message": f"Resource not found: {gone}",
                "data": {"uri": gone},
            }
        assert len(store) == 0


async def test_without_offloading_large_payloads_are_cut_and_left_out() -> None:
    async with Session(guarded(payload_limits=PayloadLimits(offload=False))) as s:
        await s.initialize()
        (cut,) = (await s.call("dump_log"))["content"]
        assert cut["text"].endswith(
            "\n…[truncated: showing 39,506 of 5,000,000 characters. The rest was not sent; ask for"
            " less, e.g. a narrower query or the next page]"
        )
        assert (await s.call("scan"))["content"] == [
            {"type": "text", "text": "The full-resolution scan"},
            {
                "type": "text",
                "text": "[omitted: an image/png image of 20,971,520 bytes, over this server's"
                " inline limit of 1,048,576 bytes. Ask for a smaller one]",
            },
        ]


# --- bad input, each followed by a working request --------------------------------------------


@pytest.mark.parametrize(
    "method", ["resources/read", "resources/subscribe", "resources/unsubscribe"]
)
@pytest.mark.parametrize(
    "params", [None, {}, {"uri": None}, {"uri": 5}, {"uri": ["app://readme"]}, {"url": "app://x"}]
)
async def test_resource_requests_without_a_string_uri(method: str, params: Any) -> None:
    async with Session(full()) as s:
        await s.initialize()
        reply = await s.request(method, params)
        assert error_of(reply) == {
            "code": -32602,
            "message": "Invalid params: uri must be a string",
        }
        assert (await s.result("resources/read", {"uri": "app://readme"}))["contents"][0][
            "text"
        ] == "Read me first."


async def test_a_broken_request_does_not_stop_the_session() -> None:
    async with Session(full()) as s:
        await s.initialize("2025-03-26")
        bad: list[tuple[str, dict[str, Any]]] = [
            ("resources/read", {"uri": 1}),
            ("prompts/get", {"name": "greet", "arguments": {"name": {"first": "Ada"}}}),
            ("completion/complete", {"ref": {"type": "ref/prompt"}, "argument": {}}),
            ("resources/subscribe", {}),
            ("resources/templates/list", {"cursor": 1}),
        ]
        ids = [await s.start(method, params) for method, params in bad]
        for request_id in ids:
            assert error_of(await s.response(request_id))["code"] == -32602
        assert await s.result("prompts/get", {"name": "greet", "arguments": {"name": "Ada"}})
        assert await s.result("resources/subscribe", {"uri": "app://readme"}) == {}
        assert await s.result("completion/complete", prompt_ref("greet", "style", "")) == values(
            "formal", "casual"
        )


# --- docs/server.md ----------------------------------------------------------------------------

DOCS = Path(__file__).resolve().parents[1] / "docs" / "server.md"


def docs_app() -> tuple[Server, dict[str, Any]]:
    """Run the file the python blocks of docs/server.md make (notes.py), in one namespace."""
    source = source_of(DOCS, "notes.py")
    namespace: dict[str, Any] = {"__name__": "server_md"}  # not "__main__": app.run() stays off
    exec(compile(source, str(DOCS), "exec"), namespace)
    app = namespace["app"]
    assert isinstance(app, Server)
    return app, namespace


async def test_the_snippets_of_docs_server_md_run_as_documented(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    public = tmp_path / "public"
    public.mkdir()
    (public / "notes.txt").write_text("public notes", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("secret", encoding="utf-8")
    os.symlink(tmp_path / "secret.txt", public / "link.txt")
    monkeypatch.chdir(tmp_path)  # PUBLIC is relative, as in the docs
    app, namespace = docs_app()
    await namespace["check"]()
    async with Session(app) as s:
        caps = (await s.initialize("2025-06-18"))["capabilities"]
        assert set(caps) == {"logging", "tools", "resources", "prompts", "completions"}

        async def read(uri: str) -> dict[str, Any]:
            return await s.request("resources/read", {"uri": uri})

        assert (await read("files://notes.txt"))["result"]["contents"] == [
            {"uri": "files://notes.txt", "mimeType": "text/plain", "text": "public notes"}
        ]
        assert error_of(await read("files://..%2Fsecret.txt"))["code"] == -32002
        assert error_of(await read("files://link.txt")) == {
            "code": -32602,
            "message": "path 'link.txt' is outside the served directory",
        }
        assert error_of(await read("files://missing.txt"))["code"] == -32002
        assert error_of(await read("notes://nope")) == {
            "code": -32602,
            "message": "no note 'nope'",
        }
        assert (await read("app://status"))["result"]["contents"][0]["text"] == (
            '{"ok":true,"notes":2}'
        )
        assert (await read("shout://todo"))["result"]["contents"][0]["text"] == ("WRITE THE DOCS.")
        assert (await read("app://sample.bin"))["result"]["contents"][0]["blob"] == (
            base64.b64encode(bytes(range(16))).decode()
        )

        bad = await s.request("prompts/get", {"name": "review", "arguments": {"language": "go"}})
        assert error_of(bad)["message"] == (
            "Invalid arguments for prompt 'review':\n- code: required argument missing\n"
            "- language: expected one of 'python', 'rust', got 'go'"
        )
        assert await s.result("completion/complete", prompt_ref("review", "language", "R")) == (
            values("rust")
        )
        assert await s.result("completion/complete", prompt_ref("summarize", "name", "t")) == (
            values("todo")
        )
        shout = template_ref("shout://{name}", "name", "i")
        assert await s.result("completion/complete", shout) == values("ideas")

        assert await s.result("resources/subscribe", {"uri": "notes://ideas"}) == {}
        edited = await s.call("edit_note", {"name": "ideas", "text": "More tea."})
        assert edited["content"] == [{"type": "text", "text": "saved"}]
        await s.wait_for(lambda m: m.get("method") == "notifications/resources/updated")
        assert updated(s) == ["notes://ideas"]

        await s.result("logging/setLevel", {"level": "info"})
        found = await s.call("search", {"query": "i"})
        assert found["structuredContent"] == {"result": ["ideas"]}
        assert [m["params"] for m in s.notifications("notifications/message")] == [
            {"level": "info", "data": "searching for 'i'"}
        ]
        assert (await s.call("search", {"query": ""}))["isError"] is True
        assert (await s.call("add", {"a": 2, "b": 3}))["structuredContent"] == {"result": 5}
        counted = await s.call("word_count", {"name": "todo"})
        assert counted["structuredContent"] == {"result": 3}
