"""The document's security schemes as what the caller supplies: `credentials={scheme: secret}`
(a string, or a callable returning one per request), put where each scheme says."""

from __future__ import annotations

import base64
import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from plainmcp.openapi.document import OpenAPIError, Operation

Secret: TypeAlias = str | Callable[[], str | Awaitable[str]]


@dataclass(slots=True)
class Placed:
    """What the credentials add to one request."""

    headers: dict[str, str] = field(default_factory=dict)
    query: dict[str, str] = field(default_factory=dict)
    cookies: dict[str, str] = field(default_factory=dict)


def describe(name: str, scheme: Mapping[str, Any]) -> str:
    """One scheme as the caller must supply it (named in the error for a missing one)."""
    kind = scheme.get("type")
    if kind == "http":
        how = str(scheme.get("scheme", "")).lower()
        return f"{name} (http {how}: {'user:password' if how == 'basic' else 'a token'})"
    if kind == "apiKey":
        return f"{name} (an API key in the {scheme.get('in')} {scheme.get('name')!r})"
    return f"{name} ({kind}: a bearer token)"


def header_of(scheme: Mapping[str, Any]) -> str | None:
    """The request header a scheme is carried in (None: a query or cookie key)."""
    if scheme.get("type") == "apiKey":
        return str(scheme.get("name")) if scheme.get("in") == "header" else None
    return "authorization"


def requirement(
    operation: Operation,
    schemes: Mapping[str, Any],
    credentials: Mapping[str, Secret],
    headers: Mapping[str, str] | None,
) -> Mapping[str, Any] | None:
    """The first alternative of the operation's security that `credentials` (or the static
    `headers`, carrying a scheme's header) meets; None when it needs none. Raises
    OpenAPIError naming what is missing, unless `headers` is None: headers given by a function
    may carry anything."""
    if not operation.security:
        return None
    given = {name.lower() for name in headers} if headers is not None else None

    def met(name: str) -> bool:
        carried = header_of(schemes.get(name, {}))
        return name in credentials or (
            given is not None and carried is not None and carried.lower() in given
        )

    for alternative in operation.security:
        if all(met(name) for name in alternative):
            return alternative
    if given is None:
        return operation.security[0]
    wanted = " or ".join(
        " and ".join(describe(n, schemes.get(n, {})) for n in alt) for alt in operation.security
    )
    name = operation.operation_id or f"{operation.method} {operation.path}"
    raise OpenAPIError(f"operation {name!r} needs credentials= for {wanted}")


async def place(
    alternative: Mapping[str, Any] | None,
    schemes: Mapping[str, Any],
    credentials: Mapping[str, Secret],
) -> Placed:
    placed = Placed()
    for name in alternative or {}:
        scheme = schemes.get(name)
        if scheme is None:
            raise OpenAPIError(f"security scheme {name!r} is not in components.securitySchemes")
        if name not in credentials:  # the caller's headers carry it
            continue
        secret = await _secret(credentials[name])
        kind = scheme.get("type")
        if kind == "apiKey":
            where = {"header": placed.headers, "query": placed.query, "cookie": placed.cookies}
            where[scheme["in"]][scheme["name"]] = secret
        elif kind == "http" and str(scheme.get("scheme", "")).lower() == "basic":
            encoded = base64.b64encode(secret.encode()).decode("ascii")
            placed.headers["Authorization"] = f"Basic {encoded}"
        else:  # http bearer, oauth2, openIdConnect: a bearer token
            placed.headers["Authorization"] = f"Bearer {secret}"
    return placed


async def _secret(given: Secret) -> str:
    if callable(given):
        value = given()
        if inspect.isawaitable(value):
            value = await value
        given = value
    if not isinstance(given, str):
        raise TypeError(f"a credential is a str, not {type(given).__name__}")
    return given
