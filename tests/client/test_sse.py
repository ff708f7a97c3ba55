"""The client's SSE reader: events end at a blank line; comments, ids and retries are skipped."""

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
