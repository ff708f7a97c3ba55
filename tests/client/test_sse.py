"""The client's SSE reader: events end at a blank line; comments are skipped; the last event id
and `retry` are kept for resuming."""

from __future__ import annotations

from plainmcp.client.sse import EventReader


def read(*lines: str) -> list[tuple[str, str]]:
    reader = EventReader()
    return [event for line in lines if (event := reader.line(line)) is not None]


def test_events_are_their_data_lines_joined_until_a_blank_line() -> None:
    assert read("event: message", "id: 7", 'data: {"a":', "data:1}", "", ": keep-alive", "") == [
        ("message", '{"a":\n1}')
    ]


def test_an_event_without_data_yields_nothing_and_its_type_does_not_carry_over() -> None:
    assert read("event: ping", "retry: 10", "", "data: x", "", "event: other", "data: y", "") == [
        ("message", "x"),
        ("other", "y"),
    ]


def test_the_last_event_id_and_retry_are_kept_even_from_an_event_without_data() -> None:
    reader = EventReader()
    assert [reader.line(line) for line in ("id: e1", "retry: 500", "data: ", "")] == [None] * 4
    assert (reader.last_id, reader.retry_ms) == ("e1", 500)
    assert reader.line("id: e2") is None and reader.line("retry: soon") is None
    assert (reader.last_id, reader.retry_ms) == ("e2", 500)  # a retry that is no number is ignored


def test_an_id_holding_a_null_is_ignored() -> None:
    reader = EventReader(last_id="e1")
    assert reader.line("id: a\0b") is None
    assert reader.last_id == "e1"
