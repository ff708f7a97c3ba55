"""Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): a client whose
`client_id` is an https URL is described by the JSON document at that URL. The server fetches
it, so the fetch is guarded against SSRF: https only, the host's addresses must all be public
(no private, loopback, link-local, reserved or multicast address), the connection goes to the
address that was checked (no DNS rebinding between the check and the fetch), no redirects,
bounded size and time. Documents are cached in the store (every process shares them)."""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx2

from plainmcp.authorization.clients import Registered, RegistrationError, validated_metadata
from plainmcp.authorization.store import AuthStore

Resolver = Callable[[str, int], Awaitable[list[str]]]


async def resolve(host: str, port: int) -> list[str]:
    """Every address `host` resolves to."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return sorted({str(info[4][0]) for info in infos})


@dataclass(frozen=True)
class FetchPolicy:
    """What fetching a metadata document may do. The defaults are the safe ones; tests serve
    documents from 127.0.0.1 with `allow_http=True, allow_private=True`."""

    allow_http: bool = False
    allow_private: bool = False
    max_bytes: int = 5 * 1024
    timeout: float = 5.0
    min_age: float = 300.0
    """Seconds a document is cached at least (a client cannot make us fetch on every request)."""
    max_age: float = 86400.0
    resolver: Resolver = resolve


class MetadataError(RegistrationError):
    """The document could not be used (the client id is then unknown: invalid_client)."""

    def __init__(self, description: str) -> None:
        super().__init__("invalid_client", description)


def is_document_id(client_id: str, policy: FetchPolicy) -> bool:
    """A client id that names a metadata document: an https URL (http when allowed)."""
    scheme = urlsplit(client_id).scheme
    return scheme == "https" or (policy.allow_http and scheme == "http")


def url_problem(client_id: str, policy: FetchPolicy) -> str | None:
    """The draft's §3 rules for the URL itself: https, a path, no dot segments, fragment or
    credentials."""
    parts = urlsplit(client_id)
    if parts.scheme != "https" and not (policy.allow_http and parts.scheme == "http"):
        return "a client id metadata document must be served over https"
    if not parts.hostname:
        return "the client id URL has no host"
    if parts.username is not None or parts.password is not None or parts.fragment:
        return "the client id URL must carry no credentials or fragment"
    if parts.path in ("", "/"):
        return "the client id URL must have a path"
    if any(segment in (".", "..") for segment in parts.path.split("/")):
        return "the client id URL must not have dot segments"
    return None


def address_problem(address: str, policy: FetchPolicy) -> str | None:
    ip = ipaddress.ip_address(address)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if policy.allow_private or ip.is_global:
        return None
    return f"the client id's host resolves to a non-public address ({ip})"


def _max_age(cache_control: str | None, policy: FetchPolicy) -> float:
    found = re.search(r"max-age=(\d+)", cache_control or "")
    age = float(found.group(1)) if found else policy.min_age
    return min(max(age, policy.min_age), policy.max_age)


class MetadataDocuments:
    """Fetch, validate and cache client metadata documents."""

    def __init__(self, store: AuthStore, policy: FetchPolicy, http: httpx2.AsyncClient) -> None:
        self.store = store
        self.policy = policy
        self.http = http

    async def client(self, client_id: str) -> Registered:
        cached = await self.store.get("cimd", client_id)
        if cached is not None:
            return Registered.from_record(cached)
        document, max_age = await self._fetch(client_id)
        client = registered_from(client_id, document)
        await self.store.put("cimd", client_id, client.record(), max_age)
        return client

    async def _fetch(self, client_id: str) -> tuple[Any, float]:
        policy = self.policy
        problem = url_problem(client_id, policy)
        if problem:
            raise MetadataError(problem)
        parts = urlsplit(client_id)
        host = parts.hostname or ""
        port = parts.port or (443 if parts.scheme == "https" else 80)
        try:
            addresses = await asyncio.wait_for(policy.resolver(host, port), policy.timeout)
        except (OSError, TimeoutError):
            raise MetadataError(f"the client id's host {host} does not resolve") from None
        if not addresses:
            raise MetadataError(f"the client id's host {host} does not resolve")
        for address in addresses:
            problem = address_problem(address, policy)
            if problem:
                raise MetadataError(problem)
        # Connect to the checked address; the name goes in Host and in TLS's SNI, and the
        # certificate is verified against it.
        literal = f"[{addresses[0]}]" if ":" in addresses[0] else addresses[0]
        target = urlunsplit((parts.scheme, f"{literal}:{port}", parts.path, parts.query, ""))
        try:
            async with asyncio.timeout(policy.timeout):
                async with self.http.stream(
                    "GET",
                    target,
                    headers={"host": parts.netloc, "accept": "application/json"},
                    extensions={"sni_hostname": host},
                    follow_redirects=False,
                    timeout=policy.timeout,
                ) as answer:
                    if answer.status_code != 200:
                        raise MetadataError(
                            f"the client metadata document answered HTTP {answer.status_code}"
                        )
                    body = b""
                    async for chunk in answer.aiter_bytes():
                        body += chunk
                        if len(body) > policy.max_bytes:
                            raise MetadataError(
                                f"the client metadata document exceeds {policy.max_bytes} bytes"
                            )
                    max_age = _max_age(answer.headers.get("cache-control"), policy)
        except TimeoutError:
            raise MetadataError("the client metadata document took too long") from None
        except httpx2.HTTPError as exc:
            raise MetadataError(f"the client metadata document is unreachable ({exc})") from None
        try:
            return httpx2.Response(200, content=body).json(), max_age
        except ValueError:
            raise MetadataError("the client metadata document is not JSON") from None


def registered_from(client_id: str, document: Any) -> Registered:
    """The client a document describes: its `client_id` must be the URL it came from; a public
    client, or one that signs assertions with a key of its `jwks` (private_key_jwt): no secret
    can be shared through a public document."""
    if not isinstance(document, dict) or document.get("client_id") != client_id:
        raise MetadataError("the document's client_id is not its URL")
    if "client_secret" in document or "client_secret_expires_at" in document:
        raise MetadataError("a client metadata document must not carry a client secret")
    document = dict(document)
    document.setdefault("token_endpoint_auth_method", "none")
    try:
        claims = validated_metadata(document)
    except RegistrationError as exc:
        raise MetadataError(f"the client metadata document is invalid: {exc}") from None
    method = claims["token_endpoint_auth_method"]
    if method not in ("none", "private_key_jwt"):
        raise MetadataError(
            "a client metadata document's token_endpoint_auth_method is none or private_key_jwt"
        )
    return Registered(
        client_id,
        tuple(claims["redirect_uris"]),
        method,
        None,
        claims.get("client_name"),
        metadata_document=True,
        declared_scope=claims.get("scope"),
        jwks=claims.get("jwks") if method == "private_key_jwt" else None,
    )
