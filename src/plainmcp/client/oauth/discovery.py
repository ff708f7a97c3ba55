"""Where the metadata documents are looked for, in the MCP specification's order (sans-I/O:
URLs in, URLs out; login.py fetches them)."""

from __future__ import annotations

from urllib.parse import urlsplit


def _origin_and_path(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}", parts.path.rstrip("/")


def resource_metadata_urls(server_url: str, from_challenge: str | None = None) -> list[str]:
    """RFC 9728: the 401's `resource_metadata` first, then the well-known URL with the server's
    path inserted, then the one at the root."""
    origin, path = _origin_and_path(server_url)
    urls = [from_challenge] if from_challenge else []
    if path:
        urls.append(f"{origin}/.well-known/oauth-protected-resource{path}")
    urls.append(f"{origin}/.well-known/oauth-protected-resource")
    return list(dict.fromkeys(urls))


def server_metadata_urls(issuer: str) -> list[str]:
    """RFC 8414 then OpenID Connect Discovery: for an issuer with a path, the path-inserted
    OAuth and OpenID URLs, then OpenID's path-appended one; for a bare origin, the two roots."""
    origin, path = _origin_and_path(issuer)
    if not path:
        return [
            f"{origin}/.well-known/oauth-authorization-server",
            f"{origin}/.well-known/openid-configuration",
        ]
    return [
        f"{origin}/.well-known/oauth-authorization-server{path}",
        f"{origin}/.well-known/openid-configuration{path}",
        f"{origin}{path}/.well-known/openid-configuration",
    ]


def origin(url: str) -> str:
    """The URL's origin: the authorization server of a server without resource metadata."""
    return _origin_and_path(url)[0]
