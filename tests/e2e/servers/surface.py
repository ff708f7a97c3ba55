"""The e2e surface server: resources, a template, a prompt with completion, and two tools whose
results are far over the default payload limits, served on stdio.

tests/e2e/test_surface_stdio.py drives it over a real pipe; it imports `long_text` and
`large_png` from here to know what the offloaded payloads must read back as.
"""

from __future__ import annotations

from typing import Any, Literal

from plainmcp import Image, Server

MIB = 1024 * 1024


def long_text(size: int = 5_000_000) -> str:
    """Paragraphs of ten numbered lines, `size` characters in all (the same every time)."""
    paragraphs = []
    total = line = 0
    while total < size:
        paragraph = "".join(
            f"Line {n:06d}: the quick brown fox jumps over the lazy dog.\n"
            for n in range(line, line + 10)
        )
        line += 10
        paragraphs.append(paragraph)
        total += len(paragraph) + 1
    return "\n".join(paragraphs)[:size]


def large_png(size: int = 20 * MIB) -> bytes:
    """A PNG signature and header, then every byte value over and over (the same every time)."""
    head = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
    body = bytes(range(256)) * (size // 256 + 1)
    return head + body[: size - len(head)]


app = Server("surface-e2e", version="1.0.0")
app.add_resource("Read me first.", "app://readme", description="The readme.")


@app.resource("users://{user_id}/profile")
def profile(user_id: int) -> dict[str, Any]:
    """A user's profile."""
    return {"id": user_id, "double": user_id * 2}


@app.prompt
def greet(name: str, style: Literal["formal", "casual"] = "casual") -> str:
    """Greet someone.

    Args:
        name: Who to greet.
        style: How formally.
    """
    return f"Hello {name}" if style == "casual" else f"Good day, {name}."


@app.tool
def dump_log() -> str:
    """Five million characters of log."""
    return long_text()


@app.tool(structured=False)
def scan() -> list[Any]:
    """A caption and a 20 MiB image."""
    return ["The full-resolution scan", Image(large_png())]


if __name__ == "__main__":
    app.run()
