"""A server for the cluster test of stored results' owners, run as `python FILE PORT`: bearer
auth with four tokens, its sessions and its blob store on the Redis named by
PLAINMCP_TEST_SESSIONS (the state secret comes from PLAINMCP_STATE_SECRET, one for all)."""

from __future__ import annotations

import os
import sys

from plainmcp import Server
from plainmcp.redis_store import RedisStore
from plainmcp.transports.http import BearerAuth, Principal

REDIS = os.environ["PLAINMCP_TEST_SESSIONS"]
ADMIN = frozenset({"mcp", "mcp:admin"})
TOKENS = {
    "alice": Principal("alice", ADMIN),
    "alice-no-admin": Principal("alice", frozenset({"mcp"})),
    "bob": Principal("bob", frozenset({"mcp"})),
    "bob-admin": Principal("bob", ADMIN),
}
ROW = "Row {:06d}: confidential figures for the board, é and ô. \n"
REPORT = "".join(ROW.format(n) for n in range(3000))

app = Server("owned-cluster", "1.0.0", blob_store=RedisStore(REDIS))


@app.tool(scopes=["mcp:admin"])
def report() -> str:
    """The board's report."""
    return REPORT


@app.tool
def pid() -> int:
    """The process that served the call."""
    return os.getpid()


if __name__ == "__main__":
    auth = BearerAuth(TOKENS.get, ["https://as.example.test"])
    app.run("http", port=int(sys.argv[1]), sessions=REDIS, auth=auth)
