"""Enterprise-managed authorization (ext-auth SEP-990): the user's ID token from the
enterprise IdP is exchanged there (RFC 8693 token exchange) for an ID-JAG, an identity
assertion for one authorization server and resource, which the JWT bearer grant then trades
for the access token. `IdJagExchange` is that grant's assertion source."""

from __future__ import annotations

from typing import Any

import httpx2

from plainmcp.client.oauth.login import Login, read_json
from plainmcp.client.oauth.tokens import token_error

GRANT_TYPE = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token"
ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"


def id_jag_request(
    id_token: str,
    client_id: str,
    audience: str,
    resource: str | None,
    scopes: tuple[str, ...],
) -> dict[str, str]:
    """The token exchange form asking the IdP for an ID-JAG for `audience` (the
    authorization server's issuer) and `resource` (the MCP server)."""
    form = {
        "grant_type": GRANT_TYPE,
        "requested_token_type": ID_JAG,
        "subject_token": id_token,
        "subject_token_type": ID_TOKEN,
        "audience": audience,
        "client_id": client_id,
    }
    if resource:
        form["resource"] = resource
    if scopes:
        form["scope"] = " ".join(scopes)
    return form


def issued_id_jag(status: int, doc: Any) -> str:
    """The ID-JAG from the IdP's answer (RFC 8693 §2.2.1); a refusal, or any other token
    type, raises TokenError."""
    if status != 200:
        raise token_error(status, doc)
    if (
        not isinstance(doc, dict)
        or doc.get("issued_token_type") != ID_JAG
        or not isinstance(doc.get("access_token"), str)
    ):
        raise token_error(status, {"error": "invalid_response", "error_description": "no ID-JAG"})
    token: str = doc["access_token"]
    return token


class IdJagExchange:
    """Gets a login's ID-JAG at the IdP's `token_endpoint` for `id_token` (issued to the
    IdP client `client_id`): pass it as `JwtBearer(source=...)`."""

    def __init__(self, token_endpoint: str, id_token: str, client_id: str) -> None:
        self.token_endpoint = token_endpoint
        self.id_token = id_token
        self.client_id = client_id

    async def __call__(self, login: Login) -> str:
        form = id_jag_request(
            self.id_token, self.client_id, login.server.issuer, login.resource, login.scopes
        )
        try:
            answer = await login.http.post(
                self.token_endpoint, data=form, headers={"accept": "application/json"}
            )
        except httpx2.HTTPError as exc:
            raise token_error(0, {"error": "unreachable", "error_description": str(exc)}) from None
        return issued_id_jag(answer.status_code, await read_json(answer))
