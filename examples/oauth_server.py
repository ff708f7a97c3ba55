"""An MCP server behind plainmcp's authorization server, in front of an OpenID provider.

    python examples/oauth_server.py --port 8000 --upstream http://127.0.0.1:9000 \\
        --upstream-client mcp-proxy --upstream-secret mcp-proxy-secret \\
        --client conformance=http://127.0.0.1:3000/callback

The proxy registered itself with the upstream once (`--upstream-client`, its redirect URI
http://127.0.0.1:PORT/oauth/callback); hosts register with the proxy (DCR, a Client ID
Metadata Document, or `--client ID=REDIRECT_URI` pre-registered). Every request needs mcp:read
(the 401 names it, so a host's first login asks for no more); `remember` needs mcp:write too,
which a host gets by stepping up on its 403 insufficient_scope. The conformance suite's
authorization-server scenarios run against it (scripts/conformance), with npm oidc-provider
(tests/interop/oidc_provider.mjs) as the upstream.
"""

from __future__ import annotations

import argparse
import asyncio

import uvicorn

from plainmcp import BearerAuth, Server
from plainmcp.authorization import AuthorizationServer, Client, providers

app = Server("oauth-example")


@app.tool(scopes=["mcp:read"])
def whoami() -> str:
    """Answer once logged in with mcp:read."""
    return "logged in"


NOTES: list[str] = []


@app.tool(scopes=["mcp:write"])
def remember(note: str) -> str:
    """Keep a note in this process: a write, so it needs mcp:write on top of mcp:read."""
    NOTES.append(note)
    return f"remembered {note!r} ({len(NOTES)} notes)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--upstream", required=True, help="the OpenID provider's issuer")
    parser.add_argument("--upstream-client", required=True)
    parser.add_argument("--upstream-secret", default=None)
    parser.add_argument("--client", action="append", default=[], help="ID=REDIRECT_URI")
    args = parser.parse_args()
    issuer = f"http://127.0.0.1:{args.port}"
    upstream = asyncio.run(
        providers.oidc(args.upstream, args.upstream_client, args.upstream_secret)
    )
    clients = [Client(c.partition("=")[0], [c.partition("=")[2]]) for c in args.client]
    authorization = AuthorizationServer(
        issuer=issuer, upstream=upstream, scopes=["mcp:read", "mcp:write"], clients=clients
    )
    auth = BearerAuth(
        verify=authorization.verifier(),
        authorization_servers=[authorization.issuer],
        resource=authorization.resource,
        required_scopes=["mcp:read"],
        scopes_supported=authorization.scopes,
    )
    uvicorn.run(
        app.http_app(authorization=authorization, auth=auth),
        host="127.0.0.1",
        port=args.port,
        log_level="warning",
    )


if __name__ == "__main__":
    main()
