"""Image objects from chart and image code (PIL images, matplotlib figures) as PNG bytes.

Found by duck typing on the class's module and methods, so plainmcp never imports PIL or
matplotlib: a server that does not use them does not pay for them.
"""

from __future__ import annotations

import io
from typing import Any, Literal, Protocol

_Kind = Literal["pil", "figure", "axes"]


class PilImage(Protocol):
    """What plainmcp uses of a PIL image (for type checkers; detection is by duck typing)."""

    def save(self, fp: Any, format: str | None = ..., **params: Any) -> None: ...


class Figure(Protocol):
    """What plainmcp uses of a matplotlib Figure."""

    def savefig(self, fname: Any, **kwargs: Any) -> None: ...


class Axes(Protocol):
    """What plainmcp uses of a matplotlib Axes: the figure it is drawn in."""

    def get_figure(self) -> Any: ...


ImageObject = PilImage | Figure | Axes
"""What `Image(...)` takes besides bytes, and a tool may return, to send a PNG."""


_KINDS: dict[type, _Kind | None] = {}


def _kind_of(cls: type) -> _Kind | None:
    """The kind of image object `cls` makes (cached: a list of rows asks once per row)."""
    try:
        return _KINDS[cls]
    except KeyError:
        pass
    if len(_KINDS) >= 1024:  # classes made on the fly must not grow the cache without end
        _KINDS.clear()
    kind = _KINDS[cls] = _classify(cls)
    return kind


def _classify(cls: type) -> _Kind | None:
    """By the modules of the class and its bases, and the methods it has."""
    modules = [getattr(c, "__module__", None) or "" for c in cls.__mro__]
    if any(m.startswith("PIL.") for m in modules):
        return "pil" if callable(getattr(cls, "save", None)) else None
    if any(m.startswith("matplotlib.") for m in modules):
        if callable(getattr(cls, "savefig", None)):
            return "figure"
        if callable(getattr(cls, "get_figure", None)):
            return "axes"  # what seaborn and pandas plotting return; drawn as their figure
    return None


def _kind(value: Any) -> _Kind | None:
    kind = _kind_of(type(value))
    if kind == "pil" and not (hasattr(value, "mode") and hasattr(value, "size")):
        return None
    return kind


def is_image_class(cls: type) -> bool:
    """Instances are image objects (a return annotation such as `-> Figure` is content)."""
    return _kind_of(cls) is not None


def is_image_object(value: Any) -> bool:
    """A PIL image, or a matplotlib Figure or Axes: something `png_of` can draw."""
    return _kind(value) is not None


def png_of(value: Any) -> bytes | None:
    """The PNG bytes of an image object, None for any other value.

    Errors of the drawing library (an image mode PNG cannot hold, say) propagate; an Axes in
    no figure is a ValueError.
    """
    kind = _kind(value)
    if kind is None:
        return None
    buffer = io.BytesIO()
    if kind == "pil":
        try:
            value.save(buffer, format="PNG")
        except (OSError, ValueError) as exc:  # a mode PNG cannot hold: CMYK, LAB, HSV, ...
            target = "RGBA" if "A" in str(value.mode).upper() else "RGB"
            if value.mode == target:
                raise
            try:
                converted = value.convert(target)
            except Exception:
                raise exc from None  # the first failure is the one that explains
            buffer = io.BytesIO()
            converted.save(buffer, format="PNG")
        return buffer.getvalue()
    figure = value
    for _ in range(4):  # Axes -> (SubFigure ->) Figure
        if callable(getattr(figure, "savefig", None)):
            figure.savefig(buffer, format="png")
            return buffer.getvalue()
        figure = getattr(figure, "figure", None)
    raise ValueError(f"this {type(value).__name__} is in no figure that can be drawn")
