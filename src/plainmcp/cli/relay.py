"""The stdio side of `plainmcp dev`: one long-lived session for the host, served by a child
process that is replaced whenever the code changes.

The relay keeps what the host set up (its initialize request and the result it got, the log
level, resource subscriptions) and replays it to each new child before that child takes over,
so the host never sees a second handshake. A new child serves only once it has imported the
code and answered that replay; until then the old one keeps serving, so a file that fails to
import leaves the last good version in place. Requests the old child had not answered get an
error at the switch (never a hang), and the host is told to list again
(notifications/*/list_changed for each list its session announced as changing).

A 2026-07-28 host has no session: it hears list changes on its subscriptions/listen requests,
which stay open across restarts. Each is sent again, with the host's own id, to the new child
(whose acknowledgement the host does not see a second time), the switch hands it over, and the
host hears notifications/*/list_changed on it for each list change it asked for and was granted.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.abc

from plainmcp.notify import LISTEN_FEATURE, tagged
from plainmcp.transports.stdio import LineSplitter
from plainmcp.wire.jsonrpc import INTERNAL_ERROR
from plainmcp.wire.meta import SUBSCRIPTION_ID

READY = "notifications/plainmcp/dev"
"""The child's first line: it imported the code (and which files), and serves."""
OWN_ID = "plainmcp-dev-"
"""The prefix of the ids of the relay's own requests to a child (replayed setup)."""
LISTS = ("tools", "resources", "prompts")
LIMIT = 64 * 1024 * 1024
LISTEN = "subscriptions/listen"
ACKNOWLEDGED = "notifications/subscriptions/acknowledged"


def log(text: str) -> None:
    print(f"plainmcp dev: {text}", file=sys.stderr, flush=True)


def _key(value: Any) -> str:
    """A request id as a dict key: 1 and "1" are different ids."""
    return json.dumps(value)


def _messages(line: bytes) -> list[dict[str, Any]]:
    """The JSON-RPC objects of a line (one, or a batch's members); [] when it does not parse."""
    try:
        parsed = json.loads(line)
    except ValueError:
        return []
    items = parsed if isinstance(parsed, list) else [parsed]
    return [m for m in items if isinstance(m, dict)]


def _listen_of(message: dict[str, Any]) -> str | None:
    """The key of the subscriptions/listen stream an acknowledgement belongs to."""
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    if not isinstance(meta, dict) or SUBSCRIPTION_ID not in meta:
        return None
    return _key(meta[SUBSCRIPTION_ID])


def _list_changed(kind: str, params: dict[str, Any] | None = None) -> bytes:
    note: dict[str, Any] = {"jsonrpc": "2.0", "method": f"notifications/{kind}/list_changed"}
    if params is not None:
        note["params"] = params
    return json.dumps(note).encode()


def _error(request_id: Any, message: str) -> bytes:
    error = {"code": INTERNAL_ERROR, "message": message}
    reply = {"jsonrpc": "2.0", "id": request_id, "error": error}
    return json.dumps(reply).encode()


@dataclass(eq=False)
class Child:
    """One server process and what the relay tracks of it."""

    process: anyio.abc.Process
    files: list[str] | None = None
    """The source files it imported (its ready message); None until it sent that."""
    loaded: anyio.Event = field(default_factory=anyio.Event)
    """Set at its ready message, or when it exits before it."""
    asked: set[str] = field(default_factory=set)
    """Ids of its requests to the host not answered yet."""
    waiting: dict[str, tuple[anyio.Event, list[dict[str, Any]]]] = field(default_factory=dict)
    """The relay's own requests to it, by id, and the host's listens sent to it again (their
    acknowledgement, or a refusal, ends the wait)."""

    async def send(self, line: bytes) -> None:
        assert self.process.stdin is not None
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            await self.process.stdin.send(line + b"\n")  # if it exited, its reader says so

    async def stop(self) -> None:
        with anyio.CancelScope(shield=True):
            assert self.process.stdin is not None
            await self.process.stdin.aclose()
            with anyio.move_on_after(2):
                await self.process.wait()
            if self.process.returncode is None:
                self.process.kill()
                await self.process.wait()


class Relay:
    """Host messages to the current child and back; `restart()` swaps the child."""

    def __init__(
        self,
        command: list[str],
        write: Callable[[bytes], None],
        tasks: anyio.abc.TaskGroup,
        file: str,
    ) -> None:
        self.command = command
        self.write = write
        """A line to the host (without its newline)."""
        self.tasks = tasks
        self.file = file
        self.child: Child | None = None
        self.exit_code: int | None = None
        """The last child's exit status, when it exited on its own (a crash)."""
        self.initialize: dict[str, Any] | None = None
        """The host's initialize request (replayed to each new child)."""
        self.offered: dict[str, Any] | None = None
        """The initialize result the host got: its lists that announce changes."""
        self.initialized = False
        self.level: dict[str, Any] | None = None
        self.subscriptions: dict[str, dict[str, Any]] = {}
        self.pending: dict[str, tuple[Child, Any, str]] = {}
        """Host requests a child is serving: id key -> (child, id, method)."""
        self.listens: dict[str, dict[str, Any]] = {}
        """The host's open subscriptions/listen requests (2026-07-28), by id key."""
        self.granted: dict[str, dict[str, Any]] = {}
        """What each listen's acknowledgement (the one the host saw) granted."""
        self._own = 0

    # --- children --------------------------------------------------------------------------

    async def spawn(self) -> Child:
        process = await anyio.open_process(self.command, stderr=None)
        child = Child(process)
        self.tasks.start_soon(self._read_child, child)
        return child

    async def start(self) -> bool:
        """The first child: it serves as soon as it has loaded (the host's own handshake
        reaches it as usual)."""
        child = await self.spawn()
        self.child = child
        await child.loaded.wait()
        return child.files is not None

    async def restart(self) -> list[str] | None:
        """Replace the child with a new one that loaded and took the session's setup; the
        new child's files, or None when it failed (the old one goes on serving)."""
        child = await self.spawn()
        await child.loaded.wait()
        acks = await self._replay(child) if child.files is not None else None
        if acks is None:
            await child.stop()
            return None
        old, self.child = self.child, child
        self.exit_code = None
        for key, (owner, request_id, method) in list(self.pending.items()):
            if key in self.listens:  # kept open: the new child serves it from now on
                self.pending[key] = (child, request_id, method)
            elif owner is old:
                del self.pending[key]
                self.write(
                    _error(
                        request_id,
                        f"plainmcp dev restarted the server ({self.file} changed) while it"
                        f" served this {method}; send it again",
                    )
                )
        for key, ack in acks.items():
            if key not in self.granted:  # the old child had not acknowledged it yet
                self._acknowledged(key, ack)
                self.write(json.dumps(ack).encode())
        if old is not None:
            await old.stop()
        self._lists_changed()
        return child.files

    def _lists_changed(self) -> None:
        """Tell the host to list again: on its session, each list it was told announces
        changes; on each listen stream, each list change it was granted."""
        capabilities = (self.offered or {}).get("capabilities", {})
        for kind in LISTS:
            offered = capabilities.get(kind)
            if isinstance(offered, dict) and offered.get("listChanged"):
                self.write(_list_changed(kind))
        for key, listen in self.listens.items():
            granted = self.granted.get(key, {})
            for flag, kind in LISTEN_FEATURE.items():
                if granted.get(flag) is True:
                    self.write(_list_changed(kind, tagged(listen["id"])))

    async def _replay(self, child: Child) -> dict[str, dict[str, Any]] | None:
        """The session's setup and the host's open listens, sent to a new child: the listens'
        acknowledgements by id key, or None when it refused something or exited."""
        if self.initialize is not None:
            if await self._ask(child, "initialize", self.initialize.get("params")) is None:
                return None
            if self.initialized:
                await child.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
            level = self.level
            if level is not None and await self._ask(child, "logging/setLevel", level) is None:
                return None
            for params in self.subscriptions.values():
                if await self._ask(child, "resources/subscribe", params) is None:
                    return None
        acks: dict[str, dict[str, Any]] = {}
        while missing := [k for k in self.listens if k not in acks]:  # opened meanwhile too
            for key in missing:
                listen = self.listens.get(key)
                if listen is None:
                    continue  # closed before it was sent
                ack = await self._relisten(child, key, listen)
                if ack is None:
                    return None
                acks[key] = ack
        for key in [k for k in acks if k not in self.listens]:  # closed meanwhile
            del acks[key]
            cancel = {"requestId": json.loads(key)}
            note = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancel}
            await child.send(json.dumps(note).encode())
        return acks

    async def _relisten(
        self, child: Child, key: str, listen: dict[str, Any]
    ) -> dict[str, Any] | None:
        """The host's listen, sent to a new child with the host's id: its acknowledgement, or
        None when it refused it (an error) or exited."""
        done, box = anyio.Event(), list[dict[str, Any]]()
        child.waiting[key] = (done, box)
        await child.send(json.dumps(listen).encode())
        with anyio.move_on_after(60):
            await done.wait()
        child.waiting.pop(key, None)
        if not box or box[0].get("method") != ACKNOWLEDGED:
            what = box[0].get("error") if box else "no answer"
            log(f"the new server did not accept {LISTEN} ({what})")
            return None
        return box[0]

    def _acknowledged(self, key: str, ack: dict[str, Any]) -> None:
        granted = ack.get("params", {}).get("notifications")
        self.granted[key] = granted if isinstance(granted, dict) else {}

    async def _ask(self, child: Child, method: str, params: Any) -> dict[str, Any] | None:
        self._own += 1
        request_id = f"{OWN_ID}{self._own}"
        done, box = anyio.Event(), list[dict[str, Any]]()
        child.waiting[_key(request_id)] = (done, box)
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        await child.send(json.dumps(message).encode())
        with anyio.move_on_after(60):
            await done.wait()
        child.waiting.pop(_key(request_id), None)
        if not box or "result" not in box[0]:
            what = box[0].get("error") if box else "no answer"
            log(f"the new server did not accept {method} ({what})")
            return None
        result: dict[str, Any] = box[0]["result"]
        return result

    async def _read_child(self, child: Child) -> None:
        assert child.process.stdout is not None
        splitter = LineSplitter(LIMIT)
        try:
            async for chunk in child.process.stdout:
                for line in splitter.feed(chunk):
                    self._from_child(child, line)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            pass
        for line in splitter.finish():
            self._from_child(child, line)
        code = await child.process.wait()
        child.loaded.set()
        for done, _ in child.waiting.values():
            done.set()
        if child is self.child:  # exited on its own, not replaced
            self.child = None
            self.exit_code = code
            log(f"the server exited (code {code}); save {self.file} to start it again")
            for key, (owner, request_id, _) in list(self.pending.items()):
                if owner is child and key not in self.listens:  # listens wait for the next
                    del self.pending[key]
                    self.write(_error(request_id, self._down()))

    def _from_child(self, child: Child, line: bytes) -> None:
        messages = _messages(line)
        for message in messages:
            if message.get("method") == READY and "id" not in message:
                files = message.get("params", {}).get("files")
                child.files = [f for f in files if isinstance(f, str)] if files else []
                child.loaded.set()
                return
        current = child is self.child
        for message in messages:
            key = _key(message.get("id"))
            if "method" in message:
                if "id" in message and current:
                    child.asked.add(key)  # a request of the server's (sampling, elicitation)
                elif message["method"] == ACKNOWLEDGED:
                    listen = _listen_of(message)
                    if listen is not None and listen in child.waiting:  # a listen sent again
                        done, box = child.waiting[listen]
                        box.append(message)
                        done.set()
                        return
                    if listen is not None and current:
                        self._acknowledged(listen, message)
            elif key in child.waiting:
                done, box = child.waiting[key]
                box.append(message)
                done.set()
                return
            elif key in self.pending and self.pending[key][0] is child:
                entry = self.pending.pop(key)
                if key in self.listens:  # the listen ended (the child's answer)
                    del self.listens[key]
                    self.granted.pop(key, None)
                if (
                    entry[2] == "initialize"
                    and self.initialize is not None
                    and isinstance(message.get("result"), dict)
                ):
                    self.offered = message["result"]
        if current:
            self.write(line)

    # --- the host ---------------------------------------------------------------------------

    def _down(self) -> str:
        return (
            f"the server is not running (it exited with code {self.exit_code});"
            f" plainmcp dev starts it again when you save {self.file}"
        )

    async def from_host(self, line: bytes) -> None:
        child = self.child
        forward = True
        for message in _messages(line):
            method, has_id = message.get("method"), "id" in message
            key = _key(message.get("id"))
            if isinstance(method, str) and has_id:
                params = message.get("params")
                if method == "initialize":
                    self.initialize = message
                elif method == LISTEN and child is not None:
                    self.listens[key] = message
                elif method == "logging/setLevel":
                    self.level = params
                elif method.startswith("resources/") and method.endswith("subscribe"):
                    uri = params.get("uri") if isinstance(params, dict) else None
                    if method == "resources/subscribe" and isinstance(params, dict):
                        self.subscriptions[str(uri)] = params
                    else:
                        self.subscriptions.pop(str(uri), None)
                if child is None:
                    self.write(_error(message["id"], self._down()))
                    forward = False
                else:
                    self.pending[key] = (child, message["id"], method)
            elif method == "notifications/initialized":
                self.initialized = True
            elif method == "notifications/cancelled":
                params = message.get("params")
                if isinstance(params, dict) and "requestId" in params:
                    cancelled = _key(params["requestId"])
                    self.pending.pop(cancelled, None)  # it gets no answer
                    self.listens.pop(cancelled, None)
                    self.granted.pop(cancelled, None)
            elif method is None and has_id and child is not None:
                if key in child.asked:
                    child.asked.discard(key)
                else:
                    forward = False  # an answer to a server that was replaced
        if child is not None and forward:
            await child.send(line)


def host_writer(fd: int) -> Callable[[bytes], None]:
    def write(line: bytes) -> None:
        view = memoryview(line + b"\n")
        try:
            while view:
                view = view[os.write(fd, view) :]
        except OSError:
            pass  # the host went away; stdin's end stops the relay

    return write
