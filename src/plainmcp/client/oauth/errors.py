"""What an OAuth login refuses, as McpErrors: raised under a request, they fail that request
(HttpLink fails a request with the McpError its POST raised), so the caller sees why."""

from __future__ import annotations

from plainmcp.client.errors import McpError
from plainmcp.wire.jsonrpc import INTERNAL_ERROR


class OAuthError(McpError):
    """The client could not obtain a token: discovery, registration, the user's consent or the
    token endpoint failed, or a check refused what a server sent."""

    def __init__(self, message: str) -> None:
        super().__init__(INTERNAL_ERROR, f"OAuth: {message}")


class DiscoveryError(OAuthError):
    """No usable protected resource or authorization server metadata."""


class ResourceMismatch(DiscoveryError):
    """The protected resource metadata names another resource than the server's URL."""


class IssuerMismatch(DiscoveryError):
    """Authorization server metadata whose `issuer` is not the one it was fetched for."""


class AuthorizationError(OAuthError):
    """The authorization response was an error, or failed its state or `iss` check."""


class RegistrationError(OAuthError):
    """No client identity: no pre-registered client, no CIMD support, DCR refused."""


class TokenError(OAuthError):
    """The token endpoint refused (`error`: its OAuth error code, e.g. invalid_grant)."""

    def __init__(self, error: str, description: str | None = None, status: int = 400) -> None:
        self.error = error
        self.description = description
        self.status = status
        text = f"{error}: {description}" if description else error
        super().__init__(f"the token endpoint answered HTTP {status} {text}")
