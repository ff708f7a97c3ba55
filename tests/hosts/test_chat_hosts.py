"""What opencode 1.18.33, Kilo Code's CLI 7.7.7, Qwen Code 0.24.4 and Continue's CLI 1.5.47 do
with a result the matrix does not measure: the clientInfo they send, where their inline limit
is and in which unit (characters or UTF-8 bytes), what they do past it, how the text blocks of
one result reach the model, and whether the model can read a resource. One run per host against
sizes_server.py; src/plainmcp/hosts/profiles.py cites each test.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.hosts import needs
from tests.hosts import sizes_server as sz
from tests.hosts.continue_cli import ContinueCli
from tests.hosts.drivers import Driver, Seen, Target
from tests.hosts.fixture_server import LOG_ENV, sized_text
from tests.hosts.matrix_server import PNG
from tests.hosts.opencode_cli import KILO, OPENCODE, OpenCodeDriver
from tests.hosts.qwen_code import QwenCode
from tests.hosts.scripts import Part, ToolUse, sequence, text_of

PICTURE_TEXT = Part("text", text="A PICTURE follows.")
QWEN_IMAGE_LINE = "[Tool 'picture' provided the following image data with mime-type: image/png]"
SERVER = Path(sz.__file__).resolve()
ROOT = SERVER.parents[2]
"""The checkout, on the server's PYTHONPATH: it imports tests.hosts.fixture_server."""
NAME = "sz"


def run(
    driver: Driver, calls: Sequence[ToolUse], tmp_path: Path
) -> tuple[Seen, list[dict[str, str]]]:
    """One run making `calls`; what the model was shown, and the clientInfo of each
    request after initialize the server got."""
    needs.require(driver.problem())
    log = tmp_path / "clients.jsonl"
    env = ((LOG_ENV, str(log)), ("PYTHONPATH", str(ROOT)))
    target = Target(NAME, argv=(sys.executable, str(SERVER)), env=env)
    seen = driver.run(target, sequence(*calls))
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    clients = [line["clientInfo"] for line in lines if line["method"] != "initialize"]
    assert clients
    return seen, clients


def texts(parts: Sequence[Part]) -> list[str]:
    return [p.text for p in parts if p.kind == "text"]


# --- opencode and Kilo: 2,000 lines or 51,200 UTF-8 bytes, the head kept, the whole in a file ---

OPENCODE_LINES = 2_000
OPENCODE_BYTES = 51_200
"""What a result may have before opencode cuts it: lines, and bytes of UTF-8 (50 KiB)."""
OPENCODE_CUT = re.compile(
    r"\n\n\.\.\.(\d+) (lines|bytes) truncated\.\.\.\n\nThe tool call succeeded but the output"
    r" was truncated\. Full output saved to: (\S+)\n"
)


@pytest.mark.parametrize(
    ("driver", "client"),
    [
        (OpenCodeDriver(OPENCODE), ("opencode", "1.18.33")),
        (OpenCodeDriver(KILO), ("kilo", "7.7.7")),
    ],
    ids=["opencode", "kilo-cli"],
)
def test_opencode_and_kilo(driver: OpenCodeDriver, client: tuple[str, str], tmp_path: Path) -> None:
    name = driver.tool_name
    lines = OPENCODE_LINES * 10 - 1
    """2,000 lines of 10 characters, the last without its newline."""
    calls = [
        ToolUse(name(NAME, "sized"), {"chars": lines}),
        ToolUse(name(NAME, "sized"), {"chars": lines + 1}),
        ToolUse(name(NAME, "utf8"), {"size": OPENCODE_BYTES}),
        ToolUse(name(NAME, "utf8"), {"size": OPENCODE_BYTES + 1}),
        ToolUse(name(NAME, "two_texts")),
        ToolUse("read_mcp_resource", {"server": NAME, "uri": sz.NOTES_URI}),
        ToolUse(name(NAME, "picture")),
    ]
    seen, clients = run(driver, calls, tmp_path)
    assert {(c["name"], c["version"]) for c in clients} == {client}
    assert "read_mcp_resource" in seen.offered
    # An image reaches a model declared to take images as an image (in a user message after
    # the result).
    assert seen.results[-1] == [PICTURE_TEXT, Part("image", media_type="image/png", data=PNG)]
    whole, over, wide, wide_over, two, resource = (text_of(r) for r in seen.results[:-1])
    # At the limits a result arrives whole: 2,000 lines, and 51,200 bytes of two-byte letters
    # (25,858 characters: the unit is the byte, not the character). One newline more is a
    # line more (2,001 pieces between newlines).
    assert whole == sized_text(lines)
    assert wide == sz.utf8_text(OPENCODE_BYTES)
    # Past either: the head that fits, how many lines or bytes were left out and the file
    # that holds the whole result; nothing of its end (where a continuation would be).
    cuts = (
        (over, sized_text(lines + 1), "lines"),
        (wide_over, sz.utf8_text(OPENCODE_BYTES + 1), "bytes"),
    )
    for shown, full, unit in cuts:
        found = OPENCODE_CUT.search(shown)
        assert found is not None, shown[-600:]
        head = shown[: found.start()]
        assert full.startswith(head), head[-200:]
        left = full[len(head) :]
        assert found.group(2) == unit
        count = left.count("\n") if unit == "lines" else len(left.encode())
        assert int(found.group(1)) == count, (found.group(0), count)
        assert seen.saved[found.group(3)] == full.encode()
    # Text blocks: a blank line between them.
    assert two == "\n\n".join(sz.TEXTS)
    # The model reads a listed resource.
    assert resource == f"Resource: {sz.NOTES_URI}\nMIME: text/plain\n{sz.NOTES}"


# --- Qwen Code: 28,000 characters, then a 2,000-character preview and a file ------------------

QWEN_LIMIT = 28_000
"""Characters (tools.truncateToolOutputThreshold 25,000 plus 3,000 of headroom)."""


def test_qwen_code(tmp_path: Path) -> None:
    driver = QwenCode()
    name = driver.tool_name
    calls = [
        ToolUse(name(NAME, "sized"), {"chars": QWEN_LIMIT}),
        ToolUse(name(NAME, "sized"), {"chars": QWEN_LIMIT + 1}),
        ToolUse(name(NAME, "cjk"), {"chars": QWEN_LIMIT}),
        ToolUse(name(NAME, "two_texts")),
        ToolUse("read_mcp_resource", {"server_name": NAME, "uri": sz.NOTES_URI}),
        ToolUse(name(NAME, "picture")),
    ]
    seen, clients = run(driver, calls, tmp_path)
    # An image reaches a model it knows to take images (qwen_code.MODEL) as an image, in a user
    # message after the result, and a line in the result says so.
    assert seen.results[-1] == [
        Part("text", text="A PICTURE follows.\n" + QWEN_IMAGE_LINE),
        Part("image", media_type="image/png", data=PNG),
    ]
    # The name says which server the client talks to: `qwen-cli-mcp-client-` and its name.
    assert {c["name"] for c in clients} == {f"qwen-cli-mcp-client-{NAME}"}
    assert "read_mcp_resource" in seen.offered
    whole, over, wide, two, resource = (texts(r) for r in seen.results[:-1])
    # In characters: 28,000 three-byte letters (83,720 bytes) arrive whole.
    assert whole == [sized_text(QWEN_LIMIT)]
    assert wide == [sz.cjk_text(QWEN_LIMIT)]
    # One over: the result is saved to a file, the model gets its path and a preview of the
    # first 2,000 characters (cut at a line) but nothing from the end of the text.
    full = sized_text(QWEN_LIMIT + 1)
    (shown,) = over
    found = re.match(
        r"<persisted-output>\nOutput too large \(27 KB\)\. Full output saved to: (\S+)\n", shown
    )
    assert found is not None, shown[:400]
    assert seen.saved[found.group(1)] == full.encode()
    preview = full[: full[:2000].rindex("\n")] + "\n...\n</persisted-output>"
    assert shown.endswith("\n\n" + preview) or shown.endswith("\n" + preview), shown[-200:]
    # Text blocks: Qwen makes one text of them with a newline between; plainmcp's profile joins
    # them first, with a blank line, so the model still sees where one ends.
    assert two == ["\n\n".join(sz.TEXTS)]
    # The model reads a listed resource.
    assert sz.NOTES in "".join(resource)


# --- Continue's CLI: no limit, every block as JSON ------------------------------------------


def test_continue_cli(tmp_path: Path) -> None:
    driver = ContinueCli()
    calls = [ToolUse("sized", {"chars": 150_000}), ToolUse("two_texts")]
    seen, clients = run(driver, calls, tmp_path)
    assert {(c["name"], c["version"]) for c in clients} == {("continue-cli-client", "1.0.0")}
    # No tool reads a resource.
    assert [t for t in seen.offered if "resource" in t.lower()] == []
    whole, two = seen.results
    # 150,000 characters arrive whole (as the JSON of the content list), and two text blocks
    # as two blocks of it.
    assert texts(whole) == [sized_text(150_000)]
    assert texts(two) == list(sz.TEXTS)
