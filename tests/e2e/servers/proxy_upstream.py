"""An upstream for the proxy's tests, over stdio: `die` ends the process mid-call (as a crash
would), `pid` says which process answered, so a test sees the proxy reconnect."""

from __future__ import annotations

import os

from plainmcp import Server

app = Server("upstream", continuation=None)


@app.tool
def pid() -> int:
    """This process's id."""
    return os.getpid()


@app.tool
def die() -> str:
    """Exit at once, without answering."""
    os._exit(3)


if __name__ == "__main__":
    app.run()
