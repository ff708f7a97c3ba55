"""A JWT-protected plainmcp server for the SDK client test: `python served_app.py PORT`, with
the authorization server's issuer in PLAINMCP_TEST_ISSUER."""

from __future__ import annotations

import os
import sys

from plainmcp import BearerAuth, Context, Server
from plainmcp.auth import JwtVerifier

port = int(sys.argv[1])
issuer = os.environ["PLAINMCP_TEST_ISSUER"]
resource = f"http://127.0.0.1:{port}/mcp"
app = Server("sdk-oauth")


@app.tool
def whoami(ctx: Context) -> str:
    return f"{ctx.principal.subject} {' '.join(sorted(ctx.principal.scopes))}"


@app.tool(scopes=["mcp:admin"])
def purge(ctx: Context) -> str:
    return f"purged with {' '.join(sorted(ctx.principal.scopes))}"


# The 401 asks for mcp:read (the SDK requests what the challenge names); purge's 403 asks
# for mcp:read and mcp:admin, and the SDK steps up to both.
auth = BearerAuth(
    JwtVerifier(issuer, resource),
    [issuer],
    resource=resource,
    required_scopes=["mcp:read"],
    scopes_supported=["mcp:read", "mcp:admin"],
)
app.run("http", port=port, auth=auth)
