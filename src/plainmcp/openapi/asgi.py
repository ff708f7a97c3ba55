"""An ASGI app served in process: its lifespan run as a server does (startup before the first
call, shutdown at the end), and its lifespan state handed to every request, which
httpx2.ASGITransport alone does neither of."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from typing import Any

import anyio
import anyio.abc

Message = MutableMapping[str, Any]
App = Callable[..., Awaitable[None]]


class AppLifespanError(RuntimeError):
    """The app's lifespan startup failed (its message, as the app sent it)."""


class InProcess:
    """The app as httpx2.ASGITransport calls it: each request gets the lifespan's state."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.state: dict[str, Any] = {}

    async def __call__(self, scope: Message, receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket") and "state" not in scope:
            scope = {**scope, "state": dict(self.state)}
        await self.app(scope, receive, send)

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The app's lifespan, as ASGI's lifespan protocol runs it; an app that does not
        speak the protocol (it raises before answering startup) runs without one."""
        to_app, app_in = anyio.create_memory_object_stream[Message](1)
        app_out, from_app = anyio.create_memory_object_stream[Message](1)
        scope = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": self.state}
        unsupported = anyio.Event()

        async def run() -> None:
            try:
                await self.app(scope, app_in.receive, app_out.send)
            except Exception:
                unsupported.set()
                await app_out.aclose()

        failed: str | None = None
        raised: BaseException | None = None  # the body's, raised outside the task group
        async with anyio.create_task_group() as tasks, to_app, from_app:
            tasks.start_soon(run)
            await to_app.send({"type": "lifespan.startup"})
            started = await _answer(from_app)
            if started is not None and started["type"] == "lifespan.startup.failed":
                failed = _last_line(str(started.get("message", ""))) or "startup failed"
            else:
                try:
                    yield
                except BaseException as exc:
                    raised = exc
                if started is not None and not unsupported.is_set():
                    await to_app.send({"type": "lifespan.shutdown"})
                    await _answer(from_app)
            tasks.cancel_scope.cancel()
        if failed is not None:
            raise AppLifespanError(failed)
        if raised is not None:
            raise raised


def _last_line(message: str) -> str:
    """Starlette sends a traceback: its last line names the exception."""
    lines = [line for line in message.splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


async def _answer(stream: anyio.abc.ObjectReceiveStream[Message]) -> Message | None:
    try:
        return await stream.receive()
    except anyio.EndOfStream:
        return None
