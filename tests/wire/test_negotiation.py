"""protocol="auto": what each answer to server/discover leads to."""

from __future__ import annotations

from plainmcp.wire import negotiation
from plainmcp.wire.negotiation import Adopt, Handshake, Probe, Refuse
from plainmcp.wire.revisions import REVISIONS


def test_the_first_probe_is_the_newest_stateless_revision() -> None:
    assert negotiation.first_probe() == "2026-07-28"


def test_a_discover_result_sharing_a_stateless_revision_is_adopted() -> None:
    result = {"supportedVersions": ["2026-07-28", "2025-11-25"]}
    assert negotiation.after_result(result) == Adopt(REVISIONS["2026-07-28"])


def test_a_discover_result_listing_only_handshake_revisions_means_initialize() -> None:
    assert negotiation.after_result({"supportedVersions": ["2025-11-25"]}) == Handshake()
    assert negotiation.after_result({}) == Handshake()


def test_method_not_found_and_other_errors_mean_initialize() -> None:
    assert negotiation.after_error(-32601, None, retried=False) == Handshake("2025-11-25")
    assert negotiation.after_error(-32602, {"x": 1}, retried=False) == Handshake()
    assert negotiation.after_error(-32001, None, retried=False) == Handshake()  # timed out


def test_unsupported_version_naming_a_shared_stateless_revision_probes_again_once() -> None:
    data = {"supported": ["2026-07-28"], "requested": "2027-01-01"}
    assert negotiation.after_error(-32022, data, retried=False) == Probe("2026-07-28")
    # The second refusal: the server speaks no handshake revision either.
    assert negotiation.after_error(-32022, data, retried=True) == Refuse(
        "The server speaks only 2026-07-28; this client speaks 2024-11-05, 2025-03-26,"
        " 2025-06-18, 2025-11-25, 2026-07-28"
    )


def test_unsupported_version_from_a_modern_only_server_we_do_not_share_is_refused() -> None:
    data = {"supported": ["2027-01-01"]}
    assert negotiation.after_error(-32022, data, retried=False) == Refuse(
        "The server speaks only 2027-01-01; this client speaks 2024-11-05, 2025-03-26,"
        " 2025-06-18, 2025-11-25, 2026-07-28"
    )


def test_unsupported_version_listing_handshake_revisions_means_initialize() -> None:
    data = {"supported": ["2025-06-18"]}
    assert negotiation.after_error(-32022, data, retried=False) == Handshake()


def test_initialize_refused_with_unsupported_version_probes_again_once() -> None:
    data = {"supported": ["2026-07-28"]}
    assert negotiation.after_handshake_error(-32022, data, retried=False) == Probe("2026-07-28")
    assert negotiation.after_handshake_error(-32022, data, retried=True) is None
    assert negotiation.after_handshake_error(-32602, data, retried=False) is None


def test_a_fixed_revision_refused_though_listed_is_asked_again_once() -> None:
    data = {"supported": ["2026-07-28"], "requested": "2026-07-28"}
    assert negotiation.ask_again("2026-07-28", -32022, data, retried=False) is True
    assert negotiation.ask_again("2026-07-28", -32022, data, retried=True) is False
    assert (
        negotiation.ask_again("2026-07-28", -32022, {"supported": ["2027-01-01"]}, retried=False)
        is False
    )
    assert negotiation.ask_again("2026-07-28", -32601, data, retried=False) is False
