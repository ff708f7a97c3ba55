"""The one-time warning for a ToolResult whose text is not a copy of its structured value,
naming the hosts (from the host table) that show the model only one of them."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from plainmcp import Image, ResultOptions, Server, Text, ToolResult, agreement
from plainmcp.hosts import profiles
from plainmcp.hosts.profiles import GENERIC, Cell, HostProfile
from plainmcp.model.summary import summarize
from plainmcp.testing import call
from tests.test_mime import png_bytes

DEFAULT = ResultOptions()
VALUE = {"count": 2, "files": ["a.txt", "b.txt"]}
RAW = b'{"count":2,"files":["a.txt","b.txt"]}'


def host(title: str, reads: Any) -> HostProfile:
    return GENERIC._replace(
        key=title.lower().replace(" ", "-"), title=title, reads=Cell(reads, "a test")
    )


TABLE = (
    host("Claude Code", "structured"),
    host("VS Code", "structured"),
    host("Some Agent", "content"),
    host("Claude Desktop", None),  # unknown: counts as neither
    GENERIC,
)


def agree(*content: Any, raw: bytes = RAW, options: ResultOptions = DEFAULT) -> bool:
    blocks = ToolResult(list(content)).content
    return agreement.agrees(blocks, raw, options)


def test_copies_of_the_value_agree() -> None:
    assert agree('{"count":2,"files":["a.txt","b.txt"]}')  # the JSON text plainmcp writes
    assert agree(json.dumps({"files": ["a.txt", "b.txt"], "count": 2}, indent=4))  # any JSON of it
    assert agree('{"count":2.0,"files":["a.txt","b.txt"]}')  # 2 and 2.0 are one JSON number
    assert agree('"red"', raw=b'"red"') and agree("red", raw=b'"red"')  # a string reads as itself
    assert agree("1180591620717411303424", raw=b"1180591620717411303424")
    rows = json.dumps([{"id": i} for i in range(1000)]).encode()
    digest = summarize(rows)
    assert digest.startswith("Summary of the structured result")
    assert agree(digest, raw=rows)  # its summary
    assert agree(digest, Image(png_bytes()), raw=rows)  # blocks of other kinds are not text
    assert agree(RAW.decode(), RAW.decode())  # every text block a copy


def test_anything_else_disagrees() -> None:
    assert not agree("Found 2 files")
    assert not agree(RAW.decode(), "Found 2 files")  # a sentence the value does not carry
    assert not agree("The result is in structuredContent.")  # a pointer carries no fact
    assert not agree(Image(png_bytes()))  # no text at all
    assert not agree('{"count":2}')
    assert not agree("true", raw=b"1")  # true is no number
    assert not agree("1180591620717411303425", raw=b"1180591620717411303424")  # every digit
    assert not agree(summarize(RAW), raw=b'{"count":3}')


def test_the_hosts_that_read_one_channel_come_from_the_table() -> None:
    assert agreement.one_channel(TABLE) == (["Claude Code", "VS Code"], ["Some Agent"])
    assert agreement.one_channel((GENERIC,)) == ([], [])
    assert agreement.warning("search", TABLE) == (
        "tool 'search' returned a ToolResult whose text is not a copy of its structured value:"
        " Claude Code and VS Code show the model only structuredContent, not the text; Some Agent"
        " shows it only the text, not the value. plainmcp sends those hosts both in the content;"
        " a client it does not know may still show only one. Put every fact in both, or return"
        " the value alone and let text_fallback write the text (docs/results.md, 'Results that"
        " reach the model'). Logged once per tool."
    )
    only_structured = (host("A", "structured"), host("B", "structured"), host("C", "structured"))
    assert agreement.warning("t", only_structured) == (
        "tool 't' returned a ToolResult whose text is not a copy of its structured value:"
        " A, B and C show the model only structuredContent, not the text. plainmcp sends those"
        " hosts both in the content; a client it does not know may still show only one. Put"
        " every fact in both, or return the value alone and let text_fallback write the text"
        " (docs/results.md, 'Results that reach the model'). Logged once per tool."
    )
    assert agreement.warning("t", (host("A", "content"), GENERIC)) == (
        "tool 't' returned a ToolResult whose text is not a copy of its structured value:"
        " A shows the model only the text, not the value. plainmcp sends those hosts both in the"
        " content; a client it does not know may still show only one. Put every fact in both, or"
        " return the value alone and let text_fallback write the text (docs/results.md, 'Results"
        " that reach the model'). Logged once per tool."
    )
    # No host in the table loses either: nothing to say.
    assert agreement.warning("t", (GENERIC,)) is None


def test_the_docs_show_the_warning() -> None:
    docs = Path(__file__).resolve().parents[1] / "docs" / "results.md"
    table = (host("Claude Code", "structured"), host("VS Code", "structured"))
    message = agreement.warning("search", table)
    assert message is not None
    assert f"`{message}`" in docs.read_text(encoding="utf-8")


def make_server() -> Server:
    app = Server("agreement")

    @app.tool
    def search() -> ToolResult:
        return ToolResult("Found 2 files", structured=VALUE)

    @app.tool
    def listing() -> ToolResult:
        return ToolResult(Text("Two files"), structured=VALUE)

    @app.tool
    def copied() -> ToolResult:
        return ToolResult(RAW.decode(), structured=VALUE)

    @app.tool
    def plain() -> dict[str, Any]:
        return VALUE

    return app


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "plainmcp" and r.levelno == logging.WARNING
    ]


def test_a_disagreeing_tool_is_warned_about_once(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(profiles, "PROFILES", TABLE)
    app = make_server()
    caplog.set_level(logging.WARNING, logger="plainmcp")
    for _ in range(3):
        for name in ("search", "listing", "copied", "plain"):
            call(app, name)
    assert warnings(caplog) == [
        agreement.warning("search", TABLE),
        agreement.warning("listing", TABLE),
    ]
    # The result itself is sent as the tool made it.
    assert call(app, "search").content[0].text == "Found 2 files"  # type: ignore[union-attr]


def test_no_warning_while_no_known_host_reads_only_one_channel(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(profiles, "PROFILES", (GENERIC,))
    caplog.set_level(logging.WARNING, logger="plainmcp")
    call(make_server(), "search")
    assert warnings(caplog) == []


def test_results_without_both_parts_are_not_looked_at(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any) -> None:
        raise AssertionError("agreement.check called")

    monkeypatch.setattr(agreement, "check", refuse)
    app = make_server()

    @app.tool
    def text_only() -> ToolResult:
        return ToolResult("Found 2 files")

    @app.tool
    def value_only() -> ToolResult:
        return ToolResult(structured=VALUE)

    assert call(app, "plain").structured == VALUE
    assert call(app, "text_only").content[0].text == "Found 2 files"  # type: ignore[union-attr]
    assert call(app, "value_only").structured == VALUE
