"""The revision table (wire.revisions): one test per row of docs/compatibility.md, and version
negotiation (the page itself: tests/test_compatibility.py)."""

from __future__ import annotations

import pytest

from plainmcp.wire.revisions import (
    HANDSHAKE_VERSIONS,
    LATEST_HANDSHAKE,
    REVISIONS,
    compatibility_markdown,
    negotiate,
)
from tests.mcp_schemas import _defs, definition_names

ALL = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")


def having(predicate: object) -> list[str]:
    return [v for v, r in REVISIONS.items() if predicate(r)]  # type: ignore[operator]


def test_the_five_revisions_oldest_first() -> None:
    assert tuple(REVISIONS) == ALL
    assert all(r.version == v for v, r in REVISIONS.items())


def test_docs_table_has_a_row_per_fact() -> None:
    page = compatibility_markdown()
    assert "| | " + " | ".join(ALL) + " |" in page
    for row in (
        "| initialize handshake | yes | yes | yes | yes | – |",
        "| JSON-RPC batches | – | yes | – | – | – |",
        "| content `audio` | – | yes | yes | yes | yes |",
        "| content `resource_link` | – | – | yes | yes | yes |",
        "| `structuredContent` | – | – | object only | object only | any JSON |",
        "| resource-not-found code | -32002 | -32002 | -32002 | -32002 | -32602 |",
    ):
        assert row in page


# --- one test per row ------------------------------------------------------------------------


def test_handshake_until_2025_11_25() -> None:
    assert having(lambda r: r.handshake) == list(ALL[:4])
    assert ALL[:4] == HANDSHAKE_VERSIONS
    assert LATEST_HANDSHAKE == "2025-11-25"


def test_batches_only_2025_03_26() -> None:
    assert having(lambda r: r.batches) == ["2025-03-26"]
    # agrees with the official schemas
    assert [v for v in ALL if "JSONRPCBatchResponse" in definition_names(v)] == ["2025-03-26"]


def test_error_without_id_from_2025_11_25() -> None:
    assert having(lambda r: r.error_without_id) == ["2025-11-25", "2026-07-28"]


def test_progress_message_from_2025_03_26() -> None:
    assert having(lambda r: r.progress_message) == list(ALL[1:])

    # agrees with the official schemas
    def params(v: str) -> dict[str, object]:
        defs = _defs(v)
        found = (
            defs.get("ProgressNotificationParams")
            or defs["ProgressNotification"]["properties"]["params"]
        )
        properties: dict[str, object] = found["properties"]
        return properties

    with_message = [v for v in ALL if "message" in params(v)]
    assert with_message == list(ALL[1:])


@pytest.mark.parametrize(
    ("method", "revisions"),
    [
        ("sampling/createMessage", ALL[:4]),
        ("roots/list", ALL[:4]),
        ("elicitation/create", ALL[2:4]),
    ],
)
def test_client_requests(method: str, revisions: tuple[str, ...]) -> None:
    """Server-to-client requests exist only in the handshake era (2026-07-28 asks with
    input-required results instead)."""
    assert having(lambda r: method in r.client_requests) == list(revisions)


def test_input_requests_only_2026_07_28() -> None:
    assert having(lambda r: r.input_requests) == ["2026-07-28"]
    assert REVISIONS["2026-07-28"].input_requests == {
        "elicitation/create",
        "sampling/createMessage",
        "roots/list",
    }
    # agrees with the official schemas
    assert [v for v in ALL if "InputRequiredResult" in definition_names(v)] == ["2026-07-28"]


def test_removed_methods_and_session_notifications() -> None:
    assert having(lambda r: r.removed_methods) == ["2026-07-28"]
    assert REVISIONS["2026-07-28"].removed_methods == {
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
    }
    assert having(lambda r: r.session_notifications) == list(ALL[:4])
    assert "SubscriptionsListenRequest" in definition_names("2026-07-28")


def test_elicitation_multi_select_from_2025_11_25() -> None:
    assert having(lambda r: r.elicitation_multi_select) == list(ALL[3:])


@pytest.mark.parametrize(
    ("kind", "since"),
    [
        ("text", "2024-11-05"),
        ("image", "2024-11-05"),
        ("resource", "2024-11-05"),
        ("audio", "2025-03-26"),
        ("resource_link", "2025-06-18"),
    ],
)
def test_content_types(kind: str, since: str) -> None:
    assert having(lambda r: kind in r.content_types) == list(ALL[ALL.index(since) :])


def test_audio_and_resource_link_agree_with_the_schemas() -> None:
    assert [v for v in ALL if "AudioContent" in definition_names(v)] == list(ALL[1:])
    assert [v for v in ALL if "ResourceLink" in definition_names(v)] == list(ALL[2:])


def test_annotation_last_modified_from_2025_06_18() -> None:
    assert having(lambda r: "lastModified" in r.annotation_fields) == list(ALL[2:])
    assert all({"audience", "priority"} <= r.annotation_fields for r in REVISIONS.values())


def test_block_meta_from_2025_06_18() -> None:
    assert having(lambda r: r.block_meta) == list(ALL[2:])


def test_structured_none_object_any() -> None:
    assert [r.structured for r in REVISIONS.values()] == ["none", "none", "object", "object", "any"]


@pytest.mark.parametrize(
    ("field", "since"),
    [
        ("annotations", "2025-03-26"),
        ("title", "2025-06-18"),
        ("outputSchema", "2025-06-18"),
        ("_meta", "2025-06-18"),
        ("icons", "2025-11-25"),
    ],
)
def test_tool_fields(field: str, since: str) -> None:
    assert having(lambda r: field in r.tool_fields) == list(ALL[ALL.index(since) :])


@pytest.mark.parametrize(
    ("field", "since"),
    [
        ("name", "2024-11-05"),
        ("version", "2024-11-05"),
        ("title", "2025-06-18"),
        ("description", "2025-11-25"),
        ("icons", "2025-11-25"),
        ("websiteUrl", "2025-11-25"),
    ],
)
def test_server_info_fields(field: str, since: str) -> None:
    assert having(lambda r: field in r.server_info_fields) == list(ALL[ALL.index(since) :])


def test_result_type_only_2026_07_28() -> None:
    assert having(lambda r: r.result_type) == ["2026-07-28"]


def test_completions_capability_from_2025_03_26() -> None:
    assert having(lambda r: r.completions_capability) == list(ALL[1:])


def test_resource_link_icons_from_2025_11_25() -> None:
    assert having(lambda r: r.resource_link_icons) == list(ALL[3:])


@pytest.mark.parametrize(
    ("field", "since"), [("title", "2025-06-18"), ("_meta", "2025-06-18"), ("icons", "2025-11-25")]
)
def test_prompt_fields(field: str, since: str) -> None:
    assert having(lambda r: field in r.prompt_fields) == list(ALL[ALL.index(since) :])
    assert [v for v in ALL if field in _properties(v, "Prompt")] == list(ALL[ALL.index(since) :])


def test_prompt_argument_title_from_2025_06_18() -> None:
    assert having(lambda r: "title" in r.prompt_argument_fields) == list(ALL[2:])
    assert [v for v in ALL if "title" in _properties(v, "PromptArgument")] == list(ALL[2:])


def _properties(revision: str, definition: str) -> set[str]:
    return set(_defs(revision)[definition]["properties"])


def test_resource_not_found_code() -> None:
    assert [r.resource_not_found for r in REVISIONS.values()] == [-32002] * 4 + [-32602]


@pytest.mark.parametrize(
    ("field", "since"), [("title", "2025-06-18"), ("_meta", "2025-06-18"), ("icons", "2025-11-25")]
)
def test_resource_fields(field: str, since: str) -> None:
    assert having(lambda r: field in r.resource_fields) == list(ALL[ALL.index(since) :])
    for definition in ("Resource", "ResourceTemplate"):
        assert [v for v in ALL if field in _properties(v, definition)] == list(
            ALL[ALL.index(since) :]
        )


def test_resource_fields_every_revision_has() -> None:
    common = {"name", "description", "mimeType", "annotations"}
    for v in ALL:
        assert common | {"uri", "size"} <= _properties(v, "Resource")
        assert common | {"uriTemplate"} <= _properties(v, "ResourceTemplate")
        assert "size" not in _properties(v, "ResourceTemplate")


# --- negotiation -----------------------------------------------------------------------------


@pytest.mark.parametrize("version", ALL[:4])
def test_negotiate_echoes_each_handshake_version(version: str) -> None:
    assert negotiate(version).version == version


@pytest.mark.parametrize(
    "requested",
    ["2026-07-28", "2099-01-01", "2024-10-07", "", "garbage", None, 20241105, ["2025-06-18"]],
)
def test_negotiate_counter_offers_the_latest_handshake(requested: object) -> None:
    assert negotiate(requested).version == "2025-11-25"
