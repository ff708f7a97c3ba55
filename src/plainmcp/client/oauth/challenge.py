"""WWW-Authenticate challenges (RFC 9110 §11.6.1) as data: the Bearer challenge's `error`,
`scope` and `resource_metadata` (RFC 6750 §3, RFC 9728 §5.1) drive discovery and step-up."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

_TOKEN = r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
_SEPARATORS = re.compile(r"[\s,]*")
_PARAM = re.compile(rf"({_TOKEN})\s*=\s*(\"(?:[^\"\\]|\\.)*\"|[^\s,]*)\s*(?:,|$)")
_SCHEME = re.compile(rf"({_TOKEN})(?:\s+(?:[A-Za-z0-9\-._~+/]+=*(?=\s*(?:,|$)))?|$)")
_ESCAPE = re.compile(r"\\(.)")


@dataclass(frozen=True)
class Challenge:
    """One challenge: its scheme (lower case) and parameters (names lower case, values
    unquoted; the first of a repeated name wins)."""

    scheme: str
    params: Mapping[str, str] = field(default_factory=dict)

    @property
    def error(self) -> str | None:
        return self.params.get("error")

    @property
    def scope(self) -> tuple[str, ...] | None:
        """The scopes it asks for, in order; None when it names none."""
        value = self.params.get("scope")
        return tuple(value.split()) if value and value.strip() else None

    @property
    def resource_metadata(self) -> str | None:
        return self.params.get("resource_metadata")


def parse(header: str) -> list[Challenge]:
    """Every challenge in one header value, in order; a malformed tail is ignored."""
    found: list[tuple[str, dict[str, str]]] = []
    pos, end = 0, len(header)
    while True:
        pos = _SEPARATORS.match(header, pos).end()  # type: ignore[union-attr]
        if pos >= end:
            break
        param = _PARAM.match(header, pos)
        if param is not None and found:
            raw = param.group(2)
            value = _ESCAPE.sub(r"\1", raw[1:-1]) if raw.startswith('"') else raw
            found[-1][1].setdefault(param.group(1).lower(), value)
            pos = param.end()
            continue
        scheme = _SCHEME.match(header, pos)
        if scheme is None:
            break
        found.append((scheme.group(1).lower(), {}))
        pos = scheme.end()
    return [Challenge(name, params) for name, params in found]


def bearer(headers: Iterable[str], scheme: str = "bearer") -> Challenge | None:
    """The Bearer challenge (or `scheme`'s: dpop) among the WWW-Authenticate header values,
    if any."""
    for value in headers:
        for challenge in parse(value):
            if challenge.scheme == scheme:
                return challenge
    return None
