"""The consent page: the user sees which client asks for what, and where the answer goes,
before the proxy sends them on to the upstream provider (which may remember an earlier
consent to the proxy itself and ask nothing: the MCP spec's confused-deputy case, so the
proxy asks for every client, every time)."""

from __future__ import annotations

from html import escape
from urllib.parse import urlsplit

from plainmcp.authorization.authorize import AuthorizeRequest
from plainmcp.authorization.messages import Response, page

COOKIE = "plainmcp_consent"


def consent_page(
    request: AuthorizeRequest, client_name: str | None, login: str, csrf: str, action: str
) -> Response:
    """The form; `csrf` also goes in a cookie only this browser has, so a forged POST from
    another site (which cannot send it: SameSite=Lax) is refused."""
    name = escape(client_name or request.client_id)
    target = escape(urlsplit(request.redirect_uri).netloc or request.redirect_uri)
    scopes = "".join(f"<li>{escape(s)}</li>" for s in request.scope.split()) or "<li>(none)</li>"
    body = (
        f"<h1>Allow {name}?</h1>"
        f"<p>Client id: <code>{escape(request.client_id)}</code></p>"
        f"<p>It asks for access to <code>{escape(request.resource)}</code> with the scopes:</p>"
        f"<ul>{scopes}</ul>"
        f"<p>After you log in, you will be sent back to <code>{target}</code>.</p>"
        f"<form method='post' action='{escape(action)}'>"
        f"<input type='hidden' name='login' value='{escape(login)}'>"
        f"<input type='hidden' name='csrf' value='{escape(csrf)}'>"
        "<button type='submit' name='decision' value='allow'>Allow</button> "
        "<button type='submit' name='decision' value='deny'>Deny</button>"
        "</form>"
    )
    return page(200, f"Allow {client_name or request.client_id}?", body)


def cookie(csrf: str, path: str, secure: bool) -> tuple[str, str]:
    attributes = f"{COOKIE}={csrf}; Path={path or '/'}; HttpOnly; SameSite=Lax; Max-Age=600"
    return ("set-cookie", attributes + ("; Secure" if secure else ""))


def cookie_value(header: str | None) -> str | None:
    for part in (header or "").split(";"):
        name, _, value = part.strip().partition("=")
        if name == COOKIE:
            return value
    return None
