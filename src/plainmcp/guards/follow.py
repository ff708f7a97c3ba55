"""How the guards' markers name the continuation (read_more): its tool name, its signed refs,
and the `_meta` key of a result that holds one part. Here, below continuation.py, because the
guards write markers and the continuation tool reads them back."""

from __future__ import annotations

from typing import Any, NamedTuple

import orjson

from plainmcp.wire.request_state import StateSigner

PARTIAL = "plainmcp/partial"
"""The `_meta` key of a result that holds part of something: how much, of how much, and the
call that returns the next part (absent on the last part)."""


class Follow(NamedTuple):
    """How markers name the continuation: its tool name and the signer of its refs
    (a NamedTuple, not a dataclass: the class is made at every start, in a sixth of the time)."""

    name: str
    signer: StateSigner

    def ref(self, key: str, at: int = 0, path: str | None = None) -> str:
        payload: dict[str, Any] = {"k": key, "o": at}
        if path is not None:
            payload["p"] = path
        return self.signer.seal(payload)

    def sentence(self, ref: str) -> str:
        arguments = orjson.dumps({"ref": ref}).decode()
        return f"call the tool {self.name} with arguments {arguments}."

    def next_call(self, ref: str) -> dict[str, Any]:
        """The call in `_meta["plainmcp/partial"]["next"]`, for clients that read `_meta`."""
        return {"name": self.name, "arguments": {"ref": ref}}
