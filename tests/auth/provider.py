"""A real authorization server for the auth tests: npm oidc-provider, run by node 22 from
tests/interop/node_modules (scripts/setup installs both), on 127.0.0.1.

Locally the tests skip when it is not installed; under CI a missing tool fails (as the interop
tests do), so a broken setup cannot pass as skipped tests.
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import IO, Any

import httpx2
import pytest

from tests.http_server import free_port
from tests.interop.tools import INTEROP_DIR, NODE_MODULES, _in_ci, interop_tools_problem, node22_bin

SCRIPT = INTEROP_DIR / "oidc_provider.mjs"


def ensure_provider() -> None:
    """Skip without node 22 and oidc-provider; fail under CI."""
    problem = interop_tools_problem()
    if problem is None and not (NODE_MODULES / "oidc-provider" / "package.json").exists():
        problem = f"oidc-provider is not installed in {NODE_MODULES} (run scripts/setup)"
    if problem is None:
        return
    if _in_ci():
        pytest.fail(f"CI: {problem}", pytrace=False)
    pytest.skip(problem)


def _first_line(stream: IO[str], timeout: float) -> str:
    """The process's first line of output, waited for (not slept for) up to `timeout`."""
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: lines.put(stream.readline()), daemon=True).start()
    return lines.get(timeout=timeout)


@dataclass
class Provider:
    """oidc-provider on `port`; `restart()` is a key rotation (each start signs with a new key)."""

    port: int = field(default_factory=free_port)
    kid: str = ""
    proc: subprocess.Popen[str] | None = None

    @property
    def issuer(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [str(node22_bin()), str(SCRIPT), str(self.port)],
            cwd=INTEROP_DIR,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            text=True,
        )
        assert self.proc.stdout is not None
        ready = json.loads(_first_line(self.proc.stdout, 30))
        assert ready["issuer"] == self.issuer
        self.kid = ready["kid"]

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def token_response(self, client: str, resource: str, scope: str) -> dict[str, Any]:
        """The token endpoint's answer to a client_credentials grant for `resource`."""
        response = httpx2.post(
            f"{self.issuer}/token",
            data={"grant_type": "client_credentials", "resource": resource, "scope": scope},
            auth=(client, f"{client}-secret"),
        )
        response.raise_for_status()
        answer: dict[str, Any] = response.json()
        return answer

    def token(self, resource: str, scope: str = "mcp:read", client: str = "jwt-client") -> str:
        token: str = self.token_response(client, resource, scope)["access_token"]
        return token


@contextmanager
def running_provider() -> Iterator[Provider]:
    ensure_provider()
    provider = Provider()
    provider.start()
    try:
        yield provider
    finally:
        provider.stop()
