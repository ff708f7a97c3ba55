"""Resources (plainmcp.resources) and their wire shapes (wire.definitions, wire.render):
registration, matching, path-traversal refusal, pagination, reading, errors. Every rendered dict
is compared exactly and validated against the revision's official schema definition."""

from __future__ import annotations

import base64
import logging
import os
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest

from plainmcp import (
    Annotations,
    ContentError,
    EmbeddedResource,
    File,
    Icon,
    Image,
    ResultOptions,
    Text,
)
from plainmcp.context import ClientCapabilityError, Context
from plainmcp.resources import (
    Contents,
    Resource,
    ResourceError,
    ResourceNotFound,
    Resources,
    ResourceTemplate,
    safe_join,
)
from plainmcp.wire import definitions, render
from plainmcp.wire.cursor import make_cursor
from plainmcp.wire.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, RpcError
from plainmcp.wire.revisions import REVISIONS
from tests.mcp_schemas import validate_definition

ALL = tuple(REVISIONS)
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)
PNG64 = base64.b64encode(PNG).decode()
ICON = Icon("https://example.com/r.png", mime_type="image/png", sizes=("48x48",))
NOTE = Annotations(audience="user", priority=0.5, last_modified="2025-01-12T15:00:58Z")


def read(registry: Resources, uri: str, **kw: Any) -> list[Contents]:
    async def go() -> list[Contents]:
        return await registry.read(uri, **kw)

    return anyio.run(go)


# --- rendering: Resource ---------------------------------------------------------------------


def full_resource() -> Resource:
    registry = Resources()
    made = registry.add(
        "hello",
        "notes://greeting",
        name="greeting",
        title="Greeting",
        description="A friendly note.",
        annotations=NOTE,
        icons=[ICON],
        meta={"vendor/x": 1},
    )
    assert isinstance(made, Resource)
    return made


BASIC_RESOURCE = {
    "uri": "notes://greeting",
    "name": "greeting",
    "description": "A friendly note.",
    "mimeType": "text/plain",
    "annotations": {"audience": ["user"], "priority": 0.5},
    "size": 5,
}
ICON_WIRE = {"src": "https://example.com/r.png", "mimeType": "image/png", "sizes": ["48x48"]}


@pytest.mark.parametrize(
    ("rev", "expected"),
    [
        ("2024-11-05", BASIC_RESOURCE),
        ("2025-03-26", BASIC_RESOURCE),
        (
            "2025-06-18",
            {
                "uri": "notes://greeting",
                "name": "greeting",
                "title": "Greeting",
                "description": "A friendly note.",
                "mimeType": "text/plain",
                "annotations": {
                    "audience": ["user"],
                    "priority": 0.5,
                    "lastModified": "2025-01-12T15:00:58Z",
                },
                "_meta": {"vendor/x": 1},
                "size": 5,
            },
        ),
        *[
            (
                rev,
                {
                    "uri": "notes://greeting",
                    "name": "greeting",
                    "title": "Greeting",
                    "description": "A friendly note.",
                    "mimeType": "text/plain",
                    "annotations": {
                        "audience": ["user"],
                        "priority": 0.5,
                        "lastModified": "2025-01-12T15:00:58Z",
                    },
                    "icons": [ICON_WIRE],
                    "_meta": {"vendor/x": 1},
                    "size": 5,
                },
            )
            for rev in ("2025-11-25", "2026-07-28")
        ],
    ],
)
def test_resource_definition_per_revision(rev: str, expected: dict[str, Any]) -> None:
    out = definitions.resource(full_resource(), REVISIONS[rev])
    assert out == expected
    validate_definition(out, rev, "Resource")


@pytest.mark.parametrize("rev", ALL)
def test_minimal_resource_definition(rev: str) -> None:
    registry = Resources()

    def status() -> str:
        return "ok"

    made = registry.add(status, "app://status")
    assert isinstance(made, Resource)
    out = definitions.resource(made, REVISIONS[rev])
    assert out == {"uri": "app://status", "name": "status"}
    validate_definition(out, rev, "Resource")


# --- rendering: ResourceTemplate ---------------------------------------------------------------


def full_template() -> ResourceTemplate:
    registry = Resources()

    def user(id: int) -> dict[str, int]:
        """One user, by id."""
        return {"id": id}

    made = registry.add(
        user,
        "users://{id}/profile",
        title="User profile",
        mime_type="application/json",
        annotations=NOTE,
        icons=[ICON],
        meta={"vendor/x": 1},
    )
    assert isinstance(made, ResourceTemplate)
    return made


BASIC_TEMPLATE = {
    "uriTemplate": "users://{id}/profile",
    "name": "user",
    "description": "One user, by id.",
    "mimeType": "application/json",
    "annotations": {"audience": ["user"], "priority": 0.5},
}


@pytest.mark.parametrize(
    ("rev", "expected"),
    [
        ("2024-11-05", BASIC_TEMPLATE),
        ("2025-03-26", BASIC_TEMPLATE),
        (
            "2025-06-18",
            {
                **BASIC_TEMPLATE,
                "title": "User profile",
                "annotations": {
                    "audience": ["user"],
                    "priority": 0.5,
                    "lastModified": "2025-01-12T15:00:58Z",
                },
                "_meta": {"vendor/x": 1},
            },
        ),
        *[
            (
                rev,
                {
                    **BASIC_TEMPLATE,
                    "title": "User profile",
                    "annotations": {
                        "audience": ["user"],
                        "priority": 0.5,
                        "lastModified": "2025-01-12T15:00:58Z",
                    },
                    "icons": [ICON_WIRE],
                    "_meta": {"vendor/x": 1},
                },
            )
            for rev in ("2025-11-25", "2026-07-28")
        ],
    ],
)
def test_template_definition_per_revision(rev: str, expected: dict[str, Any]) -> None:
    out = definitions.resource_template(full_template(), REVISIONS[rev])
    assert out == expected
    assert list(out)[:2] == ["uriTemplate", "name"]
    validate_definition(out, rev, "ResourceTemplate")


# --- rendering: contents and read results ------------------------------------------------------


@pytest.mark.parametrize("rev", ALL)
def test_text_and_blob_contents_per_revision(rev: str) -> None:
    meta = {"vendor/x": True}
    text = render.contents(
        Contents("a://t", text="hi", mime_type="text/plain", meta=meta), REVISIONS[rev]
    )
    blob = render.contents(
        Contents("a://b", blob=PNG, mime_type="image/png", meta=meta), REVISIONS[rev]
    )
    with_meta = rev >= "2025-06-18"
    assert text == {
        "uri": "a://t",
        "mimeType": "text/plain",
        "text": "hi",
        **({"_meta": meta} if with_meta else {}),
    }
    assert blob == {
        "uri": "a://b",
        "mimeType": "image/png",
        "blob": PNG64,
        **({"_meta": meta} if with_meta else {}),
    }
    validate_definition(text, rev, "TextResourceContents")
    validate_definition(blob, rev, "BlobResourceContents")


@pytest.mark.parametrize("rev", ALL)
def test_contents_without_a_type(rev: str) -> None:
    out = render.contents(Contents("a://t", text=""), REVISIONS[rev])
    assert out == {"uri": "a://t", "text": ""}
    validate_definition(out, rev, "TextResourceContents")


@pytest.mark.parametrize("rev", ALL)
def test_read_result_per_revision(rev: str) -> None:
    items = [Contents("a://t", text="hi", mime_type="text/plain"), Contents("a://b", blob=PNG)]
    out = render.read_result(items, REVISIONS[rev])
    expected: dict[str, Any] = {
        "contents": [
            {"uri": "a://t", "mimeType": "text/plain", "text": "hi"},
            {"uri": "a://b", "blob": PNG64},
        ]
    }
    if rev == "2026-07-28":
        expected["resultType"] = "complete"
        assert out == expected
        # the server adds its caching policy; with it the result is complete
        validate_definition({**out, "ttlMs": 0, "cacheScope": "private"}, rev, "ReadResourceResult")
    else:
        assert out == expected
        validate_definition(out, rev, "ReadResourceResult")


@pytest.mark.parametrize("rev", ALL[:4])
def test_a_list_page_validates(rev: str) -> None:
    registry = Resources()
    registry.add("a", "a://1")
    registry.add(b"\x00\x01", "a://2")
    page, cursor = registry.page(None, 1)
    out = {
        "resources": [definitions.resource(r, REVISIONS[rev]) for r in page],
        "nextCursor": cursor,
    }
    validate_definition(out, rev, "ListResourcesResult")
    templates = {
        "resourceTemplates": [definitions.resource_template(full_template(), REVISIONS[rev])]
    }
    validate_definition(templates, rev, "ListResourceTemplatesResult")


@pytest.mark.parametrize(("rev", "code"), [(r, -32002) for r in ALL[:4]] + [("2026-07-28", -32602)])
def test_resource_not_found_error_per_revision(rev: str, code: int) -> None:
    error = render.resource_not_found("a://missing", REVISIONS[rev])
    assert error.to_wire() == {
        "code": code,
        "message": "Resource not found: a://missing",
        "data": {"uri": "a://missing"},
    }
    if rev >= "2025-11-25":
        validate_definition(
            {"jsonrpc": "2.0", "id": 1, "error": error.to_wire()}, rev, "JSONRPCErrorResponse"
        )
    else:
        validate_definition(
            {"jsonrpc": "2.0", "id": 1, "error": error.to_wire()}, rev, "JSONRPCError"
        )


# --- registration ------------------------------------------------------------------------------


def test_static_values_get_a_type_and_a_size() -> None:
    registry = Resources()
    text = registry.add("héllo", "a://text")
    png = registry.add(PNG, "a://png")
    raw = registry.add(b"\x00\x01\x02", "a://raw")
    data = registry.add({"k": [1, 2]}, "a://json")
    file = registry.add(File(b'{"a": 1}', mime_type="application/json"), "a://file")
    declared = registry.add("x,y", "a://csv", mime_type="text/csv", size=99)
    assert isinstance(text, Resource) and (text.mime_type, text.size) == ("text/plain", 6)
    assert isinstance(png, Resource) and (png.mime_type, png.size) == ("image/png", len(PNG))
    assert isinstance(raw, Resource) and raw.mime_type == "application/octet-stream"
    assert isinstance(data, Resource) and (data.mime_type, data.size) == ("application/json", None)
    assert isinstance(file, Resource) and (file.mime_type, file.size) == ("application/json", 8)
    assert isinstance(declared, Resource) and (declared.mime_type, declared.size) == (
        "text/csv",
        99,
    )
    assert text.name == "a://text"  # a static value has no function name to borrow


def test_function_name_and_description_from_the_function() -> None:
    registry = Resources()

    def readme(ctx: Context) -> str:
        """The project's README.

        Args:
            ctx: injected.
        """
        return ""

    made = registry.add(readme, "docs://readme")
    assert isinstance(made, Resource)
    assert (made.name, made.description, made.mime_type, made.size) == (
        "readme",
        "The project's README.",
        None,
        None,
    )
    named = registry.add(readme, "docs://other", name="other", description="Given.")
    assert (named.name, named.description) == ("other", "Given.")


def test_template_records_variables_and_types() -> None:
    registry = Resources()

    def cell(sheet: str, row: int, ctx: Context, limit: int = 3) -> str:
        return ""

    made = registry.add(cell, "sheets://{sheet}/rows/{row}")
    assert isinstance(made, ResourceTemplate)
    assert made.variables == ("sheet", "row")
    assert dict(made.variable_types) == {"sheet": str, "row": int}
    assert registry.templates == (made,)
    assert registry.resources == ()
    assert len(registry) == 1


def _one(x: str) -> str:
    return x


def _none() -> str:
    return ""


@pytest.mark.parametrize(
    ("uri", "message"),
    [
        ("no-scheme", "has no scheme"),
        ("/abs/path", "has no scheme"),
        ("", "non-empty"),
        ("a://has space", "whitespace"),
        ("a://tab\there", "whitespace"),
        ("a://{+x}", "only level-1"),
        ("a://{/x}", "only level-1"),
        ("a://{?x}", "only level-1"),
        ("a://{#x}", "only level-1"),
        ("a://{.x}", "only level-1"),
        ("a://{;x}", "only level-1"),
        ("a://{&x}", "only level-1"),
        ("a://{x,y}", "not a plain variable"),
        ("a://{x:3}", "not a plain variable"),
        ("a://{x*}", "not a plain variable"),
        ("a://{}", "not a plain variable"),
        ("a://{x", "unbalanced"),
        ("a://x}", "unbalanced"),
        ("a://{x}{y}", "literal text between"),
        ("a://{x}/{x}", "repeats"),
    ],
)
def test_invalid_uris_are_refused(uri: str, message: str) -> None:
    def fn(x: str, y: str = "") -> str:
        return x

    with pytest.raises(ValueError, match=message):
        Resources().add(fn, uri)


def test_registration_errors() -> None:
    registry = Resources()
    registry.add("x", "a://one")
    with pytest.raises(ValueError, match="already registered"):
        registry.add("y", "a://one")
    registry.add(_one, "a://{x}")
    with pytest.raises(ValueError, match="already registered"):
        registry.add(_one, "a://{x}")
    with pytest.raises(TypeError, match="needs a function"):
        registry.add("static", "b://{x}")
    with pytest.raises(TypeError, match="no parameter for 'y'"):
        registry.add(_one, "b://{x}/{y}")
    with pytest.raises(TypeError, match="takes no arguments"):
        registry.add(_one, "b://static")
    with pytest.raises(TypeError, match="no parameter for 'x'"):
        registry.add(_none, "b://{x}")

    def positional(x: str, /) -> str:
        return x

    with pytest.raises(TypeError, match="positional-only"):
        registry.add(positional, "c://{x}")

    def ctx_only(ctx: Context) -> str:
        return ""

    with pytest.raises(TypeError, match="no parameter for 'ctx'"):
        registry.add(ctx_only, "c://{ctx}")
    with pytest.raises(ValueError, match="non-negative"):
        registry.add("x", "c://sized", size=-1)
    with pytest.raises(ValueError, match="size= is for concrete"):
        registry.add(_one, "c://{x}", size=3)
    with pytest.raises(TypeError, match="static value must be"):
        registry.add(object(), "c://object")
    with pytest.raises(ContentError) as refused:
        registry.add("x", "c://ann", annotations=["user"])  # type: ignore[arg-type]
    assert str(refused.value) == "annotations must be an Annotations or a mapping, not list"
    with pytest.raises(ContentError) as refused:
        registry.add("x", "c://ann", annotations={"priority": 2})
    assert str(refused.value) == "priority must be a number between 0 and 1, not 2"
    with pytest.raises(ValueError, match="needs a name"):
        registry.add("x", "c://named", name="")
    assert [r.uri for r in registry.resources] == ["a://one"]
    assert [t.uri_template for t in registry.templates] == ["a://{x}"]


def test_a_parameter_missing_from_the_template_is_refused() -> None:
    def two(x: str, y: str) -> str:
        return x + y

    with pytest.raises(TypeError, match="'y' has no template variable"):
        Resources().add(two, "a://{x}")


class Opaque:
    """No pydantic schema can be made for it."""


def test_unconvertible_parameter_type_is_refused() -> None:
    def fn(x: Opaque) -> str:
        return ""

    with pytest.raises(TypeError, match="cannot convert"):
        Resources().add(fn, "a://{x}")


def test_remove_and_change_callback() -> None:
    changes: list[int] = []
    registry = Resources(on_change=lambda: changes.append(len(registry)))
    registry.add("x", "a://one")
    registry.add(_one, "a://{x}")
    assert registry.exists("a://one") and registry.exists("a://two")
    registry.remove("a://one")
    assert registry.exists("a://one")  # the template still matches it
    registry.remove("a://{x}")
    assert not registry.exists("a://one")
    with pytest.raises(KeyError):
        registry.remove("a://one")
    assert changes == [1, 2, 1, 0]


# --- matching ----------------------------------------------------------------------------------


def test_static_wins_then_templates_in_order() -> None:
    registry = Resources()

    def by_id(id: int) -> str:
        return f"id {id}"

    def by_name(name: str) -> str:
        return f"name {name}"

    registry.add(by_id, "users://{id}")
    registry.add(by_name, "users://{name}")
    registry.add("me", "users://me")
    assert read(registry, "users://me")[0].text == "me"
    assert read(registry, "users://42")[0].text == "id 42"
    # not an int: the first template does not match, the second does
    assert read(registry, "users://ann")[0].text == "name ann"
    matched = registry.match("users://007")
    assert matched is not None and matched[1] == {"id": 7}


def test_a_variable_matches_one_segment_only() -> None:
    registry = Resources()
    registry.add(_one, "files://{x}")
    registry.add(_one, "dirs://{x}/index")
    assert registry.exists("files://a.txt")
    assert not registry.exists("files://a/b.txt")
    assert not registry.exists("files://")
    assert registry.exists("dirs://docs/index")
    assert not registry.exists("dirs://a/b/index")
    assert not registry.exists("dirs://docs/index/more")
    assert not registry.exists("other://a.txt")


def test_values_are_percent_decoded_once() -> None:
    registry = Resources()
    registry.add(_one, "echo://{x}")
    assert read(registry, "echo://hello%20world")[0].text == "hello world"
    assert read(registry, "echo://100%2520")[0].text == "100%20"
    assert read(registry, "echo://caf%C3%A9")[0].text == "café"
    assert read(registry, "echo://a:b@c")[0].text == "a:b@c"


TRAVERSALS = [
    "..",
    ".",
    "%2e%2e",
    "%2E%2E",
    ".%2e",
    "..%2F..%2Fetc%2Fpasswd",
    "..%2f..%2fetc%2fpasswd",
    "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    "%2Fetc%2Fpasswd",
    "..%5C..%5Cwindows",
    "..\\..\\windows",
    "a%00b",
    "passwd%00.txt",
    "%ff%fe",  # not UTF-8
]


@pytest.mark.parametrize("value", TRAVERSALS)
def test_path_traversal_is_refused(value: str) -> None:
    registry = Resources()
    seen: list[str] = []

    def open_file(name: str) -> str:
        seen.append(name)
        return name

    registry.add(open_file, "files://{name}")
    uri = "files://" + value
    assert not registry.exists(uri)
    with pytest.raises(ResourceNotFound) as caught:
        read(registry, uri)
    assert caught.value.uri == uri
    assert seen == []


@pytest.mark.parametrize("uri", ["files://../../etc/passwd", "files:///etc/passwd"])
def test_raw_slashes_never_reach_the_function(uri: str) -> None:
    registry = Resources()
    registry.add(_one, "files://{x}")
    assert not registry.exists(uri)


def test_file_serving_function_with_safe_join(tmp_path: Path) -> None:
    root = tmp_path / "served"
    root.mkdir()
    (root / "a.txt").write_text("A")
    (tmp_path / "secret.txt").write_text("SECRET")
    (root / "link.txt").symlink_to(tmp_path / "secret.txt")
    registry = Resources()

    def serve(name: str) -> bytes:
        return safe_join(root, name).read_bytes()

    registry.add(serve, "files://{name}", mime_type="text/plain")
    assert read(registry, "files://a.txt") == [
        Contents("files://a.txt", blob=b"A", mime_type="text/plain")
    ]
    with pytest.raises(ResourceError) as caught:
        read(registry, "files://link.txt")
    assert caught.value.code == INVALID_PARAMS
    assert str(tmp_path) not in caught.value.message
    with pytest.raises(ResourceNotFound):  # FileNotFoundError means not found
        read(registry, "files://missing.txt")
    for value in ("..%2Fsecret.txt", "%2e%2e", "..%5Csecret.txt"):
        with pytest.raises(ResourceNotFound):
            read(registry, "files://" + value)


def test_refusals_are_logged_as_one_warning_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "served"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("SECRET")
    (root / "link.txt").symlink_to(tmp_path / "secret.txt")
    registry = Resources()

    def serve(name: str) -> bytes:
        return safe_join(root, name).read_bytes()

    def ask() -> str:
        raise ClientCapabilityError("the client did not declare the 'roots' capability")

    registry.add(serve, "files://{name}")
    registry.add(ask, "app://roots")
    with caplog.at_level(logging.DEBUG, logger="plainmcp"), pytest.raises(ResourceError):
        read(registry, "files://link.txt")
    [record] = caplog.records
    assert (record.levelno, record.getMessage(), record.exc_info) == (
        logging.WARNING,
        "reading resource 'files://link.txt' refused (ResourceError):"
        " path 'link.txt' is outside the served directory",
        None,
    )
    assert str(tmp_path) not in caplog.text
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="plainmcp"), pytest.raises(RpcError) as caught:
        read(registry, "app://roots")
    assert caught.value.to_wire() == {
        "code": INTERNAL_ERROR,
        "message": "Cannot read app://roots: the client did not declare the 'roots' capability",
    }
    [record] = caplog.records
    assert (record.levelno, record.getMessage(), record.exc_info) == (
        logging.WARNING,
        "reading resource 'app://roots' refused (ClientCapabilityError): the client did not"
        " declare the 'roots' capability",
        None,
    )


def test_safe_join(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    assert safe_join(tmp_path, "sub", "x.txt") == (tmp_path / "sub" / "x.txt").resolve()
    assert safe_join(str(tmp_path), "a/../b") == (tmp_path / "b").resolve()
    for parts in (("..",), ("sub", "..", ".."), ("/etc/passwd",), ("a/../../x",), ("a\x00b",)):
        with pytest.raises(ResourceError) as caught:
            safe_join(tmp_path, *parts)
        assert caught.value.code == INVALID_PARAMS
        assert str(tmp_path) not in caught.value.message
    if os.name == "nt":  # pragma: no cover
        with pytest.raises(ResourceError):
            safe_join(tmp_path, "C:\\Windows")


# --- pagination --------------------------------------------------------------------------------


def test_pages_and_cursors() -> None:
    registry = Resources()
    for i in range(5):
        registry.add(str(i), f"n://{i}")
    first, cursor = registry.page(None, 2)
    assert [r.uri for r in first] == ["n://0", "n://1"]
    assert cursor is not None
    second, cursor = registry.page(cursor, 2)
    assert [r.uri for r in second] == ["n://2", "n://3"]
    last, cursor = registry.page(cursor, 2)
    assert [r.uri for r in last] == ["n://4"]
    assert cursor is None
    everything, cursor = registry.page(None, 5)
    assert len(everything) == 5 and cursor is None
    assert Resources().page(None, 10) == ([], None)


def test_template_pages() -> None:
    registry = Resources()
    for i in range(3):
        registry.add(_one, f"t{i}://{{x}}")
    registry.add("static", "s://x")
    page, cursor = registry.template_page(None, 2)
    assert [t.uri_template for t in page] == ["t0://{x}", "t1://{x}"]
    page, cursor = registry.template_page(cursor, 2)
    assert [t.uri_template for t in page] == ["t2://{x}"] and cursor is None


@pytest.mark.parametrize("cursor", ["garbage", "", make_cursor(99), "Zm9v", 5])
def test_invalid_cursor_is_invalid_params(cursor: Any) -> None:
    registry = Resources()
    registry.add("x", "a://x")
    with pytest.raises(RpcError) as caught:
        registry.page(cursor, 10)
    assert caught.value.code == INVALID_PARAMS
    with pytest.raises(RpcError):
        registry.template_page(cursor, 10)


# --- reading: return values --------------------------------------------------------------------


def reading(value: Any, uri: str = "r://x", **settings: Any) -> list[Contents]:
    registry = Resources()
    registry.add(lambda: value, uri, name="r", **settings)
    return read(registry, uri)


def test_read_str() -> None:
    assert reading("hi") == [Contents("r://x", text="hi", mime_type="text/plain")]
    assert reading("# hi", mime_type="text/markdown") == [
        Contents("r://x", text="# hi", mime_type="text/markdown")
    ]


def test_read_bytes() -> None:
    assert reading(PNG) == [Contents("r://x", blob=PNG, mime_type="image/png")]
    assert reading(bytearray(b"\x00\x01")) == [
        Contents("r://x", blob=b"\x00\x01", mime_type="application/octet-stream")
    ]
    assert reading(b"\x00", mime_type="application/x-thing") == [
        Contents("r://x", blob=b"\x00", mime_type="application/x-thing")
    ]


def test_read_contents_as_is() -> None:
    one = Contents("other://1", text="a", meta={"k": 1})
    two = Contents("other://2", blob=b"b")
    assert reading(one) == [one]
    assert reading([one, two]) == [one, two]
    assert reading((one,)) == [one]


def test_read_embedded_resource_and_file() -> None:
    # a single block stands for the resource read: it takes the requested URI
    assert reading(File(b"col\n1\n", mime_type="text/csv")) == [
        Contents("r://x", text="col\n1\n", mime_type="text/csv")
    ]
    assert reading(EmbeddedResource(uri="x://elsewhere", blob=PNG, resource_meta={"m": 1})) == [
        Contents("r://x", blob=PNG, meta={"m": 1})
    ]
    # in a list, each keeps its own URI
    items = [EmbeddedResource(uri="x://1", text="a"), Contents("x://2", text="b")]
    assert reading(items) == [Contents("x://1", text="a"), Contents("x://2", text="b")]


def test_read_content_blocks() -> None:
    assert reading(Text("t")) == [Contents("r://x", text="t", mime_type="text/plain")]
    assert reading(Image(PNG)) == [Contents("r://x", blob=PNG, mime_type="image/png")]


def test_read_json_values() -> None:
    assert reading({"a": [1, 2.5, None]}) == [
        Contents("r://x", text='{"a":[1,2.5,null]}', mime_type="application/json")
    ]
    assert reading([1, 2]) == [Contents("r://x", text="[1,2]", mime_type="application/json")]
    assert reading([]) == [Contents("r://x", text="[]", mime_type="application/json")]
    assert reading(None) == [Contents("r://x", text="null", mime_type="application/json")]
    assert reading(2**70) == [Contents("r://x", text=str(2**70), mime_type="application/json")]
    assert reading({"a": 1}, mime_type="application/vnd.x+json")[0].mime_type == (
        "application/vnd.x+json"
    )


def test_read_json_follows_options() -> None:
    registry = Resources()
    registry.add(lambda: {"a": [1]}, "r://x", name="r")
    registry.add({"n": float("nan")}, "r://static")
    indented = read(registry, "r://x", options=ResultOptions(json_indent=2))
    assert indented[0].text == '{\n  "a": [\n    1\n  ]\n}'
    assert read(registry, "r://static")[0].text == '{"n":null}'
    strings = read(registry, "r://static", options=ResultOptions(non_finite="string"))
    assert strings[0].text == '{"n":"NaN"}'


def test_read_static_values() -> None:
    registry = Resources()
    registry.add("text", "s://text")
    registry.add(PNG, "s://png")
    registry.add({"a": 1}, "s://json")
    registry.add(File(b"x", mime_type="text/plain"), "s://file")
    assert read(registry, "s://text") == [Contents("s://text", text="text", mime_type="text/plain")]
    assert read(registry, "s://png") == [Contents("s://png", blob=PNG, mime_type="image/png")]
    assert read(registry, "s://json") == [
        Contents("s://json", text='{"a":1}', mime_type="application/json")
    ]
    assert read(registry, "s://file") == [Contents("s://file", text="x", mime_type="text/plain")]


def test_typed_template_variables() -> None:
    registry = Resources()
    got: list[Any] = []

    def item(shop: str, id: int, price: float) -> str:
        got.append((shop, id, price))
        return "ok"

    registry.add(item, "shop://{shop}/items/{id}/{price}")
    read(registry, "shop://main/items/42/9.5")
    assert got == [("main", 42, 9.5)]
    assert type(got[0][1]) is int
    # a value that does not convert means no such resource
    with pytest.raises(ResourceNotFound):
        read(registry, "shop://main/items/forty-two/9.5")
    assert not registry.exists("shop://main/items/4.5/1")


def test_unknown_uri_is_not_found() -> None:
    registry = Resources()
    registry.add("x", "a://x")
    with pytest.raises(ResourceNotFound) as caught:
        read(registry, "a://y")
    assert caught.value.uri == "a://y"
    assert str(caught.value) == "Resource not found: a://y"


# --- reading: how functions run ----------------------------------------------------------------


def test_sync_functions_run_in_a_worker_thread_async_ones_on_the_loop() -> None:
    registry = Resources()
    threads: dict[str, int] = {}

    def sync_fn() -> str:
        threads["sync"] = threading.get_ident()
        return "s"

    async def async_fn(x: str) -> str:
        threads["async"] = threading.get_ident()
        await anyio.sleep(0)
        return "a" + x

    registry.add(sync_fn, "f://sync")
    registry.add(async_fn, "f://async/{x}")

    async def go() -> tuple[list[Contents], list[Contents], int]:
        return (
            await registry.read("f://sync"),
            await registry.read("f://async/1"),
            threading.get_ident(),
        )

    sync_out, async_out, loop_thread = anyio.run(go)
    assert sync_out[0].text == "s" and async_out[0].text == "a1"
    assert threads["async"] == loop_thread
    assert threads["sync"] != loop_thread


def test_context_is_injected_only_where_asked_for() -> None:
    registry = Resources()
    marker = object()
    got: list[Any] = []

    def with_ctx(name: str, ctx: Context) -> str:
        got.append((name, ctx))
        return name

    registry.add(with_ctx, "c://{name}")
    registry.add(_none, "c://static/none")
    read(registry, "c://n", inject={"ctx": marker})
    assert got == [("n", marker)]
    # a function without a Context parameter gets nothing injected
    assert read(registry, "c://static/none", inject={"ctx": marker})[0].text == ""


def test_resource_error_reaches_the_client() -> None:
    registry = Resources()

    def fails() -> str:
        raise ResourceError("the archive is offline")

    def bad_request(x: str) -> str:
        raise ResourceError(f"{x} is not a report", code=INVALID_PARAMS, data={"x": x})

    registry.add(fails, "e://offline")
    registry.add(bad_request, "e://report/{x}")
    with pytest.raises(ResourceError) as caught:
        read(registry, "e://offline")
    assert caught.value.to_wire() == {"code": INTERNAL_ERROR, "message": "the archive is offline"}
    with pytest.raises(ResourceError) as caught:
        read(registry, "e://report/q3")
    assert caught.value.to_wire() == {
        "code": INVALID_PARAMS,
        "message": "q3 is not a report",
        "data": {"x": "q3"},
    }


def test_unexpected_exception_is_an_internal_error_without_details(
    caplog: pytest.LogCaptureFixture,
) -> None:
    registry = Resources()

    async def broken() -> str:
        raise KeyError("/srv/secret/path")

    registry.add(broken, "e://broken")
    registry.add(lambda: object(), "e://unsendable", name="unsendable")
    with caplog.at_level(logging.ERROR, logger="plainmcp"), pytest.raises(RpcError) as caught:
        read(registry, "e://broken")
    assert type(caught.value) is RpcError
    assert caught.value.to_wire() == {
        "code": INTERNAL_ERROR,
        "message": "Internal error while reading e://broken",
    }
    assert "secret" not in caught.value.message
    assert "reading resource 'e://broken' failed" in caplog.text
    assert "KeyError" in caplog.text  # the traceback is logged
    with pytest.raises(RpcError) as caught:
        read(registry, "e://unsendable")
    assert caught.value.code == INTERNAL_ERROR


def test_a_mixed_list_is_an_internal_error(caplog: pytest.LogCaptureFixture) -> None:
    registry = Resources()
    registry.add(lambda: [Contents("x://1", text="a"), "b"], "e://mixed", name="mixed")
    with caplog.at_level(logging.ERROR, logger="plainmcp"), pytest.raises(RpcError) as caught:
        read(registry, "e://mixed")
    assert caught.value.code == INTERNAL_ERROR
    assert "only Contents and EmbeddedResource" in caplog.text


def test_unreadable_type_hints_are_refused() -> None:
    def fn(x: Undefined) -> str:  # type: ignore[name-defined]  # noqa: F821
        return ""

    with pytest.raises(TypeError, match="cannot read type hints"):
        Resources().add(fn, "a://{x}")


def test_a_function_may_say_not_found() -> None:
    registry = Resources()

    def lookup(key: str) -> str:
        raise ResourceNotFound(f"kv://{key}")

    registry.add(lookup, "kv://{key}")
    with pytest.raises(ResourceNotFound) as caught:
        read(registry, "kv://nope")
    assert caught.value.uri == "kv://nope"


def test_contents_must_hold_exactly_one_of_text_or_blob() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        Contents("a://x")
    with pytest.raises(ValueError, match="exactly one"):
        Contents("a://x", text="a", blob=b"b")
    with pytest.raises(ValueError, match="uri"):
        Contents("", text="a")
    with pytest.raises(TypeError, match="bytes"):
        Contents("a://x", blob="text")  # type: ignore[arg-type]
    assert "3 bytes" in repr(Contents("a://x", blob=b"abc"))
