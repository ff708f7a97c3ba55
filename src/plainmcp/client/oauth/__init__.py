"""The client's OAuth: `Client.http(url, auth=OAuth(...))` discovers the
server's authorization server, logs in and keeps the token fresh. Its parts, sans-I/O where
they can be: challenge.py (WWW-Authenticate), discovery.py (the well-known URLs in order),
metadata.py (the two metadata documents, checked), scopes.py (which scopes to ask for),
authorize.py (PKCE, state, RFC 9207 iss), tokens.py, identity.py (pre-registered, CIMD, DCR),
endpoint_auth.py (client authentication at the token endpoint), store.py (TokenStore: memory,
file); the I/O: login.py, grants.py (Grant: how a token is obtained), redirect.py (the
loopback redirect) and flow.py (OAuth); the ext-auth pieces: client_credentials.py,
client_assertion.py (private_key_jwt), jwt_bearer.py, token_exchange.py (ID-JAG), dpop.py.
Needs `plainmcp[oauth]`."""

from plainmcp.client.oauth.client_assertion import PrivateKeyJwt
from plainmcp.client.oauth.client_credentials import ClientCredentials
from plainmcp.client.oauth.dpop import DPoPKey
from plainmcp.client.oauth.errors import (
    AuthorizationError,
    DiscoveryError,
    IssuerMismatch,
    OAuthError,
    RegistrationError,
    ResourceMismatch,
    TokenError,
)
from plainmcp.client.oauth.flow import Credentials, OAuth, server_key
from plainmcp.client.oauth.grants import AuthorizationCode, Grant
from plainmcp.client.oauth.identity import ClientMetadata, RegisteredClient
from plainmcp.client.oauth.jwt_bearer import JwtBearer
from plainmcp.client.oauth.login import Login
from plainmcp.client.oauth.redirect import LoopbackRedirect, RedirectHandler
from plainmcp.client.oauth.store import FileTokenStore, MemoryTokenStore, TokenStore
from plainmcp.client.oauth.token_exchange import IdJagExchange
from plainmcp.client.oauth.tokens import Token

__all__ = [
    "AuthorizationCode",
    "AuthorizationError",
    "ClientCredentials",
    "ClientMetadata",
    "Credentials",
    "DPoPKey",
    "DiscoveryError",
    "FileTokenStore",
    "Grant",
    "IdJagExchange",
    "IssuerMismatch",
    "JwtBearer",
    "Login",
    "LoopbackRedirect",
    "MemoryTokenStore",
    "OAuth",
    "OAuthError",
    "PrivateKeyJwt",
    "RedirectHandler",
    "RegisteredClient",
    "RegistrationError",
    "ResourceMismatch",
    "Token",
    "TokenError",
    "TokenStore",
    "server_key",
]
