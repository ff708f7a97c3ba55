"""A server behind bearer auth for the HTTP end-to-end tests: two tokens, two subjects, and a
tool that asks its caller for input (a 2026-07-28 input-required round).

Run as `python auth_probe.py PORT`: the auth is part of the app it serves.
"""

from __future__ import annotations

import sys

from plainmcp import Context, Server
from plainmcp.transports.http.security import BearerAuth, Principal

app = Server("auth-probe", "1.0.0")

TOKENS = {"token-ada": "ada", "token-bob": "bob"}


def verify(token: str) -> Principal | None:
    subject = TOKENS.get(token)
    return Principal(subject) if subject is not None else None


AUTH = BearerAuth(verify, authorization_servers=["https://auth.example.test"])


@app.tool
async def confirm(ctx: Context, what: str) -> str:
    """Asks the caller to confirm `what`."""
    answer = await ctx.elicit(
        f"Confirm {what}?",
        {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]},
    )
    return f"{ctx.principal.subject} confirmed {what}: {answer.content}"


if __name__ == "__main__":
    app.run("http", port=int(sys.argv[1]), auth=AUTH)
