"""The proxy as a client of its upstream provider: the authorization request it redirects the
user to (its own PKCE and state), the code it redeems, and who logged in."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx2
from authlib.oauth2.rfc7636 import create_s256_code_challenge

from plainmcp.authorization.messages import with_query
from plainmcp.authorization.providers import Upstream


class UpstreamError(Exception):
    """The provider refused the code or did not say who logged in (no secret in the text)."""


@dataclass(frozen=True)
class Identity:
    subject: str
    claims: dict[str, Any]


def authorization_url(upstream: Upstream, redirect_uri: str, state: str, verifier: str) -> str:
    params = {
        "response_type": "code",
        "client_id": upstream.client_id,
        "redirect_uri": redirect_uri,
        "state": state,
        "code_challenge": create_s256_code_challenge(verifier),
        "code_challenge_method": "S256",
        **upstream.authorize_params,
    }
    if upstream.scopes:
        params["scope"] = " ".join(upstream.scopes)
    return with_query(upstream.authorization_endpoint, params)


def token_request(
    upstream: Upstream, code: str, redirect_uri: str, verifier: str
) -> tuple[dict[str, str], dict[str, str]]:
    """The token request's form and headers (client authentication as the provider wants)."""
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": redirect_uri,
        "code_verifier": verifier,
    }
    headers = {"accept": "application/json"}
    if upstream.token_auth == "client_secret_basic" and upstream.client_secret is not None:
        pair = f"{quote(upstream.client_id, safe='')}:{quote(upstream.client_secret, safe='')}"
        headers["authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
    else:
        form["client_id"] = upstream.client_id
        if upstream.client_secret is not None:
            form["client_secret"] = upstream.client_secret
    return form, headers


async def log_in(
    http: httpx2.AsyncClient, upstream: Upstream, code: str, redirect_uri: str, verifier: str
) -> Identity:
    """Redeem the provider's code and ask its userinfo endpoint who the user is. The provider's
    tokens are used for that only and never kept."""
    form, headers = token_request(upstream, code, redirect_uri, verifier)
    answer = await http.post(upstream.token_endpoint, data=form, headers=headers)
    tokens = _json(answer)
    access = tokens.get("access_token") if answer.status_code == 200 else None
    if not isinstance(access, str) or not access:
        raise UpstreamError(
            f"{upstream.name} refused the code: HTTP {answer.status_code}"
            f" {tokens.get('error', '')}".rstrip()
        )
    info = await http.get(
        upstream.userinfo_endpoint,
        headers={"authorization": f"Bearer {access}", "accept": "application/json"},
    )
    claims = _json(info)
    subject = claims.get(upstream.subject_claim)
    if info.status_code != 200 or isinstance(subject, bool) or not isinstance(subject, str | int):
        raise UpstreamError(f"{upstream.name}'s userinfo named nobody: HTTP {info.status_code}")
    return Identity(str(subject), claims)


def _json(answer: httpx2.Response) -> dict[str, Any]:
    try:
        document = answer.json()
    except ValueError:
        return {}
    return document if isinstance(document, dict) else {}
