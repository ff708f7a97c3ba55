"""The JWT bearer grant (RFC 7523 §2.1): a token for an assertion another party issued, a
workload's identity token (workload identity federation) or an enterprise IdP's ID-JAG. A
refused assertion is the caller's to fix: the error surfaces, never retried with another."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace

from plainmcp.client.oauth.identity import ClientMetadata
from plainmcp.client.oauth.login import Login
from plainmcp.client.oauth.tokens import Token

GRANT_TYPE = "urn:ietf:params:oauth:grant-type:jwt-bearer"

AssertionSource = Callable[[Login], Awaitable[str]]
"""Gets the assertion for a login (read a projected token file, exchange an ID token...)."""


class JwtBearer:
    """grant_type=jwt-bearer with the assertion `source` gives for the login (or the fixed
    `assertion`), the login's scopes and resource."""

    def __init__(self, assertion: str | None = None, source: AssertionSource | None = None):
        if (assertion is None) == (source is None):
            raise ValueError("give exactly one of assertion and source")
        self._assertion = assertion
        self._source = source

    def metadata(self, base: ClientMetadata) -> ClientMetadata:
        return replace(base, grant_types=(GRANT_TYPE,), redirect_uris=())

    async def obtain(self, login: Login) -> Token:
        if self._source is not None:
            assertion = await self._source(login)
        else:
            assert self._assertion is not None
            assertion = self._assertion
        form = {"grant_type": GRANT_TYPE, "assertion": assertion}
        if login.scopes:
            form["scope"] = " ".join(login.scopes)
        return await login.token_request(form)
