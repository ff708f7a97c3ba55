"""The authorization server's requests and responses as plain objects: what the protocol
logic takes and returns, so it runs (and is tested) without sockets; asgi.py turns them into
ASGI messages and back."""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

NO_STORE = (("cache-control", "no-store"), ("pragma", "no-cache"))
"""RFC 6749 §5.1: token responses (and anything carrying a secret) are never cached."""

PAGE_HEADERS = (
    (
        "content-security-policy",
        "default-src 'none'; form-action 'self'; frame-ancestors 'none'",
    ),
    ("x-frame-options", "DENY"),
    ("referrer-policy", "no-referrer"),
)
"""A page a user acts on is never framed (clickjacking) and leaks no query to other sites."""


@dataclass(frozen=True)
class Request:
    """An HTTP request as the protocol reads it: `query` and `form` hold each name's values
    (a repeated parameter is an error for OAuth, so it is kept to be seen)."""

    method: str
    path: str
    query: Mapping[str, list[str]] = field(default_factory=dict)
    form: Mapping[str, list[str]] = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict)
    """Lower-case names."""
    body: bytes = b""
    client_host: str | None = None

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass(frozen=True)
class Response:
    status: int
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""

    def header(self, name: str) -> str | None:
        for key, value in self.headers:
            if key == name:
                return value
        return None

    def json(self) -> Any:
        return json.loads(self.body)


def json_response(
    status: int, document: Mapping[str, Any], headers: tuple[tuple[str, str], ...] = ()
) -> Response:
    body = json.dumps(document, separators=(",", ":")).encode()
    return Response(status, (("content-type", "application/json"), *headers), body)


def oauth_error(
    status: int, error: str, description: str, headers: tuple[tuple[str, str], ...] = ()
) -> Response:
    """RFC 6749 §5.2's error answer."""
    return json_response(
        status, {"error": error, "error_description": description}, (*NO_STORE, *headers)
    )


def page(status: int, title: str, body_html: str) -> Response:
    """A small HTML page (the consent page, or an error a user sees instead of a redirect)."""
    text = (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title></head><body>{body_html}</body></html>"
    )
    return Response(
        status,
        (("content-type", "text/html; charset=utf-8"), *NO_STORE, *PAGE_HEADERS),
        text.encode(),
    )


def error_page(status: int, description: str) -> Response:
    """Where a redirect would go somewhere not proven to be the client's: no redirect at all
    (RFC 6749 §4.1.2.1), the error shown to the user."""
    return page(
        status,
        "Authorization error",
        f"<h1>Authorization error</h1><p>{html.escape(description)}</p>",
    )


def with_query(url: str, params: Mapping[str, str]) -> str:
    """`url` with `params` added to its query (kept: a registered redirect URI may have one)."""
    parts = urlsplit(url)
    extra = urlencode(dict(params))
    query = f"{parts.query}&{extra}" if parts.query else extra
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, ""))


def redirect(url: str) -> Response:
    return Response(302, (("location", url), *NO_STORE))


def single(values: Mapping[str, list[str]], name: str) -> str | None:
    """The one value of `name`; None when absent. A repeated parameter raises Repeated."""
    found = values.get(name)
    if not found:
        return None
    if len(found) > 1:
        raise Repeated(name)
    return found[0]


class Repeated(ValueError):
    """RFC 6749 §3.1: request parameters must not be included more than once."""

    def __init__(self, name: str) -> None:
        super().__init__(f"parameter {name} is repeated")
        self.name = name
