"""How the client authenticates at the token endpoint (RFC 6749 §2.3, RFC 7591 §2): one small
interface, a class per method; extensions add theirs (private_key_jwt, for one)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from authlib.oauth2.auth import encode_client_secret_basic

PREFERENCE = ("client_secret_basic", "client_secret_post", "none")
"""The methods this client can use with a secret, best first (none: a public client)."""


class TokenEndpointAuth(Protocol):
    """Adds the client's authentication to a token request's headers and form."""

    @property
    def method(self) -> str: ...

    def apply(self, headers: dict[str, str], form: dict[str, str]) -> None: ...


@dataclass(frozen=True)
class ClientSecretBasic:
    client_id: str
    client_secret: str
    method: str = "client_secret_basic"

    def apply(self, headers: dict[str, str], form: dict[str, str]) -> None:
        _, encoded, _ = encode_client_secret_basic(self, self.method, "", {}, "")
        headers.update(encoded)


@dataclass(frozen=True)
class ClientSecretPost:
    client_id: str
    client_secret: str
    method: str = "client_secret_post"

    def apply(self, headers: dict[str, str], form: dict[str, str]) -> None:
        form["client_id"] = self.client_id
        form["client_secret"] = self.client_secret


@dataclass(frozen=True)
class PublicClient:
    client_id: str
    method: str = "none"

    def apply(self, headers: dict[str, str], form: dict[str, str]) -> None:
        form["client_id"] = self.client_id


def choose(supported: Sequence[str] | None, has_secret: bool) -> str:
    """The method to register or use: the best of PREFERENCE the server lists (RFC 8414's
    default when it lists none: client_secret_basic); without a secret, none."""
    if not has_secret:
        return "none"
    listed = supported if supported else ("client_secret_basic",)
    for method in PREFERENCE:
        if method in listed:
            return method
    return "client_secret_basic"


def for_client(client_id: str, client_secret: str | None, method: str) -> TokenEndpointAuth:
    """The TokenEndpointAuth of a client registered with `method`."""
    if method == "none" or client_secret is None:
        return PublicClient(client_id)
    if method == "client_secret_post":
        return ClientSecretPost(client_id, client_secret)
    return ClientSecretBasic(client_id, client_secret)
