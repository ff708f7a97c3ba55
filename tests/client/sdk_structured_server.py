"""The official Python SDK's server over stdio with structured output, for the typed results'
tests: `python sdk_structured_server.py`."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

server = MCPServer("sdk-structured", version="2.0.0")


class Point(BaseModel):
    x: int
    y: int


class Path(BaseModel):
    name: str
    points: list[Point]
    closed: bool | None = None


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers (the SDK wraps the int as {"result": ...})."""
    return a + b


@server.tool()
def point(x: int, y: int) -> Point:
    """A model: an object schema."""
    return Point(x=x, y=y)


@server.tool()
def path(name: str) -> Path:
    """Nested models (the SDK's schema refers to Point through $defs)."""
    return Path(name=name, points=[Point(x=0, y=0), Point(x=1, y=2)])


@server.tool()
def corners() -> list[Point]:
    """A list of models, wrapped."""
    return [Point(x=0, y=0), Point(x=3, y=4)]


if __name__ == "__main__":
    server.run("stdio")
