"""A stdio server given neither a blob store nor a state secret, for the tests of refs that
outlive the process (tests/e2e/test_stdio_cache.py): a text cut in parts of 1,000 characters,
and a tool that cuts nothing. Its name comes from PLAINMCP_TEST_NAME (two servers, one file);
PLAINMCP_TEST_NO_CACHE=1 turns the user cache off (`stdio_cache=False`)."""

from __future__ import annotations

import os

from plainmcp import PayloadLimits, Server

TEXT = "".join(f"ligne {n:04d}: é, ô and ü, read back in parts\n" for n in range(300))
"""12,900 characters, with letters of two bytes: the first part, then more through read_more."""

app = Server(
    os.environ.get("PLAINMCP_TEST_NAME", "cached-refs"),
    payload_limits=PayloadLimits(text_block=1000, text_result=1000),
    stdio_cache=os.environ.get("PLAINMCP_TEST_NO_CACHE") != "1",
)


@app.tool
def long_text() -> str:
    """The long text (cut: the rest through read_more)."""
    return TEXT


@app.tool
def short() -> str:
    """A result that is never cut."""
    return "short"


if __name__ == "__main__":
    app.run()
