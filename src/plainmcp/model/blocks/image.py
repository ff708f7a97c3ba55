"""Image: an image block; `Image(path="chart.png")`, `Image(png_bytes)`, or `Image(figure)`."""

from __future__ import annotations

from typing import ClassVar

from plainmcp.model.blocks.media import Media


class Image(Media):
    """An image block; `Image(path="chart.png")`, `Image(png_bytes)`, or `Image(figure)` for a
    matplotlib Figure or a PIL image (sent as PNG)."""

    __slots__ = ()
    kind: ClassVar[str] = "image"
    family: ClassVar[str] = "image"
    noun: ClassVar[str] = "image"
    host_cell: ClassVar[str | None] = "images"
    draws: ClassVar[bool] = True
