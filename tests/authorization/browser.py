"""A headless browser for logins: follows redirects, keeps cookies, and submits each page's
form (hidden fields kept, a `login` and `password` filled, the Allow button pressed) until a
redirect reaches `stop` (the client's redirect URI), whose URL it returns. Enough for
plainmcp's consent page and oidc-provider's development login and consent pages.

`python -m tests.authorization.browser URL STOP`: prints the final URL; then requests it
(a client's loopback callback server is waiting for it there)."""

from __future__ import annotations

import sys
from html.parser import HTMLParser
from urllib.parse import parse_qsl, urljoin, urlsplit

import httpx2


class _Form(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.action: str | None = None
        self.method = "get"
        self.fields: dict[str, str] = {}
        self.buttons: list[tuple[str, str]] = []
        self._in_form = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form" and self.action is None:
            self.action, self.method, self._in_form = (
                a.get("action", ""),
                a.get("method", "get"),
                True,
            )
        elif tag == "input" and self._in_form and a.get("name"):
            kind = a.get("type", "text").lower()
            if kind == "submit":
                self.buttons.append((a["name"], a.get("value", "")))
            elif kind in ("hidden", "text", "email", "password"):
                value = a.get("value", "")
                if a["name"] in ("login", "password") and kind != "hidden":
                    value = "alice"
                self.fields[a["name"]] = value
        elif tag == "button" and self._in_form and a.get("name"):
            self.buttons.append((a["name"], a.get("value", "")))

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._in_form = False


AUTHORIZE_PARAMETERS = [
    "client_id",
    "code_challenge",
    "code_challenge_method",
    "redirect_uri",
    "resource",
    "response_type",
    "scope",
    "state",
]


def authorization_request(url: str, issuer: str, resource: str, scope: str) -> dict[str, str]:
    """The query of the authorization URL a client sent its user to, checked: the issuer's
    /authorize, an authorization code with PKCE S256, for `resource` and `scope`, and nothing
    more (a client id, a redirect URI, a state)."""
    assert url.startswith(f"{issuer}/authorize?"), url
    query = dict(parse_qsl(urlsplit(url).query))
    assert sorted(query) == AUTHORIZE_PARAMETERS
    assert (query["response_type"], query["code_challenge_method"]) == ("code", "S256")
    assert (query["resource"], query["scope"]) == (resource, scope)
    return query


def log_in(url: str, stop: str, *, limit: int = 20) -> str:
    """The URL the login ends at (on `stop`), its query the client's code and state."""
    with httpx2.Client(timeout=30.0) as http:
        answer = http.get(url)
        for _ in range(limit):
            if answer.is_redirect:
                target = urljoin(str(answer.url), answer.headers["location"])
                if target.startswith(stop):
                    return target
                answer = http.get(target)
                continue
            form = _Form()
            form.feed(answer.text)
            if form.action is None:
                raise RuntimeError(f"no form at {answer.url}: HTTP {answer.status_code}")
            data = dict(form.fields)
            allow = [b for b in form.buttons if b[1] in ("allow", "Allow")]
            if allow or form.buttons:
                name, value = (allow or form.buttons)[0]
                data[name] = value
            target = urljoin(str(answer.url), form.action or str(answer.url))
            if form.method.lower() == "post":
                answer = http.post(target, data=data)
            else:
                answer = http.get(target, params=data)
        raise RuntimeError(f"the login did not reach {stop} in {limit} steps")


if __name__ == "__main__":
    final = log_in(sys.argv[1], sys.argv[2])
    print(final)
    httpx2.get(final, timeout=30.0)
