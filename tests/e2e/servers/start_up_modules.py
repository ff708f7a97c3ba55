"""A server of plain tools, as most are: what it loads is asked through a tool over stdio.

`loaded` names which of the modules that a tools-only server should never need are in
sys.modules; `add_model_tool` registers a tool whose argument is a pydantic model, the first
use of pydantic in the process.
"""

import sys
from typing import Literal

from plainmcp import Server

app = Server("start-up-modules")

NOT_NEEDED = (
    "pydantic",
    "pydantic_core",
    "plainmcp.prompts",
    "plainmcp.resources",
    "plainmcp.telemetry",
    "plainmcp.middleware",
    "plainmcp.schema.pydantic_path",
    "hashlib",
    "pathlib",
    "urllib.parse",
    "mimetypes",
    "decimal",
)


@app.tool
def add(a: int, b: int, mode: Literal["sum", "difference"] = "sum") -> int:
    """Add (or subtract) two integers."""
    return a + b if mode == "sum" else a - b


@app.tool
def loaded() -> list[str]:
    """Which of the modules a tools-only server should not need are loaded."""
    return [name for name in NOT_NEEDED if name in sys.modules]


@app.tool
def add_model_tool() -> str:
    """Register `point`, whose argument is a pydantic model."""
    from pydantic import BaseModel

    class Point(BaseModel):
        x: int
        y: int

    def point(where: Point) -> str:
        """Where the point is."""
        return f"{where.x},{where.y}"

    app.add_tool(point)
    return "added"


if __name__ == "__main__":
    app.run()
