"""Image objects as PNG bytes: duck-typed fakes (what plainmcp relies on) and the real libraries."""

from __future__ import annotations

import io
import subprocess
import sys
from typing import Any

import matplotlib
import pytest
from matplotlib.figure import Figure
from PIL import Image as PILImage

from plainmcp.model import images
from tests.test_mime import png_bytes

matplotlib.use("Agg")

PNG = png_bytes()


class FakePil:
    """Shaped like a PIL image; its module says PIL, as PIL's classes do."""

    mode = "RGB"
    size = (1, 1)

    def __init__(self) -> None:
        self.formats: list[Any] = []

    def save(self, fp: io.BytesIO, format: str | None = None) -> None:
        self.formats.append(format)
        fp.write(PNG)


FakePil.__module__ = "PIL.Image"


class FakeCmyk(FakePil):
    """A mode PNG cannot hold: saving fails until converted."""

    mode = "CMYK"

    def __init__(self) -> None:
        super().__init__()
        self.converted: list[str] = []

    def save(self, fp: io.BytesIO, format: str | None = None) -> None:
        raise OSError("cannot write mode CMYK as PNG")

    def convert(self, mode: str) -> FakePil:
        self.converted.append(mode)
        return FakePil()


FakeCmyk.__module__ = "PIL.JpegImagePlugin"


class FakeFigure:
    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def savefig(self, fname: io.BytesIO, **kwargs: Any) -> None:
        self.calls.append(kwargs)
        fname.write(PNG)


FakeFigure.__module__ = "matplotlib.figure"


class FakeAxes:
    def __init__(self, figure: Any) -> None:
        self.figure = figure

    def get_figure(self) -> Any:
        return self.figure


FakeAxes.__module__ = "matplotlib.axes._axes"


class MyImage(FakePil):
    """A user's subclass, in the user's module: still a PIL image by its base."""


MyImage.__module__ = "myapp.pictures"


class LooksLikeAnImage:
    """Has `save` and `savefig`, but comes from neither library: not an image object."""

    mode = "RGB"
    size = (1, 1)

    def save(self, fp: Any, format: str | None = None) -> None:
        raise AssertionError("never called")

    def savefig(self, fname: Any, **kwargs: Any) -> None:
        raise AssertionError("never called")


def test_a_pil_shaped_object_is_saved_as_png() -> None:
    image = FakePil()
    assert images.is_image_object(image)
    assert images.png_of(image) == PNG
    assert image.formats == ["PNG"]


def test_a_figure_shaped_object_is_saved_as_png() -> None:
    fig = FakeFigure()
    assert images.png_of(fig) == PNG
    assert fig.calls == [{"format": "png"}]


def test_axes_are_drawn_as_their_figure() -> None:
    fig = FakeFigure()
    assert images.png_of(FakeAxes(fig)) == PNG
    assert fig.calls == [{"format": "png"}]
    with pytest.raises(ValueError, match=r"^this FakeAxes is in no figure that can be drawn$"):
        images.png_of(FakeAxes(None))


def test_a_subclass_in_another_module_is_found_by_its_base() -> None:
    assert images.png_of(MyImage()) == PNG


def test_a_mode_png_cannot_hold_is_converted() -> None:
    image = FakeCmyk()
    assert images.png_of(image) == PNG
    assert image.converted == ["RGB"]


def test_other_objects_are_not_image_objects() -> None:
    class NoMode:
        def save(self, fp: Any, format: str | None = None) -> None:
            raise AssertionError("never called")

    NoMode.__module__ = "PIL.Image"
    for value in (LooksLikeAnImage(), NoMode(), object(), b"\x89PNG", "chart.png", 5, {"a": 1}):
        assert not images.is_image_object(value)
        assert images.png_of(value) is None
    assert images.is_image_class(FakeFigure) and not images.is_image_class(LooksLikeAnImage)


def test_a_real_pil_image() -> None:
    png = images.png_of(PILImage.new("RGB", (3, 2), "red"))
    assert png is not None
    with PILImage.open(io.BytesIO(png)) as back:
        assert (back.format, back.size, back.convert("RGB").getpixel((2, 1))) == (
            "PNG",
            (3, 2),
            (255, 0, 0),
        )
    cmyk = images.png_of(PILImage.new("CMYK", (1, 1)))
    assert cmyk is not None
    with PILImage.open(io.BytesIO(cmyk)) as back:
        assert (back.format, back.mode) == ("PNG", "RGB")


def test_a_real_matplotlib_figure_and_its_axes() -> None:
    fig = Figure(figsize=(2, 1), dpi=10)
    ax = fig.subplots()
    ax.plot([1, 2])
    for value in (fig, ax):
        png = images.png_of(value)
        assert png is not None
        with PILImage.open(io.BytesIO(png)) as back:
            assert (back.format, back.size) == ("PNG", (20, 10))
    # Axes of a subfigure: the whole figure is drawn.
    outer = Figure(figsize=(2, 2), dpi=10)
    inner = outer.subfigures(1, 2)[0].subplots()
    png = images.png_of(inner)
    assert png is not None
    with PILImage.open(io.BytesIO(png)) as back:
        assert back.size == (20, 20)


def test_plainmcp_imports_neither_pil_nor_matplotlib() -> None:
    """Importing plainmcp and mapping ordinary values (and a fake image) loads neither library."""
    code = """
import asyncio, sys
import plainmcp
from plainmcp import ResultOptions
from plainmcp.model.results import value_content
from plainmcp.tools import call_tool, make_tool

class Fake:
    mode = "RGB"
    size = (1, 1)
    def save(self, fp, format=None):
        fp.write(b"\\x89PNG\\r\\n\\x1a\\n" + bytes(8))
Fake.__module__ = "PIL.Image"

def chart() -> dict:
    return {"rows": [1, 2.5, "x", None], "png": b"\\x89PNG\\r\\n\\x1a\\n", "pic": Fake()}

options = ResultOptions()
value_content({"a": 1}, options)
value_content([{"a": 1}, 2, "three"], options)
result = asyncio.run(call_tool(make_tool(chart), {}, options))
print([b.kind for b in result.content], "PIL" in sys.modules, "matplotlib" in sys.modules)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['text', 'image', 'image'] False False"
