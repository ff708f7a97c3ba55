"""Icons and annotations: the hints a block (or a definition) carries for the host.

Checked when built, written per revision by `wire()` (the revision names the fields it has).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, TypeGuard

from plainmcp.model.errors import ContentError

if TYPE_CHECKING:
    from datetime import datetime

Role = Literal["user", "assistant"]


@dataclass(frozen=True, slots=True)
class Icon:
    """An icon for a tool, resource or server (shown by hosts that support icons)."""

    src: str
    mime_type: str | None = None
    sizes: tuple[str, ...] | None = None
    theme: Literal["light", "dark"] | None = None

    def wire(self) -> dict[str, Any]:
        """The icon as every revision that has icons writes it."""
        out: dict[str, Any] = {"src": self.src}
        if self.mime_type is not None:
            out["mimeType"] = self.mime_type
        if self.sizes is not None:
            out["sizes"] = list(self.sizes)
        if self.theme is not None:
            out["theme"] = self.theme
        return out


@dataclass(frozen=True, slots=True, init=False)  # its own __init__: none to generate
class Annotations:
    """Hints for the host: who the block is for, how important it is, when it last changed."""

    audience: tuple[Role, ...] | None = None
    priority: float | None = None
    last_modified: str | None = None

    def __init__(
        self,
        audience: Role | tuple[Role, ...] | list[Role] | None = None,
        priority: float | None = None,
        last_modified: datetime | str | None = None,
    ) -> None:
        if isinstance(audience, str):
            audience = (audience,)
        if audience is not None:
            try:
                audience = tuple(audience)
            except TypeError:
                raise ContentError(
                    f"audience must be 'user', 'assistant' or a list of them, not {audience!r}"
                ) from None
            for role in audience:
                if role not in ("user", "assistant"):
                    raise ContentError(f"audience must be 'user' or 'assistant', not {role!r}")
        if priority is not None and (
            isinstance(priority, bool)
            or not isinstance(priority, int | float)
            or not 0 <= priority <= 1
        ):
            raise ContentError(f"priority must be a number between 0 and 1, not {priority!r}")
        if _is_datetime(last_modified):
            if last_modified.tzinfo is None:
                last_modified = last_modified.astimezone()
            last_modified = last_modified.isoformat()
        elif last_modified is not None and not _is_iso_8601(last_modified):
            raise ContentError(  # the spec's name, which the wire's mapping uses too
                f"lastModified must be an ISO 8601 date (str or datetime), not {last_modified!r}"
            )
        object.__setattr__(self, "audience", audience)
        object.__setattr__(self, "priority", priority)
        object.__setattr__(self, "last_modified", last_modified)

    def wire(self, fields: frozenset[str]) -> dict[str, Any] | None:
        """The annotations a revision with these annotation `fields` carries; None: none."""
        out: dict[str, Any] = {}
        if self.audience is not None:
            out["audience"] = list(self.audience)
        if self.priority is not None:
            out["priority"] = self.priority
        if self.last_modified is not None and "lastModified" in fields:
            out["lastModified"] = self.last_modified
        return out or None


AnnotationsArg: TypeAlias = "Annotations | Mapping[str, Any]"
"""What a block's `annotations=` takes: an Annotations, or the wire's object (the spec's names:
`audience`, `priority`, `lastModified`), checked as Annotations checks its arguments."""

_WIRE_NAMES = {"audience": "audience", "priority": "priority", "lastModified": "last_modified"}


def annotations_of(value: AnnotationsArg | None) -> Annotations | None:
    """A block's `annotations=` as Annotations; what cannot be is a ContentError naming why
    (where the block is built, not when a reply fails to render)."""
    if value is None or isinstance(value, Annotations):
        return value
    if not isinstance(value, Mapping):
        raise ContentError(
            f"annotations must be an Annotations or a mapping, not {type(value).__name__}"
        )
    for key in value:
        if key not in _WIRE_NAMES:
            raise ContentError(
                f"annotations have no field {key!r} (the fields: audience, priority, lastModified)"
            )
    return Annotations(**{_WIRE_NAMES[key]: item for key, item in value.items()})


def _is_iso_8601(value: object) -> bool:
    if not isinstance(value, str):
        return False
    from datetime import datetime  # only for a string given: not at import

    try:
        datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


def _is_datetime(value: object) -> TypeGuard[datetime]:
    # Asked through sys.modules: no datetime exists before the module is imported, and a
    # server that never uses one need not import it.
    module = sys.modules.get("datetime")
    return module is not None and isinstance(value, module.datetime)
